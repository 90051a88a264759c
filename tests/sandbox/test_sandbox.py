"""What the sandbox guarantees, probed from inside it; the plain-data wire; cell reading; the scan."""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest

from pydantic import ValidationError

from autograder.checks import checks_for_assignment, nb02_scaling
from autograder.config import SandboxLimits
from autograder.checks.core import Call, Outcome
from autograder.sandbox import (Limits, NotANotebook, read_cells,
                                sandbox_kind, scan_cells, verify_submission)
from autograder.sandbox import command, launch, wire

from .conftest import ANSWERS, ASSIGNMENT, ROOT, SEED, WRONG_SOFTMAX, base_notebook, released, \
    fixture_source_notebook, submissions, tasks_passed, to_bytes

KINDS = ["subprocess"] + (["bubblewrap"] if command._detect() == "bubblewrap" else [])
LIMITS = Limits(cpu_seconds=10, memory_mb=768, wall_seconds=60, cell_seconds=10)
#: Where the grader is root and uid nobody cannot read the interpreter (a pyenv or venv under a
#: 0700 home, as on our machines), the subprocess fallback refuses student code; the tests below
#: then exercise it with ``trusted=True`` (the demo's mode) and assert the refusal separately.
FALLBACK_REFUSED = os.geteuid() == 0 and not command._drop_to_nobody_possible()


def trusted_for(kind: str) -> bool:
    """Whether to run ``kind`` trusted (the demo's mode), where the fallback would refuse to run as root."""
    return kind == "subprocess" and FALLBACK_REFUSED

PROBE = f"""
import os, socket, resource, sys
def readable(path):
    try:
        with open(path, 'rb') as f:
            f.read(1)
        return True
    except OSError:
        return False
def connects():
    try:
        socket.create_connection(('127.0.0.1', 22), timeout=1).close()
        return True
    except OSError as exc:
        return 'unreachable' not in str(exc) and 'refused' in str(exc)
def writable(path):
    try:
        with open(os.path.join(path, 'probe.txt'), 'w') as f:
            f.write('x')
        return True
    except OSError:
        return False
COURSE_FILE = readable({str(ROOT / 'course.yml')!r})
SOLUTION = readable({str(ROOT / 'solutions' / ASSIGNMENT / (ASSIGNMENT + '.ipynb'))!r})
REFERENCE_SOURCE = readable({str(ROOT / 'attention_ref' / 'scores.py')!r})
SEED_VISIBLE = 'AUTOGRADER_SEED' in os.environ
ENV_KEYS = len(os.environ)
UID = os.getuid()
CWD_WRITABLE = writable('.')
JOB_WRITABLE = writable(sys.argv[1])
AS_LIMIT = resource.getrlimit(resource.RLIMIT_AS)[0]
CPU_LIMIT = resource.getrlimit(resource.RLIMIT_CPU)[0]
try:
    import autograder.checks
    GRADER_IMPORTABLE = True
except ImportError:
    GRADER_IMPORTABLE = False
"""
PROBES = ["COURSE_FILE", "SOLUTION", "REFERENCE_SOURCE", "SEED_VISIBLE", "ENV_KEYS", "UID", "CWD_WRITABLE",
          "JOB_WRITABLE", "AS_LIMIT", "CPU_LIMIT", "GRADER_IMPORTABLE"]


def probe(kind: str, source: str, names: list[str], *, assignment=ASSIGNMENT, given=(), graded=(), limits=LIMITS):
    calls = [(i, Call(name, value_only=True), name) for i, name in enumerate(names)]
    session = launch.run_session([(0, source)], calls, given=given, graded=graded, assignment=assignment,
                                 limits=limits, kind=kind, trusted=trusted_for(kind))
    return {name: session.outcomes[i] for i, name in enumerate(names)}, session


@pytest.mark.parametrize("kind", KINDS)
def test_what_the_sandbox_hides(kind, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SEED", "777")
    outcomes, session = probe(kind, PROBE, PROBES)
    assert session.cell_errors == {}, session.cell_errors
    seen = {name: o.value for name, o in outcomes.items()}
    # both kinds: scrubbed environment, no seed, limits applied, a fresh writable cwd, no grader
    assert seen["SEED_VISIBLE"] is False and seen["ENV_KEYS"] <= 12
    assert seen["AS_LIMIT"] == 768 << 20 and seen["CPU_LIMIT"] == 10
    assert seen["CWD_WRITABLE"] is True
    assert seen["GRADER_IMPORTABLE"] is False
    if kind == "bubblewrap":
        assert seen["COURSE_FILE"] is False and seen["SOLUTION"] is False and seen["REFERENCE_SOURCE"] is False
        assert seen["UID"] == 65534
        assert seen["JOB_WRITABLE"] is False


@pytest.mark.skipif("bubblewrap" not in KINDS, reason="bwrap is not available here")
def test_no_network_in_bubblewrap():
    outcomes, _ = probe("bubblewrap", "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
                                      "    NET = 'open'\nexcept OSError as exc:\n    NET = str(exc)", ["NET"])
    assert "unreachable" in outcomes["NET"].value.lower()


def test_restricted_reference_gives_building_blocks_only():
    """02 gives softmax (built in 01) and grades scale_scores: one imports, the other says why it cannot."""
    assert "softmax" in nb02_scaling.GIVEN and "scale_scores" in nb02_scaling.TASKS
    source = ("from attention_ref import softmax\nW = softmax(np.array([[2.0, 1.0, 0.0]]))\n"
              "try:\n    from attention_ref import scale_scores\n    MSG = 'imported'\nexcept ImportError as e:\n"
              "    MSG = str(e)\ntry:\n    from attention_ref import blockwise_attention\n    OTHER = 'imported'\n"
              "except ImportError as e:\n    OTHER = str(e)\nimport attention_ref\nALL = tuple(sorted(attention_ref.__all__))\n"
              "import attention_ref.scores\nSUB = tuple(sorted(set(vars(attention_ref.scores)) & set(GRADED)))\n"
              "GLOBALS = tuple(sorted(set(softmax.__globals__) & set(GRADED)))\n")
    source = f"GRADED = {nb02_scaling.TASKS!r}\n" + source
    outcomes, session = probe(command.sandbox_kind(), "import numpy as np\n" + source,
                              ["W", "MSG", "OTHER", "ALL", "SUB", "GLOBALS"],
                              assignment="02_scaling", given=nb02_scaling.GIVEN, graded=nb02_scaling.TASKS)
    assert session.cell_errors == {}
    np.testing.assert_allclose(outcomes["W"].value, [[0.66524096, 0.24472847, 0.09003057]], rtol=1e-6)
    assert "the reference version of `scale_scores` cannot be used in 02_scaling" in outcomes["MSG"].value
    assert "not one of the building blocks 02_scaling gives" in outcomes["OTHER"].value
    assert outcomes["ALL"].value == tuple(sorted(nb02_scaling.GIVEN))
    # The generated package's modules and the given functions' globals hold no graded name.
    assert outcomes["SUB"].value == () and outcomes["GLOBALS"].value == ()


@pytest.mark.parametrize("case", ["allclose", "loop", "exit"])
def test_subprocess_fallback_catalogue_subset(case, monkeypatch):
    """Without bwrap the verdicts are the same (the isolation is weaker; see the README)."""
    monkeypatch.setenv("AUTOGRADER_SANDBOX", "subprocess")
    softmax = {"allclose": "np.allclose = lambda *a, **k: True\n" + WRONG_SOFTMAX,
               "loop": "def softmax(x, axis=-1):\n    while True:\n        pass",
               "exit": "import os\nos._exit(0)\n" + WRONG_SOFTMAX}[case]
    nb = submissions.fill(released(fixture_source_notebook()), {**ANSWERS, "softmax": softmax})
    result = verify_submission(ASSIGNMENT, to_bytes(nb), SEED, Limits(cpu_seconds=10, memory_mb=768, cell_seconds=2),
                               trusted=trusted_for("subprocess"))
    assert result.sandbox == "subprocess"
    # every task the registry lists for 01 (its concept questions included) passes but the broken softmax
    assert tasks_passed(result) == {c.task: c.task != "softmax" for c in checks_for_assignment(ASSIGNMENT)}


def test_limits_coerce():
    """The sandbox's limits are course.yml's schema: defaults, instances, and validated mappings."""
    assert Limits is SandboxLimits
    assert Limits.coerce(None) == Limits()
    assert Limits.coerce({"cpu_seconds": 5, "memory_mb": 256, "output_bytes": 10}) == \
        Limits(cpu_seconds=5, memory_mb=256, output_bytes=10)
    limits = Limits(wall_seconds=9)
    assert Limits.coerce(limits) is limits
    with pytest.raises(ValidationError, match="unknown"):
        Limits.coerce({"cpu_seconds": 5, "unknown": 1})


def test_unknown_assignment():
    with pytest.raises(KeyError):
        verify_submission("99_nothing", b"{}", 1)


# ---------------------------------------------------------------- the wire
def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


CALL = Call("softmax", (np.zeros((2, 3)),), {"mask": np.ones(3, bool), "axis": -1})
PLAIN = Call("f", (2.0,), {"axis": -1})


def _header(**over):
    header = {"event": "outcome", "id": 0, "value": None, "error": None, "after": {}, "peak_bytes": None}
    header.update(over)
    return header


def test_wire_round_trip_of_calls():
    specs, arrays = wire.encode_calls([(0, Call("f", (np.arange(3.0), 2.5, float("nan"), np.int64(4), (1, None)),
                                                {"axis": -1, "s": "x"}))])
    assert specs[0]["args"][1] == {"float": (2.5).hex()} and specs[0]["args"][2] == {"float": "nan"}
    assert set(arrays) == {"a0", "a1"}


AFTER = {"0": "after_0", "mask": "after_mask"}


def test_wire_accepts_plain_answers_and_decides_mutation():
    header = _header(value={"tuple": [{"array": "v0"}, {"float": (0.5).hex()}, 3, True]}, after=AFTER)
    outcome = wire.decode_outcome(header, _npz(v0=np.eye(2), after_0=np.zeros((2, 3)), after_mask=np.zeros(3, bool)),
                                  CALL, 10_000)
    assert isinstance(outcome, Outcome) and outcome.mutated == ("mask",)
    np.testing.assert_array_equal(outcome.value[0], np.eye(2))
    assert outcome.value[1:] == (0.5, 3, True)


@pytest.mark.parametrize("header, blob, why", [
    (_header(extra=1), b"", "unexpected fields"),
    (_header(), b"", "every array argument"),
    (_header(after={"axis": "after_axis"}), b"", "after the call are malformed"),
    (_header(after={"0": "after_0"}), b"", "missing"),
    (_header(mutated=[]), b"", "unexpected fields"),
    (_header(value={"array": "v0"}), _npz(v0=np.array(["a"])), "unexpected type"),
    (_header(value={"array": "v0"}), _npz(v0=np.array([object()], dtype=object)), "could not be read"),
    (_header(value={"array": "nope"}), b"", "unexpected form"),
    (_header(value={"pickle": "gASV"}), b"", "unexpected form"),
    (_header(value=[1, 2]), b"", "unexpected form"),
    (_header(value=1.5), b"", "unexpected form"),
    (_header(peak_bytes=5), b"", "not asked for"),
    (_header(error=3), b"", "not text"),
    (_header(value={"array": "v0"}), b"PK\x03\x04garbage", "not a valid .npz"),
    (_header(value={"array": "v0"}), _npz(v0=np.zeros(10_000)), "output limit"),
])
def test_wire_refuses_anything_else(header, blob, why):
    call = CALL if why in ("every array argument", "after the call are malformed", "missing") else PLAIN
    with pytest.raises(wire.WireError, match=why):
        wire.decode_outcome(header, blob, call, 10_000)


def test_wire_refuses_deep_nesting():
    value = {"float": "0x1p0"}
    for _ in range(50):
        value = {"tuple": [value]}
    with pytest.raises(wire.WireError, match="nested"):
        wire.decode_value(value, {})


# ---------------------------------------------------------------- cells
def test_cells_test_recognition_and_magics():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    nb = new_notebook(cells=[
        new_markdown_cell("text"),
        new_code_cell("%matplotlib inline\nimport numpy as np\nif True:\n    !ls\n"),
        new_code_cell("check('x', globals())", metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "x"}}),
        new_code_cell("### BEGIN HIDDEN TESTS\ncheck('y', globals())\n### END HIDDEN TESTS"),
        new_code_cell("%%bash\necho hi"),
        new_code_cell("%%time\nz = 1"),
        new_code_cell("def f(): pass", metadata={"nbgrader": {"grade": True, "solution": True, "grade_id": "f"}}),
    ])
    cells = read_cells(nbformat.writes(nb).encode())
    assert [c.index for c in cells] == [1, 2, 3, 4, 5, 6]
    assert cells[0].python == "pass\nimport numpy as np\nif True:\n    pass\n"
    assert cells[1].is_test and cells[1].python is None and cells[2].is_test
    assert cells[3].python is None and cells[4].python == "\nz = 1"
    assert not cells[5].is_test and cells[5].grade_id == "f"


@pytest.mark.parametrize("data, why", [
    (b"", "empty"), (b"\xff\xfe\x00", "not UTF-8"), (b"print('hi')", "plain text"),
    (b'{"cells": [', "truncated"), (b'{"cells": [}]}', "invalid"), (b"[1, 2]", "no list of cells"),
    (b'{"cells": [], "nbformat": 3}', "version"), (b'{"cells": [{"cell_type": "code", "source": 5}]}', "not text"),
    (b"[" * 100_000, "nested"),
])
def test_cells_refuse_what_is_not_a_notebook(data, why):
    with pytest.raises(NotANotebook, match=why):
        read_cells(data)


# ---------------------------------------------------------------- scan
def _scan(source: str, graded=("softmax",)):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    nb = new_notebook(cells=[new_code_cell("import numpy as np"), new_code_cell(source)])
    return scan_cells(read_cells(nbformat.writes(nb).encode()), graded, ASSIGNMENT)


@pytest.mark.parametrize("source, rule, line", [
    ("x = 1\nnp.allclose = lambda *a, **k: True", "numpy-patch", 2),
    ("import numpy.testing as npt\nnpt.assert_allclose = print", "numpy-patch", 2),
    ("np.testing.assert_allclose = print", "numpy-patch", 1),
    ("import builtins\nbuiltins.print = None", "builtins-edit", 2),
    ("import sys\nsys.modules['numpy'] = None", "sys-modules", 2),
    ("get_ipython().events.register('pre_run_cell', print)", "ipython-hook", 1),
    ("import os\nos.kill(os.getpid(), 9)", "os-kill", 2),
    ("from os import _exit\n_exit(1)", "os-exit", 1),
    ("import ctypes", "suspect-import", 1),
    ("open('../source/ps1/ps1.ipynb')", "course-files", 1),
    ("from pathlib import Path\nPath('gradebook.db').read_bytes()", "course-files", 2),
    ("m = __import__('num' + 'py')", "dynamic-code", 1),
    ("import importlib\nimportlib.import_module('attention_ref')", "dynamic-code", 2),
    ("import attention_ref\nsetattr(attention_ref, 'x', 1)", "module-patch", 2),
    ("def f():\n    return f.__globals__", "introspection", 2),
    ("class A:\n    def __eq__(self, o):\n        return True", "fake-result", 2),
    ("from attention_ref import softmax", "reference-import", 1),
    ("import autograder.checks.expect as e\ne.close = None", "grader-patch", 2),
    ("from autograder.hidden import check\ncheck = lambda *a, **k: None", "grader-rebind", 2),
    ("from autograder.notebook import Grader\ngrader = Grader('01', globals())\nclass grader:\n    pass",
     "grader-rebind", 3),
])
def test_scan_flags(source, rule, line):
    flags = _scan(source)
    assert any(f["rule"] == rule and f["line"] == line for f in flags), flags
    assert all(f["cell_index"] == 1 and f["kind"] == "static scan" for f in flags)


@pytest.mark.parametrize("source", [
    ANSWERS["softmax"], "import math\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()",
    "import sys\nprint('x', file=sys.stderr)\nimport warnings\nwarnings.warn('w')",
    "%matplotlib inline\nfrom attention_ref import causal_mask", "class Box:\n    def __init__(self, v):\n        self.v = v",
    "import numpy as np\nrng = np.random.default_rng(0)\nx = rng.standard_normal((3, 4))\nx[0, 0] = 1.0",
    "from autograder.hidden import check\nfrom autograder.notebook import Grader\ngrader = Grader('01', globals())",
    "def f(x):\n    x = x.copy()\n    x.shape = (2, 2)\n    return x",
])
def test_scan_stays_quiet_on_plain_answers(source):
    assert _scan(source) == []


@pytest.mark.parametrize("assignment", sorted(p.name for p in (ROOT / "solutions").glob("*") if p.is_dir()))
def test_scan_stays_quiet_on_the_course_notebooks(assignment):
    path = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
    assert scan_cells(read_cells(path.read_bytes()), [], assignment) == []


def test_sandbox_kind_can_be_forced(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_SANDBOX", "subprocess")
    assert sandbox_kind() == "subprocess"
    monkeypatch.setenv("AUTOGRADER_SANDBOX", "chroot")
    with pytest.raises(ValueError):
        sandbox_kind()
    monkeypatch.delenv("AUTOGRADER_SANDBOX")
    assert sandbox_kind() == command._detect()
    assert Path(command.RUNNER).exists() and os.access(command.CORE, os.R_OK)


@pytest.mark.skipif(not FALLBACK_REFUSED, reason="here the subprocess fallback can drop to uid nobody")
def test_subprocess_fallback_never_runs_student_code_as_root(monkeypatch):
    """Issue 10 (4): where nobody cannot read the interpreter, the fallback refuses instead of running as root."""
    monkeypatch.setenv("AUTOGRADER_SANDBOX", "subprocess")
    with pytest.raises(command.SandboxError, match="as root"):
        verify_submission(ASSIGNMENT, to_bytes(released(fixture_source_notebook())), SEED, LIMITS)


def test_the_scan_keeps_a_bounded_number_of_flags():
    """Red team 2: one cell of 150,000 suspect imports made 150,000 flags (a 40 MB results.json)."""
    from autograder.notebook.model import Cell
    from autograder.sandbox.scan import MAX_FLAGS

    source = "import ctypes\n" * 1000
    flags = scan_cells([Cell(0, None, "code", source)], [], ASSIGNMENT)
    assert len(flags) == MAX_FLAGS + 1
    assert flags[-1]["rule"] == "more" and f"{1000 - MAX_FLAGS} more" in flags[-1]["evidence"]


REFUSALS = {  # issue 25: each one swallowed by a `try`, so the cell goes on and only the runner sees it
    "star": "try:\n    from attention_ref import *\nexcept ImportError:\n    pass",
    "graded": "try:\n    from attention_ref import softmax\nexcept ImportError:\n    pass",
    "grader": "try:\n    import autograder.checks\nexcept ImportError:\n    pass",
    "optional": "try:\n    import not_a_module_here\nexcept ImportError:\n    pass",
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_refusal_a_try_swallowed_is_reported(kind, monkeypatch):
    """A name or module the notebook does not give, asked for in a `try`, is a "refused import" flag on its cell
    with advice for the student; an optional import of a module the sandbox lacks is not (nothing was lost)."""
    monkeypatch.setenv("AUTOGRADER_SANDBOX", kind)
    cells = {name: to_bytes(with_cells_before_summary(base_notebook(), [source])) for name, source in REFUSALS.items()}
    rules = {}
    for name, data in cells.items():
        result = verify_submission(ASSIGNMENT, data, SEED, LIMITS, trusted=trusted_for(kind))
        refused = [f for f in result.flags if f["kind"] == "refused import"]
        assert all("not given by this notebook" in f["advice"] and f["cell_index"] is not None for f in refused)
        rules[name] = sorted(f["rule"] for f in refused)
        assert all(v.passed for v in result.verdicts.values())  # the answers are right: the flag explains, never scores
    assert rules == {"star": ["attention_ref: graded names"], "graded": ["attention_ref: graded names"],
                     "grader": ["grader internals"], "optional": []}


def with_cells_before_summary(nb, sources):
    """``nb`` with code cells added just before its final (summary) cell."""
    import copy

    import nbformat
    nb = copy.deepcopy(nb)
    nb.cells[-1:-1] = [nbformat.v4.new_code_cell(source) for source in sources]
    return nb
