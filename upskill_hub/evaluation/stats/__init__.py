"""The statistics of an eval: from graded samples to pass rates, lift, intervals and a verdict.

- :mod:`.summarize`: summary.json's figures and the verdict (``summarize``, ``decide``);
- :mod:`.intervals`: the interval maths (t, Wilson, Newcombe, clustered, paired, Holm);
- :mod:`.tallies`: counts and sums per model, arm and case that the statistics read;
- :mod:`.power`: planning a design (``upskill-hub power``) by simulating evals.
"""
