"""Tests of 04_heads, 05_cross_attention and 06_long_sequences: each notebook's structure, the
solution and the untouched stubs, and the catalogue.

In-process grading (fast, every variant) and nbgrader's real autograde in a temporary course
(the solution, the untouched student version and a representative subset of the catalogue, in
one run per notebook).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType

import pytest

from autograder import submissions
from autograder.catalogue import nb04, nb05, nb06
from autograder.checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, checks_for_assignment
from autograder.checks import nb04_heads, nb05_cross_attention, nb06_long_sequences


@dataclass(frozen=True)
class Notebook:
    catalogue: ModuleType
    checks: ModuleType
    points: int
    min_images: int  # plots a completed notebook shows
    #: Catalogue variants that also go through nbgrader's real execution (every variant is graded
    #: in-process): student id -> variants combined in one submission (each answers other cells).
    real: dict


NOTEBOOKS = {
    "04_heads": Notebook(nb04, nb04_heads, 20, 2, {
        "wrong-split-and-count": ("split_heads_reshape_without_transpose", "attention_param_count_times_heads"),
        "wrong-divisor": ("multi_head_attention_divisor_d_model",),
        "right-rewrites": ("multi_head_attention_per_head_loop", "project_einsum", "attention_param_count_from_shapes"),
    }),
    "05_cross_attention": Notebook(nb05, nb05_cross_attention, 15, 1, {
        "wrong-swapped-and-causal": ("cross_attention_swapped", "self_attention_causal_ignored"),
        "right-rewrites": ("cross_attention_per_sentence_loop", "self_attention_additive_mask"),
    }),
    "06_long_sequences": Notebook(nb06, nb06_long_sequences, 10, 2, {
        "wrong-full-table": ("blockwise_attention_full_matrix", "TABLE_BYTES_one_head"),
        "wrong-no-rescale": ("blockwise_attention_no_rescale",),
        "right-log-sum-exp": ("blockwise_attention_log_sum_exp",),
    }),
}
REAL = [(a, s) for a, nb in NOTEBOOKS.items() for s in nb.real]
each_notebook = pytest.mark.parametrize("assignment", list(NOTEBOOKS))


def _answers(variant) -> dict[str, str]:
    return {k: src.strip("\n") for k, src in variant.answers.items()}


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


# ---------------------------------------------------------------- structure
@each_notebook
def test_notebook_follows_the_conventions(course, assignment):
    checks_module, catalogue = NOTEBOOKS[assignment].checks, NOTEBOOKS[assignment].catalogue
    nb = course.source(assignment)
    given = [c for c in nb.cells if _meta(c).get("grade_id") == "given"]
    assert len(given) == 1 and _meta(given[0]) == {"grade": False, "grade_id": "given", "locked": True,
                                                   "schema_version": 3, "solution": False, "task": False}
    imported = re.search(r"^from attention_ref import (.+)$", given[0].source, re.M)
    assert imported and [n.strip() for n in imported.group(1).split(",")] == checks_module.GIVEN
    assert not set(checks_module.GIVEN) & set(checks_module.TASKS), "the given cell must not import a graded name"
    assert f'grader = Grader("{assignment}", globals())' in given[0].source
    solutions = [_meta(c)["grade_id"] for c in nb.cells if _meta(c).get("solution")]
    assert solutions == checks_module.TASKS
    tests = {_meta(c)["grade_id"]: c for c in nb.cells if _meta(c).get("grade") and not _meta(c).get("solution")}
    assert list(tests) == [c.grade_id for c in checks_for_assignment(assignment)]
    for grade_id, cell in tests.items():
        body = cell.source.split("### BEGIN HIDDEN TESTS\n")[1]
        assert body == f'check("{grade_id}", globals())\n### END HIDDEN TESTS'
        assert _meta(cell)["locked"] and isinstance(_meta(cell)["points"], int) and _meta(cell)["points"] > 0
    assert sum(_meta(c)["points"] for c in tests.values()) == NOTEBOOKS[assignment].points
    assert all(not c.get("outputs") and not c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    assert nb.cells[-1].source == "grader.summary()"
    for variant in catalogue.VARIANTS:
        assert variant.assignment == assignment and variant.task in checks_module.TASKS
        if not variant.correct:
            assert variant.misconception in MISCONCEPTIONS and variant.source


@each_notebook
def test_every_misconception_of_the_module_is_titled(assignment):
    checks_module = NOTEBOOKS[assignment].checks
    for misconception in checks_module.MISCONCEPTIONS:
        assert misconception.split(".")[0] in checks_module.TASKS
    assert not set(checks_module.MISCONCEPTIONS) & set(GENERIC_MISCONCEPTIONS)


# ---------------------------------------------------------------- in-process grading
@each_notebook
@pytest.mark.parametrize("seed", [12345, 2])
def test_solution_passes_every_check(course, assignment, seed):
    failed = course.failed(course.solved(assignment), assignment, seed=seed)
    assert not failed, {g: v.message for g, v in failed.items()}


@each_notebook
def test_untouched_stubs_fail_every_check_as_not_done(course, assignment):
    verdicts = course.grade(course.release(assignment), assignment, fast=True)
    assert verdicts and not any(v.passed for v in verdicts)
    assert {v.misconception for v in verdicts} <= {"not_implemented", "not_defined"}


# ---------------------------------------------------------------- nbgrader's real autograde
@pytest.fixture(scope="module")
def autograded(course, nbgrader_course):
    """One real ``nbgrader autograde`` run per notebook, made on first use and shared."""
    runs = {}

    def run(assignment):
        if assignment not in runs:
            runs[assignment] = _autograde(course, nbgrader_course, assignment)
        return runs[assignment]
    return run


def _autograde(course, nbgrader_course, assignment):
    """The solution, the untouched stubs and the catalogue subset of one notebook, graded together."""
    catalogue = NOTEBOOKS[assignment].catalogue
    nbc = nbgrader_course(assignment)
    release = nbc.release()
    solved = submissions.fill(release, course.answers(assignment))
    subs = {"solution": solved, "blank": release}
    by_name = {v.name: v for v in catalogue.VARIANTS}
    for student, names in NOTEBOOKS[assignment].real.items():
        answers = {}
        for name in names:
            assert not set(answers) & set(by_name[name].answers), "variants of one submission must answer different cells"
            answers.update(_answers(by_name[name]))
        subs[student] = submissions.fill(solved, answers)
    return nbc, nbc.autograde(subs)


def _outputs(nbc, assignment, student):
    nb = submissions.read(nbc.root / "autograded" / student / assignment / f"{assignment}.ipynb")
    return [(c, c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]


@pytest.mark.slow
@each_notebook
def test_nbgrader_gives_the_solution_full_marks(autograded, assignment):
    points = NOTEBOOKS[assignment].points
    nbc, results = autograded(assignment)
    solution = results["solution"]
    assert solution.max_score == points and solution.score == points, solution.lost()
    assert not solution.messages and not solution.stderr_cells
    texts = ["".join(o.get("text", "") for o in outs) for c, outs in _outputs(nbc, assignment, "solution")
             if c.source.startswith("grader.check(")]
    assert texts and all(t.startswith("✔") and "passed" in t and "✘" not in t for t in texts), texts
    images = sum("image/png" in o.get("data", {}) for _, outs in _outputs(nbc, assignment, "solution") for o in outs)
    assert images >= NOTEBOOKS[assignment].min_images


@pytest.mark.slow
@each_notebook
def test_nbgrader_gives_the_untouched_notebook_zero(autograded, assignment):
    points = NOTEBOOKS[assignment].points
    nbc, results = autograded(assignment)
    blank = results["blank"]
    assert blank.max_score == points and blank.score == 0, blank.cells
    assert set(blank.messages) == {c.grade_id for c in checks_for_assignment(assignment)}
    assert not blank.stderr_cells
    assert all("not written yet" in m or "not defined" in m for m in blank.messages.values())
    errors = [c.source[:40] for c, outs in _outputs(nbc, assignment, "blank") for o in outs
              if o.get("output_type") == "error" and not _meta(c).get("grade") and not _meta(c).get("solution")]
    assert not errors, errors  # plots and visible checks say "not done", they do not crash


@pytest.mark.slow
@pytest.mark.parametrize("assignment, student", REAL)
def test_nbgrader_grades_catalogue_variants(autograded, assignment, student):
    points = NOTEBOOKS[assignment].points
    _, results = autograded(assignment)
    by_name = {v.name: v for v in NOTEBOOKS[assignment].catalogue.VARIANTS}
    variants = [by_name[name] for name in NOTEBOOKS[assignment].real[student]]
    result = results[student]
    assert not result.stderr_cells
    lost = result.lost()
    if all(v.correct for v in variants):
        assert result.score == points, lost
        return
    cells_of = lambda tasks: {c.grade_id for c in checks_for_assignment(assignment) if c.task in tasks}  # noqa: E731
    for variant in variants:
        assert set(lost) & cells_of({variant.task}), f"{variant.name} lost no points on {variant.task}"
    assert set(lost) <= cells_of({t for v in variants for t in (v.task, *v.also_fails)})
    assert all(result.messages.get(g) for g in lost)
