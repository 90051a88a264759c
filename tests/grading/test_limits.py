"""A submission that never ends is stopped at the wall-clock limit and the class is graded; a
verification result that disagrees with nbgrader becomes the recorded score and a flag."""
from __future__ import annotations

import csv
import json

import nbformat
import pytest
from .conftest import copy_course, grades

from autograder import api
from autograder.grading import verification
from autograder.grading.minicourse import ASSIGNMENT, COURSE_YML

pytestmark = pytest.mark.slow


def _fake_verifier(assignment_id, notebook_bytes, seed, limits, trusted=False):
    # "Verification" that fails the hidden test of everybody: a stand-in for a tampered kernel.
    assert assignment_id == ASSIGNMENT and isinstance(seed, int) and limits["memory_mb"] > 0
    # Every auto-graded cell needs a verdict: one without is withheld (fail closed).
    return {"verdicts": [{"grade_id": "square_two", "passed": True, "message": None, "misconception": None,
                          "task": "square"},
                         {"grade_id": "square_hidden", "passed": False, "message": "wrong outside the kernel",
                          "misconception": "square.doubles", "task": "square"}], "flags": []}


def test_wall_clock_limit_and_verified_scores(generated_course, tmp_path, monkeypatch):
    root = copy_course(generated_course, tmp_path / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("  cell_timeout: 20\n",
                                                        "  cell_timeout: 600\n  submission_timeout: 20\n"))
    for sid in ("s01", "s02", "s03"):
        (root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").unlink()
    path = root / "submitted" / "s01" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    # endless but idle (the machine is shared); the limit is generous for a loaded machine
    nb.cells[1].source = "import time\ndef square(x):\n    return x * x\nwhile True:\n    time.sleep(0.1)"
    nbformat.write(nb, path)
    monkeypatch.setattr(verification, "load_verifier", lambda: _fake_verifier)  # workers are forked

    summary = api.grade(root, workers=2, progress=False)
    assert (summary.graded, summary.failed, summary.errors) == (1, 1, [])
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    assert subs["s01"]["status"] == "failed" and "wall-clock limit of 20 s" in subs["s01"]["reason"]
    s00 = subs["s00"]
    hidden = next(c for c in s00["cells"] if c["grade_id"] == "square_hidden")
    assert (hidden["nbgrader_score"], hidden["verified_score"], hidden["score"]) == (2.0, 0.0, 0.0)
    assert hidden["misconception"] == "square.doubles" and s00["verified"] is True
    assert [f["kind"] for f in s00["flags"]] == ["possible tampering"]
    assert grades(root)[("s00", "square_hidden")] == (0.0, False)  # the gradebook holds the verified score
    with open(root / "reports" / "grades.csv", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert rows["s00"]["ps1"] == "1" and "possible tampering: ps1/square_hidden" in rows["s00"]["flags"]


# ------------------------------------------------------------------ issue 25: limits count what costs
def _padded(nb, cells):
    """``nb`` with ``cells`` spread through it (one after every answer and test cell, the rest before the end)."""
    nb = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    out, cells = [], list(cells)
    for cell in nb.cells:
        out.append(cell)
        if cells and cell.metadata.get("nbgrader", {}).get("grade_id"):
            out.append(cells.pop())
    nb.cells = out[:-1] + cells + out[-1:]
    return nb


def _cells(sources):
    """Code cells (a str) and markdown cells (a ``("markdown", str)``), as plain nodes: ``nbformat.v4``'s
    constructors validate each new cell against the schema (40,000 of them took 17 s of CPU)."""
    cells = []
    for i, source in enumerate(sources):
        if isinstance(source, tuple):
            cell = {"cell_type": "markdown", "metadata": {}, "source": source[1]}
        else:
            cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        cells.append(nbformat.from_dict({"id": f"pad-{i}", **cell}))  # nbformat's random ids collide among thousands
    return cells


def _empty_cells(n):
    return _cells(["" if i % 2 else ("markdown", " \n") for i in range(n)])


def _bytes(nb) -> bytes:
    """The notebook's file, unvalidated (nbformat.writes validates every cell: 4.6 s for 40,000)."""
    return json.dumps(nb).encode()


def test_empty_cells_are_dropped_and_code_cells_are_counted():
    """40,000 empty cells cost a worker 50 s in nbgrader's preprocessors: they are dropped before anything reads
    the notebook, which is then admitted; what is counted is the code cells that are not empty."""
    from autograder.grading.admission import check_notebook, drop_empty_cells

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1,
                                                                     "locked": True, "solution": False,
                                                                     "schema_version": 3}})]
    honest = nbformat.writes(nb).encode()
    assert drop_empty_cells(honest) is honest  # nothing to drop: the bytes nbgrader reads are the submitted ones
    padded = drop_empty_cells(_bytes(_padded(nb, _empty_cells(40_000))))
    kept = json.loads(padded)["cells"]
    assert ["".join(c["source"]) for c in kept] == ["x = 1", ""]  # the blank test cell keeps its place: nbgrader grades it
    assert check_notebook(padded, set(), 2000) is None
    bulk = _bytes(_padded(nb, _cells(["y = 2"] * 2000)))
    reason = check_notebook(drop_empty_cells(bulk), set(), 2000)
    assert reason is not None and "2,001 code cells" in reason and "grading.max_code_cells" in reason
    assert check_notebook(drop_empty_cells(bulk), set(), 2001) is None


def test_the_old_max_cells_key_is_refused_with_its_new_name(tmp_path):
    from autograder.config import CourseConfigError, load_course
    from autograder.grading.minicourse import make_course

    root = make_course(tmp_path / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", "grading:\n  max_cells: 5000\n"))
    with pytest.raises(CourseConfigError, match="max_cells was renamed max_code_cells"):
        load_course(root)
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", "grading:\n  max_code_cells: 5000\n"))
    assert load_course(root).grading.max_code_cells == 5000


def test_an_honest_notebook_padded_with_10000_empty_cells_gets_full_marks(tmp_path):
    """Issue 25: a correct notebook of 01 with 10,000 empty cells was refused above max_cells (2,000): 0 points.
    It is graded in full, as the same notebook without them (bubblewrap, verification on); one with 10,000 code
    cells that are not empty is refused with the reason and a flag naming the limit and the setting."""
    from autograder import demo
    from autograder.sandbox import command
    from tests.sandbox.test_hostile import A01, _solved

    if command._detect() != "bubblewrap":
        pytest.skip("bubblewrap is not installed (.ci/install-system-deps.sh installs it)")
    root = demo.prepare_course(tmp_path / "course")
    api.generate(root, [A01])
    students = {"honest": _solved(A01), "padded": _padded(_solved(A01), _empty_cells(10_000)),
                "bulk": _padded(_solved(A01), _cells(["x = 1"] * 10_000))}
    for sid, nb in students.items():
        path = root / "submitted" / sid / A01 / f"{A01}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_bytes(_bytes(nb))
    summary = api.grade(root, root / "submitted", [A01], workers=2, progress=False)
    assert summary.errors == []
    rows = {r["student_id"]: r for r in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    auto = {sid: [(c["grade_id"], c["score"]) for c in row["cells"] if not c["manual"]] for sid, row in rows.items()}
    assert rows["padded"]["status"] == "graded" and auto["padded"] == auto["honest"]
    assert sum(s for _, s in auto["padded"]) == sum(c["max_score"] for c in rows["honest"]["cells"] if not c["manual"])
    assert rows["padded"]["flags"] == []
    bulk = rows["bulk"]
    assert bulk["status"] == "failed" and "code cells that are not empty" in bulk["reason"]
    assert [(f["kind"], f["rule"]) for f in bulk["flags"]] == [("not graded", "grading.max_code_cells")]
