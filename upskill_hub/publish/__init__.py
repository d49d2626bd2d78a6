"""Results on the Hub: run folders as datasets with cards, and the skill card's results
section. Exports load lazily."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:
    from upskill_hub.publish.results_dataset import push_results
    from upskill_hub.publish.results_view import compare_results, load_results

_EXPORTS = {
    "compare_results": "upskill_hub.publish.results_view",
    "load_results": "upskill_hub.publish.results_view",
    "push_results": "upskill_hub.publish.results_dataset",
}
__all__ = [
    "compare_results",
    "load_results",
    "push_results",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
