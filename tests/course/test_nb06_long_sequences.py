"""Tests of 06_long_sequences: the notebook's structure, the solution and the untouched stubs, and the catalogue.

In-process grading (fast, every variant) and nbgrader's real autograde in a temporary course
(the solution, the untouched student version and a representative subset of the catalogue, in one run).
"""
from __future__ import annotations

import re

import pytest

from autograder import submissions
from autograder.catalogue import nb06 as catalogue
from autograder.checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, checks_for_assignment
from autograder.checks import nb06_long_sequences as checks_module

ASSIGNMENT = "06_long_sequences"
POINTS = 10
#: Catalogue variants that also go through nbgrader's real execution (every variant is graded
#: in-process above): student id -> variants combined in one submission (each answers other cells).
REAL_SUBMISSIONS = {
    "wrong-full-table": ("blockwise_attention_full_matrix", "TABLE_BYTES_one_head"),
    "wrong-no-rescale": ("blockwise_attention_no_rescale",),
    "right-log-sum-exp": ("blockwise_attention_log_sum_exp",),
}
WRONG = [v for v in catalogue.VARIANTS if not v.correct]
RIGHT = [v for v in catalogue.VARIANTS if v.correct]


def _answers(variant) -> dict[str, str]:
    return {k: src.strip("\n") for k, src in variant.answers.items()}


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


# ---------------------------------------------------------------- structure
def test_notebook_follows_the_conventions(course):
    nb = course.source(ASSIGNMENT)
    given = [c for c in nb.cells if _meta(c).get("grade_id") == "given"]
    assert len(given) == 1 and _meta(given[0]) == {"grade": False, "grade_id": "given", "locked": True,
                                                   "schema_version": 3, "solution": False, "task": False}
    imported = re.search(r"^from attention_ref import (.+)$", given[0].source, re.M)
    assert imported and [n.strip() for n in imported.group(1).split(",")] == checks_module.GIVEN
    assert not set(checks_module.GIVEN) & set(checks_module.TASKS), "the given cell must not import a graded name"
    assert f'grader = Grader("{ASSIGNMENT}", globals())' in given[0].source
    solutions = [_meta(c)["grade_id"] for c in nb.cells if _meta(c).get("solution")]
    assert solutions == checks_module.TASKS
    tests = {_meta(c)["grade_id"]: c for c in nb.cells if _meta(c).get("grade") and not _meta(c).get("solution")}
    assert list(tests) == [c.grade_id for c in checks_for_assignment(ASSIGNMENT)]
    for grade_id, cell in tests.items():
        body = cell.source.split("### BEGIN HIDDEN TESTS\n")[1]
        assert body == f'check("{grade_id}", globals())\n### END HIDDEN TESTS'
        assert _meta(cell)["locked"] and isinstance(_meta(cell)["points"], int) and _meta(cell)["points"] > 0
    assert sum(_meta(c)["points"] for c in tests.values()) == POINTS
    assert all(not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    assert nb.cells[-1].source == "grader.summary()"
    for variant in catalogue.VARIANTS:
        assert variant.assignment == ASSIGNMENT and variant.task in checks_module.TASKS
        if not variant.correct:
            assert variant.misconception in MISCONCEPTIONS and variant.source


def test_every_misconception_of_the_module_is_titled():
    for misconception in checks_module.MISCONCEPTIONS:
        assert misconception.split(".")[0] in checks_module.TASKS
    assert not set(checks_module.MISCONCEPTIONS) & set(GENERIC_MISCONCEPTIONS)


# ---------------------------------------------------------------- in-process grading
@pytest.mark.parametrize("seed", [12345, 2])
def test_solution_passes_every_check(course, seed):
    failed = course.failed(course.solved(ASSIGNMENT), ASSIGNMENT, seed=seed)
    assert not failed, {g: v.message for g, v in failed.items()}


def test_untouched_stubs_fail_every_check_as_not_done(course):
    verdicts = course.grade(course.release(ASSIGNMENT), ASSIGNMENT, fast=True)
    assert verdicts and not any(v.passed for v in verdicts)
    assert {v.misconception for v in verdicts} <= {"not_implemented", "not_defined"}


@pytest.mark.parametrize("variant", WRONG, ids=lambda v: v.name)
def test_wrong_answer_loses_points_on_its_task_with_its_misconception(course, variant):
    failed = course.failed(course.fill(ASSIGNMENT, _answers(variant)), ASSIGNMENT)
    own = [v for v in failed.values() if v.task == variant.task]
    assert own, f"{variant.name} passes every check of {variant.task}"
    assert variant.misconception in {v.misconception for v in own}, {v.grade_id: v.misconception for v in own}
    others = {v.task for v in failed.values()} - {variant.task} - set(variant.also_fails)
    assert not others, f"{variant.name} also fails {others}"
    for verdict in own:
        assert verdict.message and "array(" not in verdict.message and "[[" not in verdict.message


@pytest.mark.parametrize("variant", RIGHT, ids=lambda v: v.name)
def test_correct_rewrite_gets_full_marks(course, variant):
    failed = course.failed(course.fill(ASSIGNMENT, _answers(variant)), ASSIGNMENT)
    assert not failed, {g: v.message for g, v in failed.items()}


# ---------------------------------------------------------------- nbgrader's real autograde
@pytest.fixture(scope="module")
def graded(course, nbgrader_course):
    """One real ``nbgrader autograde`` run: the solution, the untouched stubs and the catalogue subset."""
    nbc = nbgrader_course(ASSIGNMENT)
    release = nbc.release()
    solved = submissions.fill(release, course.answers(ASSIGNMENT))
    subs = {"solution": solved, "blank": release}
    by_name = {v.name: v for v in catalogue.VARIANTS}
    for student, names in REAL_SUBMISSIONS.items():
        answers = {}
        for name in names:
            assert not set(answers) & set(by_name[name].answers), "variants of one submission must answer different cells"
            answers.update(_answers(by_name[name]))
        subs[student] = submissions.fill(solved, answers)
    return nbc, nbc.autograde(subs)


def _outputs(nbc, student):
    nb = submissions.read(nbc.root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return [(c, c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]


@pytest.mark.slow
def test_nbgrader_gives_the_solution_full_marks(graded):
    nbc, results = graded
    solution = results["solution"]
    assert solution.max_score == POINTS and solution.score == POINTS, solution.lost()
    assert not solution.messages and not solution.stderr_cells
    texts = ["".join(o.get("text", "") for o in outs) for c, outs in _outputs(nbc, "solution")
             if c.source.startswith("grader.check(")]
    assert texts and all("checks passed" in t and "✘" not in t for t in texts), texts
    images = sum("image/png" in o.get("data", {}) for _, outs in _outputs(nbc, "solution") for o in outs)
    assert images >= 2


@pytest.mark.slow
def test_nbgrader_gives_the_untouched_notebook_zero(graded):
    nbc, results = graded
    blank = results["blank"]
    assert blank.max_score == POINTS and blank.score == 0, blank.cells
    assert set(blank.messages) == {c.grade_id for c in checks_for_assignment(ASSIGNMENT)}
    assert not blank.stderr_cells
    assert all("not written yet" in m or "not defined" in m for m in blank.messages.values())
    errors = [c.source[:40] for c, outs in _outputs(nbc, "blank") for o in outs
              if o.get("output_type") == "error" and not _meta(c).get("grade") and not _meta(c).get("solution")]
    assert not errors, errors  # plots and visible checks say "not done", they do not crash


@pytest.mark.slow
@pytest.mark.parametrize("student", list(REAL_SUBMISSIONS))
def test_nbgrader_grades_catalogue_variants(graded, student):
    _, results = graded
    by_name = {v.name: v for v in catalogue.VARIANTS}
    variants = [by_name[name] for name in REAL_SUBMISSIONS[student]]
    result = results[student]
    assert not result.stderr_cells
    lost = result.lost()
    if all(v.correct for v in variants):
        assert result.score == POINTS, lost
        return
    cells_of = lambda tasks: {c.grade_id for c in checks_for_assignment(ASSIGNMENT) if c.task in tasks}  # noqa: E731
    for variant in variants:
        assert set(lost) & cells_of({variant.task}), f"{variant.name} lost no points on {variant.task}"
    assert set(lost) <= cells_of({t for v in variants for t in (v.task, *v.also_fails)})
    assert all(result.messages.get(g) for g in lost)
