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


def unbounded_trees(limits) -> list[str]:
    """What a sandbox cannot bound here for lack of a writable controller, as the warning
    ``autograder grade`` prints (``limits``: ``grading.sandbox``); empty where both are available."""
    missing = sorted({"pids", "memory"} - available())
    if not missing:
        return []
    return [f"no writable {' or '.join(missing)} control group on this host (grading as a user without a delegated "
            f"cgroup v2 subtree, or a read-only /sys): a submission's processes are bounded one by one "
            f"({limits.memory_mb} MB, {limits.cpu_seconds:g} s of CPU each), not as a tree"
            + (f" ({limits.pids} processes)" if "pids" in missing else "")
            + ("; 06's memory check is withheld and flagged" if "memory" in missing else "")
            + ". Grade as root, or delegate a cgroup v2 subtree to the grading user"]


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

    # ------------------------------------------------------------ the grader's memory measurement
    def _memory_dir(self) -> Path | None:
        for path in self.dirs:
            if (path / "memory.limit_in_bytes").exists() or (path / "memory.max").exists():
                return path
        return None

    def measures_memory(self) -> bool:
        """Whether this group has a memory controller the grader can bound and read."""
        return self._memory_dir() is not None

    def held_bytes(self) -> int | None:
        """Memory the group's processes hold that the kernel cannot reclaim (anonymous + tmpfs), or None.

        Page cache is left out: it is reclaimed under a limit, so it is not memory a call can free for itself.
        """
        path = self._memory_dir()
        if path is None:
            return None
        try:
            stat = dict(line.split()[:2] for line in (path / "memory.stat").read_text().splitlines() if " " in line)
            keys = ("anon", "shmem") if (path / "memory.max").exists() else ("rss", "shmem")
            return sum(int(stat.get(k, 0)) for k in keys)
        except (OSError, ValueError):
            return None

    def limit_memory(self, limit_bytes: int) -> bool:
        """Lower the group's memory limit to ``limit_bytes``; False when the kernel refuses.

        v1 refuses (``EBUSY``) when what the group holds cannot be reclaimed below the limit; v2
        reclaims, then kills. Either way nothing of the group runs beyond the limit afterwards.
        """
        path = self._memory_dir()
        if path is None:
            return False
        try:
            if (path / "memory.max").exists():
                (path / "memory.max").write_text(str(int(limit_bytes)))
            else:
                (path / "memory.limit_in_bytes").write_text(str(int(limit_bytes)))
                _write_if(path / "memory.memsw.limit_in_bytes", str(int(limit_bytes)))
            return True
        except OSError:
            return False

    def reset_peak(self) -> None:
        """Start the group's high-water mark afresh (v1 ``max_usage_in_bytes``; v2 ``memory.peak`` where writable)."""
        path = self._memory_dir()
        if path is not None:
            _write_if(path / "memory.max_usage_in_bytes", "0")
            _write_if(path / "memory.peak", "0")

    def peak_bytes(self) -> int | None:
        """The group's high-water mark of memory (page cache included), or None."""
        path = self._memory_dir()
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            try:
                return int((path / name).read_text().split()[0]) if path is not None else None
            except (OSError, ValueError, IndexError):
                continue
        return None

    def oom_kills(self) -> int | None:
        """How many processes of the group the kernel killed for memory so far, or None where not counted."""
        path = self._memory_dir()
        for name in ("memory.oom_control", "memory.events"):
            try:
                for line in (path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
            except (OSError, ValueError, TypeError):
                continue
        return None

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` started inside the group (a shell joins it, then ``exec``\\ s ``cmd``)."""
        if not self.dirs:
            return cmd
        joins = "; ".join(f"echo $$ > {shlex.quote(str(d / 'cgroup.procs'))} || exit 126" for d in self.dirs)
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sandbox", *cmd]

    def admit(self, pid: int) -> None:
        """Move process ``pid`` (not yet running anything of a submission's) into the group."""
        for d in self.dirs:
            (d / "cgroup.procs").write_text(str(int(pid)))

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
