"""Every catalogue variant of every notebook in course.yml, graded in-process (fast): wrong answers
lose points on their own task with their misconception named; correct answers written differently
get full marks. Driven by the registry: a new notebook's ``autograder/catalogue/nbNN.py`` is
picked up without editing this file."""
from __future__ import annotations

import pytest

from autograder.catalogue import all_variants
from autograder.checks import MISCONCEPTIONS, TASKS

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
