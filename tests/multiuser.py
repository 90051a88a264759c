"""Unix users for the tests that need several people on one machine (a hub's students and instructor).

:func:`ensure_user` makes an account once (``useradd``; the tests run as root here and in CI) and
:func:`as_user` runs a command as that account, with its own uid, primary group and no other groups.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time


def missing_requirement() -> str | None:
    """Why accounts cannot be made here, or None."""
    if os.geteuid() != 0:
        return "making Unix users needs root (useradd)"
    if shutil.which("useradd") is None:
        return "no useradd on this machine (Debian's passwd package)"
    return None


def ensure_user(name: str) -> pwd.struct_passwd:
    """The account ``name``, made with a home and a group of its own when it does not exist yet.

    Idempotent, and safe when another test process makes the same account at the same time
    (``useradd`` then fails on the lock or on the name, and the account is read back).
    """
    for attempt in range(20):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
        done = subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name],
                              capture_output=True, text=True)
        if done.returncode == 0:
            return pwd.getpwnam(name)
        time.sleep(0.1 * (attempt + 1))  # 9: made meanwhile; 10: /etc/passwd locked by another useradd
    raise RuntimeError(f"useradd {name} failed: {done.returncode} {done.stderr.strip()}")


def as_user(name: str, argv: list[str], **subprocess_kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(argv)`` as the account ``name`` (its uid, its group only, its HOME, USER and LOGNAME).

    ``env`` replaces the environment as in :func:`subprocess.run` (default: a bare ``PATH``); the account's
    variables are set over it. ``cwd`` defaults to the account's home.
    """
    pw = pwd.getpwnam(name)
    env = dict(subprocess_kwargs.pop("env", None) or {"PATH": "/usr/bin:/bin"})
    env.update(HOME=pw.pw_dir, USER=name, LOGNAME=name)
    subprocess_kwargs.setdefault("cwd", pw.pw_dir)
    return subprocess.run(argv, user=pw.pw_uid, group=pw.pw_gid, extra_groups=[], env=env, **subprocess_kwargs)
