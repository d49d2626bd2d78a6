"""``upskill-hub generate``: a teacher model writes a skill and its tests, students measure it,
failures refine it. See :mod:`upskill_hub.generate.loop` for the loop and its stopping rule.

Modules: ``traces`` (session readers and condensing), ``sources`` (what ``--from`` points at),
``teacher`` (prompts and the checked structured answer), ``evidence`` (failure evidence for the
teacher), ``loop`` (the generate/measure/refine loop), ``config`` (its settings), ``results``
(iteration records), ``lift`` (lift across students, as numbers and text), ``skill_files``
(copying a source skill's other files).
"""

from upskill_hub.generate.config import GenerateConfig
from upskill_hub.generate.generate_result import GenerateResult, IterationRecord
from upskill_hub.generate.loop import generate, run_generate

__all__ = ["GenerateConfig", "GenerateResult", "IterationRecord", "generate", "run_generate"]
