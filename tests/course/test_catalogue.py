"""Every catalogue variant of every notebook in course.yml, graded in-process (fast): wrong answers
lose points on their own task with their misconception named; correct answers written differently
get full marks. Driven by the registry: a new notebook's ``autograder/catalogue/nbNN.py`` is
picked up without editing this file."""
from __future__ import annotations

import pytest

from autograder.catalogue import all_variants
from autograder.checks import CHECKS, MISCONCEPTIONS, TASKS

VARIANTS = all_variants()
WRONG = [v for v in VARIANTS if not v.correct]
RIGHT = [v for v in VARIANTS if v.correct]


def _answers(variant) -> dict[str, str]:
    return {k: src.strip("\n") for k, src in variant.answers.items()}


def test_catalogue_size():
    assert len(WRONG) >= 68 and len(RIGHT) >= 19  # the sizes today: a catalogue only grows
    assert len({v.name for v in VARIANTS}) == len(VARIANTS), "variant names are unique"


@pytest.mark.parametrize("variant", WRONG, ids=lambda v: v.name)
def test_wrong_answer_loses_points_on_its_task(course, variant):
    assert variant.task in TASKS[variant.assignment]
    assert variant.misconception in MISCONCEPTIONS, f"{variant.misconception} has no title in MISCONCEPTIONS"
    assert variant.source, "say where the mistake is documented"
    failed = course.failed(course.fill(variant.assignment, _answers(variant)), variant.assignment)
    own = {g: v for g, v in failed.items() if v.task == variant.task}
    assert own, f"{variant.name} passes every check of {variant.task}"
    assert variant.misconception in {v.misconception for v in own.values()}, \
        {g: (v.misconception, v.message) for g, v in own.items()}
    stray = {g: v.misconception for g, v in failed.items()
             if v.task != variant.task and v.task not in variant.also_fails}
    assert not stray, f"{variant.name} also fails checks of other tasks: {stray}"
    for verdict in own.values():  # the message is for the student: no arrays, no traceback
        assert verdict.message and "array(" not in verdict.message and "Traceback" not in verdict.message
        assert "[[" not in verdict.message


@pytest.mark.parametrize("variant", RIGHT, ids=lambda v: v.name)
def test_correct_answer_written_differently_gets_full_marks(course, variant):
    for seed in (0, 7):
        failed = course.failed(course.fill(variant.assignment, _answers(variant)), variant.assignment, seed=seed)
        assert not failed, {g: v.message for g, v in failed.items()}


@pytest.mark.parametrize("assignment", sorted(TASKS))
def test_functions_that_return_none_earn_nothing(course, assignment):
    """Issue 14 (4): "inputs unmodified" checks looked only at mutation, so `return None` earned 7 points."""
    functions = [t for t in TASKS[assignment] if not t.isupper()]
    nb = course.fill(assignment, {t: f"def {t}(*args, **kwargs):\n    return None" for t in functions})
    verdicts = [v for v in course.grade(nb, assignment, fast=True) if v.task in functions]
    assert verdicts and not [v.grade_id for v in verdicts if v.passed]


def _hidden_value_tasks() -> set[tuple[str, str]]:
    from autograder.checks import checks_for_assignment

    return {(a, c.task) for a in TASKS for c in checks_for_assignment(a) if not c.public}


HIDDEN_VALUE_MISTAKES = [v for v in WRONG if (v.assignment, v.task) in _hidden_value_tasks()]


def _visible(nb, assignment, task) -> str:
    import contextlib
    import io

    from autograder.inprocess import execute_answers
    from autograder.notebook import Grader

    namespace, _ = execute_answers(course_answers_only(nb))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Grader(assignment, namespace).check(task)
        Grader(assignment, namespace).summary()
    return out.getvalue()


def course_answers_only(nb):
    from tests.course.conftest import Course

    return Course.answers_only(nb)


@pytest.mark.parametrize("variant", HIDDEN_VALUE_MISTAKES, ids=lambda v: v.name)
def test_a_visible_check_never_says_whether_an_answer_key_value_is_right(course, variant):
    """Issue 12 (4): a wrong Stop-and-try answer printed "✔ done", the right one the same; now both say
    "answered ... checked when graded", and the visible output of a wrong value equals the right one's."""
    nb = course.fill(variant.assignment, _answers(variant))
    right = _visible(course.solved(variant.assignment), variant.assignment, variant.task)
    assert "checked only when your notebook is graded" in right and "✔ done" not in right.split(variant.task)[1][:60]
    public = [v for v in course.grade(nb, variant.assignment, fast=True)
              if v.task == variant.task and CHECKS[v.grade_id].public]
    if all(v.passed for v in public):  # a value in the expected form: nothing tells it from the right one
        assert _visible(nb, variant.assignment, variant.task) == right
    else:  # the form itself is wrong (a key numbered from 0): saying so is the visible check's job
        assert {v.misconception for v in public if not v.passed} <= {"wrong_values", "wrong_type", "wrong_shape",
                                                                    "STOP_AND_TRY.zero_based"}
