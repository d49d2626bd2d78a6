"""Where a check's tool (nvcc) runs: a sandbox that sees only its temp folder and the toolkit.

Modes, safest first (chosen at run time, once per process, by running a probe):

* ``bwrap``: bubblewrap with new user, mount, pid, network, IPC and UTS namespaces, no
  capabilities, read-only ``/usr/bin``, ``/usr/lib*``, ``/usr/libexec``, ``/usr/include``, the
  toolkit folders and the tool itself, the temp folder read-write, a private ``/tmp`` and a
  minimal ``/dev``. Nothing else exists inside: no ``/proc``, ``/etc``, ``/home``, ``/root``.
* ``unshare``: the same view built with util-linux ``unshare -r -m -p -n`` (a tmpfs root, bind
  mounts made read-only, ``chroot``) where bubblewrap is missing.
* ``strict``: no namespaces (a hosted container may forbid them). The tool could read any file
  the process can, so the caller refuses everything that names a file (see ``compiles``).

In every mode the tool gets a minimal environment (:func:`minimal_env`): ``PATH``, ``HOME`` and
``TMPDIR`` in the temp folder, ``LC_ALL=C``, the toolkit's own variables; never the caller's
API keys or tokens.

``UPSKILL_HUB_SANDBOX`` picks a mode: ``auto`` (default: the first that works), ``bwrap``,
``unshare`` or ``strict``. A mode that does not work here, or an unknown value, gives ``strict``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from typing import Literal

Mode = Literal["bwrap", "unshare", "strict"]
MODES: tuple[Mode, ...] = ("bwrap", "unshare", "strict")
#: The environment variable that asks for a mode.
SANDBOX_ENV = "UPSKILL_HUB_SANDBOX"
#: Host folders the tool may read (those that exist), besides the toolkit and the tool itself.
READABLE = (
    "/usr/bin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/include",
    "/usr/local/include",
)
#: Top-level names that are symlinks into /usr on merged-/usr systems (else bound read-only).
_TOP = ("/bin", "/lib", "/lib32", "/lib64", "/sbin")
#: Toolkit variables passed on when set (they only name folders).
TOOLKIT_VARS = ("CUDA_HOME", "CUDA_PATH")

# Builds the sandbox view inside ``unshare -r -m -p -n --fork``:
# sh -c SCRIPT sandbox ROOT WORKDIR CHROOT [ro PATH | link PATH TARGET]... -- ARGV...
_UNSHARE_SCRIPT = r"""
set -e
root=$1; work=$2; chroot=$3; shift 3
mount -t tmpfs -o mode=755 tmpfs "$root"
while [ "$1" != "--" ]; do
  case $1 in
    ro)
      if [ -d "$2" ]; then mkdir -p "$root$2"; mount --rbind "$2" "$root$2"
      else mkdir -p "$root$(dirname "$2")"; : > "$root$2"; mount --bind "$2" "$root$2"; fi
      mount -o remount,bind,ro "$root$2"
      shift 2;;
    link) mkdir -p "$root$(dirname "$2")"; ln -s "$3" "$root$2"; shift 3;;
  esac
done
shift
mkdir -p "$root$work" "$root/tmp" "$root/dev"
mount --bind "$work" "$root$work"
: > "$root/dev/null"; mount --bind /dev/null "$root/dev/null"
cd /
exec "$chroot" "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$work" "$@"
"""

_probed: dict[Mode, bool] = {}
_probe_lock = threading.Lock()


def requested() -> str:
    """The mode ``UPSKILL_HUB_SANDBOX`` asks for (``auto`` when unset)."""
    return os.environ.get(SANDBOX_ENV, "").strip().lower() or "auto"


def current_mode() -> Mode:
    """The mode compiles run in here: the requested one if it works, else ``strict``."""
    wanted = requested()
    if wanted == "auto":
        return next(m for m in MODES if m == "strict" or available(m))
    if wanted in ("bwrap", "unshare") and available(wanted):  # type: ignore[arg-type]
        return wanted  # type: ignore[return-value]
    return "strict"


def available(mode: Mode) -> bool:
    """Whether ``mode`` works on this machine (probed once: a tiny command in the sandbox)."""
    if mode == "strict":
        return True
    with _probe_lock:
        if mode not in _probed:
            _probed[mode] = _probe(mode)
        return _probed[mode]


def _probe(mode: Mode) -> bool:
    tool = "bwrap" if mode == "bwrap" else "unshare"
    true = shutil.which("true", path="/usr/bin:/bin")
    if shutil.which(tool) is None or true is None:
        return False
    with tempfile.TemporaryDirectory(prefix="upskill-sandbox-probe-") as tmp:
        base = os.path.realpath(tmp)
        work = os.path.join(base, "w")
        os.mkdir(work)
        argv = wrap(mode, [true], work, base, [])
        try:
            done = subprocess.run(
                argv,
                cwd=work,
                env=minimal_env(work, []),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=20,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


def minimal_env(workdir: str, path_dirs: list[str]) -> dict[str, str]:
    """The whole environment a sandboxed tool gets: nothing of the caller's but toolkit paths."""
    env = {
        "PATH": os.pathsep.join([*path_dirs, "/usr/bin", "/bin"]),
        "HOME": workdir,
        "TMPDIR": workdir,
        "LC_ALL": "C",
        "LANG": "C",
    }
    for var in TOOLKIT_VARS:
        value = os.environ.get(var, "")
        if value and os.path.isdir(value):
            env[var] = value
    return env


def _readable(extra: list[str]) -> list[str]:
    """Existing paths to show read-only (real paths: run a tool by its real path), outermost
    first, without the ones inside another."""
    found: list[str] = []
    for path in sorted({os.path.realpath(p) for p in (*READABLE, *extra) if os.path.exists(p)}):
        if not any(path.startswith(f.rstrip("/") + "/") for f in found):
            found.append(path)
    return found


def _tool(name: str) -> str:
    return shutil.which(name) or name


def wrap(mode: Mode, argv: list[str], workdir: str, scratch: str, extra: list[str]) -> list[str]:
    """``argv`` as run in ``mode``: it sees ``workdir`` (read-write), :data:`READABLE` and
    ``extra`` (read-only). ``scratch`` is an empty folder outside ``workdir`` (the ``unshare``
    root is mounted there, inside the private mount namespace only)."""
    if mode == "strict":
        return list(argv)
    paths = _readable(extra)
    if mode == "bwrap":
        cmd = [_tool("bwrap"), "--unshare-all", "--unshare-user", "--cap-drop", "ALL"]
        cmd += ["--die-with-parent", "--dev", "/dev", "--tmpfs", "/tmp"]
        for top in _TOP:
            if os.path.islink(top):
                cmd += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                cmd += ["--ro-bind", top, top]
        for path in paths:
            cmd += ["--ro-bind", path, path]
        return [*cmd, "--bind", workdir, workdir, "--chdir", workdir, "--", *argv]
    specs: list[str] = []
    for top in _TOP:
        if os.path.islink(top):
            specs += ["link", top, os.readlink(top)]
        elif os.path.isdir(top):
            specs += ["ro", top]
    for path in paths:
        specs += ["ro", path]
    chroot = shutil.which("chroot", path="/usr/sbin:/sbin:/usr/bin:/bin") or "chroot"
    root = os.path.join(scratch, "root")
    os.makedirs(root, exist_ok=True)
    unshare = [_tool("unshare"), "-r", "-m", "-p", "-n", "-i", "-u", "--fork", "--kill-child"]
    script = ["/bin/sh", "-c", _UNSHARE_SCRIPT, "sandbox", root, workdir, chroot]
    return [*unshare, *script, *specs, "--", *argv]
