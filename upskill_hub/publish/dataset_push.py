"""What publishing a run folder to a results dataset needs whatever the run: the dataset's repo id
and split name, rows checked against their schema and pushed as one config's split with
``datasets``, the card rewritten with files beside it in one commit, and the run folder's files
read and refused when they hold a symbolic link; and a config's splits read back
(:func:`load_splits`). ``datasets`` is imported only when pushing or reading."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import HubError, RepoNotFoundError, UsageError
from upskill_hub.secrets import Redactor
from upskill_hub.skill.schemas import load_schema, schema_errors

if TYPE_CHECKING:
    from datasets import Features

    from upskill_hub.hub.client import Hub

CARD_FILE = "README.md"


@dataclass(frozen=True)
class PushedResults:
    """Where a run was published: the dataset, its head commit and split, and the skill card."""

    repo_id: str
    url: str
    commit: str
    split: str
    skill_card_commit: str | None = None
    skill_card_pr_url: str | None = None
    signed_by: str | None = None  # the key (or certificate) that signed the split

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def split_name(run_id: str) -> str:
    """The dataset split of a run: ``run_`` + the run id with every non-word run made ``_``."""
    slug = re.sub(r"\W+", "_", run_id, flags=re.ASCII).strip("_")
    if not slug:
        raise UsageError(f"run id {run_id!r} gives no usable split name")
    return slug if slug.startswith("run_") else f"run_{slug}"


def dataset_repo_id(repo_id: str) -> str:
    """``repo_id`` checked as ``NS/NAME`` (no revision); a UsageError otherwise."""
    from upskill_hub.hub.client import parse_spec

    parsed, revision = parse_spec(repo_id)
    if revision is not None:
        raise UsageError(f"{repo_id!r}: give the dataset as NS/NAME, without '@revision'")
    return parsed


def refuse_links(path: Path) -> None:
    """A run folder holds only files eval wrote: a symlink in it (``lift.png`` pointing at
    ``~/.aws/credentials``) would publish whatever it points at, so nothing is published."""
    for entry in sorted(path.rglob("*")):
        if entry.is_symlink():
            raise UsageError(
                f"{entry}: a symbolic link in a run folder; refusing to publish (eval writes "
                "only regular files)"
            )


def check_rows(rows: list[dict[str, Any]], schema: str, source: Path) -> None:
    """Raise a one-line UsageError naming the first row that does not fit ``schema``."""
    for number, row in enumerate(rows, 1):
        errors = schema_errors(schema, row)
        if errors:
            where, message = errors[0]
            raise UsageError(f"{source}: row {number} is not publishable ({where}: {message})")


def dataset_features(schema: str) -> Features:
    """The ``datasets`` features of a row schema (column order = the schema's properties)."""
    from datasets import Features, List, Value

    scalars = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}

    def feature(prop: dict[str, Any]) -> Any:
        declared = prop["type"]
        kind = declared if isinstance(declared, str) else next(t for t in declared if t != "null")
        if kind == "array":
            return List(feature(prop["items"]))
        if kind == "object":
            return {name: feature(p) for name, p in prop["properties"].items()}
        return Value(scalars[kind])

    return Features({n: feature(p) for n, p in load_schema(schema)["properties"].items()})


def push_config_rows(
    hub: Hub,
    repo_id: str,
    config: str,
    schema: str,
    rows: list[dict[str, Any]],
    split: str,
    token: str | None,
) -> str:
    """Push ``rows`` (fitting ``schema``) as the split ``split`` of the config ``config``.

    A dataset whose earlier splits were published before some of the schema's columns existed
    (the cost columns, say) takes the new split with those columns left out: every split of a
    config has the same columns, and the earlier ones cannot gain them."""
    from datasets import Dataset

    dataset = Dataset.from_list(rows, features=dataset_features(schema))

    def push(data: Dataset) -> Any:
        return hub.call(
            lambda: data.push_to_hub(
                repo_id,
                config_name=config,
                split=split,
                commit_message=f"Add {config} of {split}",
                token=token,
            ),
            repo_id=repo_id,
            action=f"push {config}",
        )

    try:
        info = push(dataset)
    except ValueError as exc:  # e.g. the repo's existing config has other columns
        older = _older_columns(repo_id, config, token, dataset.column_names)
        if older is None:
            first = str(exc).splitlines()[0][:200]
            raise HubError(
                f"{repo_id}: cannot add {config}/{split} to this dataset ({first})"
            ) from exc
        info = push(dataset.select_columns(older))
    return str(info.oid)


def _older_columns(
    repo_id: str, config: str, token: str | None, ours: list[str]
) -> list[str] | None:
    """The columns of ``config``'s published splits when they are a subset of ``ours`` (a
    dataset from before some columns existed), else None."""
    from datasets import load_dataset_builder

    try:
        features = load_dataset_builder(repo_id, config, token=token).info.features
    except Exception:  # unreadable: the push's own error stands
        return None
    if not features:
        return None
    names = list(features)
    return names if set(names) < set(ours) else None


def write_card(
    hub: Hub,
    repo_id: str,
    card: Callable[[str], str],
    files: dict[str, bytes],
    split: str,
    redactor: Redactor,
) -> str:
    """Rewrite README.md as ``card(existing card)`` says and upload ``files`` (repo path ->
    bytes) in the same commit.

    The commit names its parent, so a push landing in between makes it retry on the new card.
    """
    from huggingface_hub import CommitOperationAdd

    for attempt in range(1, 4):
        head = hub.head(repo_id, "dataset")
        if head is None:
            raise HubError(f"{repo_id}: the Hub returned no commit for the dataset")
        existing = hub.download_file(repo_id, CARD_FILE, head, "dataset").read_text("utf-8")
        ops = [CommitOperationAdd(CARD_FILE, redactor(card(existing)).encode("utf-8"))]
        ops += [CommitOperationAdd(path, data) for path, data in files.items()]
        try:
            info = hub.create_commit(
                repo_id,
                ops,
                message=f"Card, chart and tests for {split}",
                repo_type="dataset",
                parent_commit=head,
            )
        except HubError as exc:
            if attempt == 3 or exc.status != 412:
                raise
            continue
        return str(info.oid)
    raise AssertionError("unreachable")  # pragma: no cover


def read_run_json(path: Path) -> Any:
    """A JSON file of a run folder; one UsageError line naming it when unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: unreadable ({type(exc).__name__})") from None


def load_splits(
    repo_id: str, config: str, *, revision: str | None = None, split: str | None = None
) -> dict[str, list[dict[str, Any]]] | None:
    """Every split of ``config`` as rows, or only ``split`` (``{}`` when there is no such
    split), at ``revision`` (default: the latest); None when the dataset has no such config.
    Hub failures become typed one-line errors."""
    from datasets import load_dataset
    from datasets.exceptions import DatasetNotFoundError

    from upskill_hub.datasets_quiet import quiet_datasets
    from upskill_hub.hub.client import Hub

    hub = Hub()
    try:
        with quiet_datasets():
            loaded = load_dataset(repo_id, config, revision=revision, split=split)
    except DatasetNotFoundError as exc:
        message = f"{repo_id}: no such dataset on {hub.endpoint} (private ones need HF_TOKEN)"
        raise RepoNotFoundError(message) from exc
    except ConnectionError as exc:
        raise HubError(
            f"{repo_id}: cannot reach the Hub at {hub.endpoint}; check the network or HF_ENDPOINT"
        ) from exc
    except ValueError as exc:
        if split is not None and "split" in str(exc).lower():
            return {}
        if "config" in str(exc).lower():
            return None
        raise
    except Exception as exc:
        mapped = hub.map_error(exc, repo_id=repo_id, action="load the summary")
        if mapped is None:
            raise
        raise mapped from exc
    if split is not None:
        return {split: loaded.to_list()}
    return {name: ds.to_list() for name, ds in loaded.items()}
