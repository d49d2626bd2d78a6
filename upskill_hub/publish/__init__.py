"""Results on the Hub: run folders as datasets with cards, and the skill card's results
section. Exports load lazily.

- :mod:`.results_dataset`: a run folder published as a dataset split (``push_results``);
- :mod:`.trigger_results`: a trigger eval's run folder published (the ``triggers`` config);
- :mod:`.run_consistency`: whether a run's summary.json follows from its samples;
- :mod:`.verify`: a run's figures recomputed and its answers re-graded (``results verify``);
- :mod:`.dataset_card`: the results dataset's card;
- :mod:`.skill_card`: the ``## Results`` section of the skill repo's card;
- :mod:`.summary_text`: summary rows per model and how their numbers are written;
- :mod:`.results_view`: published or local results read back (``load_results``,
  ``compare_results``);
- :mod:`.frontier`: the cheapest model + arm reaching a target pass rate, and its saving;
- :mod:`.dataset_push`: what publishing any run folder to a results dataset needs;
- :mod:`.results_signing`: a published split signed (``results push --sign``) and checked;
- :mod:`.reproduce`: a published run re-run on a model and published as its replication
  (``results reproduce``), with whether the two agree;
- :mod:`.readers`: the registry's readers of published lift with the samples check on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.publish.results_dataset import push_results as push_results
    from upskill_hub.publish.results_view import compare_results as compare_results
    from upskill_hub.publish.results_view import load_results as load_results
    from upskill_hub.publish.verify import verify_published as verify_published
    from upskill_hub.publish.verify import verify_run_dir as verify_run_dir

_EXPORTS = {
    "compare_results": "upskill_hub.publish.results_view",
    "load_results": "upskill_hub.publish.results_view",
    "push_results": "upskill_hub.publish.results_dataset",
    "verify_published": "upskill_hub.publish.verify",
    "verify_run_dir": "upskill_hub.publish.verify",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
