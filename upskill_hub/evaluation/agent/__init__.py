"""Agent mode: skills measured the way agents use them (progressive disclosure).

The model sees only each skill's name and description (``<available_skills>``), loads one with
the ``Skill`` tool and reads its files with ``Read``; both arms get the same system prompt and
the same tools, the baseline listing no skill. Trigger evals live in
:mod:`upskill_hub.evaluation.triggers`.

- :mod:`.settings`: the limits of agent mode (turns, tokens per exchange);
- :mod:`.tools`: the sandboxed ``Skill`` and ``Read`` tools;
- :mod:`.prompts`: what both arms send;
- :mod:`.loop`: the multi-turn tool loop;
- :mod:`.arms`: the hook the eval session calls for each arm;
- :mod:`.usage`: what the model did with the tools, per model and arm.
"""

from upskill_hub.evaluation.agent.settings import AgentSettings

__all__ = ["AgentSettings"]
