"""Every notebook of course.yml through nbgrader itself: one real ``nbgrader autograde`` per notebook
grades the solution (full marks on every test cell, written answers left for a person), the untouched
student version (0, no crash, friendly messages) and a subset of the catalogue exactly as the
in-process grader does (``test_registry.py`` checks that generate_assignment reproduces assignments/).

Driven by the registry: a new notebook is graded here by adding its files. ``SUBSET`` keeps the
variants chosen by hand for the risky paths of 01-06 (overflow, batched transposes, stderr noise
from a right answer, hand-typed constants, fully masked rows, the memory measurement); any other
notebook gets one typical mistake per task and one correct rewrite from its catalogue.

The variants of different tasks share a notebook (:func:`_students`), as a real student's one or two
mistakes do: the comparison with the in-process grader is cell by cell, so each variant is still judged
on its own task's cells, and a kernel is what a stock autograde pays for (the module ran 46 of them, 07's
experiment in 9; it runs 31).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder import submissions, variants
from autograder.catalogue import all_variants
from autograder.checks import CHECKS, checks_for_assignment
from autograder.checks.items import LESSON
from autograder.config import load_course

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = [a.id for a in load_course(ROOT).assignments]
VARIANTS = {v.name: v for v in all_variants()}
SUBSET = {
    "01_scores_softmax": ["softmax_no_max_subtraction", "scores_dot_T_batched", "softmax_noisy_but_right",
                          "softmax_log_sum_exp"],
    "02_scaling": ["sdpa_no_scaling", "stop_and_try_unscaled", "inverse_sqrt_and_einsum", "stop_and_try_by_hand"],
    "03_masking": ["sdpa_fill_large_negative", "causal_bottom_right", "renormalised_multiplicative_mask",
                   "einsum_where_and_guard"],
    "04_heads": ["split_heads_reshape_without_transpose", "attention_param_count_times_heads",
                 "multi_head_attention_divisor_d_model", "multi_head_attention_per_head_loop", "project_einsum",
                 "attention_param_count_from_shapes"],
    "05_cross_attention": ["cross_attention_swapped", "self_attention_causal_ignored",
                           "cross_attention_per_sentence_loop", "self_attention_additive_mask"],
    "06_long_sequences": ["blockwise_attention_full_matrix", "TABLE_BYTES_one_head", "blockwise_attention_no_rescale",
                          "blockwise_attention_log_sum_exp"],
}


def _subset(assignment: str) -> list[str]:
    if assignment in SUBSET:
        return SUBSET[assignment]
    variants = [v for v in VARIANTS.values() if v.assignment == assignment]
    first_wrong = {}
    for v in variants:
        if not v.correct:
            first_wrong.setdefault(v.task, v.name)
    return list(first_wrong.values()) + [v.name for v in variants if v.correct][:1]


CASES = [(a, name) for a in ASSIGNMENTS for name in _subset(a)]

#: 02's run grades with per-student items (issue 22): stock nbgrader's kernels derive each student's own
#: Stop-and-try numbers and option order from the folder they grade, as `autograder grade` does, and the
#: in-process grader judges each student on theirs (no extra kernel: the same run as before).
OWN_NUMBERS = "02_scaling"
SECRET_ENV, SECRET = "AUTOGRADER_TEST_NBGRADER_SECRET", "the stock nbgrader test's secret, 0123456789abcdef"


def _items(assignment: str, student: str):
    """The items ``student`` is judged on: their own in :data:`OWN_NUMBERS`, the lesson's elsewhere (None)."""
    if assignment != OWN_NUMBERS:
        return None
    return variants.student_items(SECRET.encode(), load_course(ROOT).course_id, student, variants.items_of(assignment))


def _students(assignment: str) -> dict[str, list[str]]:
    """``{student: variant names}``: the subset packed into as few notebooks as it takes for no two of
    a notebook's variants to answer the same task (first fit, in the subset's order)."""
    students: list[list[str]] = []
    for name in _subset(assignment):
        task = VARIANTS[name].task
        home = next((names for names in students if task not in {VARIANTS[n].task for n in names}), None)
        if home is None:
            students.append(home := [])
        home.append(name)
    return {f"mix{i}": names for i, names in enumerate(students)}


def _student_of(assignment: str, name: str) -> str:
    return next(s for s, names in _students(assignment).items() if name in names)


def _mixed(course, assignment: str, names: list[str]):
    answers: dict[str, str] = {}
    for name in names:
        answers.update(VARIANTS[name].answers)
    return course.fill(assignment, answers)


def _written(course, assignment: str) -> set[str]:
    """The hand-graded cells of a notebook (markdown answers): nbgrader leaves them for a person."""
    return {course.meta(c)["grade_id"] for c in course.source(assignment).cells
            if c.cell_type == "markdown" and course.meta(c).get("solution")}


@pytest.fixture(scope="module")
def graded(course, nbgrader_course):
    """``run(assignment) -> (NbgraderCourse, {student: Result})``: one serial stock autograde run per notebook.

    On first use every notebook's run starts, two at a time: each is one kernel after another, so
    two of them keep two cores busy (the module took about 230 s one after the other).
    """
    def one(assignment):
        subs = {"solution": course.solved(assignment), "blank": course.release(assignment)}
        subs.update({s: _mixed(course, assignment, names) for s, names in _students(assignment).items()})
        nbc = nbgrader_course(assignment)
        if assignment == OWN_NUMBERS:
            nbc.with_variants(SECRET_ENV, SECRET)
        return nbc, nbc.autograde(subs)

    futures = {}
    with ThreadPoolExecutor(2) as pool:
        def run(assignment):
            if not futures:
                # the later notebooks first: they are the longer runs (07's experiment), so the two runners end together
                futures.update({a: pool.submit(one, a) for a in reversed(ASSIGNMENTS)})
            return futures[assignment].result()
        yield run
        for future in futures.values():
            future.cancel()


def _code_outputs(nbc, assignment, student):
    nb = submissions.read(nbc.root / "autograded" / student / assignment / f"{assignment}.ipynb")
    return [(c, c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_scores_full_marks(course, graded, assignment):
    nbc, results = graded(assignment)
    result = results["solution"]
    assert result.lost() == {}, {g: result.messages.get(g) for g in result.lost()}
    assert result.needs_manual == _written(course, assignment)
    assert not result.stderr_cells
    outputs = _code_outputs(nbc, assignment, "solution")
    texts = ["".join(o.get("text", "") for o in outs) for c, outs in outputs if c.source.startswith("grader.check(")]
    assert texts and all(t.startswith("✔") and "✘" not in t for t in texts), texts
    plots = sum("plt.show()" in c.source for c, _ in outputs)
    images = sum("image/png" in o.get("data", {}) for _, outs in outputs for o in outs)
    assert images >= plots, "a plot of the solved notebook did not appear"
    if assignment == OWN_NUMBERS:  # the kernel showed, and its hidden tests judged, this student's own items
        printed = "".join(o.get("text", "") for c, outs in outputs if "grader.numbers(" in c.source for o in outs)
        own = _items(assignment, "solution")
        assert all(own[i] != LESSON[i] and own[i].describe() in printed for i in own), printed
        assert printed.count("student solution, from the folder nbgrader autograde grades") == len(own), printed


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_student_version_scores_zero(course, graded, assignment):
    nbc, results = graded(assignment)
    result = results["blank"]
    assert result.score == 0
    written = _written(course, assignment)
    auto = [g for g in result.cells if g not in written]
    assert sorted(auto) == sorted(c.grade_id for c in checks_for_assignment(assignment))
    assert set(result.lost()) - written == set(auto)
    assert not result.needs_manual  # an untouched written answer scores 0 without a person looking at it
    assert not result.stderr_cells
    for grade_id in auto:  # every test cell failed with the friendly message, not a crash of the grader
        assert "CheckFailed" in result.messages[grade_id]
        assert "not written yet" in result.messages[grade_id] or "is not defined" in result.messages[grade_id]
    errors = [c.source[:40] for c, outs in _code_outputs(nbc, assignment, "blank") for o in outs
              if o.get("output_type") == "error" and not course.meta(c)]
    assert not errors, errors  # plots and visible checks say "not done", they do not crash


@pytest.mark.parametrize("assignment,name", CASES)
def test_catalogue_subset_grades_as_in_process(course, graded, assignment, name):
    variant = VARIANTS[name]
    _, results = graded(assignment)
    student = _student_of(assignment, name)
    result = results[student]
    # Same seed as the run. The given and answer cells only, as the grader's verification runs them (the
    # plain cells, 07's 11 s experiment among them, read what the answers define and assign no graded name):
    # a plain cell that changed a verdict would show here as a disagreement with the full nbgrader run.
    verdicts = course.grade(_mixed(course, assignment, _students(assignment)[student]), assignment, fast=True,
                            items=_items(assignment, student))
    failing = {v.grade_id: v for v in verdicts if not v.passed}
    assert set(result.lost()) == set(failing), "nbgrader and the in-process grader disagree"
    assert not result.stderr_cells
    own = {g: v for g, v in failing.items() if v.task == variant.task}
    if variant.correct:
        assert own == {} and not [g for g in result.lost() if CHECKS[g].task == variant.task]
        return
    assert any(v.misconception == variant.misconception for v in own.values())
    for grade_id, verdict in failing.items():
        assert verdict.message in result.messages[grade_id]  # the student reads the same words
