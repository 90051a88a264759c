"""Red team 3: a hostile student's own failure must never pass for the grader's (issue 13's guarantee).

A grader fault is retried and then reported, never recorded, and the next run grades it again: a
submission that could make its own failure look like the grader's would never be scored (and would
cost the grader its retries on every run). One class, graded once through ``autograder grade``
(bubblewrap, verification on), holds an honest student and one student per attack; every attacker
must be recorded (graded or failed with a reason), and nobody may be left as a grader error.
"""
from __future__ import annotations

import json

import nbformat
import pytest

from autograder import api, demo
from autograder.sandbox import command

from tests.sandbox.conftest import flag_kinds, named_flags, unflagged
from tests.sandbox.test_hostile import A01, _release, _solved, _with_cells

#: A loop that swallows the kernel's interrupt: nbgrader's cell timeout interrupts it, the kernel goes on,
#: and nbclient gives up waiting with ``CellTimeoutError`` (a novice's ``except:`` does the same).
INTERRUPT_PROOF = ("import time\nwhile True:\n    try:\n        time.sleep(60)\n"
                   "    except KeyboardInterrupt:\n        pass")
#: Messages the student's kernel forges on its own IOPub channel, which nbclient cannot read.
_FORGE = ("k = get_ipython().kernel\n"
          "k.session.send(k.iopub_socket, {kind!r}, {content}, parent=k.get_parent())\n")
FORGED_STATUS = _FORGE.format(kind="status", content="{}")
FORGED_TRANSIENT = _FORGE.format(kind="display_data",
                                 content="{'data': {'text/plain': 'x'}, 'metadata': {}, 'transient': 'x'}")
FORGED_CLEAR = _FORGE.format(kind="clear_output", content="{'wait': []}")
#: The kernel's own reply to the cell, made unreadable: nbgrader reads ``ename`` of an error reply.
FORGED_REPLY = ("k = get_ipython().kernel\n_send = k.session.send\n"
                "def _mangle(stream, msg, content=None, *a, **kw):\n"
                "    if msg == 'execute_reply':\n        content = {'status': 'error'}\n"
                "    return _send(stream, msg, content, *a, **kw)\n"
                "k.session.send = _mangle")



def _meta(**nbgrader):
    return {"grade": False, "solution": False, "locked": False, "schema_version": 3, **nbgrader}


def _with_meta_cell(nbgrader, cell_type="code"):
    """The solved notebook with one more cell that carries ``nbgrader`` as its nbgrader metadata."""
    nb = _solved(A01)
    make = nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell
    nb.cells.insert(len(nb.cells) - 1, make("x = 1", metadata={"nbgrader": nbgrader}))
    return nb


def _first_answer_meta(value):
    """The solved notebook whose first answer cell's nbgrader metadata is ``value`` (not a mapping)."""
    nb = _solved(A01)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")).metadata["nbgrader"] = value
    return nb


def _stripped_with(change):
    """The solved notebook with every cell's nbgrader metadata stripped (cell ids kept), then ``change``d."""
    nb = _solved(A01)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    change(nb.cells)
    return nb


def _retype(cells, cell_type: str):
    """The first test cell turned into a ``cell_type`` cell with the same id."""
    release = _release(A01).cells
    index = next(i for i, c in enumerate(release) if c.metadata.get("nbgrader", {}).get("grade")
                 and not c.metadata["nbgrader"].get("solution"))
    old = cells[index]
    make = nbformat.v4.new_markdown_cell if cell_type == "markdown" else nbformat.v4.new_raw_cell
    cells[index] = make(old.source)
    cells[index]["id"] = old["id"]


def _given_cell(change):
    """The solved notebook with its locked given cell (the imports) ``change``d, metadata kept."""
    nb = _solved(A01)
    index = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "given")
    nb.cells[index] = change(nb.cells[index])
    return nb


def _as_markdown(cell):
    new = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
    new["id"] = cell["id"]
    return new


#: Honest slips in a locked cell, which nbgrader undoes for the kernel: verification must run what the kernel ran
#: (as submitted, the imports made markdown by a stray ``m`` scored 0/20 though nbgrader restored them).
SLIPS = {
    "slip_given_as_markdown": lambda: _given_cell(_as_markdown),
    "slip_given_edited": lambda: _given_cell(lambda c: nbformat.from_dict(
        dict(c, source=c.source.replace("import numpy as np", "# oops")))),
}

#: Stripped metadata with cells arranged so that the release's metadata lands on a cell of another type.
STRIPPED = {
    "strip_test_as_markdown": lambda: _stripped_with(lambda cells: _retype(cells, "markdown")),
    "strip_test_as_raw": lambda: _stripped_with(lambda cells: _retype(cells, "raw")),
}

#: The test cells' visible line and hidden block, rebound on the released stubs: the recorded score is the
#: verified one, so they score 0 whatever the kernel made of them.
VALIDATE = {
    "validate_rebound": ("class _Pass:\n    def __getattr__(self, name):\n        return lambda *a, **k: None\n"
                         "grader = _Pass()\ncheck = lambda *a, **k: None"),
    "validate_env": ("import os\nos.environ['NBGRADER_EXECUTION'] = 'validate'\n"
                     "import autograder.notebook as _n\n_n.ValidationFailed = type('X', (Exception,), {})\n"
                     "check = lambda *a, **k: None"),
}

#: Forged nbgrader metadata in a notebook that kept its own (the release's metadata wins for the grade_ids it knows).
METADATA = {
    "meta_unknown_test": lambda: _with_meta_cell(_meta(grade=True, grade_id="free_points", points=100, locked=True)),
    "meta_list_grade_id": lambda: _with_meta_cell(_meta(grade=True, grade_id=["softmax"], points=5)),
    "meta_markdown_test": lambda: _with_meta_cell(_meta(grade=True, grade_id="free_words", points=50), "markdown"),
    "meta_not_a_mapping": lambda: _first_answer_meta("solution"),
    "meta_list": lambda: _first_answer_meta(["grade", True]),
    "meta_null": lambda: _first_answer_meta(None),
    "meta_points_text": lambda: _with_meta_cell(_meta(grade=True, grade_id="more", points="lots")),
}

ATTACKS = {
    "interrupt_proof": INTERRUPT_PROOF,
    "forged_status": FORGED_STATUS,
    "forged_transient": FORGED_TRANSIENT,
    "forged_clear": FORGED_CLEAR,
    "forged_reply": FORGED_REPLY,
}

#: What nbclient reads without harm (kept: it guards that such a notebook stays graded).
COPED_WITH = {"forged_clear"}


def _total(row) -> float:
    """The notebook's points (every cell's, hand-graded included): the release's, whatever the student's metadata."""
    return sum(c["max_score"] for c in row["cells"])


@pytest.fixture(scope="module")
def fault_class(tmp_path_factory):
    if command._detect() != "bubblewrap":
        pytest.skip("bubblewrap is not installed (.ci/install-system-deps.sh installs it)")
    root = demo.prepare_course(tmp_path_factory.mktemp("faults") / "course")
    yml = root / "course.yml"
    yml.write_text(yml.read_text().replace("cell_timeout: 30", "cell_timeout: 5"))
    api.generate(root, [A01])
    students = {"honest": _solved(A01), **{sid: _with_cells(_solved(A01), src) for sid, src in ATTACKS.items()},
                **{sid: make() for sid, make in {**METADATA, **STRIPPED, **SLIPS}.items()},
                **{sid: _with_cells(_release(A01), src) for sid, src in VALIDATE.items()}}
    for sid, nb in students.items():
        path = root / "submitted" / sid / A01 / f"{A01}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(nb))
    summary = api.grade(root, root / "submitted", [A01], workers=2, progress=False)
    results = json.loads((root / "reports" / "results.json").read_text())
    rows = {r["student_id"]: r for r in results["submissions"]}
    return {"summary": summary, "rows": rows}


def test_nobody_is_left_as_a_grader_error(fault_class):
    assert fault_class["summary"].errors == []


def test_the_honest_student_keeps_full_marks(fault_class):
    row = fault_class["rows"]["honest"]
    assert row["status"] == "graded" and row["verified"]
    # every auto-graded cell; 01's hand-graded 'why' (its model answer is not filled in) is the human grader's
    auto = [c for c in row["cells"] if not c["manual"]]
    assert sum(c["score"] for c in auto) == sum(c["max_score"] for c in auto) > 0
    assert all(c["manual_score"] is None for c in row["cells"] if c["manual"])


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_an_attack_on_the_classifier_is_recorded_as_the_student_s(fault_class, student):
    """Recorded (never left as a grader error): failed with a reason naming the cell, or graded where nbclient copes."""
    row = fault_class["rows"].get(student)
    assert row is not None, fault_class["summary"].errors
    assert row["status"] == ("graded" if student in COPED_WITH else "failed")
    if row["status"] == "failed":
        assert "kernel stopped answering as Jupyter expects" in row["reason"] and "notebook cell" in row["reason"]
        assert sum(c["score"] for c in row["cells"]) == 0
        flag = next(f for f in row["flags"] if f["kind"] == "not graded")  # issue 25: the rule, the cell, what to do
        assert flag["rule"] == "kernel misbehaved" and flag["cell"].startswith("#") and "submit again" in flag["advice"]




@pytest.mark.parametrize("student", sorted(METADATA))
def test_forged_nbgrader_metadata_is_recorded_as_the_student_s(fault_class, student):
    """Metadata nbgrader cannot read (not a mapping, a grade_id that is not text, a test the release does not
    have) fails the notebook with the reason: it is never a grader error, and never worth a point."""
    row = fault_class["rows"].get(student)
    assert row is not None, fault_class["summary"].errors
    assert row["status"] == "failed" and row["reason"].startswith("nbgrader cannot grade this notebook")
    assert sum(c["score"] for c in row["cells"]) == 0 and _total(row) == _total(fault_class["rows"]["honest"])
    flag = next(f for f in row["flags"] if f["kind"] == "not graded")
    assert flag["rule"] == "nbgrader metadata" and "download the released notebook again" in flag["advice"]



@pytest.mark.parametrize("student", sorted(STRIPPED))
def test_stripped_metadata_cannot_put_a_test_on_a_cell_of_another_type(fault_class, student):
    """A test cell's id on a markdown or raw cell of a stripped notebook: the release's test is graded (nbgrader
    restores it), the answers are verified as usual, and nothing is a grader error."""
    row = fault_class["rows"][student]
    assert row["status"] == "graded" and row["verified"]
    # issue 25: the release's metadata was put back: said once, with what the student can do
    assert flag_kinds(row) == {("restored metadata", "nbgrader metadata")}
    auto = [c for c in row["cells"] if not c["manual"]]  # 01's hand-graded 'why' is the human grader's
    assert sum(c["score"] for c in auto) == sum(c["max_score"] for c in auto) > 0
    assert _total(row) == _total(fault_class["rows"]["honest"])


@pytest.mark.parametrize("student", sorted(SLIPS))
def test_a_slip_in_a_locked_cell_that_nbgrader_undoes_costs_nothing(fault_class, student):
    """Verification runs the sources nbgrader executed (its locked cells restored), not the file as submitted."""
    row = fault_class["rows"][student]
    assert row["status"] == "graded" and row["verified"] and row["flags"] == []
    auto = [c for c in row["cells"] if not c["manual"]]
    assert sum(c["score"] for c in auto) == sum(c["max_score"] for c in auto) > 0


@pytest.mark.parametrize("assignment, withheld", [(A01, True), ("99_not_registered", False)])
def test_a_key_error_inside_verification_never_keeps_the_kernel_s_score(monkeypatch, assignment, withheld):
    """``KeyError`` meant "this assignment has no checks" and kept nbgrader's in-kernel score, whatever raised it;
    for a registered assignment it is verification going wrong: the points are withheld with the flag."""
    from autograder.grading import verification

    def broken(*args, **kwargs):
        raise KeyError("execution_state")

    monkeypatch.setattr(verification, "load_verifier", lambda: broken)
    cells = [{"grade_id": "softmax_rows_sum_to_one", "max_score": 2.0, "nbgrader_score": 2.0, "manual": False,
              "message": None}]
    verdicts, flags = verification.verify(assignment, b"{}", 1, {}, cells)
    rows, flags = verification.merge(cells, verdicts, flags)
    if withheld:
        assert rows[0]["score"] == 0.0 and rows[0]["misconception"] == "grader.verification_failed"
        assert [f["kind"] for f in flags] == ["verification failed"] and "KeyError" in flags[0]["evidence"]
    else:
        # no checks registered: nbgrader's score stands, flagged as unverified
        assert verdicts is None and rows[0]["score"] == 2.0 and [f["kind"] for f in flags] == ["unverified"]


@pytest.mark.parametrize("student", sorted(VALIDATE))
def test_a_validate_line_made_to_pass_in_the_kernel_scores_nothing(fault_class, student):
    row = fault_class["rows"][student]
    assert row["status"] == "graded" and row["verified"]
    assert sum(c["score"] for c in row["cells"]) == 0 and _total(row) == _total(fault_class["rows"]["honest"])
    assert ("static scan", "grader-rebind") in flag_kinds(row)  # issue 25: `grader`/`check` bound again


def test_every_hostile_case_carries_a_named_flag(fault_class):
    """Issue 25: every attack of the class names the rule that caught it (before: 12 of its 14 had none, the
    kernel attacks, the forged metadata, the rebound validate line); the honest student and the slips carry none."""
    rows = fault_class["rows"]
    assert unflagged(rows, set(ATTACKS) | set(METADATA) | set(VALIDATE)) == []
    assert all(named_flags(rows[sid]) == [] for sid in ("honest", *SLIPS))
