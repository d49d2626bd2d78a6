"""What a pass costs: ``eval --price``, the built-in price table, and the cost figures of
summary.json, ``--format json``, the results dataset rows, the card and the CLI table.

Costs are checked by hand against a real local OpenAI-compatible server whose usage numbers
are whitespace token counts of what it was sent and what it answered.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.support.eval_runs import FACT, canary_skill, marker, quuxium_cases, run_eval
from tests.support.llm_servers import openai_server
from tests.support.responders import last_user_message, system_prompt
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.pricing import (
    Price,
    builtin_prices,
    cost_usd,
    parse_price,
    price_for,
    resolve_prices,
)
from upskill_hub.evaluation.run.folder import load_run
from upskill_hub.evaluation.stats.intervals import ratio_interval, t_quantile
from upskill_hub.publish.dataset_card import run_section
from upskill_hub.publish.results_dataset import summary_rows

NAME = "canary-costs"
MARKER = marker(NAME)
#: Cases the with-skill arm answers right (q3 it does not); the baseline knows only q0.
SKILL_KNOWS = ("Q0:", "Q1:", "Q2:")


def responder(request: dict[str, Any]) -> str:
    asked = last_user_message(request)
    if MARKER in system_prompt(request):
        if asked.startswith(SKILL_KNOWS):
            return f"It is {FACT}."
        return "I am not sure about this one at all, sorry."
    return f"It is {FACT}, I believe." if asked.startswith("Q0:") else "No idea."


def words(text: str) -> int:
    return len(text.split())


def by_hand(requests: list[Any], price_in: float, price_out: float) -> dict[str, Any]:
    """Per arm: cost in dollars, answered samples, passes, per-case (cost, passes), from what
    the server was sent and answered (no code of ours)."""
    arms: dict[str, dict[str, Any]] = {}
    for request in requests:
        body = request.json
        prompt = sum(words(str(m["content"])) for m in body["messages"])
        reply = responder(body)
        cost = (prompt * price_in + words(reply) * price_out) / 1e6
        arm = arms.setdefault(
            "with_skill" if MARKER in system_prompt(body) else "baseline",
            {"usd": 0.0, "samples": 0, "passed": 0, "cases": {}},
        )
        case = last_user_message(body).split(":")[0]
        passed = FACT in reply
        arm["usd"] += cost
        arm["samples"] += 1
        arm["passed"] += passed
        c, p = arm["cases"].get(case, (0.0, 0))
        arm["cases"][case] = (c + cost, p + passed)
    return arms


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    return canary_skill(tmp_path, quuxium_cases(4), name=NAME)


def test_costs_by_hand_through_a_local_server(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with openai_server(responder) as srv:
        done = run_eval(
            skill_dir,
            srv.base_url,
            "--model",
            "fake-model",
            "--runs",
            "2",
            "--price",
            "fake-model=2/10",
            "--output",
            str(out),
            "--format",
            "json",
        )
        requests = srv.requests
    assert done.returncode == 0, done.stderr
    (model,) = json.loads(done.stdout)["models"]
    expected = by_hand(requests, 2.0, 10.0)
    for arm in ("baseline", "with_skill"):
        want, cost = expected[arm], model[arm]["cost"]
        assert cost["usd"] == pytest.approx(want["usd"], abs=1e-6)
        assert cost["per_sample"] == pytest.approx(want["usd"] / want["samples"], abs=1e-6)
        assert cost["per_passed"] == pytest.approx(want["usd"] / want["passed"], abs=1e-6)
        # the case jackknife of log(cost per pass) over the 4 cases, t(3); the baseline's
        # passes are all in q0, so there the delta method on the log scale stands in
        per_case = list(want["cases"].values())
        r = want["usd"] / want["passed"]
        if all(p < want["passed"] for _, p in per_case):
            left_out = [math.log((want["usd"] - c) / (want["passed"] - p)) for c, p in per_case]
            mean = sum(left_out) / 4
            var_log = 3 / 4 * sum((v - mean) ** 2 for v in left_out)
        else:
            assert arm == "baseline"
            var_log = 4 / 3 * sum((c - r * p) ** 2 for c, p in per_case) / want["usd"] ** 2
        half = t_quantile(0.975, 3) * math.sqrt(var_log)
        assert cost["per_passed_ci95"] == pytest.approx(
            [r * math.exp(-half), r * math.exp(half)], abs=1e-6
        )
        assert model[arm]["tokens"]["cached_input"] == 0.0
    base, skill = expected["baseline"], expected["with_skill"]
    ratio = (skill["usd"] / skill["samples"]) / (base["usd"] / base["samples"])
    assert model["cost_ratio"] == pytest.approx(ratio, abs=1e-5)
    assert model["token_ratio"]["input"] == pytest.approx(
        model["with_skill"]["tokens"]["input"] / model["baseline"]["tokens"]["input"], abs=1e-5
    )
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    info = json.loads((run_dir / "run.json").read_text())
    assert info["prices"] == {
        "fake-model": {
            "input": 2.0,
            "output": 10.0,
            "cached_input": None,
            "cache_write": None,
            "source": "--price",
        }
    }
    # the same figures in the results dataset row and the card, and the run still checks
    rows = summary_rows(load_run(run_dir))
    row = next(r for r in rows if r["arm"] == "with_skill")
    assert row["cost_usd"] == pytest.approx(skill["usd"], abs=1e-6)
    assert row["cost_per_passed"] == pytest.approx(skill["usd"] / skill["passed"], abs=1e-6)
    assert row["cost_ratio"] == pytest.approx(ratio, abs=1e-5)
    card = run_section(load_run(run_dir), split="train", rows=rows, chart_path=None)
    assert "`fake-model` $2 in / $10 out (--price)" in card
    assert "unpriced" not in card.split("### Method")[0]

    from upskill_hub.publish.run_consistency import check_run_consistency

    assert check_run_consistency(run_dir) == []
    text = run_eval(skill_dir, None, "--resume", str(run_dir), "--output", str(out))
    assert text.returncode == 0, text.stderr
    assert "$/pass" in text.stdout
    assert f"${skill['usd'] / skill['passed']:.3g}" in text.stdout  # 3 digits


def test_unpriced_models_stay_null_everywhere(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with openai_server(responder) as srv:
        done = run_eval(
            skill_dir, srv.base_url, "--model", "gpt-4o-mini", "--output", str(out), "--format",
            "json",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (model,) = data["models"]
    for arm in ("baseline", "with_skill"):
        assert model[arm]["cost"] == {
            "usd": None,
            "per_sample": None,
            "per_passed": None,
            "per_passed_ci95": None,
        }
    assert model["cost_ratio"] is None
    run_dir = Path(data["run_dir"])
    # a model the table prices, behind --base-url: not the vendor's bill, so unpriced
    assert json.loads((run_dir / "run.json").read_text())["prices"] == {"gpt-4o-mini": None}
    rows = summary_rows(load_run(run_dir))
    for row in rows:
        for key in ("cost_usd", "cost_per_sample", "cost_per_passed", "cost_per_passed_ci_low"):
            assert row[key] is None, key
        assert row["cost_ratio"] is None
    card = run_section(load_run(run_dir), split="train", rows=rows, chart_path=None)
    assert "| unpriced |" in card and "`gpt-4o-mini` unpriced" in card
    assert "$0" not in card.split("### Method")[0]
    text = run_eval(skill_dir, None, "--resume", str(run_dir), "--output", str(out))
    assert text.returncode == 0, text.stderr
    header = next(line for line in text.stdout.splitlines() if "$/pass" in line)
    column = header.index("$/pass")
    cells = [
        line for line in text.stdout.splitlines() if line.lstrip("│ ").startswith(("baseline",
        "with skill"))
    ]  # fmt: skip
    assert cells and all("—" in line[column - 2 : column + 8] for line in cells), cells
    assert "$" not in text.stdout.replace("$/pass", "")
    # priced after the fact: a resume with --price records it and the summary follows
    priced = run_eval(
        skill_dir, None, "--resume", str(run_dir), "--price", "gpt-4o-mini=1/2", "--format",
        "json",
    )  # fmt: skip
    assert priced.returncode == 0, priced.stderr
    assert json.loads(priced.stdout)["models"][0]["with_skill"]["cost"]["usd"] > 0
    assert json.loads((run_dir / "run.json").read_text())["prices"]["gpt-4o-mini"]["input"] == 1


def test_the_built_in_table_prices_known_models_and_nothing_else() -> None:
    haiku = price_for("anthropic:claude-haiku-4-5")
    assert haiku is not None
    assert (haiku.input, haiku.output, haiku.cached_input, haiku.cache_write) == (1, 5, 0.1, 1.25)
    assert haiku.source.startswith("https://") and "(20" in haiku.source
    mini = price_for("openai:gpt-4o-mini")
    assert mini is not None and (mini.input, mini.output) == (0.15, 0.6)
    for entry in json.loads(
        (Path(__file__).parents[2] / "upskill_hub" / "data" / "prices.json").read_text()
    )["models"].values():
        assert entry["source"].startswith("https://") and len(entry["date"]) == 10
    # unknown, embedded, mock and --base-url models: None, never 0
    assert price_for("openai:no-such-model") is None
    assert price_for("local") is None
    assert price_for("mock:echo") is None
    assert price_for("openai:gpt-4o-mini", base_url="http://127.0.0.1:9/v1") is None
    # an override wins, for an alias too
    given = Price(3, 4)
    assert price_for("openai:gpt-4o-mini", {"openai:gpt-4o-mini": given}) is given
    assert resolve_prices(["local", "m"], {"local": given}) == {"local": given, "m": None}
    assert "anthropic:claude-haiku-4-5" in builtin_prices()


def test_cost_of_cached_and_cache_written_tokens() -> None:
    price = Price(input=3, output=15, cached_input=0.3, cache_write=3.75)
    # 1,000 input of which 600 read from the cache and 300 written to it; 100 output
    got = cost_usd(
        price, input_tokens=1000, output_tokens=100, cached_input_tokens=600, cache_write_tokens=300
    )
    assert got == pytest.approx((100 * 3 + 600 * 0.3 + 300 * 3.75 + 100 * 15) / 1e6)
    # no cached price: cached tokens billed as input (an upper bound), never as free
    plain = Price(input=3, output=15)
    assert cost_usd(plain, input_tokens=1000, output_tokens=0, cached_input_tokens=600) == (
        pytest.approx(3000 / 1e6)
    )


def test_ratio_interval_edges() -> None:
    assert ratio_interval([(1.0, 0.0), (2.0, 0.0)]) is None  # nothing passed
    assert ratio_interval([(1.0, 1.0)]) is None  # one case
    lo, hi = ratio_interval([(1.0, 1.0), (1.0, 1.0)]) or (0, 0)
    assert lo == hi == 1.0  # no spread
    # one case holds every pass: leaving it out leaves none, so the delta method on the log
    # scale stands in: R = 3, var = 2 * ((1 - 3 * 1)^2 + 2^2) / 1 = 16, half-width t(1) * 4/3
    lo, hi = ratio_interval([(1.0, 1.0), (2.0, 0.0)]) or (0, 0)
    half = t_quantile(0.975, 1) * 4 / 3
    assert (lo, hi) == pytest.approx((3 * math.exp(-half), 3 * math.exp(half)))


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("fake-model", "give MODEL=IN/OUT[/CACHED]"),
        ("=1/2", "give MODEL=IN/OUT[/CACHED]"),
        ("m=1", "give IN/OUT or IN/OUT/CACHED"),
        ("m=1/2/3/4", "give IN/OUT or IN/OUT/CACHED"),
        ("m=a/2", "the input price 'a'"),
        ("m=1/-2", "the output price '-2'"),
        ("m=1/2/nan", "the cached-input price 'nan'"),
    ],
)
def test_bad_price_forms_name_the_parameter(spec: str, needle: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_price(spec)
    assert needle in str(caught.value) and "prices" in caught.value.render(lambda p: p.name)


def test_bad_price_flags_are_one_line_errors(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    for args, needle in [
        (["--price", "m=1"], "--price 'm=1'"),
        (["--price", "m=x/1"], "--price 'm=x/1'"),
        (["--price", "m=1/1", "--price", "m=2/2"], "--price prices m twice"),
        (["--price", "other=1/1"], "--price prices other, which this run does not evaluate"),
        (["--price", "m=1/1", "--triggers", str(tmp_path / "q.json")], "--price"),
    ]:
        done = run_eval(
            skill_dir, "http://127.0.0.1:9/v1", "--model", "m", *args, "--output", str(out)
        )
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    assert not out.exists()
