"""Fixtures of the grading tests: a tiny nbgrader course (autograder.grading.minicourse) and its
class, graded once per session by serial stock ``nbgrader autograde`` for comparison.

Kernel runs cost one to three seconds each on two shared cores, so the class is small
(the four kinds of answer once each) and every expensive run is session-scoped.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT, make_class, make_course

BIN = str(Path(sys.executable).parent)
ENV = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
N_STUDENTS = 4


def copy_course(src: Path, dst: Path) -> Path:
    """A copy of a course directory (with its gradebook and submissions)."""
    shutil.copytree(src, dst)
    return dst


def grades(course_dir: Path) -> dict:
    """{(student, grade_id): (auto_score, needs_manual_grade)} read straight from gradebook.db."""
    con = sqlite3.connect(course_dir / "gradebook.db")
    rows = con.execute("""
        SELECT sa.student_id, bc.name, g.auto_score, g.needs_manual_grade
        FROM grade g JOIN base_cell bc ON g.cell_id = bc.id
        JOIN submitted_notebook sn ON g.notebook_id = sn.id
        JOIN submitted_assignment sa ON sn.assignment_id = sa.id""").fetchall()
    con.close()
    return {(s, g): (a, bool(m)) for s, g, a, m in rows}


def comments(course_dir: Path) -> dict:
    """{(student, grade_id): auto_comment} from gradebook.db."""
    con = sqlite3.connect(course_dir / "gradebook.db")
    rows = con.execute("""
        SELECT sa.student_id, bc.name, c.auto_comment
        FROM comment c JOIN base_cell bc ON c.cell_id = bc.id
        JOIN submitted_notebook sn ON c.notebook_id = sn.id
        JOIN submitted_assignment sa ON sn.assignment_id = sa.id""").fetchall()
    con.close()
    return {(s, g): c for s, g, c in rows}


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory) -> Path:
    """The mini course after ``autograder generate``, with a class of four honest submissions."""
    root = make_course(tmp_path_factory.mktemp("mini") / "course")
    api.generate(root)
    make_class(root, N_STUDENTS)
    return root


@pytest.fixture(scope="session")
def stock_graded(generated_course, tmp_path_factory) -> Path:
    """A copy of the course graded by serial stock ``nbgrader autograde`` (the reference)."""
    root = copy_course(generated_course, tmp_path_factory.mktemp("stock") / "course")
    proc = subprocess.run([os.path.join(BIN, "nbgrader"), "autograde", ASSIGNMENT], cwd=root, env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root


@pytest.fixture(scope="session")
def parallel_graded(generated_course, tmp_path_factory):
    """A copy of the course (plus two broken files) graded by ``api.grade`` with 2 workers."""
    root = copy_course(generated_course, tmp_path_factory.mktemp("parallel") / "course")
    for sid, data in {"z_text": b"just some text", "z_stripped": None}.items():
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        if data is None:  # the complete answer with every nbgrader metadata removed
            import json
            nb = json.loads((root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
            for cell in nb["cells"]:
                cell["metadata"].pop("nbgrader", None)
            data = json.dumps(nb).encode()
        path.write_bytes(data)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    return root, summary
