"""The Hub side of skills: push, pull, the lock, agent folders, the security scan. Exports
load lazily (huggingface_hub is imported on first use).

- :mod:`.push`: validate, scan and upload skills with a model card;
- :mod:`.card`: the model card ``push`` writes;
- :mod:`.fetch`: a Hub repo's skills fetched into a checked local folder (no install, no lock);
- :mod:`.skill_source`: a skill named by a folder or a repo id, opened once (``eval``, the Space);
- :mod:`.search`: ``search`` and ``info``;
- :mod:`.trust`: the pre-install scan and signatures;
- :mod:`.evidence`: a skill's published lift;
- :mod:`.project`: a project's installed skills: the lock, agent folders, pull, update, state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.hub.client import Hub as Hub
    from upskill_hub.registry.fetch import fetch_skill as fetch_skill
    from upskill_hub.registry.project.lock import read_lock as read_lock
    from upskill_hub.registry.project.pull import install_locked as install_locked
    from upskill_hub.registry.project.pull import pull as pull
    from upskill_hub.registry.project.state import list_installed as list_installed
    from upskill_hub.registry.project.state import outdated as outdated
    from upskill_hub.registry.project.state import remove as remove
    from upskill_hub.registry.project.state import verify as verify
    from upskill_hub.registry.project.update import update as update
    from upskill_hub.registry.push import push_skills as push_skills
    from upskill_hub.registry.push import scan_local as scan_local
    from upskill_hub.registry.search import info as info
    from upskill_hub.registry.search import search as search
    from upskill_hub.registry.skill_source import open_skill as open_skill
    from upskill_hub.registry.trust.signing import SigningKey as SigningKey
    from upskill_hub.registry.trust.signing import TrustPolicy as TrustPolicy
    from upskill_hub.registry.trust.signing import generate_key_pair as generate_key_pair
    from upskill_hub.registry.trust.signing import load_trusted_cas as load_trusted_cas
    from upskill_hub.registry.trust.signing import load_trusted_keys as load_trusted_keys
    from upskill_hub.registry.trust.signing import sign_skill as sign_skill
    from upskill_hub.registry.trust.signing import verify_skill as verify_skill

_EXPORTS = {
    "open_skill": "upskill_hub.registry.skill_source",
    "Hub": "upskill_hub.hub.client",
    "fetch_skill": "upskill_hub.registry.fetch",
    "info": "upskill_hub.registry.search",
    "install_locked": "upskill_hub.registry.project.pull",
    "list_installed": "upskill_hub.registry.project.state",
    "outdated": "upskill_hub.registry.project.state",
    "pull": "upskill_hub.registry.project.pull",
    "push_skills": "upskill_hub.registry.push",
    "read_lock": "upskill_hub.registry.project.lock",
    "remove": "upskill_hub.registry.project.state",
    "scan_local": "upskill_hub.registry.push",
    "search": "upskill_hub.registry.search",
    "SigningKey": "upskill_hub.registry.trust.signing",
    "TrustPolicy": "upskill_hub.registry.trust.signing",
    "generate_key_pair": "upskill_hub.registry.trust.signing",
    "load_trusted_cas": "upskill_hub.registry.trust.signing",
    "load_trusted_keys": "upskill_hub.registry.trust.signing",
    "sign_skill": "upskill_hub.registry.trust.signing",
    "verify_skill": "upskill_hub.registry.trust.signing",
    "update": "upskill_hub.registry.project.update",
    "verify": "upskill_hub.registry.project.state",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
