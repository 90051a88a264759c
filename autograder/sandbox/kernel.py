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

import asyncio
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from . import cgroup
from .command import Limits, _font_caches, _python_roots, _system_binds, walls
from .warm import Held, WarmSandbox, state

KIT = "/kit"
#: How often the grader looks whether a killed kernel has ended.
POLL_SECONDS = 0.005
#: How long a new kernel's client waits for the kernel's welcome on IOPub before it asks kernel_info anyway.
WELCOME_SECONDS = 5.0
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
    wrap = [shutil.which("bwrap"), *walls(), "--as-pid-1", *_system_binds(),
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
    wrap += ["/usr/bin/prlimit", f"--as={memory}", "--core=0", "--msgqueue=0", f"--fsize={_scratch_bytes(limits)}", "--"]
    return wrap + [os.path.realpath(sys.executable), "-B", SERVER]


def _scratch_bytes(limits: Limits) -> int:
    return max(16 << 20, min(256 << 20, int(limits.memory_mb) << 18))


# ---------------------------------------------------------------- the grader's side of the sandbox
class KernelServer(WarmSandbox):
    """A worker's kernel sandbox and the fork server in it (see the module docstring and :mod:`.warm`)."""

    kind = "kernel sandbox"

    def __init__(self, limits: Limits, whole_grader: bool):
        self.limits, self.whole_grader = limits, whole_grader
        super().__init__(lambda staged: server_command(limits, staged, whole_grader), STAGED, IPC_DIR,
                         (limits, whole_grader), name="kernels")

    def stage(self, kit: str | None, cwd: str | None, connection: str) -> None:
        """Put the next job's kit, notebook directory and connection file where the sandbox sees them."""
        self.empty_staged()
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
        return self.fork({"argv": argv, "cwd": JOB, "env": env, "path": [KIT]}, group)[1]


servers = Held(lambda key: KernelServer(*key))


class ForkedProcess:
    """A Popen look-alike for a kernel forked in the sandbox (not our child: no exit status)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        """None while the process exists, else its (unknown, reported as 0) exit code."""
        if self.returncode is None and state(self.pid) in (None, "Z", "X"):
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
            server = servers.get((self.limits, self.kit is None))
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

    async def wait(self) -> int | None:
        """Wait for the kernel to end, looking every 5 ms (jupyter_client's every 100 ms: a forked kernel is gone
        within milliseconds of its SIGKILL, and the worker would idle the rest of the interval)."""
        while self.process is not None and await self.poll() is None:
            await asyncio.sleep(POLL_SECONDS)
        return await super().wait()

    async def cleanup(self, restart: bool = False) -> None:
        """Kill what is left of the kernel, empty the sandbox for the next one, remove the connection files."""
        await super().cleanup(restart)
        if getattr(self, "group", None) is not None:
            self.group.close()
            self.group = None
        server = getattr(self, "server", None)
        if server is not None:
            with servers.lock:
                if servers.sandbox is server and not server.clean():
                    servers.discard()
            self.server = None
        if not restart:
            shutil.rmtree(self.parent.private_dir, ignore_errors=True)


@functools.lru_cache(maxsize=None)
def _welcomes() -> bool:
    """Whether the kernels welcome a client's IOPub subscription: ipykernel 7 (they are forked from this
    environment's); with 6.29, which does not, the client asks ``kernel_info`` until IOPub brings its ``idle``."""
    from importlib.metadata import version

    return int(version("ipykernel").split(".")[0]) >= 7


class ReadyClient(AsyncKernelClient):
    """A kernel client that is ready as soon as the kernel is: its reply to ``kernel_info`` has come, and so
    has, on IOPub, the kernel's ``idle`` for that request (proof that IOPub is connected).

    jupyter_client's own wait then listens to IOPub until it has been silent for 0.2 s, and waits up to
    0.2 s more before that: 0.2-0.4 s of a worker doing nothing per submission. Nothing is lost without
    it: nbclient reads only the IOPub messages of the requests it sends itself. The request is sent once
    the kernel has welcomed the client's subscription on IOPub (``iopub_welcome``, ipykernel 7): asked
    before, the kernel's ``idle`` was lost in 3 of 5 starts, and each cost 0.2 s more to ask again.
    """

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        if _welcomes():
            await self._welcomed(min(WELCOME_SECONDS, max(0.0, deadline - time.monotonic())))
        while True:
            request = self.kernel_info()
            reply = await self._reply_to(request, min(1.0, max(0.0, deadline - time.monotonic())))
            if reply is not None and await self._idle_after(request, 0.2):  # lost before IOPub connected: ask again
                self._handle_kernel_info_reply(reply)
                return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    wait_for_ready = _async_wait_for_ready  # the base class binds its own coroutine to the public name

    async def _welcomed(self, seconds: float) -> bool:
        """Wait until the kernel welcomes this client on IOPub (False after ``seconds``: then ask anyway)."""
        from queue import Empty

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                msg = await self.iopub_channel.get_msg(timeout=min(left, 0.1))
            except Empty:
                if not await self._async_is_alive():
                    return False
                continue
            if msg["msg_type"] == "iopub_welcome":
                return True
        return False

    async def _reply_to(self, request: str, seconds: float):
        from queue import Empty

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                msg = await self.shell_channel.get_msg(timeout=left)
            except Empty:
                return None
            if msg["msg_type"] == "kernel_info_reply" and msg["parent_header"].get("msg_id") == request:
                return msg
        return None

    async def _idle_after(self, request: str, seconds: float) -> bool:
        from queue import Empty

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                msg = await self.iopub_channel.get_msg(timeout=left)
            except Empty:
                return False
            if (msg["msg_type"] == "status" and msg["parent_header"].get("msg_id") == request
                    and msg["content"].get("execution_state") == "idle"):
                return True
        return False


class SandboxKernelManager(AsyncKernelManager):
    """AsyncKernelManager whose kernel runs in the kernel sandbox and talks over Unix sockets."""

    limits: Limits = Limits()
    kit: str | None = None

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        await super()._async_wait(pollinterval=POLL_SECONDS)  # see SandboxProvisioner.wait

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
            self.client_factory = ReadyClient
        return await super()._async_pre_start_kernel(**kw)


def manager_class(limits: Limits, kit: str | None = None) -> type[SandboxKernelManager]:
    """A SandboxKernelManager subclass bound to ``limits`` and the kit directory bound at ``/kit``
    (nbclient instantiates the class itself)."""
    return type("BoundSandboxKernelManager", (SandboxKernelManager,), {"limits": limits, "kit": kit})
