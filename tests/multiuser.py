"""Real Unix users for the tests of a course shared by several people (issue 21).

Tests that need an instructor and students as separate accounts make them here (the suite runs as
root, here and in CI) and run commands as them. Nothing is faked: the kernel decides what each
account may read, write or signal.
"""
from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

#: The virtual environment's ``bin``, first on a user's PATH (the checkout must be readable by them).
BIN = str(Path(sys.executable).parent)


def with_suite_threads(env: dict) -> dict:
    """``env`` with the suite's one BLAS thread per process (tests/conftest.py), unless it sets its own: an
    account's environment is made from scratch, and numpy's default threads spin on a busy two-core host
    (grading 06 as the instructor: 237 s of CPU in a suite run at load 3.5)."""
    threads = {v: os.environ[v] for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
               if v in os.environ}
    return {**threads, **env}


def ensure_user(name: str) -> pwd.struct_passwd:
    """The account ``name``, made with ``useradd -m`` when it does not exist yet (idempotent).

    Skips the calling test where it cannot be made: not root, or no ``useradd``.
    """
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    if os.geteuid() != 0:
        pytest.skip(f"making the Unix user {name!r} needs root")
    done = subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], capture_output=True, text=True)
    try:
        return pwd.getpwnam(name)  # made here, or by a test running at the same time
    except KeyError:
        raise RuntimeError(f"useradd -m {name} failed ({done.returncode}): {done.stderr.strip()}") from None


def as_user(name: str, argv: list[str], **subprocess_kwargs) -> subprocess.CompletedProcess:
    """Run ``argv`` as the account ``name`` (its uid, gid and groups), in its home, with its own HOME/USER.

    ``env`` (default: PATH with the virtual environment first) is given the account's ``HOME``,
    ``USER`` and ``LOGNAME``; the other keyword arguments go to :func:`subprocess.run` (output is
    captured as text unless they say otherwise).
    """
    user = pwd.getpwnam(name)
    env = with_suite_threads(subprocess_kwargs.pop("env", None) or {"PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"})
    env.update(HOME=user.pw_dir, USER=name, LOGNAME=name)
    subprocess_kwargs.setdefault("cwd", user.pw_dir)
    subprocess_kwargs.setdefault("capture_output", True)
    subprocess_kwargs.setdefault("text", True)
    return subprocess.run(argv, env=env, user=user.pw_uid, group=user.pw_gid, extra_groups=os.getgrouplist(
        name, user.pw_gid), **subprocess_kwargs)
