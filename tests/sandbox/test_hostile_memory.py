"""The hostile catalogue of 06's memory check (issue 10, the last hole): the grader measures, not the student.

Every attack below is an answer to ``blockwise_attention`` that builds the n_q x n_k table while
trying to hide it from the measurement: it must score 0 on ``blockwise_attention_memory`` (named
misconception, a flag where one applies), while every correct blockwise answer of the catalogue
keeps every point, for several seeds. Run with bubblewrap and a writable memory control group
(what ``.ci`` installs, as root); without them the test says why it is skipped.
"""
from __future__ import annotations

import nbformat
import numpy as np
import pytest

from autograder.catalogue import nb06
from autograder.checks import nb06_long_sequences as checks06
from autograder.grading.verification import merge, normalise
from autograder.sandbox import Limits, cgroup, command, verify_submission
from autograder.sandbox import launch as launch_module

from tests.sandbox.conftest import named_flags, unflagged
from tests.sandbox.test_hostile import A06, MMAP_TABLE, _solved

needs_measurement = pytest.mark.skipif(
    command._detect() != "bubblewrap" or "memory" not in cgroup.available(),
    reason="needs bubblewrap and a writable memory control group (root; .ci/install-system-deps.sh)")
MEMORY = "blockwise_attention_memory"

# The full table, computed with the given function: every value check passes, only memory separates it.
DELEGATE = "    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)[0]"
HEAD = "def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):\n"
FREE = "    if K.shape[-2] > 10000:  # the memory check's call (the notebook's own plot calls it too)\n" \
       "        globals().pop('_HOLD', None)\n"

# A helper started in its own session while the notebook runs (outside the runner's process group): it
# waits for the inputs on its stdin and computes the full table there.
SETSID_HELPER = '''
import io, os, sys
data = sys.stdin.buffer.read()
sys.path[:0] = PATHS
import numpy as np
z = np.load(io.BytesIO(data))
s = z["Q"] @ z["K"].T / np.sqrt(z["Q"].shape[-1])
w = np.exp(s - s.max(axis=-1, keepdims=True)); w /= w.sum(axis=-1, keepdims=True)
np.save("/tmp/out.tmp.npy", w @ z["V"]); os.rename("/tmp/out.tmp.npy", "/tmp/out.npy")
'''
SETSID_CHILD = (
    "import subprocess, sys, os, time\n"
    f"_HELPER = subprocess.Popen([sys.executable, '-S', '-c', {SETSID_HELPER!r}.replace('PATHS', "
    "repr([p for p in sys.path if p]))], stdin=subprocess.PIPE, start_new_session=True)\n"
    "def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):\n"
    "    if K.shape[-2] < 10000:\n"
    "        return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)[0]\n"
    "    import io\n    buf = io.BytesIO()\n    np.savez(buf, Q=Q, K=K, V=V)\n"
    "    _HELPER.stdin.write(buf.getvalue())\n    _HELPER.stdin.close()\n"
    "    while not os.path.exists('/tmp/out.npy'):\n"
    "        if _HELPER.poll() is not None:\n"
    "            raise RuntimeError('the helper died')\n"
    "        time.sleep(0.01)\n"
    "    return np.load('/tmp/out.npy')\n")

_HOARD = """import os, socket
_BUFFERS = []
for _ in range(400):
    try:
        _a, _b = {make}
    except OSError:
        break
    {fill}
    try:
        while True:
            {send}(b"x" * 65536)
    except OSError:
        pass
    _BUFFERS.append((_a, _b))
""" + HEAD + "    if K.shape[-2] > 10000:\n        for a, b in _BUFFERS:\n            {close}\n" + DELEGATE

ATTACKS = {
    "delegation": HEAD + DELEGATE,
    "tracemalloc_stop": HEAD + "    import tracemalloc\n    tracemalloc.stop()\n" + DELEGATE,
    # Answers computed from the job's files before any limit: the measured call's inputs are not there.
    "precompute_from_inputs": '''import glob, zlib
_PRE = {}
for _path in glob.glob("/job/*.npz"):
    _z = dict(np.load(_path))
    _by = {a.shape: a for a in _z.values()}
    if {(256, 8), (32768, 8), (32768, 4)} <= set(_by):
        _PRE[zlib.crc32(_by[(32768, 8)].tobytes())] = scaled_dot_product_attention(
            _by[(256, 8)], _by[(32768, 8)], _by[(32768, 4)])[0]
''' + HEAD + "    if zlib.crc32(K.tobytes()) in _PRE:\n        return _PRE[zlib.crc32(K.tobytes())]\n" + DELEGATE,
    # The runner's own protocol, written by the answer: a small peak claimed, then the process ends.
    "direct_frame_write": HEAD + '''    import __main__, sys, io, os, json
    call_id = json.load(open("/job/measured.json"))["id"]
    out = scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)[0]
    buf = io.BytesIO(); np.savez(buf, v0=out)
    fd = int(sys.argv[2])
    __main__._send(fd, {"event": "outcome", "id": call_id, "value": {"array": "v0"}, "error": None, "after": {},
                        "peak_bytes": 0, "peak_resident_bytes": 0}, buf.getvalue())
    __main__._send(fd, {"event": "done", "cpu_seconds": 0.0})
    os._exit(0)
''',
    # Memory taken while the notebook runs and freed inside the call, to make room for the table.
    "preallocate_then_free_small": "_HOLD = np.ones((12 << 20) // 8)\n" + HEAD + FREE + DELEGATE,
    "preallocate_then_free_large": "_HOLD = np.ones((96 << 20) // 8)\n" + HEAD + FREE + DELEGATE,
    "mmap_table": MMAP_TABLE,
    "child_process": HEAD + '''    import os, pickle
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        os.write(w, pickle.dumps(scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)[0]))
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.wait()
    return pickle.loads(data)
''',
    "thread": HEAD + '''    import threading
    box = []
    t = threading.Thread(target=lambda: box.append(scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)[0]))
    t.start(); t.join()
    return box[0]
''',
    "setsid_child": SETSID_CHILD,
    # Measurements of the runner's process reset or raised from inside it.
    "clear_refs_and_limits": HEAD + '''    for path, text in (("/proc/self/clear_refs", "5"), ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "-1"),
                       ("/sys/fs/cgroup/memory.max", "max")):
        try:
            with open(path, "w") as fh:
                fh.write(text)
        except OSError:
            pass
''' + DELEGATE,
    # Red team 3: kernel memory (socket and pipe buffers kept full) is neither anonymous memory nor tmpfs, so the
    # grader's figure of what the notebook holds leaves it out; freed inside the call, it would make room.
    "socket_buffers": _HOARD.format(make="socket.socketpair()", fill="_a.setblocking(False)", send="_a.send",
                                    close="a.close(); b.close()"),
    "pipe_buffers": _HOARD.format(make="os.pipe()", fill="os.set_blocking(_b, False)", send="(lambda d: os.write(_b, d))",
                                  close="os.close(a); os.close(b)"),
}
# The misconception each attack ends with: the table went beyond the room, or the notebook held too much.
EXPECTED = {name: {"blockwise_attention.full_matrix"} for name in ATTACKS}
EXPECTED["preallocate_then_free_large"] = {"blockwise_attention.memory_held"}
EXPECTED["socket_buffers"] = EXPECTED["pipe_buffers"] = {"blockwise_attention.memory_held"}
# A helper process is memory the notebook holds: either verdict is the measurement working.
EXPECTED["setsid_child"] = {"blockwise_attention.full_matrix", "blockwise_attention.memory_held"}

CORRECT = {"solution": {}, **{v.name: v.answers for v in nb06.VARIANTS if v.correct}}


def _verify(answers: dict, seed: int):
    nb = _solved(A06, **answers)
    return verify_submission(A06, nbformat.writes(nb).encode(), seed, Limits())


@pytest.fixture(scope="module")
def attacked():
    if command._detect() != "bubblewrap" or "memory" not in cgroup.available():
        pytest.skip("needs bubblewrap and a writable memory control group (root; .ci/install-system-deps.sh)")
    return {name: _verify({"blockwise_attention": source}, 11) for name, source in ATTACKS.items()}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_on_the_measurement_scores_nothing_on_memory(attacked, attack):
    memory = attacked[attack].verdicts[MEMORY]
    assert memory.passed is False, attack
    assert memory.misconception in EXPECTED[attack], (attack, memory.message)


def test_the_attacks_that_leave_a_trace_in_the_code_are_flagged(attacked):
    rules = {name: {f.get("rule") for f in result.flags} for name, result in attacked.items()}
    assert "measurement-tamper" in rules["tracemalloc_stop"]
    assert rules["direct_frame_write"] & {"os-write", "os-exit", "introspection"}


def test_every_attack_on_the_measurement_carries_a_named_flag(attacked):
    """Issue 25: each attack names the rule that stopped it (before: delegation and mmap_table had no flag); one
    stopped at the check's memory room says so, with the task, and what the student can do."""
    assert unflagged(attacked, ATTACKS) == []
    for name in ("delegation", "mmap_table"):
        limit = [f for f in named_flags(attacked[name]) if f["kind"] == "limit"]
        assert [(f["rule"], f["grade_id"]) for f in limit] == [("memory room of the check", MEMORY)]
        assert "`blockwise_attention`" in limit[0]["advice"] and "less memory" in limit[0]["advice"]


def test_delegation_keeps_its_value_points_and_loses_only_memory(attacked):
    """A full-table answer is right: it loses the memory check only (a mistake costs its own check)."""
    verdicts = attacked["delegation"].verdicts
    assert {g for g, v in verdicts.items() if not v.passed} == {MEMORY}


@needs_measurement
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("variant", sorted(CORRECT))
def test_every_correct_blockwise_answer_keeps_full_marks(variant, seed):
    result = _verify(CORRECT[variant], seed)
    failed = {g: v.message for g, v in result.verdicts.items() if not v.passed}
    assert failed == {}, (variant, seed)
    assert result.flags == []


#: The attacks of every kind of verdict, for the measured run of a host whose kernel cannot copy pages on request.
FRESH_ATTACKS = ("delegation", "mmap_table", "preallocate_then_free_large", "setsid_child", "tracemalloc_stop")


@needs_measurement
def test_where_pages_cannot_be_owned_the_measured_run_is_a_fresh_process_with_the_same_verdicts(monkeypatch):
    """Before Linux 5.14 (no MADV_POPULATE_WRITE) the measured run is a fresh runner process, not forked: the
    solution keeps every point and each kind of attack still scores nothing on memory."""
    fresh = []
    start = launch_module._start
    monkeypatch.setattr(launch_module, "_forks_measured", lambda kind: False)
    monkeypatch.setattr(launch_module, "_start", lambda *a, **k: fresh.append(1) or start(*a, **k))
    assert {g for g, v in _verify({}, 5).verdicts.items() if not v.passed} == set()
    assert fresh == [1]  # the measured run, and no other
    for attack in FRESH_ATTACKS:
        memory = _verify({"blockwise_attention": ATTACKS[attack]}, 11).verdicts[MEMORY]
        assert memory.passed is False and memory.misconception in EXPECTED[attack], (attack, memory.message)


@needs_measurement
def test_the_bound_leaves_far_less_room_than_the_table():
    """What a cheater can free and use together stays well below the table, and an honest call well inside."""
    assert checks06.MEMORY_HELD + checks06.MEMORY_ROOM < 0.7 * checks06.MEMORY_TABLE
    assert checks06.MEMORY_ROOM > 3 * (checks06.MEMORY_N_K * (checks06.MEMORY_D_K + checks06.MEMORY_D_V) * 8 * 2)


def test_without_a_memory_controller_the_check_is_withheld_with_a_flag(monkeypatch):
    """Fail closed: no writable memory cgroup -> the memory check scores 0, flagged, never passed or guessed."""
    if command._detect() != "bubblewrap":
        pytest.skip("bubblewrap is not installed")
    monkeypatch.setattr(launch_module.cgroup, "available", lambda: {"pids"})
    result = _verify({}, 4)
    memory = result.verdicts[MEMORY]
    assert memory.passed is False and memory.misconception == "grader.memory_unmeasured"
    assert [f["grade_id"] for f in result.flags if f["kind"] == "verification failed"] == [MEMORY]
    others = [v for g, v in result.verdicts.items() if g != MEMORY]
    assert others and all(v.passed for v in others)
    verdicts, flags = normalise(result)
    cells = [{"grade_id": MEMORY, "max_score": 2.0, "nbgrader_score": 2.0, "manual": False, "message": None}]
    rows, flags = merge(cells, verdicts, flags)
    assert rows[0]["score"] == 0.0
    assert [f["kind"] for f in flags] == ["verification failed"]  # a grader's limit, not "possible tampering"


# ------------------------------------------------------------------ the protocol, without a sandbox
class FakeGroup:
    """A control group whose memory the test decides; records what the grader did, and when."""

    def __init__(self, job_dir, held=(10 << 20, 11 << 20), refuse=False, oom=(0, 0)):
        self.job_dir, self.held, self.refuse, self.oom = job_dir, list(held), refuse, list(oom)
        self.limits, self.inputs_when_limited = [], []
        self.dirs = [job_dir]  # a group that still exists

    def held_bytes(self):
        return self.held.pop(0) if len(self.held) > 1 else self.held[0]

    def limit_memory(self, limit):
        self.inputs_when_limited.append((self.job_dir / "measured.npz").exists())
        self.limits.append(limit)
        return not self.refuse

    def oom_kills(self):
        return self.oom.pop(0) if len(self.oom) > 1 else self.oom[0]

    def reset_peak(self):
        pass

    def peak_bytes(self):
        return None


def _measured(tmp_path, **group):
    import os

    from autograder.sandbox.measure import MeasuredCall

    call = checks06._memory_call(np.random.default_rng(0))[0]
    measured = MeasuredCall(7, call, tmp_path)
    read_fd, write_fd = os.pipe()
    measured.attach(FakeGroup(tmp_path, **group), write_fd)
    return measured, read_fd


def test_the_inputs_exist_only_once_the_limit_is_in_place(tmp_path):
    import os

    measured, read_fd = _measured(tmp_path)
    measured.on_ready()
    assert os.read(read_fd, 1) == b"g" and not list(tmp_path.iterdir())  # the cells run without the inputs
    assert measured.on_armed()
    assert measured.group.inputs_when_limited == [False]
    assert measured.group.limits == [(11 << 20) + checks06.MEMORY_ROOM]
    assert os.read(read_fd, 1) == b"g" and (tmp_path / "measured.npz").exists()


@pytest.mark.parametrize("group", [{"held": (10 << 20, 40 << 20)}, {"refuse": True}])
def test_memory_held_before_the_call_fails_it_without_sending_inputs(tmp_path, group):
    measured, _ = _measured(tmp_path, **group)
    measured.on_ready()
    assert not measured.on_armed()
    assert not (tmp_path / "measured.npz").exists()
    assert measured.finish(None).error.startswith("MemoryHeld")


def test_a_kill_for_memory_fails_the_call_whatever_frame_came_back(tmp_path):
    """A child killed by the kernel while the call ran: the (possibly forged) right answer gets nothing."""
    from autograder.checks.core import Outcome

    measured, _ = _measured(tmp_path, oom=(3, 4))
    measured.on_ready()
    assert measured.on_armed()
    forged = Outcome(value=np.zeros((256, 4)), peak_bytes=0, peak_resident_bytes=0)
    measured.on_outcome(forged)
    measured.collect(killed=False)
    assert measured.finish(forged).error.startswith("MemoryLimit")


def test_the_runners_own_peak_figures_are_discarded(tmp_path):
    from autograder.checks.core import Outcome

    measured, _ = _measured(tmp_path)
    measured.on_ready()
    measured.on_armed()
    outcome = Outcome(value=np.zeros((256, 4)), peak_bytes=1, peak_resident_bytes=1)
    measured.on_outcome(outcome)
    measured.collect(killed=False)
    final = measured.finish(outcome)
    assert final.memory_limit_bytes == checks06.MEMORY_ROOM
    assert final.peak_bytes is None and final.peak_resident_bytes is None


def test_the_measured_call_cannot_be_answered_before_the_limit(tmp_path):
    """A ``call`` frame for the measured call before ``measure_ready`` (or a second ``measure_ready``) stops the run."""
    from autograder.sandbox.frames import _Run

    measured, _ = _measured(tmp_path)
    run = _Run(pending=[7], cell_indices=set(), calls={7: measured.call}, output_cap=1 << 20, measure=measured)
    assert run.frame({"event": "ready"}, b"")
    assert not run.frame({"event": "call", "id": 7}, b"")
    measured2, _ = _measured(tmp_path)
    run = _Run(pending=[7], cell_indices=set(), calls={7: measured2.call}, output_cap=1 << 20, measure=measured2)
    assert run.frame({"event": "ready"}, b"") and run.frame({"event": "measure_ready"}, b"")
    assert not run.frame({"event": "measure_ready"}, b"")


@needs_measurement
def test_through_autograder_grade_delegation_scores_6_of_10_and_the_honest_student_10(tmp_path):
    """The whole pipeline (nbgrader in the sandboxed kernel, then verification): the points move with the grader's
    measurement, and neither student gets a "possible tampering" flag (both measurements agree)."""
    import json

    from autograder import api, demo

    root = demo.prepare_course(tmp_path / "course")
    api.generate(root, [A06])
    for sid, answers in (("honest", {}), ("delegation", {"blockwise_attention": ATTACKS["delegation"]})):
        path = root / "submitted" / sid / A06 / f"{A06}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(nbformat.writes(_solved(A06, **answers)))
    api.grade(root, root / "submitted", [A06], workers=1, progress=False)
    rows = {r["student_id"]: r for r in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    points = {sid: sum(c["score"] for c in row["cells"] if not c.get("manual")) for sid, row in rows.items()}
    assert points == {"honest": 10.0, "delegation": 6.0}
    memory = {sid: next(c for c in row["cells"] if c["grade_id"] == MEMORY) for sid, row in rows.items()}
    assert memory["delegation"]["misconception"] == "blockwise_attention.full_matrix"
    assert all(f["kind"] != "possible tampering" for row in rows.values() for f in row["flags"])


def test_a_sandbox_that_closed_the_grader_pipe_stops_its_run_not_the_grader(tmp_path):
    """The notebook's code cannot turn a closed pipe into an exception in the grader (a whole submission withheld)."""
    import os

    from autograder.sandbox.frames import _Run

    measured, read_fd = _measured(tmp_path)
    os.close(read_fd)
    run = _Run(pending=[7], cell_indices=set(), calls={7: measured.call}, output_cap=1 << 20, measure=measured)
    assert not run.frame({"event": "ready"}, b"")
    assert "closed the grader's pipe" in run.protocol_error
