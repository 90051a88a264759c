"""What has been graded: an append-only log that makes a run resumable.

Each line of ``reports/.grading-state.jsonl`` is one submission's complete results.json record,
appended and flushed to disk right after its batch of grades was committed to the gradebook. A killed
run therefore loses at most the submissions in flight; a re-run reads the log (the last record
of a submission wins, a torn last line is ignored) and grades only what is missing or changed.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

STATE_FILE = ".grading-state.jsonl"


def key(record: dict) -> tuple[str, str, str]:
    """A submission's identity: (student_id, assignment_id, notebook_id)."""
    return record["student_id"], record["assignment_id"], record["notebook_id"]


class GradingState:
    """The grading log of one course (see the module docstring)."""

    def __init__(self, reports_dir: str | Path):
        self.path = Path(reports_dir) / STATE_FILE
        self.records: dict[tuple[str, str, str], dict] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the line a killed run was writing
                self.records[key(record)] = record

    def is_current(self, student_id: str, assignment_id: str, notebook_id: str, sha256: str) -> bool:
        """Whether this exact submission (same bytes) has already been graded and recorded."""
        record = self.records.get((student_id, assignment_id, notebook_id))
        return record is not None and record["sha256"] == sha256

    def append(self, records: list[dict]) -> None:
        """Record graded submissions durably (one write and one fsync for all of them)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(record, sort_keys=True) + "\n" for record in records))
            fh.flush()
            os.fsync(fh.fileno())
        for record in records:
            self.records[key(record)] = record
