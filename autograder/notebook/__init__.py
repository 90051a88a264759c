"""Visible checks in the student notebook, in the spirit of otter-grader's ``grader.check``.

In the notebook's given cell::

    grader = Grader("01_scores_softmax", globals())

after an answer cell::

    grader.check("softmax")

and at the end::

    grader.summary()

A visible check runs the same check logic as the hidden tests, on public inputs
(the seeds' worked examples and small random cases drawn from a public seed),
and prints a verdict per property without revealing any expected array.

``STOP_Q, STOP_K = grader.numbers("02_scaling/stop_and_try")`` gives the student's own numbers of a
per-student item (issue 22; :mod:`autograder.notebook.numbers` says whose, here and in the kit).
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Mapping

from ..checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, NOT_ATTEMPTED, TASKS, checks_for_task, executor
from ..checks.core import PUBLIC_SEED, Verdict, evaluate, quiet
from . import numbers as _numbers
from . import wording as _render
from .wording import FAIL, PASS, ValidationFailed, render  # noqa: F401 (the names this module offers)

#: item id -> entry (``numbers.entry``) pinned by the code running the notebook in this process
#: (:func:`pinned_numbers`: in-process grading judges on these, so the notebook must show these).
_PINNED: dict | None = None


class Grader:
    """Runs the visible checks of one assignment against a notebook's globals."""

    def __init__(self, assignment: str, namespace: dict):
        if assignment not in TASKS:
            raise ValueError(f"unknown assignment {assignment!r}; expected one of {', '.join(TASKS)}")
        self.assignment = assignment
        self.namespace = namespace

    def verdicts(self, task: str) -> list[Verdict]:
        """The verdict of every public check of ``task``."""
        if task not in TASKS[self.assignment]:
            raise ValueError(f"{task!r} is not a task of {self.assignment}; tasks: {', '.join(TASKS[self.assignment])}")
        return _render.helpers_first(self._public(task), self._failing_helpers(task))

    def _failing_helpers(self, task: str) -> list[str]:
        return [h for h in _helpers(task, self.assignment) if not all(v.passed for v in self._public(h))]

    def _public(self, task: str) -> list[Verdict]:
        return [evaluate(c, executor(c, self.namespace), PUBLIC_SEED)
                for c in checks_for_task(task, self.assignment) if c.public]

    def numbers(self, item_id: str) -> tuple:
        """Print and return this student's numbers of the per-student item ``item_id`` (e.g. ``STOP_Q, STOP_K``).

        Pinned by in-process grading (:func:`pinned_numbers`), else derived (:func:`own_items`): the
        lesson's numbers for a course without ``variants``, the student's own otherwise.

        Raises
        ------
        autograder.notebook.numbers.NumbersMissing
            For an unknown item. :class:`autograder.variants.SecretMissing` in a classroom course whose
            secret is not here (a student works from the kit, which holds their numbers).
        """
        if _PINNED is not None:
            if item_id not in _PINNED:
                raise _numbers.NumbersMissing(f"{item_id!r} is not a per-student item (items: {', '.join(_PINNED)})")
            return _numbers.show(item_id, _PINNED[item_id], "the numbers this check is graded on")
        items, whose = own_items([item_id])
        return _numbers.show(item_id, _numbers.entry(items[item_id]), whose)

    def check(self, task: str) -> None:
        """Print a short verdict for ``task``: which properties hold and which fail."""
        print(render(task, self.verdicts(task), hidden_value=_has_hidden_value(task, self.assignment)))

    def summary(self) -> None:
        """Print one line per task of the notebook: done, not started, or how many checks fail."""
        print(_render.summary([(task, self.verdicts(task), _has_hidden_value(task, self.assignment))
                               for task in TASKS[self.assignment]]))

    def validate(self, grade_id: str) -> None:
        """The visible line of the test cell ``grade_id``: run that check on the public example.

        Prints nothing and returns None when it passes. When it fails, raises
        :class:`~autograder.notebook.wording.ValidationFailed` (an AssertionError) naming the task,
        the failed property and the likely misconception, never an expected value. For a check
        whose value is an answer key (``public=False``) only the answer's form is checked (the
        task's public checks), so a wrong value and the right one both pass. Under ``nbgrader
        autograde`` it does nothing: the hidden test below it alone decides the cell's score.

        Raises
        ------
        ValueError
            When ``grade_id`` is not a check of this notebook's assignment.
        ValidationFailed
            When the check fails on the public example (or the answer is not written yet).
        """
        checks = {c.grade_id: c for c in _assignment_checks(self.assignment)}
        if grade_id not in checks:
            raise ValueError(f"{grade_id!r} is not a test of {self.assignment}: is the autograder package up to date?")
        if os.environ.get("NBGRADER_EXECUTION") == "autograde":
            return None
        check = checks[grade_id]
        with quiet():  # nbgrader scores a cell with any stderr as failed: silence the student's warnings
            if check.public:
                verdicts = _render.helpers_first([evaluate(check, executor(check, self.namespace), PUBLIC_SEED)],
                                                 self._failing_helpers(check.task))
            else:  # an answer key: its form only (see "What a visible check may say")
                verdicts = [evaluate(c, executor(c, self.namespace), PUBLIC_SEED) for c in checks_for_task(check.task, self.assignment)
                            if c.public]
                if not verdicts:  # no form check: say only whether it is answered at all
                    verdict = evaluate(check, executor(check, self.namespace), PUBLIC_SEED)
                    verdicts = [verdict] if verdict.misconception in NOT_ATTEMPTED else []
        _render.validate(check.task, verdicts, misconception_titles(self.assignment))


def own_items(item_ids, cwd: str | Path | None = None, environ=None, started: tuple | None = None) -> tuple[dict, str]:
    """``({item id: item}, whose)``: the numbers of whoever runs the whole package here.

    Under stock ``nbgrader autograde`` (:func:`.numbers.autograded_submission`, ``started`` as its argument)
    the course and the student are the folder's, ``<course>/autograded/<student>/<assignment>``. Otherwise
    the course is the nearest ``course.yml`` at or above ``cwd`` and the student is :func:`.numbers.student_id`.
    Without a course, or without its ``variants`` section, the lesson's numbers (the same for everyone);
    otherwise the student's, derived with the course secret (:func:`autograder.variants.course_secret`:
    self-study's public one, and the message says so).
    """
    from ..checks.items import LESSON
    from ..config import COURSE_FILE, load_course
    from ..variants import course_secret, student_items

    unknown = [i for i in item_ids if i not in LESSON]
    if unknown:
        raise _numbers.NumbersMissing(f"{', '.join(map(repr, unknown))} is not a per-student item "
                                      f"(items: {', '.join(LESSON)})")
    graded = _numbers.autograded_submission(item_ids, started)
    if graded is not None:
        course_dir, sid = graded
        source = "the folder nbgrader autograde grades"
        if not (course_dir / COURSE_FILE).is_file():
            course_dir = None
    else:
        here = Path.cwd() if cwd is None else Path(cwd)
        course_dir = next((d for d in (here, *here.parents) if (d / COURSE_FILE).is_file()), None)
    course = load_course(course_dir) if course_dir is not None else None
    if course is None or course.variants is None:
        return {i: LESSON[i] for i in item_ids}, "the lesson's numbers (the same for everyone)"
    secret = course_secret(course, course_dir, environ)
    if graded is None:
        sid, source = _numbers.student_id(environ, here)
    return (student_items(secret.key, course.course_id, sid, item_ids),
            f"your own numbers (student {sid}, from {source}; derived with {secret.source})")


@contextlib.contextmanager
def pinned_numbers(items: Mapping[str, Any]):
    """While inside, ``Grader.numbers`` in this process gives ``items`` (item id -> item; the lesson's for the
    rest): in-process grading runs the notebook on the numbers it judges."""
    from ..checks.items import LESSON

    global _PINNED
    before, _PINNED = _PINNED, {i: _numbers.entry(items.get(i, lesson)) for i, lesson in LESSON.items()}
    try:
        yield
    finally:
        _PINNED = before


def misconception_titles(assignment: str | None = None) -> dict[str, str]:
    """The titles of the course's own misconceptions (the generic ones left out: they would repeat the
    message), for Validate's messages. A check may name another notebook's (02's ``leading_weight``
    names 01's ``softmax.no_max_subtraction``), so the whole registry's."""
    return {k: v for k, v in MISCONCEPTIONS.items() if k not in GENERIC_MISCONCEPTIONS}


def _helpers(task: str, assignment: str) -> tuple[str, ...]:
    """The graded tasks ``task`` calls (:attr:`~autograder.checks.core.Check.helpers`)."""
    return next((c.helpers for c in checks_for_task(task, assignment)), ())


def _assignment_checks(assignment: str):
    return [c for task in TASKS[assignment] for c in checks_for_task(task, assignment)]


def _has_hidden_value(task: str, assignment: str) -> bool:
    """Whether some check of ``task`` judges its value only when graded (an answer key: see
    docs/NOTEBOOK_CONVENTIONS.md, "What a visible check may say")."""
    return any(not c.public for c in checks_for_task(task, assignment))
