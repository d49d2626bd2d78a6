"""A skill's published lift: where it is, what it says, how it reads and how it gates.

- :mod:`.index`: the published runs a skill card lists (``upskill_hub.results`` metadata);
- :mod:`.read`: a skill's published lift per model for one commit;
- :mod:`.text`: how a published lift reads in the terminal and the Space;
- :mod:`.verification`: how far a figure is checked (the ``Verifier`` protocol, the cache);
- :mod:`.gate`: comparing a new commit's lift with the locked one (``update --require-lift``);
- :mod:`.locked`: the evidence a lock entry remembers.
"""
