"""How an eval's results are shown: terminal tables and the lift chart.

- :mod:`.table`: the eval results table, from summary.json's ``models``;
- :mod:`.triggers`: a trigger eval's tables, from trigger_summary.json's ``models``;
- :mod:`.chart`: lift.png, pass rate per model and arm with 95% intervals;
- :mod:`.frontier_chart`: frontier.png, pass rate against cost per passed case.
"""
