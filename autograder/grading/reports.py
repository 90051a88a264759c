"""``reports/grades.csv`` and ``reports/results.json`` (format in docs/ARCHITECTURE.md).

Both are written from the grading log (what ``autograder grade`` recorded) overlaid with the
gradebook (:mod:`.handgrades`: hand grades, overrides, comments, late penalties), so they agree
with ``nbgrader export`` and formgrader; :func:`refresh_reports` rewrites them after hand grading
(``autograder report`` and ``autograder feedback`` call it).
"""
from __future__ import annotations

import csv
import datetime as dt
import json
import os
from pathlib import Path

from ..config import Course, load_course
from ..report.items import item_analysis
from .handgrades import overlay_all
from .nbconfig import absolute_db_url
from .state import GradingState, key


def result_record(result, late_penalty: float | None = None) -> dict:
    """The results.json record of one graded (or failed) submission."""
    return {
        "student_id": result.student_id, "assignment_id": result.assignment_id,
        "notebook_id": result.notebook_id, "status": result.status, "reason": result.reason,
        "sha256": result.sha256, "verified": result.verified,
        "score": round(sum(c["score"] for c in result.cells), 6),
        "max_score": round(sum(c["max_score"] for c in result.cells), 6),
        "late_penalty": late_penalty, "cells": result.cells, "flags": result.flags,
    }


def _atomic_write(path: Path, text: str) -> None:
    # Write then rename, so a reader (or a killed run) never sees half a report.
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _roster(course: Course, course_dir: Path) -> list[str]:
    if not course.roster:
        return []
    with open(course_dir / course.roster, newline="", encoding="utf-8") as fh:
        return [row["student_id"] for row in csv.DictReader(fh)]


def spreadsheet_safe(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that begins with ``= + - @``, a tab or a carriage
    return (a formula, ``=HYPERLINK(...)``) gets a leading apostrophe, as OWASP's CSV-injection advice says."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def write_reports(course: Course, course_dir: str | Path, records: list[dict],
                  gradebook: bool = True, unrecorded: list[dict] = ()) -> tuple[Path, Path]:
    """Write grades.csv and results.json from every recorded submission.

    The CSV has one row per student (roster students without a submission included), one
    column per assignment (the gradebook's score minus its late penalty, summed over the
    assignment's notebooks: what ``nbgrader export`` calls ``score``), left **blank** when the
    student submitted nothing for it; ``total`` (the non-bonus assignments, a missing one
    counting 0; bonus points stay in their own column), ``not_submitted`` (the assignments, bonus
    ones included, with no submission), ``needs_manual_grading`` (cells waiting for a hand
    grade) and ``flags``.

    Parameters
    ----------
    gradebook : bool
        Overlay the gradebook's hand grades, comments and penalties (False: the records as they are).
    unrecorded : list of dict
        Submissions a persistent grader fault left unrecorded (``faults.Unrecorded.record()``):
        results.json lists them under ``not_recorded``; in grades.csv their assignment is not
        "not submitted" and the student's row is flagged ``not graded (grader error)``.

    Returns
    -------
    (Path, Path)
        The paths of grades.csv and results.json.
    """
    return RunReports(course, course_dir, records, unrecorded, gradebook).write()


class RunReports:
    """The reports of one grading run, kept current after every batch at the batch's cost.

    The gradebook is read whole once, when the run starts; after each batch only the rows of the
    batch's submissions are read (:meth:`update`). The files are written from the overlaid records
    kept here: byte for byte what :func:`write_reports` writes from the same log and gradebook
    (``tests/grading/test_batches.py``). A hand grade given in formgrader during the run, on a
    submission the run does not regrade, shows in the full rewrite at the run's end.
    """

    def __init__(self, course: Course, course_dir: str | Path, records, unrecorded=(), gradebook: bool = True):
        self.course, self.course_dir, self.gradebook = course, Path(course_dir), gradebook
        self._url = absolute_db_url(course.grading.db_url, self.course_dir)
        records = list(records)
        self.records = {key(r): r for r in (overlay_all(records, self._url, course.course_id) if gradebook
                                            else records)}
        self.unrecorded = list(unrecorded)
        self._json: dict[tuple, str] = {}  # each record's lines of results.json (a record is dumped once)

    def update(self, records: list[dict], unrecorded) -> tuple[Path, Path]:
        """Take the batch's ``records`` (overlaid with their own gradebook rows) and ``unrecorded``; write."""
        # as the grading log holds them (GradingState.append: sorted keys), which is what a full rewrite reads
        records = [json.loads(json.dumps(r, sort_keys=True)) for r in records]
        if self.gradebook:
            records = overlay_all(records, self._url, self.course.course_id, part=True)
        for r in records:
            self.records[key(r)] = r
            self._json.pop(key(r), None)
        self.unrecorded = list(unrecorded)
        return self.write()

    def write(self) -> tuple[Path, Path]:
        """Write grades.csv and results.json from the records as they are here."""
        out = self.course_dir / "reports"
        out.mkdir(parents=True, exist_ok=True)
        ordered = [self.records[k] for k in sorted(self.records)]
        _atomic_write(out / "results.json", self._results_json(ordered))
        path = out / "grades.csv"
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            ids = [a.id for a in self.course.assignments]
            writer.writerow(["student_id", *ids, "total", "not_submitted", "needs_manual_grading", "flags"])
            for row in grade_rows(self.course, self.course_dir, ordered, self.unrecorded):
                writer.writerow([spreadsheet_safe(row["student_id"]),
                                 *("" if row[a] is None else f"{row[a]:g}" for a in ids), f"{row['total']:g}",
                                 " ".join(row["not_submitted"]), row["needs_manual_grading"],
                                 spreadsheet_safe("; ".join(row["flags"]))])
        os.replace(tmp, path)
        return path, out / "results.json"

    def _results_json(self, ordered: list[dict]) -> str:
        """``json.dumps(report, indent=1)``, with each record's text kept from the batch that changed it."""
        head = json.dumps({
            "course_id": self.course.course_id, "generated_at": dt.datetime.now(dt.timezone.utc).isoformat(),
            "seed_policy": "fresh per run", "missing_policy": MISSING_POLICY, "submissions": [],
            "item_analysis": [row.record() for row in item_analysis(ordered)],
            "not_recorded": sorted(self.unrecorded, key=key)}, indent=1)
        if not ordered:
            return head
        for r in ordered:
            if key(r) not in self._json:  # at depth 2 of the report: its lines indented two more
                self._json[key(r)] = "  " + json.dumps(r, indent=1).replace("\n", "\n  ")
        marker = '"submissions": []'
        return head.replace(marker, '"submissions": [\n' + ",\n".join(self._json[key(r)] for r in ordered)
                            + "\n ]", 1)


def net_score(record: dict) -> float:
    """A submission's score after its late penalty, never below 0 (``nbgrader export``'s ``score``)."""
    return max(0.0, float(record.get("score") or 0.0) - float(record.get("late_penalty") or 0.0))


#: How totals treat an assignment a student did not submit (results.json says it too).
MISSING_POLICY = "an assignment not submitted is blank in its column and counts 0 in the total"


def grade_rows(course: Course, course_dir: str | Path, records: list[dict], unrecorded: list[dict] = ()) -> list[dict]:
    """One row per student: ``{student_id, <assignment>: score or None, total, not_submitted,
    needs_manual_grading, flags}`` (``None``: nothing recorded; see :data:`MISSING_POLICY`). A
    submission in ``unrecorded`` (see :func:`write_reports`) is flagged, never "not submitted"."""
    ids = [a.id for a in course.assignments]
    bonus = {a.id for a in course.assignments if a.bonus}
    students = sorted(set(_roster(course, Path(course_dir))) | {r["student_id"] for r in [*records, *unrecorded]})
    rows = {s: {"student_id": s, **{a: None for a in ids}, "needs_manual_grading": 0, "flags": []} for s in students}
    for r in records:
        row = rows[r["student_id"]]
        if r["assignment_id"] in ids:
            row[r["assignment_id"]] = (row[r["assignment_id"]] or 0.0) + net_score(r)
        row["needs_manual_grading"] += int(r.get("needs_manual_grading") or 0)
        for f in r["flags"]:
            rule = f" ({f['rule']})" if f.get("rule") else ""
            # A failed submission's "not graded" flag carries its reason: one entry, not two.
            why = f" ({r['reason']})" if r["status"] == "failed" and f["kind"] == "not graded" else ""
            row["flags"].append(f"{f['kind']}{rule}: {r['assignment_id']}/{f.get('grade_id') or f.get('cell') or '-'}{why}")
        if r["status"] == "failed" and not any(f["kind"] == "not graded" for f in r["flags"]):
            row["flags"].append(f"failed: {r['assignment_id']} ({r['reason']})")
    submitted = {(r["student_id"], r["assignment_id"]) for r in unrecorded}
    for r in unrecorded:
        rows[r["student_id"]]["flags"].append(f"not graded (grader error): {r['assignment_id']} ({r['cause']}; "
                                              f"run `autograder grade` again)")
    for row in rows.values():
        row["total"] = sum(row[a] or 0.0 for a in ids if a not in bonus)
        row["not_submitted"] = [a for a in ids if row[a] is None and (row["student_id"], a) not in submitted]
    return list(rows.values())


def refresh_reports(course_dir: str | Path = ".") -> tuple[Path, Path] | None:
    """Rewrite grades.csv and results.json from the grading log and the gradebook as they are now.

    What formgrader changed since ``autograder grade`` (hand grades, comments) then shows in
    every output. Returns None (and writes nothing) where the course has no grading log.
    """
    course_dir = Path(course_dir)
    state = GradingState(course_dir / "reports")
    if not state.path.exists():
        return None
    return write_reports(load_course(course_dir), course_dir, list(state.records.values()),
                         unrecorded=list(state.unrecorded.values()))
