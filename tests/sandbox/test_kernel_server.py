"""The kernel sandbox's fork server: what one submission's kernel leaves behind never meets the next one's.

Every kernel of a grading worker is forked in one bubblewrap sandbox (``sandbox/kernel.py``,
``grading/zygote.py``). An attacker's notebook A starts a process in a new session that watches
for the next kernel, writes files in every writable place of the sandbox, makes a System V shared
memory segment, signals the fork server and tries to read its memory; the honest notebook B,
graded next by the same worker, must find none of it: no process but the server and its own, no
file, no segment; the server still forks kernels, and what it holds is not readable.
"""
from __future__ import annotations

import json

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading.timing import clock, sandboxed_execute
from autograder.sandbox import Limits, command, kernel

from .conftest import server_modes

pytestmark = pytest.mark.skipif(command._detect() != "bubblewrap",
                                reason="bubblewrap is not installed (.ci/install-system-deps.sh installs it)")

#: A process of A's that outlives A's kernel if it can: a new session, out of the kernel's process group.
SPY = ("import os, time\nopen('/tmp/spy-alive', 'w').close()\nwhile True:\n"
       "    for p in os.listdir('/proc'):\n        try:\n"
       "            open('/tmp/spy-saw-' + p, 'w').write(open('/proc/' + p + '/cmdline').read())\n"
       "        except OSError:\n            pass\n    time.sleep(0.02)")
ATTACKER = f"""
import ctypes, os, signal, subprocess, sys, time
spy = subprocess.Popen([sys.executable, '-c', {SPY!r}, 'SPY-OF-A'], start_new_session=True)
for path in ('/tmp/planted', '/dev/shm/planted', '/ipc/planted', '/planted', '/dev/planted'):
    try:
        open(path, 'w').write('left by A')
    except OSError as exc:
        print('could not plant', path, exc)
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0x5EC, 4096, 0o1666)  # IPC_CREAT | 0666
print('SEGMENT', segment)
def attempt(fn):
    try:
        fn()
        return 'done'
    except Exception as exc:
        return type(exc).__name__
print('SERVER=' + repr({{'stop': attempt(lambda: os.kill(1, signal.SIGSTOP)),
                         'kill': attempt(lambda: os.kill(1, signal.SIGKILL)),
                         'environ': attempt(lambda: open('/proc/1/environ').read()),
                         'mem': attempt(lambda: open('/proc/1/mem', 'rb').read(1))}}))
while not os.path.exists('/tmp/spy-alive'):
    time.sleep(0.01)
"""
VICTIM = """
import ctypes, json, os
procs = {}
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            procs[p] = open('/proc/' + p + '/cmdline').read().replace('\\0', ' ')
        except OSError:
            procs[p] = '?'
found = [p for p in ('/tmp/planted', '/dev/shm/planted', '/ipc/planted', '/planted', '/dev/planted',
                     '/tmp/spy-alive') if os.path.exists(p)]
found += sorted('/tmp/' + n for n in os.listdir('/tmp') if n.startswith('spy'))
segment = ctypes.CDLL(None, use_errno=True).shmget(0x5EC, 0, 0)
print('VICTIM=' + json.dumps({'me': os.getpid(), 'procs': procs, 'found': found, 'segment': segment}))
"""


def _run(source: str) -> str:
    """Execute a one-cell notebook in the worker's kernel sandbox; its stdout."""
    nb = new_notebook(cells=[new_code_cell(source)])
    clock.reset()
    sandboxed_execute(Limits(), None)(timeout=60).preprocess(nb, {"metadata": {"path": None}})
    return "".join(o.get("text", "") for o in nb.cells[0].outputs) + "".join(
        f"{o.get('ename')}: {o.get('evalue')}" for o in nb.cells[0].outputs if o.get("output_type") == "error")


server_mode = server_modes(kernel.servers)


def test_a_process_left_behind_by_one_kernel_never_sees_the_next(server_mode):
    attack = _run(ATTACKER)
    assert "could not plant" not in attack, attack  # each place was writable while A ran
    assert int(attack.split("SEGMENT ", 1)[1].split()[0]) >= 0, attack
    server = eval(attack.split("SERVER=", 1)[1].splitlines()[0])
    assert server["environ"] == "PermissionError" and server["mem"] == "PermissionError", server
    first = kernel.servers.sandbox
    assert first is not None and first.others() == []  # nothing of A runs once A's kernel is gone

    seen = json.loads(_run(VICTIM).split("VICTIM=", 1)[1].splitlines()[0])
    assert kernel.servers.sandbox is first  # the same sandbox forked B's kernel: A could not stop or kill it
    others = {p: cmd for p, cmd in seen["procs"].items() if p not in ("1", str(seen["me"]))}
    assert others == {}, others
    assert not any("SPY-OF-A" in cmd for cmd in seen["procs"].values())
    assert seen["found"] == [] and seen["segment"] == -1, seen


def test_a_kernel_that_changes_the_sandbox_s_own_directories_leaves_the_next_one_a_fresh_sandbox(server_mode):
    """What cannot be removed (a directory the sandbox started with, its mode changed or moved away) is no
    cleaner for the next kernel: the sandbox is discarded and the next kernel gets a new one, as it started."""
    probe = "import os, stat\nprint('MODE', oct(stat.S_IMODE(os.stat('/dev/shm').st_mode)))"
    before = _run(probe + "\nos.chmod('/dev/shm', 0)")
    first = kernel.servers.sandbox
    seen = _run(probe)
    assert kernel.servers.sandbox is not first
    assert seen.split("MODE ", 1)[1].split()[0] == before.split("MODE ", 1)[1].split()[0] != "0o0", (before, seen)
