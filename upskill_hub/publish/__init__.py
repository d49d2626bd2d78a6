"""Results on the Hub: run folders as datasets with cards, and the skill card's results
section. Exports load lazily."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.publish.results_dataset import push_results as push_results
    from upskill_hub.publish.results_view import compare_results as compare_results
    from upskill_hub.publish.results_view import load_results as load_results

_EXPORTS = {
    "compare_results": "upskill_hub.publish.results_view",
    "load_results": "upskill_hub.publish.results_view",
    "push_results": "upskill_hub.publish.results_dataset",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
