"""The student's nbgrader kernel, in a bubblewrap sandbox.

nbgrader executes a submission in a Jupyter kernel: the student's code. Started as usual it
inherits the grader's user (root on a JupyterHub grading node), environment (the run's seed),
working directory and file system: from a notebook cell it could rewrite the gradebook or the
state log, signal grading workers or plant modules in the virtual environment. Here the kernel
gets the same walls as the verification runner (``launch.py``):

* new user, mount, pid, network, IPC, UTS and cgroup namespaces, uid 65534, no capabilities, a
  new session, killed with the grader (``--die-with-parent``: the whole pid namespace goes);
* a file system of ``/usr``, the Python installation and virtual environment (read-only), the
  student kit of the graded assignment (its ``autograder`` and ``attention_ref`` packages,
  read-only, at ``/kit``: visible checks from public data, the given building blocks, a
  hidden-test call that does nothing; the whole grader only with ``--no-verify``), the
  notebook's directory and ``/etc/fonts`` (read-only), a size-limited scratch ``/tmp`` (home and
  working files, matplotlib's font list copied in read-only), a 1 MiB tmpfs for its sockets and
  its connection file (read-only); no course directory,
  gradebook, state log, solutions or other submissions;
* ZeroMQ over Unix sockets (``transport = ipc``) on that tmpfs, which the grader reaches through
  ``/proc/<pid>/root`` of the sandbox, since the sandbox has no network (TCP on the grader's
  loopback would reach a Dask scheduler or a database) and no writable directory of the host;
* an environment of a few fixed variables (never ``AUTOGRADER_SEED``: the in-kernel hidden tests
  use their fixed default, and only the verified scores, drawn from the run's seed outside the
  kernel, are recorded);
* limits: a control group for the whole tree (``pids`` processes, ``memory_mb`` in all, see
  ``cgroup.py``) and, set by ``prlimit`` before Python starts, address space per process, no core
  files, file size.

Costs the start-up of a fresh interpreter per submission (the fork server of ``zygote.py`` would
share one sandbox between students); ``benchmarks/bench_grading.py`` reports it.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from . import cgroup
from .command import NOBODY, Limits, _font_caches, _python_roots, _system_binds

KIT = "/kit"
IPC_DIR = "/ipc"  # inside the sandbox: the kernel's ZeroMQ sockets
IPC_BYTES = 1 << 20
INSIDE_CONNECTION = "/ipc-conf/kernel.json"
MPLCONFIGDIR = "/tmp/.matplotlib"
#: Read-only system configuration a kernel's plots need (fontconfig warns on stderr without it,
#: and nbgrader scores a cell with stderr output 0, as stock nbgrader's kernel would not).
SHARED_ETC = ("/etc/fonts",)
#: Variables the kernel may see (nbgrader's own, and what makes matplotlib and BLAS behave).
PASSED_ENV = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "MPLBACKEND")


def _kit_packages(kit: str | None = None) -> list[tuple[str, str]]:
    """``(host path, path inside)`` of the packages bound at ``/kit``: the student kit's, or the whole grader's."""
    if kit is not None:
        return [(str(Path(kit) / name), f"{KIT}/{name}") for name in ("autograder", "attention_ref")]
    import attention_ref

    import autograder

    return [(str(Path(m.__file__).resolve().parent), f"{KIT}/{m.__name__}") for m in (autograder, attention_ref)]


def kernel_command(cmd: list[str], *, connection: str, cwd: str | None, limits: Limits, env: dict,
                   kit: str | None = None) -> list[str]:
    """The bwrap command line that runs the kernel command ``cmd`` (see the module docstring).

    ``connection`` is the host path of the kernel's connection file, bound read-only at
    :data:`INSIDE_CONNECTION`; ``cmd``'s ``-f`` argument is pointed there. ``kit``: the directory
    of the student kit (``autograder`` and ``attention_ref``) to bind at ``/kit``; None binds the
    whole grader (``--no-verify``, whose in-kernel hidden tests are the scores).
    """
    wrap = [shutil.which("bwrap"), "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", *_system_binds(),
            "--size", str(_scratch_bytes(limits)), "--tmpfs", "/tmp"]
    for root in _python_roots():
        wrap += ["--ro-bind", root, root]
    for source, target in _kit_packages(kit):
        wrap += ["--ro-bind", source, target]
    # The sockets live on a tmpfs of the sandbox's own (1 MiB): nothing the kernel writes
    # reaches the grader's disk. The grader connects through /proc/<pid>/root (see launch_kernel).
    wrap += ["--size", str(IPC_BYTES), "--tmpfs", IPC_DIR, "--ro-bind", connection, INSIDE_CONNECTION]
    workdir = "/tmp"
    if cwd and os.path.isdir(cwd):
        wrap += ["--ro-bind", cwd, cwd]
        workdir = cwd
    for shared in SHARED_ETC:
        if os.path.isdir(shared):
            wrap += ["--ro-bind", shared, shared]
    wrap += ["--proc", "/proc", "--dev", "/dev", "--chdir", workdir, "--clearenv"]
    for cache in _font_caches():  # matplotlib need not rebuild its font list in every kernel
        wrap += ["--ro-bind", str(cache), f"{MPLCONFIGDIR}/{cache.name}"]
    fixed = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
             "PYTHONPATH": KIT, "MPLCONFIGDIR": MPLCONFIGDIR, "PYTHONDONTWRITEBYTECODE": "1",
             "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    fixed.update({k: env[k] for k in PASSED_ENV if k in env})
    for key, value in fixed.items():
        wrap += ["--setenv", key, value]
    memory = int(limits.memory_mb) << 20
    wrap += ["/usr/bin/prlimit", f"--as={memory}", "--core=0",
             f"--fsize={_scratch_bytes(limits)}", "--"]
    python = os.path.realpath(sys.executable)
    cmd = [python if part in (sys.executable, "python", "python3") else part for part in cmd]
    if "-f" in cmd[:-1]:
        cmd[cmd.index("-f") + 1] = INSIDE_CONNECTION
    return wrap + cmd


def _scratch_bytes(limits: Limits) -> int:
    return max(16 << 20, min(256 << 20, int(limits.memory_mb) << 18))


class SandboxProvisioner(LocalProvisioner):
    """Launches the kernel command inside bubblewrap (see :func:`kernel_command`)."""

    limits: Limits = Limits()
    kit: str | None = None

    async def launch_kernel(self, cmd, **kwargs):
        """Launch ``cmd`` in the sandbox (see LocalProvisioner.launch_kernel)."""
        km = self.parent
        # A copy for the kernel: jupyter_client rewrites its own file below (the grader's path).
        inside = os.path.join(km.private_dir, "inside.json")
        shutil.copyfile(km.connection_file, inside)
        cmd = kernel_command(list(cmd), connection=inside, cwd=kwargs.pop("cwd", None),
                             limits=self.limits, env=dict(kwargs.get("env") or os.environ), kit=self.kit)
        self.group = cgroup.Group(pids=self.limits.pids, memory_bytes=int(self.limits.memory_mb) << 20)
        kwargs["env"] = {"PATH": "/usr/bin:/bin"}
        info = await super().launch_kernel(self.group.wrap(cmd), cwd=None, **kwargs)
        # The kernel binds /ipc/kernel-N inside; the grader reaches them through the sandbox's root.
        return dict(info, ip=f"/proc/{_sandbox_root_pid(self.process.pid)}/root{IPC_DIR}/kernel")

    async def cleanup(self, restart: bool = False) -> None:
        """Remove the kernel's private directory (its connection files) and its control group."""
        await super().cleanup(restart)
        if getattr(self, "group", None) is not None:
            self.group.close()
        if not restart:
            shutil.rmtree(self.parent.private_dir, ignore_errors=True)


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


class SandboxKernelManager(AsyncKernelManager):
    """AsyncKernelManager whose kernel runs in bubblewrap and talks over Unix sockets."""

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
