"""``reports/grades.csv`` and ``reports/results.json`` (format in docs/ARCHITECTURE.md)."""
from __future__ import annotations

import csv
import datetime as dt
import json
import os
from pathlib import Path

from ..config import Course


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


def write_reports(course: Course, course_dir: str | Path, records: list[dict]) -> tuple[Path, Path]:
    """Write grades.csv and results.json from every recorded submission.

    The CSV has one row per student (roster students without a submission included), one
    column per assignment (score minus late penalty, summed over its notebooks), ``total`` (the
    non-bonus assignments; bonus points stay in their own column) and ``flags``.

    Returns
    -------
    (Path, Path)
        The paths of grades.csv and results.json.
    """
    course_dir = Path(course_dir)
    out = course_dir / "reports"
    out.mkdir(parents=True, exist_ok=True)
    records = sorted(records, key=lambda r: (r["student_id"], r["assignment_id"], r["notebook_id"]))
    _atomic_write(out / "results.json", json.dumps({
        "course_id": course.course_id, "generated_at": dt.datetime.now(dt.timezone.utc).isoformat(),
        "seed_policy": "fresh per run", "submissions": records}, indent=1))

    ids = [a.id for a in course.assignments]
    bonus = {a.id for a in course.assignments if a.bonus}
    students = sorted(set(_roster(course, course_dir)) | {r["student_id"] for r in records})
    rows = {s: {"student_id": s, **{a: 0.0 for a in ids}, "flags": []} for s in students}
    for r in records:
        if r["assignment_id"] in rows[r["student_id"]]:
            rows[r["student_id"]][r["assignment_id"]] += r["score"] - (r.get("late_penalty") or 0.0)
        for f in r["flags"]:
            rows[r["student_id"]]["flags"].append(f"{f['kind']}: {r['assignment_id']}/{f.get('grade_id') or '-'}")
        if r["status"] == "failed":
            rows[r["student_id"]]["flags"].append(f"failed: {r['assignment_id']} ({r['reason']})")
    path = out / "grades.csv"
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student_id", *ids, "total", "flags"])
        for s, row in rows.items():
            total = sum(row[a] for a in ids if a not in bonus)
            writer.writerow([spreadsheet_safe(s), *(f"{row[a]:g}" for a in ids), f"{total:g}",
                             spreadsheet_safe("; ".join(row["flags"]))])
    os.replace(tmp, path)
    return path, out / "results.json"
