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
#: Submissions a persistent grader fault left unrecorded (``faults.Unrecorded``), until they are recorded.
UNRECORDED_FILE = ".not-recorded.json"


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
        self.unrecorded: dict[tuple[str, str, str], dict] = {}
        try:
            self.unrecorded = {key(r): r for r in json.loads(self.unrecorded_path.read_text(encoding="utf-8"))}
        except (OSError, ValueError, TypeError, KeyError):
            pass  # none yet, or a file a killed run was writing: the next run reports its own

    @property
    def unrecorded_path(self) -> Path:
        return self.path.with_name(UNRECORDED_FILE)

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
        if any(key(r) in self.unrecorded for r in records):
            self.note_unrecorded([], {key(r) for r in records})

    def note_unrecorded(self, errors: list[dict], settled: set[tuple[str, str, str]]) -> None:
        """Keep ``errors`` (``faults.Unrecorded.record()``), forgetting those of the submissions in ``settled``
        (recorded since, gone from the submissions folder, or graded again in this run)."""
        kept = {k: r for k, r in self.unrecorded.items() if k not in settled}
        kept.update({key(r): r for r in errors})
        if kept == self.unrecorded:
            return
        self.unrecorded = kept
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.unrecorded_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(sorted(kept.values(), key=key), indent=1), encoding="utf-8")
        os.replace(tmp, self.unrecorded_path)
