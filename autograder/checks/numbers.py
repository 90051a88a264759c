"""Whose numbers an answer carries: judging the checks of per-student items (issue 22).

The grader judges a check of an item (``Check.item``) on the numbers of the student whose folder
the submission was collected from (:class:`StudentNumbers`, derived by the coordinator from the
course secret: :mod:`autograder.variants`), never on anything the notebook says. A right answer
on one's own numbers passes, whatever else it also fits. An answer that is wrong on the student's
own numbers, and that no catalogued mistake explains (``wrong_values``), is judged again on other
numbers, to say why:

* right on the lesson's worked example: a plain mistake (``variants.lesson_numbers``), no flag;
* right on classmates' numbers: ``variants.others_numbers``, and a flag whose evidence (the
  instructor's) names whose numbers they are. Only the tasks of :data:`IDENTIFYING` name anyone:
  ``STOP_AND_TRY_LARGEST`` (1, 2 or 3) fits a third of the class by chance.

Each check keeps its own verdict: a copied answer that happens to be right on the student's own
numbers (the same key wins) keeps its points, as any right answer does.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from .core import Call, Check, Outcome, Verdict, judge_outcomes
from .items import ITEM, LESSON, TABLE_ITEM

#: item id -> the tasks whose right answer tells whose numbers it was computed on (06's byte count: 92 tables).
IDENTIFYING = {ITEM: ("STOP_AND_TRY_SCORES", "STOP_AND_TRY_WEIGHTS"), TABLE_ITEM: ("TABLE_BYTES",)}
#: At most this many owners are named in one flag (a common pattern of scores fits several students).
MAX_NAMED = 5
#: Tasks whose answers are real numbers worked by hand: a named mistake on one's own numbers lands on the lesson's
#: answers only by chance, so where both fit, both are said (the lesson's first: typed in, they fit exactly).
#: Letters and byte counts (powers of two) coincide with the lesson's often: there the named mistake stands.
BOTH_SAID = {ITEM: ("STOP_AND_TRY_SCORES", "STOP_AND_TRY_WEIGHTS")}


@dataclass(frozen=True)
class StudentNumbers:
    """The items a submission is judged on, and the class's, for the grader only (never sent to a sandbox)."""

    student_id: str
    items: Mapping[str, Any]  # item id -> this student's item
    classmates: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # other student id -> their items


def judge_with_numbers(check: Check, calls: Sequence[Call], outcomes: Sequence[Outcome],
                       numbers: StudentNumbers | None) -> tuple[Verdict, list[dict]]:
    """The verdict of ``check`` on the student's own numbers, and a flag when the answer is a classmate's.

    Without ``numbers`` (or for a check of no item) this is :func:`~.core.judge_outcomes` on the lesson's
    numbers, unchanged.
    """
    if check.item is None or numbers is None:
        return judge_outcomes(check, calls, outcomes), []
    if check.item not in numbers.items:
        # the coordinator derives every student's items before grading: a missing one is the grader's fault
        raise KeyError(f"no {check.item} numbers for student {numbers.student_id!r}")
    verdict = judge_outcomes(check, calls, outcomes, numbers.items)
    named = verdict.misconception != "wrong_values"
    if verdict.passed or (named and check.task not in BOTH_SAID.get(check.item, ())):
        return verdict, []  # right, badly formed, or a named mistake where coincidences are common: it stands

    def fits(item) -> bool:
        return judge_outcomes(check, calls, outcomes, {check.item: item}).passed

    lesson = LESSON[check.item]
    if lesson != numbers.items[check.item] and fits(lesson):  # (a badly formed answer fits no numbers)
        # The lesson's answers, which the notebook prints, typed in. A mistake on the student's own numbers
        # may land on the same numbers by chance (dividing by sqrt(3) did, for one test student): then both
        # are said, since these numbers alone cannot tell which it was.
        also = f" (they are also what this mistake on your own numbers would give: {verdict.message})" if named else ""
        return replace(verdict, message="these are the answers for the lesson's worked example; this question is "
                                        "asked about your own numbers (printed in your notebook): work it again on "
                                        f"those{also}.", misconception="variants.lesson_numbers"), []
    if named:
        return verdict, []
    if check.task not in IDENTIFYING.get(check.item, ()):
        return verdict, []
    owners = sorted(sid for sid, theirs in numbers.classmates.items()
                    if sid != numbers.student_id and check.item in theirs
                    and theirs[check.item] != numbers.items[check.item] and fits(theirs[check.item]))
    if not owners:
        return verdict, []
    named = ", ".join(owners[:MAX_NAMED]) + (f" and {len(owners) - MAX_NAMED} more" if len(owners) > MAX_NAMED else "")
    flag = {"kind": "another student's numbers", "rule": "variants", "grade_id": check.grade_id, "line": None,
            "cell": None,
            "evidence": f"{check.grade_id}: the answer is wrong on {numbers.student_id}'s own numbers and right on "
                        f"the numbers of {named} (per-student item {check.item})",
            "advice": "this answer fits another student's numbers, not yours; the question is graded on your own "
                      "numbers (printed in your notebook)"}
    return replace(verdict, message="these answers are not computed from your own numbers (printed in your "
                                    "notebook): work the question on those.",
                   misconception="variants.others_numbers"), [flag]
