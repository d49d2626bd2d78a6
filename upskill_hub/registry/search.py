"""Find skills on the Hub (``search``) and look inside one without installing it (``info``).

Both show the published lift (:mod:`.evidence`): ``info`` per skill for the commit asked
about, ``search`` per hit from the listing's card data; ``search(model=M)`` ranks by it.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import UnsafeSkillError
from upskill_hub.hub.client import Hub
from upskill_hub.registry.card import SKILLS_TAG
from upskill_hub.registry.evidence.read import (
    EvidenceReader,
    ModelEvidence,
    ResultsSignatureCheck,
    SkillEvidence,
    listed_evidence,
    rank_by_lift,
)
from upskill_hub.registry.evidence.verification import Verifier
from upskill_hub.registry.fetch import (
    ESCAPING_RULES,
    SKILL_MD,
    RemoteRepo,
    RemoteSkill,
    copy_checked,
    inspect_repo,
    listing_findings,
    root_skill_name,
)
from upskill_hub.registry.trust.scan import ScanFinding, ScanLimits, scan_tree
from upskill_hub.skill import validate_skill
from upskill_hub.skill.frontmatter import parse_skill_md

if TYPE_CHECKING:
    from upskill_hub.registry.trust.signing import TrustPolicy

DEFAULT_LIMIT = 20


@dataclass(frozen=True)
class SearchHit:
    repo_id: str
    description: str = ""
    downloads: int = 0
    likes: int = 0
    last_modified: str | None = None
    tags: list[str] = field(default_factory=list)
    #: per model, the newest published lift the card lists
    evidence: list[ModelEvidence] = field(default_factory=list)
    #: with ``search(model=M)``: the lift on M it was ranked by (None: not measured on M)
    ranked_by: ModelEvidence | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["evidence"] = [e.to_dict() for e in self.evidence]
        data["ranked_by"] = self.ranked_by.to_dict() if self.ranked_by else None
        return data


@dataclass(frozen=True)
class SkillInfo:
    """One skill of a repo: listing, frontmatter, scan findings and validation errors."""

    name: str
    subpath: str
    files: list[tuple[str, int]]
    frontmatter: dict[str, Any]
    findings: list[ScanFinding]
    validation_errors: list[str]
    evidence: SkillEvidence | None = None
    #: What ``skill.oms.sig`` claims and whether it holds (``trust.signing.SignatureInfo``).
    signature: dict[str, Any] | None = None

    @property
    def safe(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "subpath": self.subpath,
            "files": [{"path": p, "size": s} for p, s in self.files],
            "frontmatter": self.frontmatter,
            "findings": [asdict(f) for f in self.findings],
            "validation_errors": self.validation_errors,
            "safe": self.safe,
            "valid": not self.validation_errors,
            "evidence": self.evidence.to_dict() if self.evidence else None,
            "signature": self.signature,
        }


@dataclass(frozen=True)
class RepoInfo:
    repo_id: str
    ref: str | None
    commit: str
    url: str
    skills: list[SkillInfo]

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo_id": self.repo_id,
            "ref": self.ref,
            "commit": self.commit,
            "url": self.url,
            "skills": [s.to_dict() for s in self.skills],
        }


#: With a model to rank by, this many times ``limit`` listings are ranked (at most 500).
RANK_POOL = 5


def search(
    query: str, *, limit: int = DEFAULT_LIMIT, hub: Hub | None = None, model: str | None = None
) -> list[SearchHit]:
    """Hub model repos tagged ``agent-skills`` whose id matches ``query``; with ``model``,
    ranked by their published lift on it (from a larger pool of listings), unmeasured last."""
    hub = hub or Hub()
    pool = min(max(limit * RANK_POOL, limit), 500) if model else limit
    models = hub.search_models(filter=SKILLS_TAG, search=query or None, limit=pool)
    hits: list[SearchHit] = []
    for m in models:
        card = getattr(m, "card_data", None)
        description = card.get("description", "") if card is not None else ""
        modified = getattr(m, "last_modified", None)
        hits.append(
            SearchHit(
                repo_id=m.id,
                description=description if isinstance(description, str) else "",
                downloads=int(getattr(m, "downloads", 0) or 0),
                likes=int(getattr(m, "likes", 0) or 0),
                last_modified=modified.isoformat() if modified else None,
                tags=list(getattr(m, "tags", None) or []),
                evidence=listed_evidence(m.id, card),
            )
        )
    if not model:
        return hits
    ranked = rank_by_lift([(h, h.evidence) for h in hits], model)
    return [replace(h, ranked_by=e) for h, e in ranked][:limit]


def info(
    spec: str,
    *,
    hub: Hub | None = None,
    limits: ScanLimits | None = None,
    trust: TrustPolicy | None = None,
    results_signatures: ResultsSignatureCheck | None = None,
    verifier: Verifier | None = None,
) -> RepoInfo:
    """Describe ``ns/name[@rev]`` without installing: nothing is written outside the HF cache.

    Files are downloaded (into the huggingface_hub cache) only for skills whose listing has no
    path that could escape the skill folder. A signature is checked against ``trust``; with
    ``results_signatures`` each published figure says who measured it (``measured_by``); the
    published lift is checked against its samples by ``verifier`` (none: every figure is
    ``reported``).
    """
    hub = hub or Hub()
    limits = limits or ScanLimits()
    repo = inspect_repo(spec, hub=hub)
    skills = [_skill_info(repo, s, hub, limits, trust) for s in repo.skills]
    reader = EvidenceReader(hub, signatures=results_signatures, verifier=verifier)
    skills = [
        replace(
            s, evidence=reader.evidence(repo.repo_id, repo.commit, skill=s.name, subpath=s.subpath)
        )
        for s in skills
    ]
    return RepoInfo(repo.repo_id, repo.ref, repo.commit, hub.repo_url(repo.repo_id), skills)


def _skill_info(
    repo: RemoteRepo,
    skill: RemoteSkill,
    hub: Hub,
    limits: ScanLimits,
    trust: TrustPolicy | None = None,
) -> SkillInfo:
    files = [(f.path, f.size) for f in skill.files]
    findings = listing_findings(skill, limits)
    name = skill.name
    if any(f.rule in ESCAPING_RULES for f in findings):
        return SkillInfo(name or "?", skill.subpath, files, {}, findings, [])
    small = _small_files(skill, limits)
    snapshot = hub.download(
        repo.repo_id, repo.commit, [skill.repo_path(f.path) for f in small.files]
    )
    name = name or root_skill_name(snapshot, repo.repo_id)
    with tempfile.TemporaryDirectory(prefix="upskill-info-") as tmp:
        staged = Path(tmp) / (name if name.replace("-", "").isalnum() else "skill")
        try:
            copy_checked(small, snapshot, staged, limits, repo.where(skill))
        except UnsafeSkillError as exc:
            extra = getattr(exc, "findings", [])
            return SkillInfo(name, skill.subpath, files, {}, findings + list(extra), [])
        content = [f for f in scan_tree(staged, limits) if f.rule not in _LISTING_RULES]
        report = validate_skill(staged)
        errors = [f"{e.location()}: {e.message}" for e in report.errors]
        frontmatter = _frontmatter(staged)
        complete = small is skill or small.files == skill.files
        signature = _signature(staged, complete, trust, repo.repo_id, name)
    return SkillInfo(
        name, skill.subpath, files, frontmatter, findings + content, errors, signature=signature
    )


def _signature(
    staged: Path, complete: bool, trust: TrustPolicy | None, repo_id: str, name: str
) -> dict[str, Any] | None:
    """The skill's signature as ``info`` shows it (None when it carries none)."""
    from upskill_hub.registry.trust.signing import SIGNATURE_FILE, describe

    if not (staged / SIGNATURE_FILE).is_file():
        return None
    if not complete:
        return {"signed": True, "problem": "not checked: some files are over the size limit"}
    return describe(staged, trust, where=staged.name, repo_id=repo_id, skill=name).to_dict()


#: Rules scan_tree repeats from the listing scan (reported once, from the listing).
_LISTING_RULES = frozenset(
    {"file-too-large", "too-many-files", "too-large-total", "path-case-collision"}
)


def _small_files(skill: RemoteSkill, limits: ScanLimits) -> RemoteSkill:
    small = tuple(f for f in skill.files if f.size <= limits.max_file_bytes)
    return RemoteSkill(skill.name, skill.subpath, small)


def _frontmatter(staged: Path) -> dict[str, Any]:
    try:
        text = (staged / SKILL_MD).read_text("utf-8", errors="replace")
    except OSError:
        return {}
    return parse_skill_md(text).frontmatter or {}
