"""The catalogue of hostile and broken submissions (issue 5), each with its expected verified outcome.

Hostile cases put a trick *and a wrong answer* in the attacked task's cell: the verified score of
the attacked task must be 0 and a static-scan flag must name the trick; the other tasks (correct
answers) must keep full marks. Broken-but-honest cases (noise, duplicated cells, deleted or blanked
test cells, stripped metadata, a foreign kernelspec) must keep full marks. Unreadable files must
fail every check with a clear reason.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

import pytest

from autograder.sandbox import Limits, verify_submission

from .conftest import (ANSWERS, ASSIGNMENT, SEED, WRONG_SOFTMAX, drop_cells, fixture_source_notebook, is_test,
                       named_flags, released, strip_nbgrader, submissions, tasks_passed, to_bytes, with_answers)

ALL_TASKS = set(ANSWERS)
FAST = Limits(cpu_seconds=10, memory_mb=768, output_bytes=1_000_000, wall_seconds=60, cell_seconds=3)


def fixture_base():
    return submissions.fill(released(fixture_source_notebook()), ANSWERS)


@dataclass
class Case:
    name: str
    build: Callable[[], bytes]
    zero: set[str] = field(default_factory=set)  # tasks whose verified score must be 0
    rules: set[str] = field(default_factory=set)  # static-scan rules that must be flagged
    error: str | None = None  # expected substring of result.error (unreadable file)
    limits: Limits = FAST
    cell_error: str | None = None  # expected substring of some cell's recorded error
    note: str | None = None  # expected substring of some note (hang, crash)
    no_flags: bool = False  # honest submissions: the scan must stay quiet


def softmax_cell(prefix: str, answer: str = WRONG_SOFTMAX) -> Callable[[], bytes]:
    return lambda: to_bytes(with_answers(fixture_base(), {"softmax": prefix + answer}))


def replace_softmax(source: str) -> Callable[[], bytes]:
    return lambda: to_bytes(with_answers(fixture_base(), {"softmax": source}))


def extra_cell_before_answers(source: str) -> Callable[[], bytes]:
    def build():
        nb = with_answers(fixture_base(), {"softmax": WRONG_SOFTMAX})
        from nbformat.v4 import new_code_cell
        nb.cells.insert(1, new_code_cell(source))
        return to_bytes(nb)
    return build


def _duplicated(order: str) -> Callable[[], bytes]:
    def build():
        nb = fixture_base()
        index = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
        first, second = copy.deepcopy(nb.cells[index]), copy.deepcopy(nb.cells[index])
        first.source, second.source = (WRONG_SOFTMAX, ANSWERS["softmax"]) if order == "wrong_then_right" \
            else (ANSWERS["softmax"], WRONG_SOFTMAX)
        first.id, second.id = "dup-1", "dup-2"
        nb.cells[index:index + 1] = [first, second]
        return to_bytes(nb)
    return build


def _blank_tests():
    nb = fixture_base()
    for cell in nb.cells:
        if is_test(cell):
            cell.source = ""
    return to_bytes(nb)


def _foreign_kernel():
    nb = fixture_base()
    nb.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    return to_bytes(nb)


NOISE = """import sys, warnings
print("starting softmax")
print("debug: stderr noise", file=sys.stderr)
warnings.warn("a harmless warning")
np.log(np.zeros(2))  # RuntimeWarning: divide by zero
"""
NOISY_SOFTMAX = ("def softmax(x, axis=-1):\n    print('in softmax', x.shape)\n"
                 "    print('noise', file=sys.stderr)\n    warnings.warn('inside')\n    np.log(0.0)\n"
                 "    x = np.asarray(x)\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
                 "    return e / e.sum(axis=axis, keepdims=True)\n"
                 "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                 "plt.plot([1, 2, 3]); plt.title('a plot'); plt.show()\n")

CASES = [
    # ---- hostile: a trick and a wrong answer underneath
    Case("allclose_patched", softmax_cell("np.allclose = lambda *a, **k: True\n"), {"softmax"}, {"numpy-patch"}),
    Case("input_transformers_post", softmax_cell(
        "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"), {"softmax"}, {"ipython-hook"}),
    Case("eq_always_true_object", replace_softmax(
        "class Anything:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n"
        "        return False\n\ndef softmax(x, axis=-1):\n    return Anything()"), {"softmax"}, {"fake-result"}),
    Case("ndarray_subclass_eq", replace_softmax(
        "class Sly(np.ndarray):\n    def __eq__(self, other):\n        return np.ones(np.shape(other), bool)\n\n"
        "def softmax(x, axis=-1):\n    x *= 0\n    return x.view(Sly)"), {"softmax"}, {"fake-result"}),
    Case("numpy_comparisons_patched", softmax_cell(
        "np.testing.assert_allclose = lambda *a, **k: None\nnp.array_equal = lambda *a, **k: True\n"
        "np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, bool)\n"), {"softmax"}, {"numpy-patch"}),
    Case("numpy_patched_via_setattr", softmax_cell(
        "import numpy\nsetattr(numpy, 'allclose', lambda *a, **k: True)\n"), {"softmax"}, {"module-patch"}),
    Case("grader_module_patched", softmax_cell(
        "import autograder.checks.expect as e\ne.close = lambda *a, **k: None\n"), {"softmax"},
        {"grader-import", "grader-patch"}, cell_error="ModuleNotFoundError"),
    Case("sys_modules_edit", softmax_cell(
        "import sys, types\nfake = types.ModuleType('autograder.checks.expect')\n"
        "sys.modules['autograder.checks.expect'] = fake\n"), {"softmax"}, {"sys-modules"}),
    Case("silenced_tracebacks", softmax_cell(
        "get_ipython().showtraceback = lambda *a, **k: None\n"), {"softmax"}, {"ipython-hook"}),
    Case("reads_solution_from_disk", softmax_cell(
        "import json\ntry:\n    _nb = json.load(open('../../../solutions/01_scores_softmax/01_scores_softmax.ipynb'))\n"
        "    exec([c for c in _nb['cells'] if 'def softmax' in ''.join(c['source'])][0]['source'])\n"
        "except Exception:\n    pass\n"), {"softmax"}, {"course-files", "dynamic-code"}),
    Case("reads_gradebook", softmax_cell(
        "import sqlite3\ntry:\n    sqlite3.connect('../../gradebook.db').execute('select 1')\nexcept Exception:\n"
        "    pass\n"), {"softmax"}, {"course-files", "suspect-import"}),
    Case("calls_the_reference", replace_softmax("from attention_ref import softmax"), {"softmax"},
         {"reference-import"}, cell_error="the reference version of `softmax` cannot be used"),
    Case("calls_the_reference_by_attribute", replace_softmax(
        "import attention_ref as ref\n\ndef softmax(x, axis=-1):\n    return ref.softmax(x, axis=axis)"), {"softmax"},
        {"reference-import"}),
    Case("reference_internals", replace_softmax("from attention_ref.scores import softmax"), {"softmax"},
         {"reference-internals"}),
    Case("kills_the_kernel_in_a_cell", softmax_cell("import os\nos._exit(0)\n"), {"softmax"}, {"os-exit"},
         cell_error="ProcessDied"),
    Case("forks_a_child_then_exits", softmax_cell(
        "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\nos._exit(0)\n"), {"softmax"},
        {"os-fork", "os-exit"}, cell_error="ProcessDied"),
    Case("kills_the_process_in_an_answer", replace_softmax(
        "import os\n\ndef softmax(x, axis=-1):\n    os._exit(0)"), {"softmax"}, {"os-exit"}, note="softmax("),
    Case("segfault_in_an_answer", replace_softmax(
        "import ctypes\n\ndef softmax(x, axis=-1):\n    return ctypes.string_at(0)"), {"softmax"}, {"suspect-import"},
        note="SIGSEGV"),
    Case("forged_sandbox_messages", softmax_cell(
        # Whatever carries the runner's events (an inherited pipe, a FIFO it opened): every pipe it can write.
        "import os, stat\nfor fd in map(int, os.listdir('/proc/self/fd')):\n    try:\n"
        "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
        "            os.write(fd, (7).to_bytes(8, 'big') + b'{\"event\"')\n    except OSError:\n        pass\n"),
        {"softmax"}, {"os-write"}, cell_error="Stopped: the cell was stopped"),
    Case("endless_loop_in_an_answer", replace_softmax(
        "def softmax(x, axis=-1):\n    while True:\n        pass"), {"softmax"}, set(), note="did not finish within 3 s"),
    Case("endless_loop_in_a_cell", extra_cell_before_answers("while True:\n    pass"), {"softmax"}, set(),
         cell_error="did not finish within 3 s"),
    Case("memory_bomb_in_an_answer", replace_softmax(
        "def softmax(x, axis=-1):\n    return np.ones((1 << 20, 1 << 20))"), {"softmax"}, set()),
    Case("memory_bomb_in_a_cell", extra_cell_before_answers("hog = [bytearray(1 << 20) for _ in range(1 << 16)]"),
         {"softmax"}, set(), cell_error="MemoryError",
         limits=Limits(cpu_seconds=10, memory_mb=320, wall_seconds=60, cell_seconds=20)),
    Case("huge_answer", replace_softmax("def softmax(x, axis=-1):\n    return np.zeros(4_000_000)"), {"softmax"}, set(),
         note="output limit"),
    # ---- broken but honest: full marks
    Case("print_flood", replace_softmax("for _ in range(200_000):\n    print('x' * 100)\n" + ANSWERS["softmax"]), set(),
         no_flags=True, limits=Limits(cpu_seconds=20, memory_mb=768, wall_seconds=120, cell_seconds=30)),
    Case("stderr_print_warning_plot_noise", replace_softmax(NOISE + NOISY_SOFTMAX), set(), no_flags=True,
         limits=Limits(cpu_seconds=20, memory_mb=1024, wall_seconds=120, cell_seconds=30)),  # pyplot: seconds
    Case("duplicated_cells_last_right", _duplicated("wrong_then_right"), set(), no_flags=True),
    Case("duplicated_cells_last_wrong", _duplicated("right_then_wrong"), {"softmax"}, no_flags=True),
    Case("deleted_test_cells", lambda: to_bytes(drop_cells(fixture_base(), is_test)), set(), no_flags=True),
    Case("blanked_test_cells", _blank_tests, set(), no_flags=True),
    Case("stripped_nbgrader_metadata", lambda: to_bytes(strip_nbgrader(fixture_base())), set(), no_flags=True),
    Case("foreign_kernelspec", _foreign_kernel, set(), no_flags=True),
    Case("ipython_magics", replace_softmax("%load_ext autoreload\n!echo hi\n" + ANSWERS["softmax"] + "\n%time softmax(np.ones(3))"),
         set(), no_flags=True),
    # ---- unreadable files: every check fails with a clear reason
    Case("truncated_json", lambda: to_bytes(fixture_base())[:2000], ALL_TASKS, error="truncated"),
    Case("text_file_named_ipynb", lambda: ANSWERS["softmax"].encode(), ALL_TASKS, error="plain text"),
    Case("invalid_json", lambda: b'{"cells": [}, "nbformat": 4}', ALL_TASKS, error="invalid"),
    Case("binary_file", lambda: bytes(range(256)) * 4, ALL_TASKS, error="not text"),
    Case("json_but_not_a_notebook", lambda: b'{"hello": "world"}', ALL_TASKS, error="not a Jupyter notebook"),
    Case("empty_file", lambda: b"", ALL_TASKS, error="empty"),
]


#: The attacks of the catalogue (the first section, up to the honest but broken notebooks).
HOSTILE = CASES[:[c.name for c in CASES].index("print_flood")]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_catalogue(case: Case):
    result = verify_submission(ASSIGNMENT, case.build(), SEED, case.limits)
    passed = tasks_passed(result)
    assert set(passed) == ALL_TASKS
    wrong = {t for t, ok in passed.items() if ok is not (t not in case.zero)}  # zero: every check fails
    assert not wrong, (f"tasks with the wrong verified outcome: {wrong}; verdicts: "
                       f"{ {g: (v.passed, v.message) for g, v in result.verdicts.items() if v.task in wrong} }; "
                       f"cell errors {result.cell_errors}; notes {result.notes}")
    rules = {f["rule"] for f in result.flags}
    assert case.rules <= rules, f"missing flags {case.rules - rules}; flags: {result.flags}"
    for flag in result.flags:
        assert flag["evidence"] and flag["rule"] and flag["advice"]
        assert isinstance(flag["line"], int) if flag["kind"] == "static scan" else \
            flag["kind"] in ("refused import", "sandbox denial", "limit")
    if case in HOSTILE:  # issue 25: every attack names the rule that caught it, the zeros above included
        assert named_flags(result), (case.name, result.cell_errors, result.notes)
    if case.no_flags:
        assert result.flags == [], result.flags
    if case.error:
        assert result.error and case.error in result.error, result.error
        assert all(case.error in v.message for v in result.verdicts.values())
        assert result.sandbox == "none"
    else:
        assert result.error is None
        assert result.sandbox in ("bubblewrap", "subprocess")
    if case.cell_error:
        assert any(case.cell_error in e for e in result.cell_errors.values()), result.cell_errors
    if case.note:
        assert any(case.note in n for n in result.notes), result.notes


def test_attacked_task_messages_are_for_the_student():
    """A timed-out or killed task says so in the verdict the student reads."""
    loop = verify_submission(ASSIGNMENT, replace_softmax("def softmax(x, axis=-1):\n    while True:\n        pass")(),
                             SEED, FAST)
    messages = [v.message for v in loop.verdicts.values() if v.task == "softmax"]
    assert "did not finish within 3 s" in messages[0]
    assert all("not run because `softmax` stopped" in m or "did not finish" in m for m in messages)
    assert loop.runs == 2  # one restart, to verify the task after softmax (weighted_average)


def test_wall_clock_of_the_whole_submission():
    """Slow answers everywhere: what is left when the submission's wall clock is up fails, with the reason."""
    slow = "import time\n\ndef softmax(x, axis=-1):\n    time.sleep(1.2)\n    return x"
    limits = Limits(cpu_seconds=10, memory_mb=768, wall_seconds=6, cell_seconds=5)
    result = verify_submission(ASSIGNMENT, replace_softmax(slow)(), SEED, limits)
    assert not tasks_passed(result)["softmax"]
    assert any("wall-clock limit of 6 s" in (v.message or "") for v in result.verdicts.values())
    assert result.seconds < 15
