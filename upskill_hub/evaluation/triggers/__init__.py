"""Trigger evals: does a model load the skill when it should, and only then?

- :mod:`.measure`: running a trigger eval (``evaluate_triggers``);
- :mod:`.queries`: the queries, their train/validation split and the distractor skills;
- :mod:`.rates`: trigger rates per query, recall and false-trigger rate per set.
"""
