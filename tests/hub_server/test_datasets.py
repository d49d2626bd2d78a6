"""datasets' push_to_hub / load_dataset round trips against the local server."""

from __future__ import annotations

from datasets import Dataset, load_dataset
from huggingface_hub import HfApi


def test_push_two_configs_then_a_second_split(unique_repo_id: str) -> None:
    Dataset.from_dict({"q": ["a", "b"], "score": [1, 2]}).push_to_hub(
        unique_repo_id, config_name="first"
    )
    Dataset.from_dict({"x": [10, 20, 30]}).push_to_hub(unique_repo_id, config_name="second")
    Dataset.from_dict({"q": ["c"], "score": [3]}).push_to_hub(
        unique_repo_id, config_name="first", split="test"
    )

    files = HfApi().list_repo_files(unique_repo_id, repo_type="dataset")
    assert any(f.startswith("first/train-") and f.endswith(".parquet") for f in files)
    assert any(f.startswith("first/test-") for f in files)
    assert any(f.startswith("second/train-") for f in files)

    first = load_dataset(unique_repo_id, "first")
    assert sorted(first.keys()) == ["test", "train"]
    assert first["train"]["q"] == ["a", "b"]
    assert first["test"]["score"] == [3]
    second = load_dataset(unique_repo_id, "second", split="train")
    assert second["x"] == [10, 20, 30]
