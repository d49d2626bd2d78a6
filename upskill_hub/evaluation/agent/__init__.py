"""Agent mode: skills measured the way agents use them (progressive disclosure).

The model sees only each skill's name and description (``<available_skills>``), loads one with
the ``Skill`` tool and reads its files with ``Read``; both arms get the same system prompt and
the same tools, the baseline listing no skill. ``settings`` (limits), ``tools`` (the sandboxed
``Skill`` and ``Read``), ``prompts`` (what both arms are sent), ``loop`` (the multi-turn tool
loop) and ``arms`` (the hook the eval session calls). Trigger evals live in
:mod:`upskill_hub.evaluation.triggers.measure`.
"""

from upskill_hub.evaluation.agent.settings import AgentSettings

__all__ = ["AgentSettings"]
