"""Structure of every notebook course.yml lists: cells, nbgrader metadata, points, the given cell,
rubrics, no leaks, the solution and the untouched stubs (docs/NOTEBOOK_CONVENTIONS.md).

One set of rules for every notebook, driven by the registry: a new notebook (07) is tested here by
adding its files and its course.yml entry, never by editing this module. Points come from course.yml.
"""
from __future__ import annotations

import ast
import json
import re

import nbformat
import pytest

from autograder.checks import GENERIC_MISCONCEPTIONS, MODULES, TASKS, checks_for_assignment
from autograder.config import load_course
from autograder.inprocess import execute_answers
from autograder.notebook import Grader, render
from autograder.variants import items_of

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COURSE = load_course(ROOT)
ASSIGNMENTS = [a.id for a in COURSE.assignments]
MODULE = {m.ASSIGNMENT: m for m in MODULES}
GIVEN_META = {"grade": False, "grade_id": "given", "locked": True, "schema_version": 3, "solution": False,
              "task": False}
#: A rubric criterion: "* **2 points: what earns them.**" (docs/NOTEBOOK_CONVENTIONS.md).
CRITERION = re.compile(r"^\* \*\*(\d+) points?\b", re.M)
TITLE = re.compile(r"\A# (\d\d) · \S")

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


def test_title_names_the_notebook(course, assignment):
    title = course.source(assignment).cells[0]
    match = TITLE.match(title.source)
    assert title.cell_type == "markdown" and match, f"the title must read '# NN · Title': {title.source[:60]!r}"
    assert assignment.startswith(match.group(1))


def test_cells_follow_the_conventions(course, assignment):
    nb = course.source(assignment)
    module = MODULE[assignment]
    checks = {c.grade_id: c for c in checks_for_assignment(assignment)}
    solution_ids, test_ids, numbers_ids = [], [], []
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
        elif grade_id.endswith("_numbers"):  # a per-student item's numbers (issue 22): locked, given
            item = f"{assignment}/{grade_id[:-len('_numbers')]}"
            assert meta == dict(GIVEN_META, grade_id=grade_id) and item in items_of(assignment)
            assert re.search(rf'^\w+(, \w+)* = grader\.numbers\("{item}"\)$', cell.source, re.M), cell.source
            numbers_ids.append(item)
        else:
            assert grade_id == "given" and meta == GIVEN_META
    assert numbers_ids == items_of(assignment), "one locked numbers cell per per-student item"
    assert solution_ids == list(module.TASKS), "one solution cell per task, in the order of TASKS"
    assert test_ids == [c.grade_id for c in checks_for_assignment(assignment)], \
        "every check is graded by exactly one cell, in the order the checks module defines them"
    assert nb.cells[-1].source == "grader.summary()"


def test_points_add_up_to_course_yml(course, assignment):
    cells = [course.meta(c) for c in course.source(assignment).cells if course.meta(c).get("grade")]
    assert sum(m["points"] for m in cells) == COURSE.assignment(assignment).points
    # Small integers; 4 is 06's memory check, the one property that separates a blockwise answer from delegation.
    assert all(isinstance(m["points"], int) and 0 < m["points"] <= 4 for m in cells), "points are small integers"


def test_every_written_answer_has_a_rubric_right_after_it(course, assignment):
    """A hand-graded cell is followed by its rubric: metadata ``autograder.rubric_for``, criteria summing to its points."""
    cells = course.source(assignment).cells
    for i, cell in enumerate(cells):
        meta = course.meta(cell)
        rubric_for = cell.metadata.get("autograder", {}).get("rubric_for")
        if rubric_for is not None:  # no stray rubric: it follows the answer it grades
            assert i > 0 and course.meta(cells[i - 1]).get("grade_id") == rubric_for, rubric_for
        if not (cell.cell_type == "markdown" and meta.get("solution")):
            continue
        rubric = cells[i + 1]
        assert rubric.cell_type == "markdown" and not course.meta(rubric), meta["grade_id"]
        assert rubric.metadata.get("autograder") == {"rubric_for": meta["grade_id"]}, meta["grade_id"]
        assert rubric.source.startswith("**Rubric (instructor only)**")
        criteria = [int(n) for n in CRITERION.findall(rubric.source)]
        assert criteria and sum(criteria) == meta["points"], (meta["grade_id"], criteria)


def test_every_misconception_of_the_module_is_titled(assignment):
    module = MODULE[assignment]
    for misconception in module.MISCONCEPTIONS:
        prefix = misconception.split(".")[0]
        assert any(prefix in task for task in module.TASKS), misconception
    assert not set(module.MISCONCEPTIONS) & set(GENERIC_MISCONCEPTIONS)


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


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 12345, 20_241_105])
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


def test_only_answer_keys_are_hidden_from_the_visible_checks(assignment):
    """Only the value of an answer key (a constant such as ``STOP_AND_TRY_*``, ``CONCEPTS_*`` or 06's
    ``TABLE_BYTES``) is checked out of the student's sight, and its form is always checked in sight."""
    for check in checks_for_assignment(assignment):
        if not check.public:
            assert check.task.isupper(), check.grade_id
            assert any(c.public for c in checks_for_assignment(assignment) if c.task == check.task)


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
