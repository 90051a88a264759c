"""A warm sandbox: one bubblewrap sandbox per grading worker whose pid 1 forks the processes of student code.

Both places student code runs are served this way: the nbgrader kernel (:mod:`.kernel`) and the
verification runner (:mod:`.launch`). A fresh sandboxed Python per submission costs its start-up
and its imports (ipykernel, numpy, matplotlib: 1-2 s); here :mod:`autograder.grading.zygote`, the
sandbox's pid 1, has imported them once and forks one process per request. What keeps one
submission's process from the next one's:

* the zygote (pid 1 of the sandbox's pid namespace) cannot be killed, stopped, traced or read by
  what it forks (see ``zygote.py``); each forked process stops itself before anything of the
  submission's runs, and the grader puts it in a control group of its own (``pids``,
  ``memory_mb``) before it continues it (:meth:`WarmSandbox.fork`);
* after it, the grader kills every process of the sandbox's pid namespace but the zygote, until
  none is left, and removes every file and directory made in the sandbox's own writable file
  systems (its root, ``/tmp``, ``/dev``, ...: tmpfs, compared with what they held when the sandbox
  started) (:meth:`WarmSandbox.clean`); the zygote removes the System V IPC objects before it
  forks again. A sandbox the grader cannot empty is killed whole and started afresh.
* the files of a job reach the sandbox through one host directory (``staged``) bound read-only,
  emptied and filled again by the grader for each job.
"""
from __future__ import annotations

import atexit
import json
import multiprocessing.util
import os
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

from . import cgroup
from .command import STARTUP_SECONDS

#: Seconds the zygote may take to fork a process, and the grader to empty the sandbox after it.
SPAWN_SECONDS = 20.0


def _writable_mounts(pid: int) -> list[str]:
    """The sandbox's own writable file systems (fresh tmpfs), as paths inside it: its root (bubblewrap's
    own tmpfs), ``/tmp``, ``/ipc`` and ``/dev``.

    A bind of a host directory is never one of them (every bind is read-only, and the root of its
    mount is a directory of the host's file system, not ``/``), so cleaning never reaches a host file.
    """
    found = []
    for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines():
        fields = line.split()
        sep = fields.index("-")
        root, point, options, fstype = fields[3], fields[4], fields[5].split(","), fields[sep + 1]
        if fstype == "tmpfs" and (root == "/" or point == "/") and "rw" in options:
            found.append(point)
    return found


def _xattrs(path: str) -> tuple:
    """The extended attributes of ``path`` (tmpfs keeps ``user.*`` ones: a run could leave them on a directory
    the sandbox started with), as sorted (name, value) pairs."""
    try:
        return tuple(sorted((n, os.getxattr(path, n, follow_symlinks=False))
                            for n in os.listxattr(path, follow_symlinks=False)))
    except OSError:
        return ()


def _entries(top: str) -> dict[str, tuple]:
    """Every path under ``top`` on the same file system (not crossing into a mount), relative to ``top``,
    with what identifies it (inode, mode, owner, extended attributes)."""
    found: dict[str, tuple] = {}
    device = os.lstat(top).st_dev
    pending = [""]  # not recursion: a run may leave a tree deeper than Python's stack
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(os.path.join(top, rel)) as it:
                children = list(it)
        except OSError:
            continue
        for entry in children:
            path = os.path.join(rel, entry.name)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found[path] = (st.st_ino, st.st_mode, st.st_uid, _xattrs(os.path.join(top, path)))
            if stat.S_ISDIR(st.st_mode) and st.st_dev == device:
                pending.append(path)
    return found


def remove(path: str) -> None:
    """Remove a file or a directory tree, whatever it is; nothing if it is gone."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def state(pid: int) -> str | None:
    """The process's state letter (``R``, ``S``, ``T``, ``Z``, ...), None when it does not exist."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _sandbox_root_pid(bwrap_pid: int, marker: str, timeout: float = 10.0) -> int:
    """The pid of bwrap's child, once it lives in the sandbox's file system (its ``marker`` path exists)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
        except OSError:
            children = []
        for child in children:
            if os.path.exists(f"/proc/{child}/root{marker}"):
                return int(child)
        time.sleep(0.005)
    raise RuntimeError(f"the sandbox did not start within {timeout:g} s")


class WarmSandbox:
    """A worker's warm sandbox and the zygote in it (see the module docstring).

    ``command(staged)`` is the bwrap command line; ``staged`` gets one subdirectory per name of
    ``staged_names``; ``marker`` is a path that exists inside once bwrap's child is in the sandbox.
    ``key`` says which settings the sandbox was made for (:meth:`usable`).
    """

    kind = "sandbox"

    def __init__(self, command, staged_names, marker: str, key, *, name: str):
        self.key, self.owner = key, os.getpid()
        # Named like the worker's private folders: a pool that lost this worker removes it (executors.LocalPool).
        # Private to the grader's user (mkdtemp's 0700), which the sandbox's uid maps to: it holds the notebook
        # being graded and the kernel's connection key, in a /tmp every user of the host lists.
        self.staged = Path(tempfile.mkdtemp(prefix=f"autograder-{os.getpid()}-{name}-"))
        for sub in staged_names:
            (self.staged / sub).mkdir(mode=0o755)
        self.buffer = b""
        self.proc = subprocess.Popen(command(self.staged), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
        # A pool's worker ends through multiprocessing (which runs no atexit handler), other processes normally.
        multiprocessing.util.Finalize(self, self.close, exitpriority=10)
        atexit.register(self.close)
        try:
            self.reply(STARTUP_SECONDS)
            self.pid = _sandbox_root_pid(self.proc.pid, marker)
            self.namespace = os.readlink(f"/proc/{self.pid}/ns/pid")
            self.root = f"/proc/{self.pid}/root"
            self.clean_state = {m: _entries(self.root + m) for m in _writable_mounts(self.pid)}
        except BaseException:
            self.close()
            raise

    def usable(self, key) -> bool:
        """Whether this sandbox still runs, belongs to this process and was made for ``key``."""
        return self.proc.poll() is None and self.owner == os.getpid() and self.key == key

    def reply(self, timeout: float) -> dict:
        """The zygote's next line (a JSON object), within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = end - time.monotonic()
            selector = selectors.DefaultSelector()
            selector.register(self.proc.stdout, selectors.EVENT_READ)
            try:
                if left <= 0 or not selector.select(left):
                    raise RuntimeError(f"the {self.kind} did not answer within {timeout:g} s")
            finally:
                selector.close()
            data = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not data:
                raise RuntimeError(f"the {self.kind} ended ({self.proc.poll()})")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def fork(self, request: dict, group: cgroup.Group) -> tuple[int, int]:
        """Have the zygote fork a process for ``request``, put it in ``group`` and continue it.

        Returns its pid inside the sandbox and on the host. The process stops itself before it does
        anything of the submission's; it is continued only once it is in its control group.
        """
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        line = self.reply(SPAWN_SECONDS)
        while "pid" not in line:  # a report of how an earlier process ended, which nobody waited for
            line = self.reply(SPAWN_SECONDS)
        inner = line["pid"]
        end = time.monotonic() + SPAWN_SECONDS
        pid = None
        while time.monotonic() < end:
            pid = pid or self._host_pid(inner)
            if pid is not None and state(pid) in ("T", "t"):
                group.admit(pid)
                os.kill(pid, signal.SIGCONT)
                return inner, pid
            time.sleep(0.002)
        raise RuntimeError(f"the process forked in the {self.kind} did not stop for its control group")

    def _host_pid(self, inner: int) -> int | None:
        try:
            children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        except OSError:
            return None
        for child in children:
            try:
                status = Path(f"/proc/{child}/status").read_text()
            except OSError:
                continue
            nspids = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
            if nspids and nspids[-1] == str(inner):
                return int(child)
        return None

    def empty_staged(self, *names: str) -> None:
        """Remove what the last job put in the staged directories ``names`` (all of them by default)."""
        for sub in names or [p.name for p in self.staged.iterdir()]:
            for child in (self.staged / sub).iterdir():
                remove(str(child))

    def clean(self) -> bool:
        """Kill every process of the sandbox but the zygote, remove what they wrote; False if it could not
        (then the sandbox is discarded: a process that would not die, a directory it started with changed, or
        something written that is still there after the removal)."""
        end = time.monotonic() + SPAWN_SECONDS
        while True:
            left = self.others()
            if not left:
                break
            if time.monotonic() > end:
                return False
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)
        for mount, clean in self.clean_state.items():
            try:
                now = _entries(self.root + mount)
                for rel in sorted(set(now) - set(clean)):
                    remove(os.path.join(self.root + mount, rel))
            except RecursionError:  # shutil.rmtree before Python 3.12 recurses
                return False
            if any(now.get(rel) != identity for rel, identity in clean.items()):
                return False  # a directory the sandbox started with was moved, replaced, its mode or attributes changed
            if set(_entries(self.root + mount)) != set(clean):
                return False  # something a run wrote could not be removed (too deep, made unreadable)
        return True

    def others(self) -> list[int]:
        """Host pids of the processes of the sandbox other than the zygote (zombies left out): those in its pid
        namespace, and every descendant of the zygote (one in a namespace nested in it, should one be made)."""
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != self.pid:
                try:
                    if os.readlink(f"/proc/{name}/ns/pid") == self.namespace and state(int(name)) not in ("Z", "X"):
                        found.append(int(name))
                except OSError:
                    continue
        pending, descendants = [self.pid], set()
        while pending:
            pid = pending.pop()
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                try:
                    children = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
                except OSError:
                    continue
                for child in map(int, children):
                    if child not in descendants:
                        descendants.add(child)
                        pending.append(child)
        found += [pid for pid in descendants - set(found) if state(pid) not in (None, "Z", "X")]
        return found

    def close(self) -> None:
        """Kill the whole sandbox and remove the staged files (in the process that started it)."""
        if self.owner != os.getpid() or self.proc.returncode is not None and not self.staged.exists():
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        pid = getattr(self, "pid", None)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)  # the namespace's init: every process in it goes too
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        shutil.rmtree(self.staged, ignore_errors=True)


class Held:
    """This process's warm sandbox of one kind (one job at a time per process: one sandbox), made on first use."""

    def __init__(self, make):
        import threading

        self.make = make
        self.sandbox = None
        self.lock = threading.Lock()

    def get(self, key):
        """The sandbox for ``key``, started (again) when there is none usable."""
        if self.sandbox is not None and not self.sandbox.usable(key):
            if self.sandbox.owner == os.getpid():
                self.sandbox.close()
            self.sandbox = None
        if self.sandbox is None:
            self.sandbox = self.make(key)
        return self.sandbox

    def discard(self) -> None:
        """Kill the sandbox (the next :meth:`get` starts a fresh one)."""
        if self.sandbox is not None and self.sandbox.owner == os.getpid():
            self.sandbox.close()
        self.sandbox = None
