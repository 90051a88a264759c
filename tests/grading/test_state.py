"""The grading state: the log of recorded submissions and the list of those a grader fault left unrecorded."""
from __future__ import annotations

import json

from autograder.grading.state import GradingState


def _error(student, cause="worker died"):
    return {"student_id": student, "assignment_id": "a1", "notebook_id": "a1", "path": f"submitted/{student}/a1/a1.ipynb",
            "cause": cause, "message": "the worker process died", "attempts": 3}


def _record(student):
    return {"student_id": student, "assignment_id": "a1", "notebook_id": "a1", "sha256": "x", "status": "graded"}


def test_unrecorded_submissions_survive_a_new_run_until_recorded(tmp_path):
    state = GradingState(tmp_path)
    state.note_unrecorded([_error("s1"), _error("s2")], set())
    again = GradingState(tmp_path)  # the next run, or `autograder report` after hand grading
    assert sorted(k[0] for k in again.unrecorded) == ["s1", "s2"]
    again.append([_record("s1")])  # graded at last: no longer reported
    assert sorted(k[0] for k in GradingState(tmp_path).unrecorded) == ["s2"]


def test_a_run_replaces_what_it_settled_and_keeps_the_rest(tmp_path):
    state = GradingState(tmp_path)
    state.note_unrecorded([_error("s1"), _error("s2")], set())
    s2 = ("s2", "a1", "a1")
    state.note_unrecorded([_error("s1", cause="kernel start")], {("s1", "a1", "a1"), s2})  # s2 gone, s1 failed again
    saved = json.loads(state.unrecorded_path.read_text())
    assert [(e["student_id"], e["cause"]) for e in saved] == [("s1", "kernel start")]


def test_a_torn_file_is_read_as_empty(tmp_path):
    (tmp_path / ".not-recorded.json").write_text('[{"student_id": "s1", ')
    assert GradingState(tmp_path).unrecorded == {}
