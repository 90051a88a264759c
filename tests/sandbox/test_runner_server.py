"""The verification runner's fork server: what one submission's run leaves behind never meets the next one's.

Every verification run of a grading worker is forked in one bubblewrap sandbox
(``sandbox/runner_server.py``, ``grading/zygote.py --runner``). An attacker's notebook A starts a
process in a new session that watches for the next run, writes files in every writable place of
the sandbox, makes a System V shared memory segment and a message queue, signals the fork server
and tries to read its memory; the honest notebook B, verified next by the same worker, must find
none of it: no process but the server and its own, no file, no IPC object, nothing of A's job
directory; the server still forks runs, and what it holds is not readable. A run that dies is
still explained by its exit (the zygote reports it), and one killed by the memory limit is the
submission's, not the grader's.
"""
from __future__ import annotations

import json

import pytest

from autograder.checks.core import Call
from autograder.sandbox import Limits, command, launch, runner_server

from .conftest import server_modes

pytestmark = pytest.mark.skipif(command._detect() != "bubblewrap",
                                reason="bubblewrap is not installed (.ci/install-system-deps.sh installs it)")

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, wall_seconds=120, cell_seconds=30)
PLANTS = ('/tmp/planted', '/dev/shm/planted', '/planted', '/dev/planted')
#: A process of A's that outlives A's run if it can: a new session, out of the runner's process group.
SPY = ("import os, time\nopen('/tmp/spy-alive', 'w').close()\nwhile True:\n"
       "    for p in os.listdir('/proc'):\n        try:\n"
       "            open('/tmp/spy-saw-' + p, 'w').write(open('/proc/' + p + '/cmdline').read())\n"
       "        except OSError:\n            pass\n    time.sleep(0.02)")
ATTACKER = f"""
import ctypes, os, signal, subprocess, sys, time
spy = subprocess.Popen([sys.executable, '-c', {SPY!r}, 'SPY-OF-A'], start_new_session=True)
unplanted = []
for path in {PLANTS!r}:
    try:
        open(path, 'w').write('left by A')
    except OSError as exc:
        unplanted.append(path + ': ' + str(exc))
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0x5EC, 4096, 0o1666)  # IPC_CREAT | 0666
queue = libc.msgget(0x5ED, 0o1666)
def attempt(fn):
    try:
        fn()
        return 'done'
    except Exception as exc:
        return type(exc).__name__
JOB_FILES = sorted(os.listdir('/job'))
SERVER = repr({{'stop': attempt(lambda: os.kill(1, signal.SIGSTOP)), 'kill': attempt(lambda: os.kill(1, signal.SIGKILL)),
                'environ': attempt(lambda: open('/proc/1/environ').read()),
                'mem': attempt(lambda: open('/proc/1/mem', 'rb').read(1)),
                'segment': segment, 'queue': queue, 'unplanted': unplanted, 'job': JOB_FILES}})
while not os.path.exists('/tmp/spy-alive'):
    time.sleep(0.01)
"""
VICTIM = f"""
import ctypes, json, os
procs = {{}}
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            procs[p] = open('/proc/' + p + '/cmdline').read().replace('\\0', ' ')
        except OSError:
            procs[p] = '?'
found = [p for p in {PLANTS!r} + ('/tmp/spy-alive',) if os.path.exists(p)]
found += sorted('/tmp/' + n for n in os.listdir('/tmp') if n.startswith('spy'))
libc = ctypes.CDLL(None, use_errno=True)
SEEN = json.dumps({{'me': os.getpid(), 'procs': procs, 'found': found, 'segment': libc.shmget(0x5EC, 0, 0),
                   'queue': libc.msgget(0x5ED, 0), 'job': sorted(os.listdir('/job'))}})
"""


def _value(source: str, name: str, limits: Limits = LIMITS):
    session = launch.run_session([(0, source)], [(0, Call(name, value_only=True), name)], given=(), graded=(),
                                 assignment="01_scores_softmax", limits=limits, kind="bubblewrap")
    assert session.cell_errors == {}, session.cell_errors
    outcome = session.outcomes[0]
    assert outcome.error is None, outcome.error
    return outcome.value


server_mode = server_modes(runner_server.servers)


def test_a_process_file_or_ipc_object_left_by_one_run_never_meets_the_next(server_mode):
    attack = eval(_value(ATTACKER, "SERVER"))
    assert attack["unplanted"] == [] and attack["segment"] >= 0 and attack["queue"] >= 0, attack
    assert attack["environ"] == "PermissionError" and attack["mem"] == "PermissionError", attack
    first = runner_server.servers.sandbox
    assert first is not None and first.others() == []  # nothing of A runs once A's run is over

    seen = json.loads(_value(VICTIM, "SEEN"))
    assert runner_server.servers.sandbox is first  # the same sandbox forked B's run: A could not stop or kill it
    others = {p: cmd for p, cmd in seen["procs"].items() if p not in ("1", str(seen["me"]))}
    assert others == {}, others
    assert not any("SPY-OF-A" in cmd for cmd in seen["procs"].values())
    assert seen["found"] == [] and seen["segment"] == -1 and seen["queue"] == -1, seen
    # B's job directory holds B's job only: A's was emptied (its FIFOs included) before B's was written
    assert set(seen["job"]) == {"given", "inputs.npz", "job.json", "events-2", "control-2"}, seen["job"]
    assert set(attack["job"]) == {"given", "inputs.npz", "job.json", "events-1", "control-1"}, attack["job"]


def test_a_run_that_dies_is_explained_and_the_next_run_is_forked_as_usual():
    """The zygote reports how each run ended, so a crash is named (the cell's fault: skipped, the notebook run
    again without it), and the sandbox goes on serving."""
    runner_server.servers.discard()
    crash = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"
    session = launch.run_session([(0, crash), (1, "X = 1")], [(0, Call("X", value_only=True), "X")], given=(),
                                 graded=(), assignment="01_scores_softmax", limits=LIMITS, kind="bubblewrap")
    assert session.outcomes[0].value == 1 and session.runs == 2
    assert "SIGSEGV" in session.cell_errors[0], session.cell_errors
    assert runner_server.servers.sandbox is not None and runner_server.servers.sandbox.others() == []


def test_a_fork_server_that_dies_during_a_run_is_the_grader_s_fault_and_the_next_run_gets_a_fresh_one():
    """Nothing inside the sandbox can kill its pid 1, so its end is the host's: the run raises SandboxError (the
    job is retried as a grader error, nothing recorded), never a cell blamed; the next session starts afresh."""
    import os
    import signal
    import threading
    import time

    from autograder.sandbox import SandboxError

    runner_server.servers.discard()
    server = runner_server.servers.get(LIMITS)

    def kill_server_soon():
        time.sleep(1.0)
        os.kill(server.pid, signal.SIGKILL)

    threading.Thread(target=kill_server_soon, daemon=True).start()
    with pytest.raises(SandboxError, match="fork server"):
        launch.run_session([(0, "import time\ntime.sleep(20)\nX = 1")], [(0, Call("X", value_only=True), "X")],
                           given=(), graded=(), assignment="01_scores_softmax", limits=LIMITS, kind="bubblewrap")
    assert _value("X = 2", "X") == 2
    assert runner_server.servers.sandbox is not server
