"""01-03 through nbgrader itself (``test_registry.py`` checks that generate_assignment reproduces
assignments/ for every notebook): one real ``nbgrader autograde`` per notebook grades the solution (full marks), the untouched student version
(0, no crash) and a representative subset of the catalogue exactly as the in-process grader does."""
from __future__ import annotations

import pytest

from autograder.catalogue import nb01, nb02, nb03

pytestmark = pytest.mark.slow

ASSIGNMENTS = ["01_scores_softmax", "02_scaling", "03_masking"]
MANUAL = {"02_scaling": {"STOP_AND_TRY_WHY"}}
# A few wrong and a few right answers per notebook, chosen to cover the risky paths: overflow,
# batched transposes, stderr noise and warnings from a right answer, hand-typed constants,
# fully masked rows.
SUBSET = {
    "01_scores_softmax": ["softmax_no_max_subtraction", "scores_dot_T_batched", "softmax_noisy_but_right",
                          "softmax_log_sum_exp"],
    "02_scaling": ["sdpa_no_scaling", "stop_and_try_unscaled", "inverse_sqrt_and_einsum", "stop_and_try_by_hand"],
    "03_masking": ["sdpa_fill_large_negative", "causal_bottom_right", "renormalised_multiplicative_mask",
                   "einsum_where_and_guard"],
}
VARIANTS = {v.name: v for m in (nb01, nb02, nb03) for v in m.VARIANTS}


@pytest.fixture(scope="module")
def graded(course, nbgrader_course):
    """{assignment: {student: Result}}: one autograde run per notebook."""
    out = {}
    for a in ASSIGNMENTS:
        subs = {"solution": course.solved(a), "blank": course.release(a)}
        subs.update({name: course.fill(a, VARIANTS[name].answers) for name in SUBSET[a]})
        out[a] = nbgrader_course(a).autograde(subs)
    return out


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_scores_full_marks(graded, assignment):
    result = graded[assignment]["solution"]
    assert result.lost() == {}, {g: result.messages.get(g) for g in result.lost()}
    assert result.needs_manual == MANUAL.get(assignment, set())
    assert not result.stderr_cells


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_student_version_scores_zero(graded, assignment):
    result = graded[assignment]["blank"]
    assert result.score == 0
    manual = MANUAL.get(assignment, set())
    auto = [g for g in result.cells if g not in manual]
    assert auto and set(result.lost()) - manual == set(auto)
    assert not result.needs_manual  # an untouched written answer scores 0 without a person looking at it
    for grade_id in auto:  # every test cell failed with the friendly message, not a crash of the grader
        assert "CheckFailed" in result.messages[grade_id]
        assert "not written yet" in result.messages[grade_id] or "is not defined" in result.messages[grade_id]


@pytest.mark.parametrize("assignment,name", [(a, n) for a in ASSIGNMENTS for n in SUBSET[a]])
def test_catalogue_subset_grades_as_in_process(course, graded, assignment, name):
    variant = VARIANTS[name]
    result = graded[assignment][name]
    verdicts = course.grade(course.fill(assignment, variant.answers), assignment)  # same seed as the run
    failing = {v.grade_id: v for v in verdicts if not v.passed}
    assert set(result.lost()) == set(failing), "nbgrader and the in-process grader disagree"
    assert not result.stderr_cells
    if variant.correct:
        assert result.lost() == {}
        return
    assert any(v.task == variant.task and v.misconception == variant.misconception for v in failing.values())
    for grade_id, verdict in failing.items():
        assert verdict.message in result.messages[grade_id]  # the student reads the same words
