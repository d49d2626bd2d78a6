"""The Hub side of skills: push, pull, the lock, agent folders, the security scan. Exports
load lazily (huggingface_hub is imported on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:
    from upskill_hub.registry.fetch import fetch_skill
    from upskill_hub.registry.hub import Hub
    from upskill_hub.registry.lock import read_lock
    from upskill_hub.registry.lock_update import update
    from upskill_hub.registry.project import list_installed, outdated, remove, verify
    from upskill_hub.registry.pull import install_locked, pull
    from upskill_hub.registry.push import push_skills, scan_local
    from upskill_hub.registry.search import info, search
    from upskill_hub.registry.signing import (
        SigningKey,
        TrustPolicy,
        generate_key_pair,
        load_trusted_cas,
        load_trusted_keys,
        sign_skill,
        verify_skill,
    )
    from upskill_hub.registry.skill_source import open_skill

_EXPORTS = {
    "open_skill": "upskill_hub.registry.skill_source",
    "Hub": "upskill_hub.registry.hub",
    "fetch_skill": "upskill_hub.registry.fetch",
    "info": "upskill_hub.registry.search",
    "install_locked": "upskill_hub.registry.pull",
    "list_installed": "upskill_hub.registry.project",
    "outdated": "upskill_hub.registry.project",
    "pull": "upskill_hub.registry.pull",
    "push_skills": "upskill_hub.registry.push",
    "read_lock": "upskill_hub.registry.lock",
    "remove": "upskill_hub.registry.project",
    "scan_local": "upskill_hub.registry.push",
    "search": "upskill_hub.registry.search",
    "SigningKey": "upskill_hub.registry.signing",
    "TrustPolicy": "upskill_hub.registry.signing",
    "generate_key_pair": "upskill_hub.registry.signing",
    "load_trusted_cas": "upskill_hub.registry.signing",
    "load_trusted_keys": "upskill_hub.registry.signing",
    "sign_skill": "upskill_hub.registry.signing",
    "verify_skill": "upskill_hub.registry.signing",
    "update": "upskill_hub.registry.lock_update",
    "verify": "upskill_hub.registry.project",
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
