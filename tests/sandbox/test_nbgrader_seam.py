"""The seam: stock nbgrader autograde gives a hostile submission full marks; verification gives 0 and flags it.

One real ``nbgrader generate_assignment`` + ``autograde`` run (one submission, one kernel) in a
temporary course built from the fixture source notebook, then ``verify_submission`` and
the grading job's ``merge`` (the one tampering rule) on the very bytes nbgrader graded.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.checks import checks_for_assignment
from autograder.grading.verification import merge, normalise
from autograder.sandbox import Limits, verify_submission

from .conftest import ANSWERS, ASSIGNMENT, WRONG_SOFTMAX, fixture_source_notebook, submissions, tasks_passed

SEED = 31337
#: Two patches make the wrong, in-place softmax pass every softmax check in the student's kernel.
HOSTILE = {"softmax": "np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n" + WRONG_SOFTMAX}


def _nbgrader(root: Path, *args: str) -> None:
    env = dict(os.environ, AUTOGRADER_SEED=str(SEED), MPLBACKEND="Agg", PYTHONWARNINGS="ignore",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    cmd = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
           "--CourseDirectory.course_id=sandbox-seam", f"--CourseDirectory.db_url=sqlite:///{root / 'gradebook.db'}",
           "--Execute.timeout=60", "--ExecutePreprocessor.kernel_name=python3"]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")


@pytest.mark.slow
def test_nbgrader_full_marks_verification_zero(tmp_path):
    from nbgrader.api import Gradebook

    source = tmp_path / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(fixture_source_notebook(), str(source))
    _nbgrader(tmp_path, "generate_assignment", ASSIGNMENT, "--force")
    release = submissions.read(tmp_path / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    # "wrong" is the control: the same wrong softmax without the patches. Its 0 shows the stock kernel
    # ran the whole grader's hidden checks (not the student kit's, whose check does nothing), so the
    # hostile submission's full marks come from its patches alone.
    students = {"hostile": submissions.fill(release, {**ANSWERS, **HOSTILE}),
                "wrong": submissions.fill(release, {**ANSWERS, "softmax": WRONG_SOFTMAX})}
    data = {}
    for student, nb in students.items():
        path = tmp_path / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, str(path))
        data[student] = path.read_bytes()
    _nbgrader(tmp_path, "autograde", ASSIGNMENT, "--force", "--create")

    scores = {}
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        for student in students:
            notebook = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            scores[student] = {g.name: (g.score, g.max_score) for g in notebook.grades}

    softmax_ids = {c.grade_id for c in checks_for_assignment(ASSIGNMENT) if c.task == "softmax"}
    assert softmax_ids and all(scores["wrong"][g][0] == 0 for g in softmax_ids), \
        f"the control's in-kernel softmax checks must fail: {scores['wrong']}"
    assert all(s == m for g, (s, m) in scores["wrong"].items() if g not in softmax_ids)
    # every task the registry lists passes verification but softmax, whose every check fails
    expected = {c.task: c.task != "softmax" for c in checks_for_assignment(ASSIGNMENT)}
    results = {student: verify_submission(ASSIGNMENT, data[student], SEED, Limits()) for student in students}
    assert {student: tasks_passed(result) for student, result in results.items()} == dict.fromkeys(students, expected)
    student, result = "hostile", results["hostile"]
    softmax_cells = {g: s for g, s in scores[student].items() if g in softmax_ids}
    assert set(softmax_cells) == softmax_ids and all(s == m for s, m in softmax_cells.values()), \
        f"stock nbgrader should give {student} full marks on softmax: {softmax_cells}"
    cells = [{"grade_id": g, "max_score": float(m), "nbgrader_score": None if s is None else float(s),
              "manual": s is None, "message": None} for g, (s, m) in scores[student].items()]
    rows, flags = merge(cells, *normalise(result))
    # The patched np.allclose also makes some in-kernel checks of other tasks see a catalogued mistake (stock
    # nbgrader's scores there are the attack's side effect); the verified rows decide and give those full marks.
    assert all(r["score"] == r["max_score"] for r in rows if r["grade_id"] not in softmax_cells), rows
    tampering = [f for f in flags if f["kind"] == "possible tampering"]
    # flagged: every cell where the kernel's score and the verified one disagree, softmax's among them
    disagree = {r["grade_id"] for r in rows if r["nbgrader_score"] != r["verified_score"]}
    assert set(softmax_cells) <= disagree and {f["grade_id"] for f in tampering} == disagree
    assert {r["task"] for r in rows if r["grade_id"] in softmax_cells} == {"softmax"}
    assert all(r["score"] == 0.0 for r in rows if r["grade_id"] in softmax_cells)
    assert {f["rule"] for f in result.flags if f["grade_id"] == "softmax"} == {"numpy-patch"}
