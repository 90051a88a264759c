"""Verification against the course's own notebooks.

* The building blocks a notebook imports from ``attention_ref`` are exactly what its checks module
  lists in ``GIVEN``: otherwise the sandbox's restricted reference would break an honest given
  cell, and every task would be verified 0 while nbgrader gives full marks.
* The instructor's answers, filled into the released notebook, verify to full marks.
* A hostile variant of the real 01 notebook verifies to 0 on the attacked task, with a flag.
"""
from __future__ import annotations

import ast

import pytest

from autograder.checks import MODULES, TASKS
from autograder.config import load_course
from autograder.sandbox import Limits, read_cells, verify_submission

from .conftest import ROOT, WRONG_SOFTMAX, submissions, tasks_passed, to_bytes

LIMITS = Limits(cpu_seconds=60, memory_mb=2048, wall_seconds=300, cell_seconds=60)


def _paths(assignment):
    return (ROOT / "solutions" / assignment / f"{assignment}.ipynb",
            ROOT / "assignments" / assignment / f"{assignment}.ipynb")


#: Every assignment of course.yml: a notebook it names that is missing fails here, never drops out.
COURSE = [a.id for a in load_course(ROOT).assignments]
MODULE = {m.ASSIGNMENT: m for m in MODULES}


def _reference_imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "attention_ref":
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("ref", "attention_ref"):
            names.add(node.attr)
    return names


@pytest.mark.parametrize("assignment", COURSE)
def test_notebook_imports_only_its_building_blocks(assignment):
    module = MODULE[assignment]
    source, _ = _paths(module.ASSIGNMENT)
    given = set(getattr(module, "GIVEN", []))
    used = set()
    for cell in read_cells(source.read_bytes()):
        if cell.python is not None:
            used |= _reference_imports(cell.python)
    assert used <= given, (f"{module.ASSIGNMENT} imports {sorted(used - given)} from attention_ref, which its "
                           f"GIVEN does not list: verification would fail an honest notebook")
    assert not given & set(module.TASKS), "a graded name cannot be a building block of the same notebook"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", COURSE)
def test_instructor_answers_verify_to_full_marks(assignment):
    module = MODULE[assignment]
    source, release = _paths(module.ASSIGNMENT)
    nb = submissions.fill(submissions.read(release), submissions.solution_answers(submissions.read(source)))
    result = verify_submission(module.ASSIGNMENT, to_bytes(nb), 2024, LIMITS)
    failed = {g: v.message for g, v in result.verdicts.items() if not v.passed}
    assert not failed, f"cell errors {result.cell_errors}; notes {result.notes}"
    assert result.flags == [] and result.cell_errors == {}


@pytest.mark.slow
def test_hostile_variant_of_the_course_notebook():
    assignment = "01_scores_softmax"
    source, release = _paths(assignment)
    answers = submissions.solution_answers(submissions.read(source))
    answers["softmax"] = "np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n" + WRONG_SOFTMAX
    nb = submissions.fill(submissions.read(release), answers)
    result = verify_submission(assignment, to_bytes(nb), 2024, LIMITS)
    assert tasks_passed(result) == {task: task != "softmax" for task in TASKS[assignment]}  # every task of 01
    assert {f["rule"] for f in result.flags} == {"numpy-patch"}
