"""Structure of the notebooks 01-03: cells, nbgrader metadata, points, the given cell, no leaks.

Extend ``ASSIGNMENTS`` (and ``POINTS``) to cover another notebook written to the same conventions.
"""
from __future__ import annotations

import ast
import json
import re

import nbformat
import pytest

from autograder.checks import MODULES, TASKS, checks_for_assignment
from autograder.inprocess import execute_answers
from autograder.notebook import Grader, render

ASSIGNMENTS = ["01_scores_softmax", "02_scaling", "03_masking"]
# docs/NOTEBOOK_CONVENTIONS.md: (total points, of which manually graded)
POINTS = {"01_scores_softmax": (20, 0), "02_scaling": (25, 3), "03_masking": (20, 0)}
MODULE = {m.ASSIGNMENT: m for m in MODULES}

# A test cell as `autograder generate` builds it from its source (autograder/notebook/sources.py).
HIDDEN_CELL = re.compile(r'\A# Test: (?P<task>\w+), .+ \((?P<points>\d+) points?\)\n# The visible line .+\n'
                         r'grader\.validate\("(?P<visible>\w+)"\)\n### BEGIN HIDDEN TESTS\n'
                         r'check\("(?P<grade_id>\w+)", globals\(\)\)\n### END HIDDEN TESTS\Z')
REGION = re.compile(r"^[ \t]*### BEGIN (SOLUTION|HIDDEN TESTS)[^\n]*\n(.*?)^[ \t]*### END \1", re.S | re.M)

pytestmark = pytest.mark.parametrize("assignment", ASSIGNMENTS)


def _code(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


def test_source_has_no_outputs(course, assignment):
    nb = course.source(assignment)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_release_is_untouched_and_valid(course, assignment):
    nb = course.release(assignment)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def test_cells_follow_the_conventions(course, assignment):
    nb = course.source(assignment)
    module = MODULE[assignment]
    checks = {c.grade_id: c for c in checks_for_assignment(assignment)}
    solution_ids, test_ids = [], []
    for i, cell in enumerate(nb.cells):
        meta = course.meta(cell)
        if not meta:
            continue
        assert meta["schema_version"] == 3
        grade_id = meta["grade_id"]
        if course.is_test_cell(cell):
            match = HIDDEN_CELL.match(cell.source)
            assert match, f"test cell {grade_id} does not follow the template:\n{cell.source}"
            assert match["grade_id"] == match["visible"] == grade_id, "the cell must call the check it is named after"
            assert grade_id in checks, f"test cell {grade_id} names no check of {assignment}"
            check = checks[grade_id]
            assert grade_id.startswith(check.task) and match["task"] == check.task
            assert meta["locked"] and meta["points"] == int(match["points"]) and meta["points"] > 0
            test_ids.append(grade_id)
        elif meta.get("solution") and cell.cell_type == "code":
            assert not meta["grade"] and not meta["locked"]
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
            assert grade_id in module.TASKS
            nxt = nb.cells[i + 1]
            assert nxt.cell_type == "code" and not course.meta(nxt) and nxt.source == f'grader.check("{grade_id}")'
            solution_ids.append(grade_id)
        elif meta.get("solution"):  # a manually graded written answer
            assert cell.cell_type == "markdown" and meta["grade"] and meta["points"] > 0
            assert grade_id not in checks and grade_id not in module.TASKS
        else:
            assert grade_id == "given" and meta["locked"]
    assert solution_ids == list(module.TASKS), "one solution cell per task, in the order of TASKS"
    assert sorted(test_ids) == sorted(checks), "every check is graded by exactly one cell"
    assert len(test_ids) == len(set(test_ids))
    assert nb.cells[-1].source == "grader.summary()"


def test_points_add_up(course, assignment):
    total, manual = POINTS[assignment]
    cells = [course.meta(c) for c in course.source(assignment).cells if course.meta(c).get("grade")]
    assert sum(m["points"] for m in cells) == total
    assert sum(m["points"] for m in cells if m.get("solution")) == manual
    assert all(isinstance(m["points"], int) and 0 < m["points"] <= 3 for m in cells), "points are small integers"


def test_given_cell_imports_exactly_given(course, assignment):
    nb = course.source(assignment)
    module = MODULE[assignment]
    given = [c for c in nb.cells if course.meta(c).get("grade_id") == "given"]
    assert len(given) == 1 and nb.cells.index(given[0]) == 1
    expected = ["%matplotlib inline", "import math", "import numpy as np", "import matplotlib.pyplot as plt"]
    if module.GIVEN:
        expected.append(f"from attention_ref import {', '.join(module.GIVEN)}")
    expected += ["from autograder.hidden import check", "from autograder.notebook import Grader",
                 f'grader = Grader("{assignment}", globals())']
    assert given[0].source == "\n".join(expected)
    assert not set(module.GIVEN) & set(module.TASKS), "a notebook never imports the reference of a name it grades"
    # no other cell reaches into attention_ref
    for cell in nb.cells:
        if cell.cell_type != "code" or cell is given[0]:
            continue
        for node in ast.walk(ast.parse(_code(cell.source))):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "attention_ref", cell.source[:80]
            if isinstance(node, ast.Import):
                assert all(not a.name.startswith("attention_ref") for a in node.names), cell.source[:80]
            if isinstance(node, ast.Name):
                assert node.id != "attention_ref"


def _strings(obj):
    """Every string in a JSON document (cells, metadata, outputs), decoded."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def test_no_solution_or_hidden_test_in_release(course, assignment):
    source = course.source(assignment)
    secret, public = set(), []
    for cell in source.cells:
        meta = course.meta(cell)
        if cell.cell_type == "markdown" and meta.get("solution"):
            secret.update(line.strip() for line in cell.source.splitlines())
            continue
        for match in REGION.finditer(cell.source):
            secret.update(line.strip() for line in match.group(2).splitlines())
        public.append(REGION.sub("", cell.source))
    public_text = "\n".join(public)
    # lines that only the solutions and hidden tests contain (a line such as `return out` may be prose too)
    secret = {line for line in secret if len(line) >= 12 and line not in public_text}
    assert secret, "nothing to look for: the regex missed the regions"
    with open(course.release_path(assignment), encoding="utf-8") as f:
        text = "\n".join(_strings(json.load(f)))
    leaks = sorted(line for line in secret if line in text)
    assert not leaks, f"{len(leaks)} solution/hidden lines in the student version, e.g. {leaks[:3]}"
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text


def test_hidden_test_cells_are_stripped_in_release(course, assignment):
    release = course.release(assignment)
    cells = [c for c in release.cells if course.is_test_cell(c) and c.cell_type == "code"]
    assert len(cells) == len(checks_for_assignment(assignment))
    for cell in cells:
        assert "check(" not in cell.source
        assert cell.source.startswith("# Test: ")
        assert cell.source.endswith(f'grader.validate("{course.meta(cell)["grade_id"]}")')


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 20_241_105])
def test_solution_passes_every_check_for_any_seed(course, assignment, seed):
    failed = course.failed(course.solved(assignment), assignment, seed=seed)
    assert not failed, {g: v.message for g, v in failed.items()}


def test_untouched_release_fails_every_check_politely(course, assignment):
    verdicts = course.grade(course.release(assignment), assignment, fast=True)
    assert verdicts and not any(v.passed for v in verdicts)
    assert {v.misconception for v in verdicts} <= {"not_implemented", "not_defined"}


def test_visible_checks(course, assignment):
    """The visible checks pass on the solution, say 'not done' on the stubs, and every task has one."""
    solved_ns, errors = execute_answers(course.answers_only(course.solved(assignment)))
    assert not errors
    blank_ns, _ = execute_answers(course.answers_only(course.release(assignment)))
    for task in TASKS[assignment]:
        verdicts = Grader(assignment, solved_ns).verdicts(task)
        assert verdicts, f"{task} has no visible check"
        assert all(v.passed for v in verdicts), {v.grade_id: v.message for v in verdicts if not v.passed}
        blank = Grader(assignment, blank_ns).verdicts(task)
        assert not any(v.passed for v in blank)
        text = render(task, blank)
        assert "not done yet" in text or "is not defined" in text


def test_only_stop_and_try_values_are_hidden_from_the_visible_checks(assignment):
    for check in checks_for_assignment(assignment):
        if not check.public:
            assert check.task.startswith("STOP_AND_TRY_"), check.grade_id


def test_full_notebook_runs_clean(course, assignment):
    """Run All on the solved notebook (plots, examples, visible checks included): no cell raises."""
    _, errors = execute_answers(course.solved(assignment))
    assert not errors
    import matplotlib.pyplot as plt

    plt.close("all")
    release = course.release(assignment)
    _, errors = execute_answers(release)
    assert all("NotImplementedError" in e for e in errors), errors
    for error in errors:  # JupyterLab's Run All stops at an error unless the cell is tagged raises-exception
        cell = release.cells[int(error.split(":")[0].split()[1])]
        assert "raises-exception" in cell.metadata.get("tags", []), cell.source[:80]
    assert plt.get_fignums() == [], "a plot cell draws an empty figure before its answer is done"
