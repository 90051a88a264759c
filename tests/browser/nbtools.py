"""Notebook helpers for the browser tests: find the course notebooks, fill in a released
notebook with the solutions, and read the visible checks' verdicts out of cell text."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-output" / "screenshots"
PYTHON3 = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
NBGRADER_CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", re.M)
_CHECK_CALL = re.compile(r"""grader\.check\(\s*["']([A-Za-z0-9_]+)["']\s*\)""")
_PLOT_CALL = re.compile(r"\bplt\.(show|subplots?|figure|plot|imshow)\b|\.(imshow|plot|matshow)\(")


def notebook_path(kind: str, assignment: str) -> Path:
    """``solutions/<a>/<a>.ipynb`` or ``assignments/<a>/<a>.ipynb``."""
    return REPO / kind / assignment / f"{assignment}.ipynb"


def assignments_in(kind: str) -> list[str]:
    """The assignments that have their notebook in ``kind`` (``solutions`` or ``assignments``).

    >>> all(notebook_path("solutions", a).exists() for a in assignments_in("solutions"))
    True
    """
    return sorted(p.parent.name for p in (REPO / kind).glob("*/*.ipynb")
                  if p.stem == p.parent.name)


def nbgrader_meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None):
    """nbgrader cell metadata (schema 3).

    >>> nbgrader_meta("x", grade=True, points=2)["points"]
    2
    """
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked,
            "schema_version": 3}
    if points is not None:
        meta["points"] = points
    return meta


def strip_solution_markers(source: str) -> str:
    """Drop nbgrader's ``### BEGIN/END SOLUTION`` lines, as a student's answer would read.

    >>> strip_solution_markers("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION")
    'def f():\\n    return 1\\n'
    """
    return _MARKER.sub("", source)


def _grade_id(cell) -> str | None:
    nbg = cell.get("metadata", {}).get("nbgrader", {})
    return nbg.get("grade_id") if nbg.get("solution") else None


def completed_notebook(assignment: str):
    """The released notebook with every solution cell answered from ``solutions/``.

    If the released notebook does not exist yet, the solution notebook itself (its markers are
    comments, its hidden tests plain code).
    """
    sol = nbformat.read(notebook_path("solutions", assignment), as_version=4)
    answers = {_grade_id(c): c.source for c in sol.cells if _grade_id(c)}
    released = notebook_path("assignments", assignment)
    if not released.exists():
        nb = sol
    else:
        nb = nbformat.read(released, as_version=4)
        for cell in nb.cells:
            gid = _grade_id(cell)
            if gid is not None:
                assert gid in answers, f"{assignment}: released solution cell {gid!r} not in solutions/"
                cell.source = answers[gid]
    for cell in nb.cells:
        if _grade_id(cell):
            cell.source = strip_solution_markers(cell.source)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def stage(assignment: str, kind: str, dest_root: Path, nb) -> str:
    """Copy ``<kind>/<assignment>/`` (data files and all) to ``dest_root/<tag>/<assignment>/``,
    write ``nb`` there, and return the notebook's path relative to ``dest_root``."""
    tag = {"solutions": "completed", "assignments": "untouched"}[kind]
    src = REPO / kind / assignment
    if not src.exists():
        src = REPO / "solutions" / assignment
    dest = dest_root / tag / assignment
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    nbformat.write(nb, dest / f"{assignment}.ipynb")
    return f"{tag}/{assignment}/{assignment}.ipynb"


def checked_task(source: str) -> str | None:
    """The task a visible check cell checks.

    >>> checked_task('grader.check("softmax")')
    'softmax'
    """
    m = _CHECK_CALL.search(source)
    return m.group(1) if m else None


def is_summary(source: str) -> bool:
    return "grader.summary()" in source


def draws_plot(source: str) -> bool:
    """Whether a code cell draws a figure (and so must show an image once answered).

    >>> draws_plot("fig, ax = plt.subplots()"), draws_plot("import matplotlib.pyplot as plt")
    (True, False)
    """
    return bool(_PLOT_CALL.search(source))


def is_solution(cell) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def run_checks_summary(text: str) -> dict[str, str]:
    """Task -> status from the text ``grader.summary()`` prints (rows ``task  n/m  status``).

    >>> run_checks_summary("task  checks  status\\nsoftmax     3/3  ✔ done\\nscores  0/2  ✘ not started")
    {'softmax': '✔ done', 'scores': '✘ not started'}
    """
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)/(\d+)\s+(\S.*?)\s*$", line)
        if m:
            rows[m.group(1)] = m.group(4)
    return rows
