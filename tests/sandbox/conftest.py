"""Submissions of 01_scores_softmax for the sandbox tests.

``base_notebook`` is the released course notebook with the instructor's answers filled in
(``solutions/`` and ``assignments/`` via :mod:`autograder.submissions`) when both exist, and
otherwise a small fixture notebook with the same structure: a given cell, one solution cell per
graded name (nbgrader ``grade_id`` = the name), visible checks and hidden test cells.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder import submissions
from autograder.checks import checks_for_assignment
from autograder.sandbox import cgroup

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "01_scores_softmax"
SOURCE = ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
RELEASE = ROOT / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
SEED = 4242

ANSWERS = {
    "dot_product": "def dot_product(q, k):\n    return float(np.sum(np.asarray(q) * np.asarray(k)))",
    "attention_scores": "def attention_scores(Q, K):\n    return np.asarray(Q) @ np.swapaxes(np.asarray(K), -1, -2)",
    "softmax": ("def softmax(x, axis=-1):\n    x = np.asarray(x)\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
                "    return e / e.sum(axis=axis, keepdims=True)"),
    "weighted_average": "def weighted_average(weights, V):\n    return np.asarray(weights) @ np.asarray(V)",
}
# The answer-key constants of 01 (its "Check your understanding" letters) as the instructor wrote them.
ANSWERS.update({task: answer for task, answer in submissions.solution_answers(submissions.read(SOURCE)).items()
                if task.isupper()})
#: A wrong softmax that fails every check of softmax: divides by the largest exponential instead of
#: the row's total (positive, finite, the right shape: only value comparisons catch it) and works
#: in place (only the mutation check catches that).
WRONG_SOFTMAX = ("def softmax(x, axis=-1):\n    x -= x.max()\n    np.exp(x, out=x)\n    x /= x.max()\n"
                 "    return x")


def server_modes(servers):
    """A ``server_mode`` fixture for the warm sandboxes held by ``servers`` (the kernels' or the runners'): each
    test runs on both hosts, with the run's control group and without one (the grader's sweep alone), on a
    sandbox started for it and discarded after it."""
    @pytest.fixture(params=["control groups", "no control group"])
    def server_mode(request, monkeypatch):
        if request.param == "no control group":
            monkeypatch.setattr(cgroup, "_layout", lambda: {})
        elif not cgroup.available():
            pytest.skip("no writable control group here")
        servers.discard()
        yield request.param
        servers.discard()
    return server_mode


def _meta(grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def fixture_source_notebook():
    """An nbgrader source notebook of 01 built from the real checks (used when the course's is missing)."""
    nb = new_notebook(metadata={"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                "language_info": {"name": "python"}})
    nb.cells.append(new_code_cell(
        "import numpy as np\nfrom autograder.hidden import check\nfrom autograder.notebook import Grader\n"
        f"grader = Grader({ASSIGNMENT!r}, globals())", metadata=_meta("given", locked=True)))
    # The course notebook's locked numbers cells (the student's own option order): its answers read them.
    for cell in submissions.read(SOURCE).cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type == "code" and grade_id.endswith("_numbers"):
            nb.cells.append(new_code_cell(cell.source, metadata=_meta(grade_id, locked=True)))
    checks = checks_for_assignment(ASSIGNMENT)
    for task, answer in ANSWERS.items():
        nb.cells.append(new_markdown_cell(f"Write `{task}`."))
        header, _, body = answer.partition("\n")
        # a function's body is the solution; an answer-key constant (CONCEPTS_01) is one as a whole
        solution = (f"{header}\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION" if header.startswith("def ")
                    else f"### BEGIN SOLUTION\n{answer.rstrip()}\n### END SOLUTION")
        nb.cells.append(new_code_cell(solution, metadata=_meta(task, solution=True)))
        nb.cells.append(new_code_cell(f'grader.check("{task}")'))
        for check in (c for c in checks if c.task == task):
            nb.cells.append(new_code_cell(
                f'### BEGIN HIDDEN TESTS\ncheck("{check.grade_id}", globals())\n### END HIDDEN TESTS',
                metadata=_meta(check.grade_id, grade=True, locked=True, points=1)))
    nb.cells.append(new_code_cell("grader.summary()"))
    return nb


def released(source_nb):
    """What ``nbgrader generate_assignment`` makes of a source notebook (enough for these tests)."""
    nb = copy.deepcopy(source_nb)
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            head, _, solution = cell.source.partition("### BEGIN SOLUTION")
            indent = head[len(head.rstrip(" ")):]  # the BEGIN line's own indentation, as nbgrader keeps it
            cell.source = head + "# YOUR CODE HERE\n" + indent + "raise NotImplementedError()"
        elif meta.get("grade"):
            cell.source = ""
    return nb


def course_notebooks_exist() -> bool:
    return SOURCE.exists() and RELEASE.exists()


def base_notebook():
    """The released notebook of 01 with every answer filled in (course notebook if there is one)."""
    if course_notebooks_exist():
        return submissions.fill(submissions.read(RELEASE), submissions.solution_answers(submissions.read(SOURCE)))
    return submissions.fill(released(fixture_source_notebook()), ANSWERS)


def with_answers(nb, answers: dict[str, str]):
    return submissions.fill(nb, answers)


def to_bytes(nb) -> bytes:
    return nbformat.writes(nb).encode()


def task_results(result, task: str) -> list[bool]:
    return [v.passed for v in result.verdicts.values() if v.task == task]


def tasks_passed(result) -> dict[str, bool | None]:
    """task -> True (every check passed), False (every check failed: score 0) or None (some of each)."""
    out: dict[str, set] = {}
    for v in result.verdicts.values():
        out.setdefault(v.task, set()).add(v.passed)
    return {task: seen.pop() if len(seen) == 1 else None for task, seen in out.items()}


@pytest.fixture(scope="session")
def base():
    return base_notebook()


def strip_nbgrader(nb):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return nb


def drop_cells(nb, predicate):
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if not predicate(c)]
    return nb


def is_test(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def notebook_json(nb) -> dict:
    return json.loads(nbformat.writes(nb))


def named_flags(row) -> list[dict]:
    """A row's flags that name their rule (kind, rule and evidence all given): what explains a score."""
    flags = row["flags"] if isinstance(row, dict) else row.flags
    return [f for f in flags or [] if f.get("kind") and f.get("rule") and f.get("evidence")]


def unflagged(rows: dict, cases) -> list:
    """The hostile cases among ``cases`` whose row carries no named flag (issue 25: this must be empty)."""
    return sorted(case for case in cases if not named_flags(rows[case]))


def flag_kinds(row) -> set[tuple[str, str]]:
    """``{(kind, rule)}`` of a row's named flags."""
    return {(f["kind"], f["rule"]) for f in named_flags(row)}
