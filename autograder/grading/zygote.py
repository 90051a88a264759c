"""The kernel fork server: a warm Python inside the kernel sandbox that forks one kernel per submission.

A kernel's start costs 0.6-0.9 s, mostly Python importing ipykernel, IPython and numpy, and a
course notebook's first cell another 0.8 s importing matplotlib (field notes), for every
submission. Each grading worker instead starts this script once, inside one bubblewrap sandbox
(``autograder.sandbox.kernel.server_command``), as that sandbox's pid 1; it imports those
modules once and, on request, forks a child that becomes the kernel: the same ``ipykernel``
``IPKernelApp`` the kernelspec would run, with the request's connection file, working directory,
environment and ``sys.path``.

What keeps one submission's kernel from another's (the grader's half is in ``kernel.py``):

* the server is pid 1 of the sandbox's pid namespace: no kernel can kill or stop it (the kernel
  delivers no signal from inside the namespace to its init that has no handler), and it is not
  dumpable, so no kernel (same uid 65534) can ptrace it or read its memory or file descriptors;
* a forked kernel closes every descriptor it inherited, and stops itself (``SIGSTOP``) before
  anything of the submission's runs: the grader puts it in a control group of its own (``pids``,
  ``memory_mb``) and only then continues it;
* the server holds nothing of any submission (it never reads one: the notebook travels to the
  kernel over ZeroMQ), and before each fork it removes the System V IPC objects a kernel may have
  left; after each kernel the grader kills every process of the sandbox but this one and
  removes every file the kernel left in the sandbox's writable directories.

Run as a script (``python -B zygote.py``) with the standard library only until it preloads:
reads one JSON request per line on stdin (``{"argv": [...], "cwd": ..., "env": {...},
"path": [...]}``), answers ``{"pid": N}`` (the kernel's pid in the sandbox) on stdout.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import sys

#: Modules every kernel imports anyway.
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "numpy")
#: What a kernel imports as it starts (its debugger: 0.5 s of debugpy; the inspector, the history's
#: sqlite3) and as a course notebook plots. Not matplotlib_inline.backend_inline: importing it wires
#: the figure formatters into the IPython shell of the moment, which must be the kernel's.
OPTIONAL_PRELOAD = ("ipykernel.debugger", "IPython.core.oinspect", "sqlite3", "pdb", "matplotlib.pyplot",
                    "matplotlib.backends.backend_agg", "IPython.core.pylabtools", "PIL.PngImagePlugin")
#: What ipykernel itself sets when the kernel's environment names no backend.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
PR_SET_DUMPABLE = 4
IPC_RMID = 0


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _clear_sysv_ipc() -> None:
    """Remove every System V shared memory segment, semaphore set and message queue of the sandbox.

    They outlive the processes that made them; the sandbox has its own IPC namespace, so all of
    them are some earlier kernel's.
    """
    libc = _libc()
    for kind, remove in (("shm", lambda i: libc.shmctl(i, IPC_RMID, None)),
                         ("sem", lambda i: libc.semctl(i, 0, IPC_RMID)),
                         ("msg", lambda i: libc.msgctl(i, IPC_RMID, None))):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1 and fields[1].isdigit():
                remove(int(fields[1]))


def _become_kernel(req: dict) -> None:
    """In the forked child: wait for the grader, set up like a freshly launched kernel process, run it."""
    code = 1
    try:
        os.setsid()  # jupyter_client signals the kernel's process group
        for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)  # the server's pipes to the grader, among others
        # The grader moves this process into the kernel's control group, then continues it.
        os.kill(os.getpid(), signal.SIGSTOP)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.path[:] = [req["cwd"], *req["path"], *sys.path[1:]]  # what `python -m` and PYTHONPATH would give
        import importlib.util

        sys.argv = [importlib.util.find_spec("ipykernel_launcher").origin, *req["argv"][3:]]
        if "numpy" in sys.modules:  # a fork copies the server's random state: draw a fresh one
            sys.modules["numpy"].random.seed()
        if "matplotlib" in sys.modules:
            # matplotlib read MPLBACKEND when the server imported it, before this kernel's
            # environment existed: apply the kernel's choice, as a fresh import would.
            os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
            sys.modules["matplotlib"].rcParams["backend"] = os.environ["MPLBACKEND"]
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        os._exit(code)  # never run the server's atexit handlers or return into its loop


def main() -> None:
    """The server's loop (see the module docstring)."""
    import importlib

    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels, and whatever they orphan, are reaped automatically
    for name in PRELOAD:
        importlib.import_module(name)
    for name in OPTIONAL_PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a course without matplotlib: its kernels import what they need
            pass
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        _clear_sysv_ipc()
        pid = os.fork()
        if pid == 0:
            _become_kernel(req)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
