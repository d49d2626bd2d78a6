"""lift.png: baseline vs with-skill pass rate per model, with 95% CI error bars.

matplotlib is imported inside :func:`render_lift_chart` (it costs ~0.5 s) and always with the
Agg backend, so this works without a display and in worker threads. :func:`preload` imports it
in a background thread instead, while an eval waits for its model's answers, so that the chart
at the end of the run costs only its drawing.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_bytes
from upskill_hub.formatting import points

_preload_lock = threading.Lock()
_preloader: threading.Thread | None = None
#: The GIL switch interval while matplotlib loads (Python's default is 5 ms).
_SWITCH_INTERVAL = 0.0005


def _import_matplotlib() -> None:
    # While this thread imports, it holds the GIL most of the time: a short switch interval
    # hands it back to the event loop within a millisecond of a reply arriving (not 5 ms).
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, _SWITCH_INTERVAL))
    try:
        import matplotlib.backends.backend_agg  # savefig's PNG canvas
        import matplotlib.figure  # noqa: F401
    except Exception:  # no traceback from this thread: the chart's own import raises the
        pass  # same error where the run turns it into a warning
    finally:
        sys.setswitchinterval(previous)


def preload() -> None:
    """Start importing matplotlib in a daemon thread (once per process); returns at once.

    :func:`render_lift_chart` waits for that import to finish before it draws, so a chart is
    never drawn while the import is half done.
    """
    global _preloader
    with _preload_lock:
        if _preloader is None:
            _preloader = threading.Thread(
                target=_import_matplotlib, name="preload-matplotlib", daemon=True
            )
            _preloader.start()


def preload_after_first_call(callback: Callable[..., None] | None) -> Callable[..., None]:
    """``callback`` (or nothing) that first calls :func:`preload`: given as a run's
    ``on_sample``, matplotlib loads once the first answer is in, not before the first request."""

    def wrapped(*args: Any) -> None:
        if _preloader is None:
            preload()
        if callback is not None:
            callback(*args)

    return wrapped


def wait_for_preload() -> None:
    """Block until a :func:`preload` under way has finished (at once when none was started)."""
    with _preload_lock:
        preloader = _preloader
    if preloader is not None:
        preloader.join()


BASELINE_COLOR = "#9aa5b1"
SKILL_COLOR = "#ff9d00"


def _bar(arm: dict[str, Any] | None) -> tuple[float, float, float]:
    """(rate, error below, error above) in percent; zeros for a missing or empty arm."""
    if not arm or arm.get("pass_rate") is None:
        return (0.0, 0.0, 0.0)
    rate = float(arm["pass_rate"]) * 100
    lo, hi = (float(v) * 100 for v in arm.get("ci95") or (rate / 100, rate / 100))
    return (rate, max(0.0, rate - lo), max(0.0, hi - rate))


def render_lift_chart(models: Sequence[dict[str, Any]], *, title: str = "Skill lift") -> bytes:
    """PNG bytes of the chart for summary.json's ``models`` list."""
    wait_for_preload()
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    names = [str(m["model"]) for m in models]
    width = max(4.5, 1.6 * len(names) + 2)
    fig = Figure(figsize=(width, 4.2), dpi=110)
    ax = fig.subplots()
    xs = list(range(len(names)))
    bar_w = 0.38
    for offset, key, label, color in (
        (-bar_w / 2, "baseline", "baseline", BASELINE_COLOR),
        (bar_w / 2, "with_skill", "with skill", SKILL_COLOR),
    ):
        bars = [_bar(m.get(key)) for m in models]
        ax.bar(
            [x + offset for x in xs],
            [b[0] for b in bars],
            bar_w,
            yerr=[[b[1] for b in bars], [b[2] for b in bars]],
            capsize=4,
            label=label,
            color=color,
            edgecolor="black",
            linewidth=0.5,
        )
    for x, m in zip(xs, models, strict=True):
        lift = m.get("lift")
        if lift is not None:
            ax.annotate(
                f"lift {points(lift)}",
                (x, 104),
                ha="center",
                fontsize=8,
                annotation_clip=False,
            )
    ax.set_xticks(xs, [n if len(n) <= 28 else n[:27] + "…" for n in names], fontsize=8)
    ax.set_ylim(0, 112)
    ax.set_ylabel("pass rate (%) with 95% CI")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8, bbox_to_anchor=(1.0, 1.0))
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def write_lift_chart(
    models: Sequence[dict[str, Any]], path: Path, *, title: str = "Skill lift"
) -> Path:
    """Render the chart and write it to ``path`` atomically."""
    atomic_write_bytes(Path(path), render_lift_chart(models, title=title))
    return Path(path)
