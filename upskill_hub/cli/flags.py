"""How the CLI names a library parameter in an error: its flag (the one table of parameter ->
flag). Library errors name Python parameters (:class:`upskill_hub.errors.Param`); the command
line prints them as the flags a user types."""

from __future__ import annotations

from upskill_hub.errors import Param, UpskillHubError

#: Parameters whose flag is not ``--`` + the name with dashes (``max_tokens`` -> ``--max-tokens``).
FLAGS: dict[str, str] = {
    "models": "--model",
    "cases": "--tests",
    "resume_from": "--resume",
    "students": "--student",
    "source": "--from",
    "repo_id": "--repo",
    "custom_dir": "--dir",
    "parent": "--dir",
    "global_": "--global",
    "agents": "--agent",
    "shard_samples": "--shard-size",
    "n_cases": "--cases",
    "target_power": "--power",
    "prices": "--price",
}


def flag(param: Param) -> str:
    """``param`` as the command line writes it: its flag, and its metavar if the message has one."""
    name = FLAGS.get(param.name) or "--" + param.name.replace("_", "-")
    return f"{name} {param.metavar}" if param.metavar else name


def error_text(exc: UpskillHubError) -> str:
    """The error's message as the CLI prints it: parameters written as flags."""
    return exc.render(flag)
