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

``python -I -S -B zygote.py --runner SITE_PATHS_JSON`` is the same server for verification
(``autograder.sandbox.runner_server``), pid 1 of the runner sandbox: it imports numpy, the real
matplotlib (Agg) and pyplot and ``runner.py`` once, forks one run per request (``{"job": "/job",
"events": FIFO}``: the child, stopped until it is in its control group, runs ``runner.run``), and
reports each run's end (``{"exit": N, "code": ..., "cpu": ...}``) besides ``{"pid": N}``.
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
#: What a verification run's notebook imports besides numpy (``serve_runners``).
RUNNER_PRELOAD = ("matplotlib.pyplot", "matplotlib.backends.backend_agg", "PIL.PngImagePlugin")
#: The runner inside the verification sandbox (``sandbox/launch.py`` binds it there).
RUNNER = "/grader/runner.py"
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


def _detach() -> None:
    """In a forked child, before anything of the submission's: a session of its own, default signal
    handlers, no descriptor of the server's, then stop until the grader has put it in its control group."""
    os.setsid()  # jupyter_client signals the kernel's process group
    for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 1 << 16)  # the server's pipes to the grader, among others
    # The grader moves this process into its control group, then continues it.
    os.kill(os.getpid(), signal.SIGSTOP)
    # A fork copies the server's random state: draw a fresh one, as a fresh process would.
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "random" in sys.modules:
        sys.modules["random"].seed()


def _become_kernel(req: dict) -> None:
    """In the forked child: wait for the grader, set up like a freshly launched kernel process, run it."""
    code = 1
    try:
        _detach()
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.path[:] = [req["cwd"], *req["path"], *sys.path[1:]]  # what `python -m` and PYTHONPATH would give
        import importlib.util

        sys.argv = [importlib.util.find_spec("ipykernel_launcher").origin, *req["argv"][3:]]
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


def _become_runner(req: dict, runner) -> None:
    """In the forked child: wait for the grader, then one verification run (``runner.run``, which never returns).

    Its event pipe is the FIFO ``req["events"]`` in the job directory, whose read end the grader holds; the
    pipe it waits on for the grader is the FIFO ``req["control"]``, which the grader holds open for writing.
    """
    try:
        _detach()
        os.chdir("/tmp")
        sys.argv = [RUNNER, req["job"]]
        runner.run(req["job"], os.open(req["events"], os.O_WRONLY), os.open(req["control"], os.O_RDONLY))
    finally:
        os._exit(3)


def _preload(names) -> None:
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a course without matplotlib: its processes import what they need
            pass


def _deaf() -> None:
    """Pid 1 of a pid namespace gets from inside it only the signals it has a handler for: Python's own SIGINT
    handler would let any process of the sandbox end the server with a KeyboardInterrupt. Ignored instead (what
    is forked resets it, ``_detach``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready() -> None:
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()


def main() -> None:
    """The kernel server's loop (see the module docstring)."""
    import importlib

    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _deaf()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels, and whatever they orphan, are reaped automatically
    for name in PRELOAD:
        importlib.import_module(name)
    _preload(OPTIONAL_PRELOAD)
    _ready()
    for line in sys.stdin:
        req = json.loads(line)
        _clear_sysv_ipc()
        pid = os.fork()
        if pid == 0:
            _become_kernel(req)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()


def serve_runners(site_paths: list[str]) -> None:
    """The verification runner server's loop: the same fork server, forking ``runner.py`` runs.

    It reaps every process itself (it is the namespace's init: orphans come to it) and reports how
    each runner it forked ended, ``{"exit": pid, "code": exit code, "cpu": seconds}``, so that the
    grader can say why a run died (the memory limit's SIGKILL, the CPU limit's SIGXCPU, a crash).
    """
    import importlib.util
    import select

    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _deaf()
    sys.path[:] = [p for p in sys.path if p] + list(site_paths)
    importlib.import_module("numpy")
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        pass
    _preload(RUNNER_PRELOAD)
    spec = importlib.util.spec_from_file_location("_runner", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    import gc

    gc.freeze()  # the collector never writes to what every run shares: fewer copied pages per fork
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _ready()
    forked, pending = set(), b""
    while True:
        readable, _, _ = select.select([0, wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 1 << 12)
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if not pid:
                break
            if pid in forked:
                forked.discard(pid)
                sys.stdout.write(json.dumps({"exit": pid, "code": os.waitstatus_to_exitcode(status),
                                             "cpu": usage.ru_utime + usage.ru_stime}) + "\n")
                sys.stdout.flush()
        if 0 in readable:
            data = os.read(0, 1 << 16)
            if not data:
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                req = json.loads(line)
                _clear_sysv_ipc()
                pid = os.fork()
                if pid == 0:
                    os.close(wake_r)
                    _become_runner(req, runner)
                forked.add(pid)
                sys.stdout.write(json.dumps({"pid": pid}) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--runner"]:
        serve_runners(json.loads(sys.argv[2]))
    else:
        main()
