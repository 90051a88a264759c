"""Red team 4: the warm verification runner (one sandbox per worker, one fork per run) against a hostile run.

``test_runner_server.py`` covers what a run leaves in the places the grader sweeps (a process of
the sandbox's pid namespace, a file in a writable mount, a System V IPC object). These are the
ways around that sweep, each tried by a submission A whose run comes first, on the same warm
sandbox as an honest submission B; B's answer must still be judged exactly as a fresh process
would judge it (the value an independent numpy computation gives), and its run must meet
nothing of A's:

* the sandbox's pid 1 (``zygote.py --runner``) catches the signals it has a handler for: the
  kernel delivers those from inside its namespace (SIGINT, Python's KeyboardInterrupt), so A could
  end the server during its own run and turn its verification into a grader fault (retried, never
  scored);
* a process in a nested user and pid namespace (``unshare(CLONE_NEWUSER | CLONE_NEWPID)``, then a
  fork) is not in the sandbox's pid namespace, so a sweep of that namespace alone leaves it
  running, from where it reaches every later run (here it kills B's runner);
* a POSIX message queue lives in the IPC namespace without any file the sweep sees, and an
  extended attribute on a directory the sandbox started with keeps its inode, mode and owner;
* a directory tree deeper than Python's stack broke the grader's recursive walk of the sandbox's
  files (RecursionError in A's session and in B's), and one its owner cannot read is not emptied by
  ``rmtree(ignore_errors=True)`` (shown only where the grader is not root: root reads it anyway).

The attacks are grouped into two submissions A (plus B each time) to keep the module's cost small.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from autograder.checks.core import Call
from autograder.sandbox import Limits, SandboxError, command, launch, runner_server

from .conftest import server_modes

pytestmark = pytest.mark.skipif(command._detect() != "bubblewrap",
                                reason="bubblewrap is not installed (.ci/install-system-deps.sh installs it)")

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, wall_seconds=60, cell_seconds=20)

#: Every signal pid 1 has a handler for (its SigCgt), and the usual ones, sent to pid 1; then the run goes on.
SIGNALLER = """
import os, signal, time
status = open('/proc/1/status').read()
caught = int(next(l for l in status.splitlines() if l.startswith('SigCgt')).split()[1], 16)
sent = sorted({s for s in range(1, 32) if caught >> (s - 1) & 1} | {signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
              signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGPIPE})
for signum in sent:
    try:
        os.kill(1, signum)
    except OSError:
        pass
time.sleep(0.5)  # the server's loop has seen them by now
X = sorted(int(s) for s in sent)
"""

#: A process in a nested user + pid namespace that outlives A's run if it can. It cannot signal the sandbox's
#: processes (its pids are those of its own namespace), but the job directory is the same path for every run:
#: once A's runner is gone it copies the next run's job (B's code and inputs) and writes garbage into its event
#: FIFO, the grader's only channel from B's runner (B's run would be "stopped", blamed on B's notebook).
NESTED_SPY = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
A_RUNNER, A_FIFOS = os.getpid(), set(os.listdir('/job'))
r, w = os.pipe()
if os.fork() == 0:
    rc = libc.unshare(0x10000000 | 0x20000000)  # CLONE_NEWUSER | CLONE_NEWPID
    os.write(w, b'0' if rc == 0 else str(ctypes.get_errno()).encode())
    if rc == 0 and os.fork() == 0:
        while True:
            try:
                open('/tmp/nested-alive', 'w').close()
                if not os.path.exists('/proc/%d' % A_RUNNER):
                    for name in set(os.listdir('/job')) - A_FIFOS:
                        if name.startswith('events-'):
                            A_FIFOS.add(name)
                            open('/tmp/stolen-job.json', 'w').write(open('/job/job.json').read())
                            fd = os.open('/job/' + name, os.O_WRONLY | os.O_NONBLOCK)
                            os.write(fd, b'\\xff' * 64)
            except OSError:
                pass
            time.sleep(0.005)
    os._exit(0)
os.wait()
UNSHARE = os.read(r, 20).decode()
"""
#: A POSIX message queue: it lives in the sandbox's IPC namespace, with no file any sweep sees.
MQUEUE = """
libc.mq_open.restype = ctypes.c_int
R = repr({'unshare': UNSHARE, 'mq': libc.mq_open(b'/left-by-a', os.O_CREAT | os.O_RDWR, 0o666, None)})
"""
#: Extended attributes on directories the sandbox started with (same inode, mode and owner afterwards).
XATTRS = """
import os
X = []
for place in ('/tmp', '/', '/dev', '/dev/shm'):
    try:
        os.setxattr(place, 'user.left-by-a', b'A')
        X.append(place)
    except OSError:
        pass
"""
#: A tree deeper than Python's stack, and a directory of A's that its owner cannot read (rmtree cannot empty it).
DEEP_AND_LOCKED = """
import os
os.chdir('/tmp')
for i in range(1200):
    os.mkdir('d')
    os.chdir('d')
os.chdir('/tmp')
os.makedirs('locked/inside')
open('locked/inside/left-by-a', 'w').close()
os.chmod('locked', 0)
X = 1
"""
#: B: honest, ``PAUSE`` seconds of work (time for a spy to act), and a look around.
HONEST = """
import ctypes, os, time
import numpy as np
def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
time.sleep(PAUSE)
libc = ctypes.CDLL(None, use_errno=True)
def xattr(place):
    try:
        return os.getxattr(place, 'user.left-by-a').decode()
    except OSError:
        return None
SEEN = repr({'procs': sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())),
             'nested': sorted(n for n in os.listdir('/tmp') if 'nested' in n or 'stolen' in n), 'mq': libc.mq_open(b'/left-by-a', os.O_RDONLY, 0, None),
             'xattrs': {p: xattr(p) for p in ('/tmp', '/', '/dev', '/dev/shm') if xattr(p)},
             'tmp': sorted(os.listdir('/tmp'))})
"""
X = np.array([[0.5, -1.0, 2.0], [3.0, 3.0, -7.5]])


def _session(source: str, *calls: Call):
    return launch.run_session([(0, source)], [(i, c, c.name) for i, c in enumerate(calls)], given=(), graded=(),
                              assignment="01_scores_softmax", limits=LIMITS, kind="bubblewrap")


def _value(source: str, name: str):
    session = _session(source, Call(name, value_only=True))
    assert session.cell_errors == {}, session.cell_errors
    assert session.outcomes[0].error is None, session.outcomes[0].error
    return session.outcomes[0].value


def _honest_b(pause: float = 0.0) -> dict:
    """B's run: its softmax judged on X (against numpy's own computation here), and what it saw."""
    session = _session(f"PAUSE = {pause}\n" + HONEST, Call("softmax", (X.copy(),)), Call("SEEN", value_only=True))
    assert session.cell_errors == {} and session.runs == 1, (session.cell_errors, session.notes)
    answer, seen = session.outcomes[0], session.outcomes[1]
    assert answer.error is None and seen.error is None, (answer.error, seen.error, session.notes)
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    np.testing.assert_array_equal(answer.value, e / e.sum(axis=-1, keepdims=True))
    return eval(seen.value)


def _sandbox_descendants(server) -> list[int]:
    """Host pids of every process descended from the server (in any namespace nested in the sandbox's)."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                parent[int(name)] = int(Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found = []
    for pid in parent:
        p = pid
        while p in parent and p not in (0, 1, server.pid):
            p = parent[p]
        if p == server.pid and pid != server.pid:
            found.append(pid)
    return found


server_mode = server_modes(runner_server.servers)


def test_signals_sent_to_the_fork_server_neither_end_it_nor_make_the_run_a_grader_fault():
    """Before the fix: SIGINT reached pid 1 (Python's handler), the server died with a KeyboardInterrupt and A's
    own run raised SandboxError ('fork server ended': a grader fault, retried, never scored)."""
    runner_server.servers.discard()
    try:
        sent = _value(SIGNALLER, "X")
    except SandboxError as exc:
        pytest.fail(f"a run's signals ended the fork server, and its verification became a grader fault: {exc}")
    assert 2 in sent
    server = runner_server.servers.sandbox
    assert server is not None and state_of(server) not in (None, "Z", "X")
    _honest_b()
    assert runner_server.servers.sandbox is server  # the same server forked B's run


def test_an_extended_attribute_left_by_a_run_never_meets_the_next():
    """Before the fix: the sweep compared inode, mode and owner only, and B read A's ``user.*`` attribute on
    ``/tmp``, ``/``, ``/dev`` and ``/dev/shm``. Now such a change discards the sandbox (B gets a fresh one)."""
    assert _value(XATTRS, "X") != []  # tmpfs keeps user attributes: the attack is possible at all
    seen = _honest_b()
    assert seen["xattrs"] == {}, seen


def test_a_tree_too_deep_or_unreadable_for_the_sweep_never_meets_the_next_run_nor_breaks_grading():
    """Before the fix: the sweep walked the sandbox's files recursively, so a 1200-deep directory tree raised
    RecursionError in the grader, in A's session and again in B's (B's verification crashed: a grader fault made
    by a classmate), and B saw A's tree in ``/tmp``. A directory of A's made unreadable (mode 0) survived
    ``rmtree(ignore_errors=True)`` and the sweep still called the sandbox clean (only where the grader is not
    root: root removes it anyway)."""
    runner_server.servers.discard()
    assert _value(DEEP_AND_LOCKED, "X") == 1
    seen = _honest_b()
    assert not {"d", "locked"} & set(seen["tmp"]), seen["tmp"]


def state_of(server):
    from autograder.sandbox.warm import state
    return state(server.pid)


def test_a_nested_namespace_process_or_a_message_queue_left_by_a_run_never_meets_the_next(server_mode):
    """Before the fixes: without control groups the nested-namespace spy survived the sweep (``others()`` was
    empty while it ran), copied B's job and wrote garbage into B's event FIFO, and B's verification became a
    grader error ("could not start: the sandbox sent more data than the output limit allows"), as would every
    later one of that worker's (the sandbox was kept); in both modes B's run could open A's message queue."""
    server = runner_server.servers.get(LIMITS)
    attack = eval(_value(NESTED_SPY + MQUEUE, "R"))
    left = _sandbox_descendants(server)
    try:
        seen = _honest_b(pause=1.0)
    except SandboxError as exc:
        pytest.fail(f"A's leftovers made B's verification a grader error: {exc} (A: {attack}, left: {left})")
    assert seen["procs"] == [] and seen["nested"] == [], (seen, attack)
    assert seen["mq"] == -1, (seen, attack)
    assert left == [], attack  # nothing of A's was left, in whatever namespace


def test_the_kernel_sandbox_s_fork_server_ignores_sigint_too():
    """The kernel sandbox's pid 1 is the same ``zygote.py`` (``main``): before the fix a notebook's
    ``os.kill(1, signal.SIGINT)`` ended it (KeyboardInterrupt), and with it the notebook's own kernel."""
    from tests.sandbox.test_kernel_server import _run

    from autograder.sandbox import kernel

    kernel.servers.discard()
    try:
        out = _run("import os, signal, time\nos.kill(1, signal.SIGINT)\ntime.sleep(0.5)\nprint('STILL', os.getppid())")
        server = kernel.servers.sandbox
        assert "STILL" in out, out
        assert _run("print('B', 6 * 7)").strip() == "B 42"
        assert kernel.servers.sandbox is server  # the same sandbox forked B's kernel
    finally:
        kernel.servers.discard()


#: A key in the user keyring (``@u``, -4) and in the session keyring (``@s``, -3), which the forked run shares with
#: the zygote: both belong to the sandbox's user namespace, not to the run (x86_64: add_key 248, keyctl 250).
KEYS_A = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
K = [libc.syscall(248, b'user', b'left-by-a', b'A', 1, ctypes.c_int(ring)) for ring in (-4, -3)]
"""
KEYS_B = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
K = [libc.syscall(250, 10, ctypes.c_int(ring), b'user', b'left-by-a', 0) for ring in (-4, -3)]  # KEYCTL_SEARCH
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe calls add_key/keyctl by their x86_64 numbers")
@pytest.mark.xfail(strict=True, reason="a key A adds to the user keyring (@u) of the sandbox's uid is found by the "
                   "next run (searching @u, or its session keyring @s, which reaches @u): keyrings belong to the sandbox's user namespace, which "
                   "the warm sandbox keeps, and no sweep clears them. Clearing them before each fork is not enough "
                   "(A may KEYCTL_SETPERM the keyring so that it cannot be cleared); the sure fix is a seccomp filter "
                   "refusing add_key/keyctl/request_key in the sandbox (bwrap --seccomp), left to the lead. Only a "
                   "channel from an earlier run to a later one that reads it: an honest run never does")
def test_a_key_left_by_a_run_never_meets_the_next():
    runner_server.servers.discard()
    assert all(k > 0 for k in _value(KEYS_A, "K"))  # the keys were added
    assert _value(KEYS_B, "K") == [-1, -1]


#: Issue 22: a run that claims another student's id everywhere an id could be read from, rewrites its job file
#: with that student's numbers (as plain data, the job's own format), then asks for its numbers.
CLAIM = """
import json, os
os.environ.update(JUPYTERHUB_USER='alice', USER='alice', LOGNAME='alice', STUDENT_ID='alice')
try:
    job = json.load(open('/job/job.json'))
    job['numbers'] = ALICE
    json.dump(job, open('/job/job.json', 'w'))
    WROTE = True
except OSError:
    WROTE = False
from autograder.notebook import Grader
q, k = Grader('02_scaling', globals()).numbers('02_scaling/stop_and_try')
Q = [q.tolist(), k.tolist()]
"""


def test_a_run_cannot_choose_whose_numbers_grader_numbers_gives():
    """The runner's ``grader.numbers`` gives the numbers the job named when it started (the submission's
    folder's), whatever id the notebook claims and whatever it writes."""
    from autograder import variants
    from autograder.checks.items import ITEM
    from autograder.notebook.numbers import entry

    secret = b"the hostile test's course secret, 0123456789"
    eve, alice = (variants.student_items(secret, "c", s, [ITEM])[ITEM] for s in ("eve", "alice"))
    assert eve != alice
    session = launch.run_session([(0, f"ALICE = {{{ITEM!r}: {entry(alice)!r}}}\n" + CLAIM)],
                                 [(0, Call("Q", value_only=True), "Q")], given=(), graded=(), assignment="02_scaling",
                                 limits=LIMITS, kind="bubblewrap", numbers={ITEM: entry(eve)})
    assert session.cell_errors == {} and session.outcomes[0].error is None, (session.cell_errors, session.notes)
    q, k = session.outcomes[0].value
    np.testing.assert_array_equal(np.array(q, dtype=float), eve.q)
    np.testing.assert_array_equal(np.array(k, dtype=float), eve.k)
