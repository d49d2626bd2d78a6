"""``upskill-hub generate``: a teacher model writes a skill and its tests, students measure it,
failures refine it. See :mod:`upskill_hub.generate.loop` for the loop and its stopping rule.

- :mod:`.loop`: the generate / measure / refine loop (``generate``, ``run_generate``);
- :mod:`.config`: its settings (:class:`~.config.GenerateConfig`);
- :mod:`.sources`: what ``--from`` points at (a skill folder or an agent trace);
- :mod:`.traces`: agent session traces parsed and condensed for the teacher;
- :mod:`.teacher`: the teacher's prompts and its checked structured answer;
- :mod:`.failures`: failure evidence for the teacher;
- :mod:`.lift`: lift across students, as numbers and text;
- :mod:`.generate_result`: the iteration records of a generate run;
- :mod:`.skill_files`: copying a source skill's other files.
"""

from upskill_hub.generate.config import GenerateConfig
from upskill_hub.generate.generate_result import GenerateResult, IterationRecord
from upskill_hub.generate.loop import generate, run_generate

__all__ = ["GenerateConfig", "GenerateResult", "IterationRecord", "generate", "run_generate"]
