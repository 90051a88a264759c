"""autograder check NOTEBOOK: self-study grading on the spot (a child process per run)."""
from __future__ import annotations

import io
from pathlib import Path

import nbformat
import pytest

from autograder import cli, selfcheck
from autograder.checks import TASKS
from autograder.config import load_course
from autograder.submissions import fill, solution_answers

from .conftest import course_notebook, tiny_notebook

SOFTMAX = ("def softmax(x, axis=-1):\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
           "    return e / e.sum(axis=axis, keepdims=True)")
DOT = "def dot_product(q, k):\n    return float(np.dot(q, k))"
# 01's tasks and points, from the registry and course.yml (01 has no hand-graded answer)
N_TASKS = len(TASKS["01_scores_softmax"])
# the auto-graded points: course.yml's total less the written answer's, which a person grades
POINTS = int(load_course(Path(__file__).resolve().parents[2]).assignment("01_scores_softmax").points) - 1


def _run(path, *args):
    out = io.StringIO()
    code = selfcheck.selfcheck(path, *args, out=out)
    return code, out.getvalue()


def test_complete_notebook_passes(tmp_path):
    source, release = course_notebook("solutions"), course_notebook("assignments")
    path = tmp_path / "my_work.ipynb"  # a name that says nothing: the Grader line tells the assignment
    nbformat.write(fill(release, solution_answers(source)), str(path))
    code, out = _run(path)
    assert code == 0, out
    assert "assignment 01_scores_softmax" in out
    assert f"{N_TASKS} of {N_TASKS} tasks pass all their checks; {POINTS}/{POINTS} auto-graded points" in out
    assert "fail" not in out


def test_blank_release_fails_with_not_started(tmp_path):
    release = course_notebook("assignments")
    path = tmp_path / "01_scores_softmax.ipynb"
    nbformat.write(release, str(path))
    code, out = _run(path)
    assert code == 1
    rows = [line for line in out.splitlines() if "fail" in line]
    assert len(rows) == N_TASKS and all("not started" in r or "not defined" in r for r in rows)  # a constant: not defined
    assert f"0/{POINTS} auto-graded points" in out


def test_table_messages_and_points(tmp_path):
    wrong = "def softmax(x, axis=-1):\n    e = np.exp(x)\n    return e / e.sum(axis=0, keepdims=True)"
    path = tmp_path / "nb.ipynb"
    nbformat.write(tiny_notebook({"dot_product": DOT, "softmax": wrong}, points=2), str(path))
    code, out = _run(path)
    assert code == 1
    dot_row = next(line for line in out.splitlines() if line.startswith("dot_product"))
    assert "2/2" in dot_row and "4/4" in dot_row and "pass" in dot_row  # 2 checks x 2 points
    soft_row = next(line for line in out.splitlines() if line.startswith("softmax"))
    assert "fail" in soft_row and "wrong axis" in soft_row
    assert "What to fix:" in out and "likely misconception: softmax normalised along the wrong axis" in out
    assert "expected" not in out.lower() or "array(" not in out  # no expected arrays


def test_endless_loop_is_stopped(tmp_path):
    path = tmp_path / "loop.ipynb"
    nbformat.write(tiny_notebook({"dot_product": "while True:\n    pass", "softmax": SOFTMAX}), str(path))
    code, out = _run(path, None, 3)
    assert code == 1 and "stopped after 3 s" in out


def test_assignment_from_option_and_file_name(tmp_path):
    nb = tiny_notebook({"dot_product": DOT})
    nb.cells[1].source = "import numpy as np"  # no Grader line
    path = tmp_path / "01_scores_softmax-mine.ipynb"
    nbformat.write(nb, str(path))
    assert selfcheck.detect_assignment(selfcheck.load_notebook(path), path) == "01_scores_softmax"
    other = tmp_path / "homework.ipynb"
    nbformat.write(nb, str(other))
    with pytest.raises(selfcheck.SelfCheckError, match="--assignment"):
        selfcheck.detect_assignment(selfcheck.load_notebook(other), other)
    result = selfcheck.grade_file(other, "01_scores_softmax", timeout=60)
    assert result.assignment == "01_scores_softmax"
    assert [t.task for t in result.tasks if t.ok] == ["dot_product"]


def test_unreadable_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    assert cli.main(["check", str(bad)]) == 2
    assert "not a readable notebook" in capsys.readouterr().err
    assert cli.main(["check", str(tmp_path / "missing.ipynb")]) == 2
    assert cli.main(["check", str(bad), "--assignment", "99_nope"]) == 2


def test_self_study_with_variants_grades_each_student_on_numbers_derived_with_the_public_secret(tmp_path, monkeypatch):
    """Issue 22 in self-study: ``grader.numbers`` derives the student's numbers with the public secret and says
    so, and ``autograder check`` judges the notebook on those: the released solution's answers (computed from
    them) pass, the lesson's worked example typed in does not."""
    from autograder import variants
    from autograder.checks.items import ITEM, LESSON
    from autograder.notebook import own_items

    root = Path(__file__).resolve().parents[2]
    text = (root / "course.yml").read_text().replace("\nmode: classroom\n", "\nmode: self-study\n")
    (tmp_path / "course.yml").write_text(text + "variants:\n  secret_env: UNUSED_IN_SELF_STUDY\n")
    monkeypatch.setenv("JUPYTERHUB_USER", "bob")
    items, whose = own_items([ITEM], cwd=tmp_path)
    bob = variants.student_items(variants.PUBLIC_SECRET, "attention-arithmetic", "bob", [ITEM])[ITEM]
    assert items == {ITEM: bob} and bob != LESSON[ITEM]
    assert "student bob, from JUPYTERHUB_USER" in whose and "public secret" in whose
    assert own_items([ITEM], cwd=root)[0] == {ITEM: LESSON[ITEM]}  # this course: no variants, the lesson's

    # one run: the released solution (the rest computed from grader.numbers) with the lesson's scores typed in
    solved = course_notebook("solutions", "02_scaling")
    typed = {"STOP_AND_TRY_SCORES": f"STOP_AND_TRY_SCORES = {LESSON[ITEM].scores().tolist()!r}"}
    nbformat.write(fill(course_notebook("assignments", "02_scaling"), {**solution_answers(solved), **typed}),
                   tmp_path / "nb.ipynb")
    tasks = {t.task: t.ok for t in selfcheck.grade_file(tmp_path / "nb.ipynb").tasks}
    assert tasks == {**{task: True for task in TASKS["02_scaling"]}, "STOP_AND_TRY_SCORES": False}
