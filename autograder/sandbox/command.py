"""What a sandbox is made of: the bubblewrap command line, its binds, environment and limits.

Two kinds of sandbox (``sandbox_kind()``):

* ``"bubblewrap"`` (preferred, Debian's ``bwrap``): new user, mount, pid, network, ipc, uts and
  cgroup namespaces; the process runs as uid 65534 with no capabilities, in a new session, dies
  with the grader; the only paths that exist are ``/usr``, the Python installation and the
  virtual environment (read-only), the runner files and the notebook's job directory (read-only)
  and an empty, size-limited ``/tmp`` (its working directory). No course directory, solutions,
  gradebook, home directory or network.
* ``"subprocess"`` (fallback when ``bwrap`` is missing or does not work): an isolated
  interpreter (``python -I -S``, explicit ``sys.path``), a scrubbed environment, a fresh
  temporary working directory, a new session (its whole process group is killed), and the same
  resource limits; it runs as ``nobody`` when the grader is root and the interpreter is readable
  by ``nobody``, as the grader's user otherwise. The file system is *not* hidden.

Both: ``RLIMIT_CPU``, ``RLIMIT_AS``, ``RLIMIT_FSIZE``, no core files, a wall clock per cell and
per call (``Limits.cell_seconds``) and per submission (``Limits.wall_seconds``), and a cap on the
bytes sent back. ``AUTOGRADER_SANDBOX=bubblewrap|subprocess`` forces a kind.

The verification runner (``launch.py``) and the student's kernel (``kernel.py``) are built from
these pieces.
"""
from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import numpy as np

from ..config import SandboxLimits

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "runner.py"
CORE = HERE.parent / "checks" / "core.py"
ZYGOTE = HERE.parent / "grading" / "zygote.py"
STARTUP_SECONDS = 60.0
KEEP_STDOUT = 64 * 1024
NOBODY = 65534
SANDBOX_ENV = "AUTOGRADER_SANDBOX"


#: Resource limits of one sandbox: ``course.yml``'s ``grading.sandbox``, one schema for all.
Limits = SandboxLimits


class SandboxError(RuntimeError):
    """The sandbox itself could not run (a grader problem, never the submission's)."""


def _probe_bwrap(bwrap: str) -> bool:
    try:
        done = subprocess.run([bwrap, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
                               *_system_binds(), "--proc", "/proc", "--dev", "/dev", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.lru_cache(maxsize=None)
def _detect() -> str:
    bwrap = shutil.which("bwrap")
    return "bubblewrap" if bwrap and _probe_bwrap(bwrap) else "subprocess"


def sandbox_kind() -> str:
    """``"bubblewrap"`` when ``bwrap`` works here, else ``"subprocess"`` (``AUTOGRADER_SANDBOX`` forces one)."""
    forced = os.environ.get(SANDBOX_ENV)
    if forced:
        if forced not in ("bubblewrap", "subprocess"):
            raise ValueError(f"{SANDBOX_ENV} must be 'bubblewrap' or 'subprocess', not {forced!r}")
        if forced == "bubblewrap" and _detect() != "bubblewrap":
            raise SandboxError("AUTOGRADER_SANDBOX=bubblewrap but bwrap is not installed or does not work here")
        return forced
    return _detect()


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def site_paths() -> list[str]:
    """The directories numpy (and whatever else the submission's imports need) is found in."""
    numpy_site = str(Path(np.__file__).resolve().parent.parent)
    paths = [p for p in site.getsitepackages() if os.path.isdir(p)]
    return paths if numpy_site in paths else [numpy_site, *paths]


def _python_roots() -> list[str]:
    roots = []
    for p in (sys.base_prefix, sys.prefix, *site_paths()):
        p = os.path.realpath(p)
        if p.startswith("/usr/") or any(p == r or p.startswith(r + "/") for r in roots):
            continue
        roots = [r for r in roots if not r.startswith(p + "/")] + [p]
    return roots


@functools.lru_cache(maxsize=None)
def walls() -> tuple[str, ...]:
    """What every bubblewrap sandbox of student code starts with.

    ``--disable-userns`` (bubblewrap 0.8 and later; an older one goes without it): no user namespace inside,
    hence no nested pid namespace, whose processes a sweep of the sandbox's own pid namespace would miss (a
    warm sandbox outlives its runs; ``warm.WarmSandbox.others`` also sweeps the zygote's descendants, for an
    older bubblewrap; tests/sandbox/test_hostile_runner.py).
    """
    try:
        usage = subprocess.run([shutil.which("bwrap") or "bwrap", "--help"], capture_output=True, text=True,
                               timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        usage = ""
    return ("--unshare-all", "--unshare-user", *(["--disable-userns"] if "--disable-userns" in usage else []),
            "--uid", str(NOBODY), "--gid", str(NOBODY), "--die-with-parent", "--new-session", "--cap-drop", "ALL")


def _bwrap_command(job_dir: Path, limits: Limits, env: dict, argv: list[str], pid1: bool = False) -> list[str]:
    """The verification sandbox running ``argv``, ``job_dir`` bound read-only at ``/job``.

    ``pid1``: ``argv`` is the sandbox's pid 1 (the runner's fork server, ``grading/zygote.py``), which
    then cannot be signalled by what runs beside it.
    """
    cmd = [shutil.which("bwrap"), *walls(), *(["--as-pid-1"] if pid1 else []),
           *_system_binds(),
           # The scratch /tmp comes first: a checkout or virtual environment that lives under
           # /tmp (a CI clone) is bound on top of it below instead of being hidden by it.
           "--size", str(_scratch_bytes(limits)), "--tmpfs", "/tmp"]
    for root in _python_roots():
        cmd += ["--ro-bind", root, root]
    cmd += ["--ro-bind", str(RUNNER), "/grader/runner.py", "--ro-bind", str(CORE), "/grader/core.py",
            "--ro-bind", str(ZYGOTE), "/grader/zygote.py", "--ro-bind", str(job_dir), "/job"]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp", "--clearenv"]
    for cache in _font_caches():
        cmd += ["--ro-bind", str(cache), f"{env['MPLCONFIGDIR']}/{cache.name}"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    return cmd + argv


def _font_caches() -> list[Path]:
    """matplotlib's font list(s) of the grader's user, so a sandboxed ``import matplotlib`` need not rebuild it.

    Found without importing matplotlib: ``$MPLCONFIGDIR``, else ``$XDG_CACHE_HOME/matplotlib`` or
    ``~/.cache/matplotlib``. Only ``fontlist-v*.json`` files are shared (read-only under bwrap).
    """
    if os.environ.get("MPLCONFIGDIR"):
        base = Path(os.environ["MPLCONFIGDIR"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib"
    try:
        return sorted(p for p in base.glob("fontlist-v*.json") if p.is_file() and p.stat().st_size < 16 << 20)
    except OSError:
        return []


def _scratch_bytes(limits: Limits) -> int:
    return max(16 << 20, min(256 << 20, limits.memory_mb << 18))


def _world_usable(path: str) -> bool:
    """Whether uid nobody could read ``path`` (every ancestor searchable by others)."""
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if part != p and not mode & 0o001:
            return False
    return bool(p.stat().st_mode & 0o004)


def _drop_to_nobody_possible() -> bool:
    return os.geteuid() == 0 and all(_world_usable(p) for p in
                                     (sys.executable, str(RUNNER), str(CORE), *site_paths(), sys.base_prefix))


def _env(scratch: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": os.path.join(scratch, ".matplotlib"),
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def rlimits(limits: Limits, output_cap: int) -> dict[str, tuple[int, int]]:
    """The resource limits the runner sets on itself before it reads the submission.

    Set inside the runner rather than in a ``preexec_fn`` (unsafe in a threaded grader). Under
    bubblewrap the process has no capabilities, so it cannot raise them again.
    """
    cpu = max(1, int(round(limits.cpu_seconds)))
    memory = int(limits.memory_mb) << 20
    return {"RLIMIT_CPU": (cpu, cpu + 1), "RLIMIT_AS": (memory, memory),
            "RLIMIT_FSIZE": (output_cap, output_cap), "RLIMIT_CORE": (0, 0),
            # No POSIX message queue: one outlives its run in the warm sandbox's IPC namespace, seen by no sweep.
            "RLIMIT_MSGQUEUE": (0, 0)}


