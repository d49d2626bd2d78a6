"""Typed errors raised by the library.

Every error the user can cause or fix derives from :class:`UpskillHubError`. The CLI turns these
into one line and an exit code in exactly one place (``upskill_hub.cli.main``); the library never
prints them itself.

A message that names a parameter of the library (``runs``, ``models``, ``force``) holds it as a
:class:`Param` part: ``str(err)`` says ``runs must be at least 1 (got 0)``, ``err.param`` is
``"runs"``, and the CLI prints the same message with the flag instead
(``--runs must be at least 1 (got 0)``, :func:`UpskillHubError.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """A library parameter named in an error message; ``str()`` is its Python name.

    ``metavar`` is what a command line writes after the flag in this message (``FILE`` in
    ``--tests FILE``); the library's own message leaves it out.
    """

    name: str
    metavar: str | None = None

    def __str__(self) -> str:
        return self.name


class UpskillHubError(Exception):
    """Base class. ``str(err)`` is a one-line message naming the file, field, parameter or repo.

    Built from parts: plain text, and :class:`Param` for each parameter the message names.
    ``param`` is the parameter at fault: the one given as ``param=``, else the first one named
    (None when there is none); ``params`` are all the parameters the message names.
    """

    exit_code: int = 1

    def __init__(self, *parts: object, param: str | None = None) -> None:
        self.parts: tuple[object, ...] = parts
        self._param = param
        super().__init__("".join(str(p) for p in parts))

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parts if isinstance(p, Param))

    @property
    def param(self) -> str | None:
        return self._param or next(iter(self.params), None)

    def render(self, name: Callable[[Param], str]) -> str:
        """The message with each parameter written as ``name(param)`` (the CLI: its flag)."""
        return "".join(name(p) if isinstance(p, Param) else str(p) for p in self.parts)


class UsageError(UpskillHubError):
    """Bad arguments: a missing path, an unknown flag value, conflicting options."""

    exit_code = 2


class SkillNotFoundError(UpskillHubError):
    """A path that holds no skill (no SKILL.md)."""

    exit_code = 2


class InvalidSkillError(UpskillHubError):
    """A skill that fails validation where a valid one is required (push, pull, eval)."""


class InvalidTestFileError(UpskillHubError):
    """A test-case file (skill_meta.json or a ``tests`` file) that cannot be read."""


class UnsafeSkillError(UpskillHubError):
    """The security scan refused a skill (see :mod:`upskill_hub.registry.trust.scan`)."""


class SignatureError(UpskillHubError):
    """A skill's signature is missing, not from a trusted key, or does not match its files.

    ``kind`` is ``unsigned``, ``untrusted``, ``mismatch`` or ``invalid``; ``files`` names each
    file added, removed or changed since signing (``<path> (added|removed|changed)``).
    """

    def __init__(
        self, *message: object, kind: str = "invalid", files: list[str] | None = None
    ) -> None:
        super().__init__(*message)
        self.kind = kind
        self.files = list(files or [])


class HubError(UpskillHubError):
    """A Hub request failed; the message names the repo and what to do.

    ``status`` (the HTTP status, when there was one), ``repo_id`` and ``revision`` let callers
    branch on what happened without reading the message.
    """

    def __init__(
        self,
        *message: object,
        status: int | None = None,
        repo_id: str | None = None,
        revision: str | None = None,
    ) -> None:
        super().__init__(*message)
        self.status = status
        self.repo_id = repo_id
        self.revision = revision


class RepoNotFoundError(HubError):
    pass


class RevisionNotFoundError(HubError):
    pass


class LockError(UpskillHubError):
    """The lock file is missing, unreadable, or would change under ``frozen``."""


class UndeterminedError(UpskillHubError):
    """A yes/no check (``outdated``, ``verify``) could not be answered: the Hub could not be
    reached, the lock is missing or unreadable. Exit 2, as ``diff`` and ``grep`` do, so a CI gate
    never mistakes "could not tell" for "up to date"."""

    exit_code = 2


class VerificationUndeterminedError(UndeterminedError):
    """``results verify`` could not check a run: the dataset or its split cannot be read, or it
    holds no samples. Exit 2: "could not tell" is never "verified"."""


class LocalModificationsError(UpskillHubError):
    """An installed skill was edited locally; ``force`` overwrites."""


class ProviderError(UpskillHubError):
    """A model provider call failed.

    ``retryable`` marks 429, 5xx, timeouts and dropped connections; ``retry_after`` carries the
    server's Retry-After in seconds when it sent one. ``rejection`` names a final refusal of the
    prompt itself from a structured signal of the API (``context_length``, ``content_filter``,
    ``refusal``), never guessed from message text; None for every other failure.
    """

    def __init__(
        self,
        *message: object,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        rejection: str | None = None,
    ) -> None:
        super().__init__(*message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.rejection = None if retryable else rejection


class UnknownModelError(UsageError):
    """A model string that names no provider or alias."""


class EvalCancelledError(UpskillHubError):
    """An evaluation stopped by its cancellation token; finished samples are kept."""

    exit_code = 130
