"""A tiny, self-contained nbgrader course for the grading tests and benchmark.

It does not depend on the real course notebooks: one assignment ``ps1`` whose notebook asks for
``square(x)`` (a given cell importing numpy, a solution cell, two graded test cells with plain
asserts, a manually graded answer cell), and a class of submissions of four kinds.
"""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ASSIGNMENT = "ps1"
COURSE_YML = f"""\
course_id: mini
title: A tiny course for tests
assignments:
  - id: {ASSIGNMENT}
    title: Squares
    notebooks: [{ASSIGNMENT}]
    points: 4
grading:
  cell_timeout: 20
"""

SOLUTION = "def square(x):\n    ### BEGIN SOLUTION\n    return x * x\n    ### END SOLUTION"
#: What each kind of student writes in the solution cell.
ANSWERS = {
    "complete": "def square(x):\n    return x * x",
    "einsum": "def square(x):\n    return np.multiply(x, x)",
    "wrong": "def square(x):\n    return x + x",  # right only for 2, so one test passes
    "blank": "# YOUR CODE HERE\nraise NotImplementedError()",
}


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None, task=False) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": task}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def source_notebook() -> nbformat.NotebookNode:
    """Return the nbgrader source notebook of ``ps1`` (3 auto-graded points, 1 manual, a plot)."""
    nb = new_notebook(metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    nb.cells = [
        new_code_cell("import os\nimport numpy as np\nSEED = os.environ.get('AUTOGRADER_SEED')",
                      metadata=_meta("given", locked=True)),
        new_code_cell(SOLUTION, metadata=_meta("square", solution=True)),
        new_code_cell("assert square(2) == 4", metadata=_meta("square_two", grade=True, locked=True, points=1)),
        new_code_cell("assert square(3) == 9\n### BEGIN HIDDEN TESTS\nassert square(-1.5) == 2.25\n"
                      "### END HIDDEN TESTS", metadata=_meta("square_hidden", grade=True, locked=True, points=2)),
        new_markdown_cell("Why? YOUR ANSWER HERE",
                          metadata=_meta("why", grade=True, solution=True, points=1)),
        # A plot (no %matplotlib magic): forked kernels must show it exactly as spawned ones do.
        new_code_cell("import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"),
    ]
    return nb


def make_course(root: str | Path) -> Path:
    """Write ``course.yml``, ``nbgrader_config.py`` and the source notebook under ``root``."""
    root = Path(root)
    (root / "solutions" / ASSIGNMENT).mkdir(parents=True, exist_ok=True)
    (root / "course.yml").write_text(COURSE_YML)
    repo_config = Path(__file__).resolve().parents[2] / "nbgrader_config.py"
    (root / "nbgrader_config.py").write_text(repo_config.read_text())
    nbformat.write(source_notebook(), root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return root


def student_notebook(released: nbformat.NotebookNode, kind: str) -> nbformat.NotebookNode:
    """Fill the released notebook the way a student of ``kind`` (a key of ANSWERS) would."""
    nb = nbformat.from_dict(json.loads(nbformat.writes(released)))
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "square":
            cell.source = ANSWERS[kind]
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "why":
            cell.source = "Because." if kind != "blank" else cell.source
    return nb


def make_class(root: str | Path, n: int, submitted: str = "submitted") -> list[str]:
    """Write ``n`` submissions (kinds in turn) into ``root/<submitted>/<student>/ps1/ps1.ipynb``.

    The course must have been generated (``assignments/ps1/ps1.ipynb`` exists). Returns the ids.
    """
    root = Path(root)
    released = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    kinds = list(ANSWERS)
    ids = []
    for i in range(n):
        sid = f"s{i:02d}"
        out = root / submitted / sid / ASSIGNMENT
        out.mkdir(parents=True, exist_ok=True)
        nbformat.write(student_notebook(released, kinds[i % len(kinds)]), out / f"{ASSIGNMENT}.ipynb")
        ids.append(sid)
    return ids
