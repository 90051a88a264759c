"""The student's nbgrader kernel, in a bubblewrap sandbox, forked from a warm server inside it.

nbgrader executes a submission in a Jupyter kernel: the student's code. Started as usual it
inherits the grader's user (root on a JupyterHub grading node), environment (the run's seed),
working directory and file system: from a notebook cell it could rewrite the gradebook or the
state log, signal grading workers or plant modules in the virtual environment. Here every
kernel runs in the worker's *kernel sandbox*, which has the same walls as the verification
runner (``launch.py``):

* new user, mount, pid, network, IPC, UTS and cgroup namespaces, uid 65534, no capabilities, a
  new session, killed with the grader (``--die-with-parent``: the whole pid namespace goes);
* a file system of ``/usr``, the Python installation and virtual environment (read-only), the
  student kit of the graded assignment (its ``autograder`` and ``attention_ref`` packages,
  read-only, at ``/kit``: visible checks from public data, the given building blocks, a
  hidden-test call that does nothing; the whole grader only with ``--no-verify``), a copy of the
  notebook's directory at ``/job`` and ``/etc/fonts`` (read-only), a size-limited scratch
  ``/tmp`` (home and working files, matplotlib's font list bound in read-only), a 1 MiB tmpfs
  for its sockets and the connection file (read-only, ``/ipc-conf``); no course directory,
  gradebook, state log, solutions or other submissions;
* ZeroMQ over Unix sockets (``transport = ipc``) on that tmpfs, which the grader reaches through
  ``/proc/<pid>/root`` of the sandbox, since the sandbox has no network (TCP on the grader's
  loopback would reach a Dask scheduler or a database) and no writable directory of the host;
* an environment of a few fixed variables (never ``AUTOGRADER_SEED``: the in-kernel hidden tests
  use their fixed default, and only the verified scores, drawn from the run's seed outside the
  kernel, are recorded);
* limits: address space per process, no core files, file size (``prlimit`` before Python
  starts) and a control group per kernel for its whole tree (``pids`` processes, ``memory_mb``
  in all, see ``cgroup.py``).

The sandbox is started once per worker process (and again after a kernel it could not clean up,
or for another mode), with :mod:`autograder.grading.zygote` as its pid 1: a Python that has
imported ipykernel, numpy and matplotlib and forks one kernel per submission, which saves a
fresh interpreter's start-up and imports per submission. One kernel at a time: the worker grades
one job at a time (``job._ONE_AT_A_TIME``). Between two kernels the grader (:class:`KernelServer`)

1. kills the kernel's control group, then every process of the sandbox's pid namespace but the
   server itself, until none is left (the same with no control group: the namespace is the
   bound), so nothing of one submission runs when the next one's kernel starts;
2. removes every file and directory the kernel made in the sandbox's own writable file
   systems (its root, ``/tmp``, ``/ipc``, ``/dev``: tmpfs, compared with what they held when the
   sandbox started), and replaces ``/kit``, ``/job`` and ``/ipc-conf`` with the next job's;

and the server removes the System V IPC objects before it forks again (``zygote.py``), which
also says why no kernel can kill, stop, trace or read the server. A sandbox the grader cannot
empty is killed whole (all of its namespace) and started afresh.
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
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from . import cgroup
from .command import NOBODY, STARTUP_SECONDS, Limits, _font_caches, _python_roots, _system_binds

KIT = "/kit"
JOB = "/job"  # inside the sandbox: a copy of the notebook's directory, the kernel's working directory
IPC_DIR = "/ipc"  # inside the sandbox: the kernel's ZeroMQ sockets
IPC_BYTES = 1 << 20
CONF_DIR = "/ipc-conf"
INSIDE_CONNECTION = f"{CONF_DIR}/kernel.json"
SERVER = "/grader/zygote.py"
MPLCONFIGDIR = "/tmp/.matplotlib"
#: Read-only system configuration a kernel's plots need (fontconfig warns on stderr without it,
#: and nbgrader scores a cell with stderr output 0, as stock nbgrader's kernel would not).
SHARED_ETC = ("/etc/fonts",)
#: Variables the kernel may see (nbgrader's own, and what makes matplotlib and BLAS behave).
PASSED_ENV = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "MPLBACKEND")
#: Seconds the server may take to fork a kernel, and the grader to empty the sandbox after it.
SPAWN_SECONDS = 20.0
#: Everything in the host directory bound into the sandbox: the kit, the notebook's directory, the connection file.
STAGED = {"kit": KIT, "job": JOB, "conf": CONF_DIR}


def _grader_packages() -> list[tuple[str, str]]:
    """``(host path, path inside)`` of the whole grader's packages at ``/kit`` (``--no-verify``)."""
    import attention_ref

    import autograder

    return [(str(Path(m.__file__).resolve().parent), f"{KIT}/{m.__name__}") for m in (autograder, attention_ref)]


def fixed_env(env: dict) -> dict[str, str]:
    """The kernel's whole environment: a few fixed variables and nbgrader's (:data:`PASSED_ENV`) from ``env``."""
    fixed = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
             "PYTHONPATH": KIT, "MPLCONFIGDIR": MPLCONFIGDIR, "PYTHONDONTWRITEBYTECODE": "1",
             "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    fixed.update({k: env[k] for k in PASSED_ENV if k in env})
    return fixed


def server_command(limits: Limits, staged: Path, whole_grader: bool = False) -> list[str]:
    """The bwrap command line of a worker's kernel sandbox, running the fork server as its pid 1.

    ``staged``: the host directory whose ``kit/``, ``job/`` and ``conf/`` are bound read-only at
    ``/kit``, ``/job`` and ``/ipc-conf`` (their contents change from job to job). With
    ``whole_grader`` (``--no-verify``, whose in-kernel hidden tests are the scores) ``/kit`` holds
    the grader's own packages instead.
    """
    wrap = [shutil.which("bwrap"), "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--as-pid-1", *_system_binds(),
            "--size", str(_scratch_bytes(limits)), "--tmpfs", "/tmp"]
    for root in _python_roots():
        wrap += ["--ro-bind", root, root]
    binds = [(str(staged / name), inside) for name, inside in STAGED.items()]
    if whole_grader:
        binds = [b for b in binds if b[1] != KIT] + _grader_packages()
    for source, target in binds:
        wrap += ["--ro-bind", source, target]
    wrap += ["--ro-bind", str(Path(__file__).resolve().parent.parent / "grading" / "zygote.py"), SERVER]
    # The sockets live on a tmpfs of the sandbox's own (1 MiB): nothing the kernel writes
    # reaches the grader's disk. The grader connects through /proc/<pid>/root.
    wrap += ["--size", str(IPC_BYTES), "--tmpfs", IPC_DIR]
    for shared in SHARED_ETC:
        if os.path.isdir(shared):
            wrap += ["--ro-bind", shared, shared]
    wrap += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp", "--clearenv"]
    for cache in _font_caches():  # matplotlib need not rebuild its font list in every kernel
        wrap += ["--ro-bind", str(cache), f"{MPLCONFIGDIR}/{cache.name}"]
    for key, value in fixed_env({}).items():
        wrap += ["--setenv", key, value]
    memory = int(limits.memory_mb) << 20
    wrap += ["/usr/bin/prlimit", f"--as={memory}", "--core=0", f"--fsize={_scratch_bytes(limits)}", "--"]
    return wrap + [os.path.realpath(sys.executable), "-B", SERVER]


def _scratch_bytes(limits: Limits) -> int:
    return max(16 << 20, min(256 << 20, int(limits.memory_mb) << 18))


# ---------------------------------------------------------------- the grader's side of the sandbox
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


def _entries(top: str) -> dict[str, tuple[int, int, int]]:
    """Every path under ``top`` on the same file system (not crossing into a mount), relative to ``top``,
    with what identifies it (inode, mode, owner)."""
    found: dict[str, tuple[int, int, int]] = {}
    device = os.lstat(top).st_dev

    def walk(rel: str) -> None:
        try:
            with os.scandir(os.path.join(top, rel)) as it:
                children = list(it)
        except OSError:
            return
        for entry in children:
            path = os.path.join(rel, entry.name)
            st = entry.stat(follow_symlinks=False)
            found[path] = (st.st_ino, st.st_mode, st.st_uid)
            if stat.S_ISDIR(st.st_mode) and st.st_dev == device:
                walk(path)

    walk("")
    return found


def _remove(path: str) -> None:
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


class KernelServer:
    """A worker's kernel sandbox and the fork server in it (see the module docstring)."""

    def __init__(self, limits: Limits, whole_grader: bool):
        self.limits, self.whole_grader, self.owner = limits, whole_grader, os.getpid()
        # Named like the worker's private folders: a pool that lost this worker removes it (executors.LocalPool).
        # Private to the grader's user (mkdtemp's 0700), which the sandbox's uid maps to: it holds the notebook
        # being graded and the kernel's connection key, in a /tmp every user of the host lists.
        self.staged = Path(tempfile.mkdtemp(prefix=f"autograder-{os.getpid()}-kernels-"))
        for name in STAGED:
            (self.staged / name).mkdir(mode=0o755)
        self.proc = subprocess.Popen(server_command(limits, self.staged, whole_grader), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"},
                                     start_new_session=True)
        # A pool's worker ends through multiprocessing (which runs no atexit handler), other processes normally.
        multiprocessing.util.Finalize(self, self.close, exitpriority=10)
        atexit.register(self.close)
        try:
            self._reply(STARTUP_SECONDS)
            self.pid = _sandbox_root_pid(self.proc.pid)
            self.namespace = os.readlink(f"/proc/{self.pid}/ns/pid")
            self.root = f"/proc/{self.pid}/root"
            self.clean_state = {m: _entries(self.root + m) for m in _writable_mounts(self.pid)}
        except BaseException:
            self.close()
            raise

    def usable(self, limits: Limits, whole_grader: bool) -> bool:
        """Whether this server still runs, belongs to this process and has these settings."""
        return (self.proc.poll() is None and self.owner == os.getpid() and self.limits == limits
                and self.whole_grader == whole_grader)

    def _reply(self, timeout: float) -> dict:
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            if not selector.select(timeout):
                raise RuntimeError(f"the kernel sandbox did not answer within {timeout:g} s")
        finally:
            selector.close()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the kernel sandbox ended ({self.proc.poll()})")
        return json.loads(line)

    def stage(self, kit: str | None, cwd: str | None, connection: str) -> None:
        """Put the next job's kit, notebook directory and connection file where the sandbox sees them."""
        for name in STAGED:
            for child in (self.staged / name).iterdir():
                _remove(str(child))
        if kit is not None and not self.whole_grader:
            shutil.copytree(kit, self.staged / "kit", dirs_exist_ok=True)
        if cwd and os.path.isdir(cwd):
            shutil.copytree(cwd, self.staged / "job", symlinks=True, dirs_exist_ok=True)
        shutil.copyfile(connection, self.staged / "conf" / "kernel.json")
        for base, dirs, files in os.walk(self.staged):  # uid nobody reads them
            for name in dirs:
                os.chmod(os.path.join(base, name), 0o755)
            for name in files:
                os.chmod(os.path.join(base, name), 0o644)

    def spawn(self, argv: list[str], env: dict, group: cgroup.Group) -> int:
        """Fork a kernel running ``argv`` in the sandbox, inside ``group``; its pid on the host."""
        self.proc.stdin.write((json.dumps({"argv": argv, "cwd": JOB, "env": env, "path": [KIT]}) + "\n").encode())
        self.proc.stdin.flush()
        inner = self._reply(SPAWN_SECONDS)["pid"]
        end = time.monotonic() + SPAWN_SECONDS
        pid = None
        while time.monotonic() < end:
            pid = pid or self._host_pid(inner)
            if pid is not None and _state(pid) in ("T", "t"):  # it stopped itself before anything of the submission's
                group.admit(pid)
                os.kill(pid, signal.SIGCONT)
                return pid
            time.sleep(0.002)
        raise RuntimeError("the kernel forked in the sandbox did not stop for its control group")

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

    def clean(self) -> bool:
        """Kill every process of the sandbox but the server, remove what the kernel wrote; False if it could not
        (then the sandbox is discarded: a process that would not die, or a directory it started with changed)."""
        end = time.monotonic() + SPAWN_SECONDS
        while True:
            left = self._others()
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
            now = _entries(self.root + mount)
            for rel in sorted(set(now) - set(clean)):
                _remove(os.path.join(self.root + mount, rel))
            if any(now.get(rel) != identity for rel, identity in clean.items()):
                return False  # a directory the sandbox started with was moved, replaced or its mode changed
        return True

    def _others(self) -> list[int]:
        """Host pids of the processes in the sandbox's pid namespace other than the server (zombies left out)."""
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != self.pid:
                try:
                    if os.readlink(f"/proc/{name}/ns/pid") == self.namespace and _state(int(name)) not in ("Z", "X"):
                        found.append(int(name))
                except OSError:
                    continue
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


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _sandbox_root_pid(bwrap_pid: int, timeout: float = 10.0) -> int:
    """The pid of bwrap's child, once it lives in the sandbox's file system (its ``/ipc`` exists)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
        except OSError:
            children = []
        for child in children:
            if os.path.isdir(f"/proc/{child}/root{IPC_DIR}"):
                return int(child)
        time.sleep(0.005)
    raise RuntimeError(f"the kernel's sandbox did not start within {timeout:g} s")


class _Servers:
    """This process's kernel sandbox (one job at a time per process: one server), started on first use."""

    def __init__(self):
        self.server: KernelServer | None = None
        self.lock = threading.Lock()

    def get(self, limits: Limits, whole_grader: bool) -> KernelServer:
        if self.server is not None and not self.server.usable(limits, whole_grader):
            if self.server.owner == os.getpid():
                self.server.close()
            self.server = None
        if self.server is None:
            self.server = KernelServer(limits, whole_grader)
        return self.server

    def discard(self) -> None:
        if self.server is not None and self.server.owner == os.getpid():
            self.server.close()
        self.server = None


servers = _Servers()


class ForkedProcess:
    """A Popen look-alike for a kernel forked in the sandbox (not our child: no exit status)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        """None while the process exists, else its (unknown, reported as 0) exit code."""
        if self.returncode is None and _state(self.pid) in (None, "Z", "X"):
            self.returncode = 0
        return self.returncode

    def wait(self, timeout=None):
        """Wait for the process to end."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("kernel", timeout)
            time.sleep(0.01)
        return self.returncode

    def send_signal(self, signum):
        """Send ``signum`` to the kernel."""
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self):
        """SIGKILL the kernel."""
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        """SIGTERM the kernel."""
        self.send_signal(signal.SIGTERM)


class SandboxProvisioner(LocalProvisioner):
    """Forks the kernel in the worker's kernel sandbox (see the module docstring)."""

    limits: Limits = Limits()
    kit: str | None = None

    async def launch_kernel(self, cmd, **kwargs):
        """Launch ``cmd``'s kernel in the sandbox (see LocalProvisioner.launch_kernel)."""
        km = self.parent
        with servers.lock:
            server = servers.get(self.limits, self.kit is None)
            self.server = server
            server.stage(self.kit, kwargs.get("cwd"), km.connection_file)
            self.group = cgroup.Group(pids=self.limits.pids, memory_bytes=int(self.limits.memory_mb) << 20)
            cmd = list(cmd)
            if "-f" in cmd[:-1]:
                cmd[cmd.index("-f") + 1] = INSIDE_CONNECTION
            try:
                pid = server.spawn(cmd, fixed_env(dict(kwargs.get("env") or os.environ)), self.group)
            except BaseException:
                servers.discard()
                raise
        self.process = ForkedProcess(pid)
        self.pid = self.pgid = pid
        self.cwd = JOB
        # The kernel binds /ipc/kernel-N inside; the grader reaches them through the sandbox's root.
        return dict(self.connection_info, ip=f"{server.root}{IPC_DIR}/kernel")

    async def cleanup(self, restart: bool = False) -> None:
        """Kill what is left of the kernel, empty the sandbox for the next one, remove the connection files."""
        await super().cleanup(restart)
        if getattr(self, "group", None) is not None:
            self.group.close()
            self.group = None
        server = getattr(self, "server", None)
        if server is not None:
            with servers.lock:
                if servers.server is server and not server.clean():
                    servers.discard()
            self.server = None
        if not restart:
            shutil.rmtree(self.parent.private_dir, ignore_errors=True)


class SandboxKernelManager(AsyncKernelManager):
    """AsyncKernelManager whose kernel runs in the kernel sandbox and talks over Unix sockets."""

    limits: Limits = Limits()
    kit: str | None = None

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            self.private_dir = tempfile.mkdtemp(prefix="autograder-kernel-")
            self.transport, self.cache_ports = "ipc", False
            self.ip = f"{IPC_DIR}/kernel"  # as the kernel sees it; the grader's path is set at launch
            self.connection_file = os.path.join(self.private_dir, "kernel.json")
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = SandboxProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
            self.provisioner.limits = self.limits
            self.provisioner.kit = self.kit
        return await super()._async_pre_start_kernel(**kw)


def manager_class(limits: Limits, kit: str | None = None) -> type[SandboxKernelManager]:
    """A SandboxKernelManager subclass bound to ``limits`` and the kit directory bound at ``/kit``
    (nbclient instantiates the class itself)."""
    return type("BoundSandboxKernelManager", (SandboxKernelManager,), {"limits": limits, "kit": kit})
