"""Fixtures of the view tests (report, feedback, self-check, synthetic class, demo)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def course_notebook(kind: str, assignment: str = "01_scores_softmax"):
    """A course notebook (``solutions`` or ``assignments``) as nbformat."""
    import nbformat
    path = ROOT / kind / assignment / f"{assignment}.ipynb"
    return nbformat.read(str(path), as_version=4)


@pytest.fixture
def results_small() -> dict:
    """A hand-written results.json: 5 students, 2 assignments, misconceptions, flags, a failure."""
    return json.loads((FIXTURES / "results_small.json").read_text())


@pytest.fixture
def results_path() -> Path:
    return FIXTURES / "results_small.json"


def _meta(grade_id, **kw):
    meta = {"grade": False, "grade_id": grade_id, "locked": False, "schema_version": 3, "solution": False, "task": False}
    meta.update(kw)
    return {"nbgrader": meta}


GIVEN = ("%matplotlib inline\nimport numpy as np\nfrom autograder.hidden import check\n"
         "from autograder.notebook import Grader\ngrader = Grader(\"{assignment}\", globals())")


def tiny_notebook(answers: dict[str, str], assignment: str = "01_scores_softmax", points: int = 1,
                  hidden: bool = True):
    """A hand-made notebook of ``assignment``: given cell, one solution cell per entry of
    ``answers`` and one hidden test cell per check of that task (``points`` each)."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from autograder.checks import checks_for_assignment
    cells = [new_markdown_cell("# A tiny notebook"),
             new_code_cell(GIVEN.format(assignment=assignment), metadata=_meta("given", locked=True))]
    for task, src in answers.items():
        cells.append(new_code_cell(src, metadata=_meta(task, solution=True)))
        if hidden:
            for c in checks_for_assignment(assignment):
                if c.task == task:
                    cells.append(new_code_cell(f'### BEGIN HIDDEN TESTS\ncheck("{c.grade_id}", globals())\n### END HIDDEN TESTS',
                                               metadata=_meta(c.grade_id, grade=True, locked=True, points=points)))
    return new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})


@pytest.fixture
def make_notebook():
    return tiny_notebook
