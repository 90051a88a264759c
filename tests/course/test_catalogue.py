"""Every catalogue variant of every notebook in course.yml, graded in-process (fast): wrong answers
lose points on their own task with their misconception named; correct answers written differently
get full marks. Driven by the registry: a new notebook's ``autograder/catalogue/nbNN.py`` is
picked up without editing this file."""
from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from autograder.catalogue import all_variants
from autograder.catalogue.fairness import classify, grade_over_seeds, stray, unstable
from autograder.checks import CHECKS, GRADER_MEASURED, MISCONCEPTIONS, MODULES, TASKS, checks_for_task
from autograder.checks.core import check_rng

from .conftest import TEST_SEED

VARIANTS = all_variants()
WRONG = [v for v in VARIANTS if not v.correct]
RIGHT = [v for v in VARIANTS if v.correct]


def _answers(variant) -> dict[str, str]:
    return {k: src.strip("\n") for k, src in variant.answers.items()}


def test_catalogue_size():
    assert len(WRONG) >= 177 and len(RIGHT) >= 37  # the sizes today: a catalogue only grows
    assert len({v.name for v in VARIANTS}) == len(VARIANTS), "variant names are unique"


#: Issue 14: every verdict is the same for every seed (the grader draws a fresh one per run).
SEEDS = [TEST_SEED] + random.Random(14).sample(range(1, 2**31), 19)


def _grade(index: int) -> dict:
    return grade_over_seeds(VARIANTS[index], SEEDS)


@pytest.fixture(scope="module")
def graded() -> dict:
    """``{variant name: {seed: verdicts}}``: the whole catalogue over every seed, graded once, in two
    processes (in-process grading is all CPU: about 95 s of it over 20 seeds, since the checks a variant
    cannot reach take the solution's verdicts, autograder/catalogue/reach.py)."""
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        return {v.name: verdicts for v, verdicts in zip(VARIANTS, pool.map(_grade, range(len(VARIANTS)), chunksize=4))}


@pytest.mark.parametrize("variant", WRONG, ids=lambda v: v.name)
def test_wrong_answer_loses_points_on_its_task_only_for_every_seed(variant, graded):
    assert variant.task in TASKS[variant.assignment]
    assert variant.misconception in MISCONCEPTIONS, f"{variant.misconception} has no title in MISCONCEPTIONS"
    assert variant.source, "say where the mistake is documented"
    assert not variant.also_fails, "composite tasks are graded with the reference's helpers: one mistake, one task"
    graded = graded[variant.name]
    assert not unstable(graded), f"{variant.name}: verdicts change with the seed on {unstable(graded)}"
    for seed, verdicts in graded.items():
        own = {v.grade_id: v for v in verdicts if not v.passed and v.task == variant.task}
        assert own, f"{variant.name} passes every check of {variant.task} (seed {seed})"
        assert variant.misconception in {v.misconception for v in own.values()}, \
            {g: (v.misconception, v.message) for g, v in own.items()}
        assert not stray(variant, verdicts), f"{variant.name} also fails {stray(variant, verdicts)} (seed {seed})"
        assert classify(variant, verdicts) == "named", \
            {v.grade_id: (v.misconception, v.message) for v in verdicts if not v.passed}
        for verdict in own.values():  # the message is for the student: no arrays, no numpy reprs, no traceback
            assert verdict.message and "array(" not in verdict.message and "Traceback" not in verdict.message
            assert "[[" not in verdict.message and "np.float" not in verdict.message


@pytest.mark.parametrize("variant", RIGHT, ids=lambda v: v.name)
def test_correct_answer_written_differently_gets_full_marks_for_every_seed(variant, graded):
    graded = graded[variant.name]
    assert not [g for verdicts in graded.values() for g in stray(variant, verdicts)], \
        {seed: {v.grade_id: v.message for v in vs if not v.passed} for seed, vs in graded.items()}


def test_every_declared_misconception_has_a_wrong_answer():
    """A misconception nobody writes is a branch never exercised: catalogue it, or remove it. Those only
    the grader's measurement in the verification sandbox decides (a module's ``GRADER_MEASURED``) are
    proven where they are measured (next test): no answer graded in-process can produce them."""
    declared = {m for module in MODULES for m in module.MISCONCEPTIONS}
    covered = {v.misconception for v in WRONG}
    assert not declared - covered - set(GRADER_MEASURED), sorted(declared - covered - set(GRADER_MEASURED))


@pytest.mark.parametrize("misconception", sorted(GRADER_MEASURED))
def test_a_grader_measured_misconception_is_proven_where_it_is_measured(misconception):
    """The exemption above holds only while it is true: the catalogue does not write the misconception
    (else it needs no exemption), its task has a check whose call the grader bounds from outside
    (``memory_held``: autograder/sandbox/measure.py), and the tests named exist and expect it."""
    assert misconception not in {v.misconception for v in WRONG}, "catalogued: drop it from GRADER_MEASURED"
    task = misconception.split(".")[0]
    measured = [c for c in checks_for_task(task) for call in c.make_calls(check_rng(TEST_SEED, c.grade_id))
                if call.memory_held is not None]
    assert measured, f"no check of {task} asks the grader to measure what the notebook holds"
    proof = Path(__file__).resolve().parents[2] / GRADER_MEASURED[misconception]
    assert proof.is_file() and f'"{misconception}"' in proof.read_text()


def test_report_named_vague_wrong(capsys, graded):
    """The report line of issue 14 (see also benchmarks/fairness.py): diagnoses over the catalogue."""
    counts = {"named": 0, "vague": 0, "wrong": 0, "missed": 0}
    for variant in WRONG:
        counts[classify(variant, graded[variant.name][TEST_SEED])] += 1
    with capsys.disabled():
        print(f"\ncatalogue diagnoses over {len(WRONG)} wrong answers: named {counts['named']} / "
              f"vague {counts['vague']} / wrong {counts['wrong']}")
    assert counts["wrong"] == 0 and counts["named"] >= 0.9 * len(WRONG)


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
    else:  # the form itself is wrong (a key numbered from 0), or no value at all (its cell raised before assigning
        # it): saying so is the visible check's job, and tells nothing of the key
        assert {v.misconception for v in public if not v.passed} <= {"wrong_values", "wrong_type", "wrong_shape",
                                                                    "STOP_AND_TRY.zero_based", "raises"}
