"""The Hub client of one visitor of a hosted Space.

The registry trusts a 40-hex revision without asking the Hub: the huggingface_hub cache holds a
commit's listing and files for good. On a Space that cache is shared by every visitor, so an
anonymous visitor naming the commit of a private repo that a signed-in visitor fetched earlier
would be served its files from the cache. :class:`VisitorHub` asks the Hub, with the visitor's
own token (or none), about every revision before anything is read, so the visitor is refused
exactly as the Hub refuses them; and it asks about a dataset before ``datasets`` reads it,
because ``load_dataset`` serves a dataset from the shared cache when the Hub refuses it.
"""

from __future__ import annotations

from upskill_hub.errors import HubError
from upskill_hub.hub.client import COMMIT_RE, Hub


class VisitorHub(Hub):
    """A :class:`Hub` whose :meth:`resolve` checks a commit hash with the Hub too, and whose
    :meth:`check_access` asks the Hub."""

    def check_access(self, repo_id: str, repo_type: str = "model") -> None:
        self.head(repo_id, repo_type)  # asks the Hub with the visitor's token

    def resolve(self, repo_id: str, revision: str | None, repo_type: str = "model") -> str:
        if not (revision and COMMIT_RE.fullmatch(revision)):
            return super().resolve(repo_id, revision, repo_type)  # asks the Hub already
        info = self.call(
            lambda: self.api.repo_info(repo_id, revision=revision, repo_type=repo_type),
            repo_id=repo_id,
            revision=revision,
            action="resolve revision",
        )
        if info.sha != revision:
            raise HubError(f"{repo_id}@{revision}: the Hub did not confirm this commit")
        return revision
