"""One run folder and what a run keeps while it runs.

- :mod:`.folder`: the run folder's layout, reading a finished run back (``load_run``);
- :mod:`.records`: run.json (:class:`~.records.RunInfo`) and summary.json
  (:class:`~.records.RunSummary`) as dataclasses;
- :mod:`.info`: what run.json and summary.json say, and the command that reproduces a run;
- :mod:`.plan`: where a run's folder goes and what the caller plugs into it;
- :mod:`.order`: which samples a run holds and the order they run and are stored in;
- :mod:`.samples`: samples.jsonl streamed (compact records, reads, the resume scan);
- :mod:`.resume`: a run's settings, and which samples a resume keeps;
- :mod:`.memory`: the running tallies a run keeps of finished samples;
- :mod:`.benchmark_json`: benchmark.json, the agentskills.io guide's format.
"""
