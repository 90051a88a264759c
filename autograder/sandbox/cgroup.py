"""Limits for a sandbox's whole process tree: a control group per sandbox (pids and memory).

``RLIMIT_AS`` bounds one process, and ``RLIMIT_NPROC`` is not enforced for a sandbox that root
starts (bubblewrap maps its uid to root outside, and the kernel exempts root's processes), so a
submission's children could each take the full memory limit and fork without bound. A control
group bounds the tree: ``pids.max`` processes and threads, and ``memory_mb`` for all of them.

Both cgroup layouts: v2 (``/sys/fs/cgroup/cgroup.controllers`` lists ``pids``/``memory``) and v1
(``/sys/fs/cgroup/pids``, ``/sys/fs/cgroup/memory``). The group is made beside the grader's own
group (so a container's limits still apply), the sandbox joins it before ``bwrap`` starts (a
shell writes its own pid and ``exec``\\ s: no child is ever outside it), and it is emptied and
removed afterwards. Where no controller is writable (not root, a read-only ``/sys``) the sandbox
runs without it and :func:`available` says so; the caller reports that.
"""
from __future__ import annotations

import functools
import os
import shlex
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str:
    """This process's group in ``controller`` (v1) or in the unified hierarchy (``""``)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if (controller and controller in names.split(",")) or (not controller and names == ""):
                return path.lstrip("/")
    except OSError:
        pass
    return ""


def _writable_parent(base: Path) -> Path | None:
    for parent in (base, base.parent):
        if parent.is_dir() and os.access(parent, os.W_OK):
            return parent
    return None


@functools.lru_cache(maxsize=None)
def _layout() -> dict[str, Path]:
    """``{"pids"|"memory": parent directory}`` of the controllers this process may use."""
    found: dict[str, Path] = {}
    if (ROOT / "cgroup.controllers").exists():  # v2 only
        own = ROOT / _own_path("")
        for candidate in (own.parent, own):
            try:
                enabled = (candidate / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if os.access(candidate, os.W_OK):
                for name in ("pids", "memory"):
                    if name in enabled:
                        found.setdefault(name, candidate)
        return found
    for name in ("pids", "memory"):
        base = ROOT / name
        if base.is_dir():
            parent = _writable_parent(base / _own_path(name))
            if parent is not None and _try_mkdir(parent):
                found[name] = parent
    return found


def _try_mkdir(parent: Path) -> bool:
    probe = parent / f"autograder-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def available() -> set[str]:
    """The controllers a sandbox's group gets here (``{"pids", "memory"}``, fewer, or none)."""
    return set(_layout())


class Group:
    """One sandbox's control group(s); use :meth:`wrap` on the command, then :meth:`close`."""

    def __init__(self, *, pids: int, memory_bytes: int):
        self.dirs: list[Path] = []
        name = f"autograder-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        v2 = (ROOT / "cgroup.controllers").exists()
        for controller, parent in _layout().items():
            path = parent / name
            if v2 and self.dirs:
                path = self.dirs[0]  # one v2 group holds every controller
            else:
                path.mkdir(exist_ok=True)
                self.dirs.append(path)
            if controller == "pids":
                (path / "pids.max").write_text(str(int(pids)))
            elif v2:
                (path / "memory.max").write_text(str(int(memory_bytes)))
                _write_if(path / "memory.swap.max", "0")
            else:
                (path / "memory.limit_in_bytes").write_text(str(int(memory_bytes)))
                _write_if(path / "memory.memsw.limit_in_bytes", str(int(memory_bytes)))

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` started inside the group (a shell joins it, then ``exec``\\ s ``cmd``)."""
        if not self.dirs:
            return cmd
        joins = "; ".join(f"echo $$ > {shlex.quote(str(d / 'cgroup.procs'))} || exit 126" for d in self.dirs)
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sandbox", *cmd]

    def close(self) -> None:
        """Kill whatever is left in the group and remove it."""
        for path in self.dirs:
            for _ in range(50):
                try:
                    pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
                except OSError:
                    break
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                time.sleep(0.02)
            try:
                path.rmdir()
            except OSError:
                pass
        self.dirs = []


def _write_if(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass
