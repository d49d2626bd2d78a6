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

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub
    from upskill_hub.registry.fetch import fetch_skill
    from upskill_hub.registry.project.lock import read_lock
    from upskill_hub.registry.project.pull import install_locked, pull
    from upskill_hub.registry.project.state import list_installed, outdated, remove, verify
    from upskill_hub.registry.project.update import update
    from upskill_hub.registry.push import push_skills, scan_local
    from upskill_hub.registry.search import info, search
    from upskill_hub.registry.skill_source import open_skill
    from upskill_hub.registry.trust.signing import (
        SigningKey,
        TrustPolicy,
        generate_key_pair,
        load_trusted_cas,
        load_trusted_keys,
        sign_skill,
        verify_skill,
    )

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
__all__ = [
    "Hub",
    "SigningKey",
    "TrustPolicy",
    "fetch_skill",
    "generate_key_pair",
    "info",
    "install_locked",
    "list_installed",
    "load_trusted_cas",
    "load_trusted_keys",
    "open_skill",
    "outdated",
    "pull",
    "push_skills",
    "read_lock",
    "remove",
    "scan_local",
    "search",
    "sign_skill",
    "update",
    "verify",
    "verify_skill",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
