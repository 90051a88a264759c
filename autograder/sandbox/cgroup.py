"""Limits for a sandbox's whole process tree: a control group per sandbox (pids and memory).

``RLIMIT_AS`` bounds one process, and ``RLIMIT_NPROC`` is not enforced for a sandbox that root
starts (bubblewrap maps its uid to root outside, and the kernel exempts root's processes), so a
submission's children could each take the full memory limit and fork without bound. A control
group bounds the tree: ``pids.max`` processes and threads, and ``memory_mb`` for all of them.

One code path for both layouts. Each controller's hierarchy is found in ``/proc/self/mountinfo``
(a v1 ``cgroup`` mount named after it, or the v2 ``cgroup2`` mount whose ``cgroup.controllers``
lists it; a hybrid host has some of each), and the sandbox's group is made in the **first
writable group** on the way up from the grader's own group in that hierarchy. For root that is
the grader's own group (so a container's limits still apply). For any other user it is a
**delegated subtree** the grader runs in: on v2 a ``Delegate=yes`` scope or unit of systemd
(``systemd-run --user --scope -p Delegate=yes ...``), where the grader first moves its own
processes into a leaf (:data:`GRADER_LEAF`: v2 lets no group with processes give controllers to
its children) and enables ``pids`` and ``memory`` for the subtree; on v1 a group that root made
and chowned to the user, with its control files, which the user's shell joined (``echo $$ >
…/cgroup.procs``). :func:`delegation_steps` words both for the warning.

The sandbox joins its group before ``bwrap`` starts (a shell writes its own pid and ``exec``\\ s:
no child is ever outside it), and the group is emptied and removed afterwards. Where no
controller is writable (a user without a delegated subtree, a read-only ``/sys``) the sandbox
runs without it, :func:`available` says so, and :func:`unbounded_trees` words what is lost.
"""
from __future__ import annotations

import functools
import os
import pwd
import re
import shlex
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

#: The controllers a sandbox's group bounds its tree with.
CONTROLLERS = ("pids", "memory")
#: The v2 leaf a non-root grader moves its own processes into, so that its delegated group may
#: give controllers to its children (v2's rule: a group that does holds no process itself).
GRADER_LEAF = "autograder-grader"


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy: where it is mounted, its root inside the mount, and its version."""

    mount: Path
    root: str  # the hierarchy's group seen at the mount point ("/" unless a subtree is bind-mounted)
    v2: bool


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


@functools.lru_cache(maxsize=None)
def hierarchies() -> dict[str, Hierarchy]:
    """``{controller: hierarchy}`` of :data:`CONTROLLERS` on this host, read from ``/proc/self/mountinfo``.

    A v1 hierarchy is a ``cgroup`` mount whose options name the controller; the v2 hierarchy is the
    ``cgroup2`` mount whose ``cgroup.controllers`` lists it (a controller is in one hierarchy only).
    """
    found: dict[str, Hierarchy] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        head, _, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if len(fields) < 5 or len(rest) < 3 or rest[0] not in ("cgroup", "cgroup2"):
            continue
        mount = Path(_unescape(fields[4]))
        if rest[0] == "cgroup":
            names = set(rest[2].split(","))
        else:
            try:
                names = set((mount / "cgroup.controllers").read_text().split())
            except OSError:
                continue
        for name in CONTROLLERS:
            if name in names and name not in found:
                found[name] = Hierarchy(mount, _unescape(fields[3]), rest[0] == "cgroup2")
    return found


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


def _own_group(controller: str, h: Hierarchy) -> Path:
    rel, root = _own_path("" if h.v2 else controller), h.root.strip("/")
    if root and (rel == root or rel.startswith(root + "/")):
        rel = rel[len(root):].lstrip("/")
    return h.mount / rel


def _upwards(group: Path, mount: Path):
    """``group`` and its ancestors up to the hierarchy's mount point."""
    if group != mount and mount not in group.parents:
        return
    while True:
        yield group
        if group == mount:
            return
        group = group.parent


def _words(path: Path) -> list[str]:
    return path.read_text().split()


def _try_mkdir(parent: Path) -> bool:
    probe = parent / f"autograder-probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def _into_leaf(group: Path) -> None:
    """Move the processes of ``group`` into its :data:`GRADER_LEAF`, when every one of them is this user's."""
    try:
        pids = _words(group / "cgroup.procs")
        if any(os.stat(f"/proc/{pid}").st_uid != os.geteuid() for pid in pids):
            return  # not only the grader's: leave the group as it is
        (group / GRADER_LEAF).mkdir(exist_ok=True)
        for pid in pids:
            try:
                (group / GRADER_LEAF / "cgroup.procs").write_text(pid)
            except ProcessLookupError:
                pass
    except OSError:
        return


def _v2_usable(group: Path, controller: str, own: Path) -> bool:
    """Whether the grader can make groups with ``controller`` in ``group`` (enabling it there if it may)."""
    try:
        if controller not in _words(group / "cgroup.controllers"):
            return False
        if controller in _words(group / "cgroup.subtree_control"):
            return _try_mkdir(group)
    except OSError:
        return False
    if os.geteuid() == 0:
        return False  # root uses the groups its system manager enabled; it never rearranges them
    if group == own:
        _into_leaf(group)
    try:
        (group / "cgroup.subtree_control").write_text(f"+{controller}")
    except OSError:
        return False
    return _try_mkdir(group)


def _first_writable(controller: str, h: Hierarchy) -> Path | None:
    """The first group, from the grader's own upwards, in which it can make a group with ``controller``."""
    own = _own_group(controller, h)
    if h.v2 and own.name == GRADER_LEAF:
        own = own.parent  # a parent process of this grader moved it there (_into_leaf)
    for group in _upwards(own, h.mount):
        if not os.access(group, os.W_OK):
            continue
        if (_v2_usable(group, controller, own) if h.v2 else _try_mkdir(group)):
            return group
    return None


@functools.lru_cache(maxsize=None)
def _layout() -> dict[str, Path]:
    """``{"pids"|"memory": parent directory}`` of the controllers this process may use."""
    found = {}
    for controller, h in hierarchies().items():
        group = _first_writable(controller, h)
        if group is not None:
            found[controller] = group
    return found


def available() -> set[str]:
    """The controllers a sandbox's group gets here (``{"pids", "memory"}``, fewer, or none)."""
    return set(_layout())


def _login() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def delegation_steps(missing: set[str]) -> str:
    """The exact step that gives the grader the ``missing`` controllers on this host, in words."""
    hs, user = hierarchies(), _login()
    if os.geteuid() == 0:
        return ("root cannot write these control groups here (a read-only /sys/fs/cgroup, as in a container): "
                "grade where /sys/fs/cgroup is writable")
    steps = []
    if any(c in hs and hs[c].v2 for c in missing):
        steps.append("run the grader in a delegated cgroup v2 subtree of systemd: `systemd-run --user --scope -p "
                     "Delegate=yes autograder grade ...` (the user needs a systemd user instance: as root once, "
                     f"`loginctl enable-linger {user}`), or start it from a unit with `Delegate=yes`")
    v1 = [str(hs[c].mount / f"grading-{user}") for c in sorted(missing) if c in hs and not hs[c].v2]
    if v1:
        dirs = " ".join(v1)
        steps.append(f"delegate a cgroup v1 subtree: as root, `mkdir {dirs} && chown -R {user} {dirs}`; then in the "
                     f"shell that grades, `for g in {dirs}; do echo $$ > $g/cgroup.procs; done`")
    absent = sorted(c for c in missing if c not in hs)
    if absent:
        steps.append(f"this host mounts no {' or '.join(absent)} controller at all: grade on one that does")
    return "; or ".join(steps)


def unbounded_trees(limits) -> list[str]:
    """What a sandbox cannot bound here for lack of a writable controller, as the warning
    ``autograder grade`` prints (``limits``: ``grading.sandbox``); empty where both are available."""
    missing = {"pids", "memory"} - available()
    if not missing:
        return []
    who = "root" if os.geteuid() == 0 else f"{_login()} (not root), which has no delegated subtree"
    lost = []
    if "pids" in missing:
        lost.append(f"the bound on a submission's process tree ({limits.pids} processes)")
    if "memory" in missing:
        lost.append(f"the bound on its memory in all ({limits.memory_mb} MB for the tree)")
    return [f"no writable {' or '.join(sorted(missing))} control group for {who}: "
            f"{' and '.join(lost)} are lost; a submission's processes are bounded one by one "
            f"({limits.memory_mb} MB, {limits.cpu_seconds:g} s of CPU each), not as a tree"
            + ("; 06's memory check is withheld and flagged (grader.memory_unmeasured), to regrade with "
               "`autograder grade --force` once the grader has one" if "memory" in missing else "")
            + f". To get {'them' if len(missing) > 1 else 'it'}: {delegation_steps(missing)}"]


def bounded_by() -> str | None:
    """Where the sandboxes' groups are made (``autograder grade`` says so), or None when nowhere."""
    layout = _layout()
    if not layout:
        return None
    where = ", ".join(f"{c} in {p}" for c, p in sorted(layout.items()))
    whose = "" if os.geteuid() == 0 else f" (delegated to {_login()})"
    return f"process trees are bounded by control groups: {where}{whose}"


class Group:
    """One sandbox's control group(s); use :meth:`wrap` on the command, then :meth:`close`."""

    def __init__(self, *, pids: int, memory_bytes: int):
        self.dirs: list[Path] = []
        name = f"autograder-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        made: dict[Path, Path] = {}  # parent -> the group in it: one v2 group holds every controller
        for controller, parent in _layout().items():
            path = made.get(parent)
            if path is None:
                path = made[parent] = parent / name
                path.mkdir(exist_ok=True)
                self.dirs.append(path)
            v2 = (path / "cgroup.controllers").exists()
            if controller == "pids":
                (path / "pids.max").write_text(str(int(pids)))
            elif controller == "memory" and v2:
                (path / "memory.max").write_text(str(int(memory_bytes)))
                _write_if(path / "memory.swap.max", "0")
            elif controller == "memory":
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
            _write_if(path / "cgroup.kill", "1")  # v2 (Linux 5.14+): the whole group at once
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
