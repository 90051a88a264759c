"""Item analysis: how hard each hidden check and concept item is, and whether it tells strong from weak.

For every auto-graded cell (a hidden check, a concept item) of an assignment, over the graded
submissions of that assignment:

* **difficulty** ``p``: the share of submissions that passed it (1.0: everyone did);
* **discrimination** ``r``: the point-biserial correlation between passing it and the rest of the
  student's score on the assignment (the score without this cell's points, so an item does not
  correlate with itself). Near 0, the check does not separate students who understood the
  assignment from those who did not; below 0, the stronger students fail it more often: a check
  worth reading again. Undefined (``None``) when everyone or no one passed, or the rest of the
  score does not vary;
* the misconceptions its failures were diagnosed as, most frequent first;
* ``own_numbers``: the check judges a per-student item (issue 22, ``Check.item``), so "passing"
  counts the students who got *their own* item right (each verdict is judged on the numbers, table or
  option order of the student's folder), never agreement with one shared answer: the report shows it
  as a count, ``passed`` of ``submissions`` right on their own.

:func:`look_at` lists the checks with ``r`` below :data:`LOOK_AT` first, the way an instructor
should read them. ``results.json`` carries the rows (``item_analysis``), and the class report
shows them with a difficulty-against-discrimination plot per assignment.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field

#: A discrimination below this is "look at this check" (0.1: a usual rule of thumb for classroom items).
LOOK_AT = 0.1
#: Fewer graded submissions than this and the correlation means little: it is left undefined.
MIN_SUBMISSIONS = 5


@dataclass
class ItemRow:
    """One auto-graded cell of one assignment across the class."""

    assignment: str
    grade_id: str
    task: str | None
    points: float
    submissions: int
    difficulty: float | None
    discrimination: float | None
    misconceptions: list[tuple[str, int]] = field(default_factory=list)
    own_numbers: bool = False  # a per-student item's check: passing = right on one's own numbers
    passed: int = 0  # how many submissions passed it (for an own_numbers check: right on their own item)

    def record(self) -> dict:
        """The row as results.json holds it."""
        row = asdict(self)
        row["misconceptions"] = [{"id": m, "count": n} for m, n in self.misconceptions]
        return row


def point_biserial(passed: list[bool], rest: list[float]) -> float | None:
    """Pearson's correlation of a 0/1 item with the rest score (``None`` if either does not vary)."""
    n = len(passed)
    if n < MIN_SUBMISSIONS:
        return None
    p = sum(passed) / n
    mean = sum(rest) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in rest) / n)
    if p in (0.0, 1.0) or sd == 0:
        return None
    mean_pass = sum(x for x, ok in zip(rest, passed) if ok) / sum(passed)
    mean_fail = sum(x for x, ok in zip(rest, passed) if not ok) / (n - sum(passed))
    return (mean_pass - mean_fail) / sd * math.sqrt(p * (1 - p))


def _auto_cells(sub: dict) -> list[dict]:
    return [c for c in sub.get("cells", []) if not c.get("manual")]


def item_analysis(submissions: list[dict]) -> list[ItemRow]:
    """The rows of every auto-graded cell, in assignment order then the notebook's cell order.

    Only graded submissions count (a file that could not be read has no answers to analyse); a
    cell's score is its verified auto score, so a hand grade never moves a check's statistics.
    """
    by_assignment: dict[str, list[dict]] = defaultdict(list)
    for sub in submissions:
        if sub.get("status") == "graded":
            by_assignment[sub["assignment_id"]].append(sub)
    rows = []
    for assignment, subs in by_assignment.items():
        own = _own_numbers_checks(assignment)
        order: dict[str, dict] = {}
        for sub in subs:
            for cell in _auto_cells(sub):
                order.setdefault(cell["grade_id"], cell)
        cells = [{c["grade_id"]: c for c in _auto_cells(s)} for s in subs]
        totals = [sum(float(c.get("score") or 0) for c in by_id.values()) for by_id in cells]
        for grade_id, first in order.items():
            passed, rest, seen = [], [], Counter()
            for by_id, total in zip(cells, totals):
                cell = by_id.get(grade_id)
                if cell is None:
                    continue
                ok = float(cell.get("score") or 0) >= float(cell.get("max_score") or 0) > 0
                passed.append(ok)
                rest.append(total - float(cell.get("score") or 0))
                if not ok and cell.get("misconception"):
                    seen[cell["misconception"]] += 1
            rows.append(ItemRow(
                assignment, grade_id, first.get("task"), float(first.get("max_score") or 0), len(passed),
                sum(passed) / len(passed) if passed else None, point_biserial(passed, rest), seen.most_common(),
                grade_id in own, sum(passed)))
    return rows


def _own_numbers_checks(assignment: str) -> set[str]:
    """The grade ids of ``assignment``'s checks of a per-student item (none for an assignment without checks)."""
    from ..checks import TASKS, checks_for_assignment

    return {c.grade_id for c in checks_for_assignment(assignment) if c.item} if assignment in TASKS else set()


def look_at(rows: list[ItemRow]) -> list[ItemRow]:
    """The checks to read again: discrimination below :data:`LOOK_AT`, the most negative first."""
    return sorted((r for r in rows if r.discrimination is not None and r.discrimination < LOOK_AT),
                  key=lambda r: r.discrimination)
