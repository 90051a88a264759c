"""Fast kernel start-up: fork IPython kernels from a warm, pre-imported template process.

A kernel's start costs 0.6-0.9 s, mostly Python importing ipykernel, IPython and numpy, for
every submission (field notes). Each grading worker instead keeps one *zygote*: a process that
has imported those once and, on request, forks a child that becomes the kernel (the same
``ipykernel`` ``IPKernelApp`` the kernelspec would run, same connection file, working
directory and environment). jupyter_client drives it through ``ForkKernelManager`` exactly as a
normal kernel: signals, interrupts, shutdown and kill go to the forked process group.

Run as ``python -m autograder.grading.zygote``: reads one JSON request per line on stdin
(``{"argv": [...], "cwd": ..., "env": {...}}``), answers ``{"pid": N}`` on stdout.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

#: Modules every kernel imports anyway; course modules are preloaded if installed.
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "numpy")
# Not matplotlib_inline.backend_inline: importing it wires the figure formatters into the
# IPython shell of the moment, which must be the kernel's.
OPTIONAL_PRELOAD = ("autograder.hidden", "autograder.notebook", "matplotlib.pyplot")
#: What ipykernel itself sets when the kernel's environment names no backend.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def _is_ipykernel(argv: list[str]) -> bool:
    return len(argv) >= 3 and argv[1] == "-m" and argv[2] == "ipykernel_launcher"


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a killed grading run leaves no
    zygote or kernel behind). No-op elsewhere."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _become_kernel(argv: list[str], cwd: str, env: dict) -> None:
    """In the forked child: set up like a freshly launched kernel process, then run it."""
    code = 1
    try:
        _die_with_parent()
        os.setpgrp()  # jupyter_client signals the kernel's process group
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.path[0] = cwd  # what `python -m` puts first
        import importlib.util

        sys.argv = [importlib.util.find_spec("ipykernel_launcher").origin, *argv[3:]]
        if "numpy" in sys.modules:  # a fork copies the parent's random state: draw a fresh one
            sys.modules["numpy"].random.seed()
        if "matplotlib" in sys.modules:
            # matplotlib read MPLBACKEND when the zygote imported it, before this kernel's
            # environment existed: apply the kernel's choice, as a fresh import would.
            os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
            sys.modules["matplotlib"].rcParams["backend"] = os.environ["MPLBACKEND"]
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        os._exit(code)  # never run the zygote's atexit handlers or return into its loop


def main() -> None:
    """The zygote's loop (see the module docstring)."""
    import importlib

    _die_with_parent()
    for name in PRELOAD:
        importlib.import_module(name)
    for name in OPTIONAL_PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped automatically
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's business
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _become_kernel(req["argv"], req["cwd"], req["env"])
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()


class _Zygote:
    """The worker's handle on its zygote process (started on first use, one per process)."""

    def __init__(self):
        self.proc = None
        self.owner = None
        self.lock = threading.Lock()

    def spawn(self, argv: list[str], cwd: str, env: dict) -> int:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None or self.owner != os.getpid():
                self.proc = subprocess.Popen([sys.executable, "-m", "autograder.grading.zygote"],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                self.owner = os.getpid()
                json.loads(self.proc.stdout.readline())  # wait for "ready"
            self.proc.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env}) + "\n")
            self.proc.stdin.flush()
            return json.loads(self.proc.stdout.readline())["pid"]


_zygote = _Zygote()


class ForkedProcess:
    """A Popen look-alike for a kernel forked by the zygote (not our child: no exit status)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        """None while the process exists, else its (unknown, reported as 0) exit code."""
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
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


class ForkProvisioner(LocalProvisioner):
    """LocalProvisioner that forks ipykernel kernels from the zygote (others launch as usual)."""

    async def launch_kernel(self, cmd, **kwargs):
        """Launch the kernel described by ``cmd`` (see LocalProvisioner.launch_kernel)."""
        if not _is_ipykernel(cmd):
            return await super().launch_kernel(cmd, **kwargs)
        pid = _zygote.spawn(list(cmd), str(kwargs.get("cwd") or os.getcwd()), dict(kwargs.get("env") or os.environ))
        self.process = ForkedProcess(pid)
        self.pid, self.pgid = pid, pid
        self.cwd = kwargs.get("cwd")
        return self.connection_info


class ForkKernelManager(AsyncKernelManager):
    """AsyncKernelManager whose kernels come from the zygote."""

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            import uuid

            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = ForkProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)


if __name__ == "__main__":
    main()
