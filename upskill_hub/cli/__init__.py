"""The ``upskill-hub`` command: it parses arguments, calls the library and prints, nothing more.

Library errors become one line on stderr and an exit code in one function (``exit_code_for``,
called by :func:`.main.main` and by the ``validate`` fast path of :mod:`.entry`); a library
parameter named in an error is printed as its flag (:mod:`.flags`). Nothing in the library
imports this package.

- :mod:`.entry`: the console-script entry point (``validate`` on a fast path, the rest via typer);
- :mod:`.main`: the typer app, the command modules it registers, errors to exit codes;
- :mod:`.flags`: the one table of library parameter -> flag;
- :mod:`.output`: JSON output and a lazily built rich console, shared by the commands;
- :mod:`.interrupts`: what Ctrl-C prints, and commands that roll back when interrupted;
- :mod:`.skill_commands`: ``validate``, ``to-prompt`` and ``init``;
- :mod:`.validate_report`: ``validate``'s work and output without typer or rich;
- :mod:`.registry_commands`: ``push``, ``pull``, ``install``, ``verify``, ``list``, ``remove``,
  ``outdated``, ``update``, ``scan``;
- :mod:`.search_commands`: ``search`` and ``info``;
- :mod:`.evidence_output`: the published lift as ``info``, ``pull``, ``update``, ``outdated`` and
  ``search`` print it;
- :mod:`.signing_commands`: ``keygen`` and the trust options of ``pull``, ``install``, ``update``;
- :mod:`.eval_commands`: ``eval`` (and ``power``);
- :mod:`.eval_options`: the ``eval`` options as ``Annotated`` aliases, and the one table of
  "X applies only with Y" rules;
- :mod:`.trigger_commands`: ``eval SKILL --triggers FILE``;
- :mod:`.jobs_commands`: ``eval --executor jobs`` and ``upskill-hub jobs ...``;
- :mod:`.results_commands`: ``results push | show | compare``;
- :mod:`.generate_commands`: ``generate``;
- :mod:`.hub_commands`: ``hub serve``, the local Hub server;
- :mod:`.space_commands`: ``space deploy``;
- :mod:`.exit_codes`: a failure as one line and an exit code.
"""
