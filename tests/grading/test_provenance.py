"""Who submitted a collected notebook (grading/provenance.py), without users: the record and the refusal.

The same, end to end with real accounts and stock nbgrader, is tests/grading/test_between_users.py.
"""
from __future__ import annotations

import hashlib
import json
import os
import pwd
from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.grading import explain, faults, pipeline, provenance
from autograder.grading.minicourse import ASSIGNMENT, make_course

NB = f"{ASSIGNMENT}.ipynb"
ME = pwd.getpwuid(os.geteuid()).pw_name


def _record(tmp_path: Path, student: str, data: bytes = b'{"cells": []}') -> tuple[dict, Path]:
    inbound = tmp_path / "inbound" / f"{student}+{ASSIGNMENT}+2027-01-01 00:00:00.000000 UTC+abcdefghijkl"
    copied = tmp_path / "submitted" / student / ASSIGNMENT
    for d in (inbound, copied):
        d.mkdir(parents=True)
        (d / NB).write_bytes(data)
        (d / "timestamp.txt").write_text("2027-01-01 00:00:00.000000 UTC")
    return provenance.record_of(inbound, copied, student, ASSIGNMENT), inbound


def test_the_record_names_the_owner_of_every_file_and_of_the_folder(tmp_path):
    record, _ = _record(tmp_path, "alice")
    assert record["owner"] == ME and {f["owner"] for f in record["files"].values()} == {ME}
    assert record["files"][NB]["sha256"] == hashlib.sha256(b'{"cells": []}').hexdigest()


def test_a_file_changed_while_it_was_copied_has_no_known_owner(tmp_path):
    inbound = tmp_path / "in"
    copied = tmp_path / "out"
    for d, data in ((inbound, b"theirs"), (copied, b"what was copied")):
        d.mkdir()
        (d / NB).write_bytes(data)
    assert provenance.record_of(inbound, copied, "bob", ASSIGNMENT)["files"][NB]["owner"] == provenance.UNKNOWN


def test_refusal_only_where_the_record_names_another_account(tmp_path):
    data = b'{"cells": []}'
    record, _ = _record(tmp_path, "bob", data)
    log = {("bob", ASSIGNMENT): [record], (ME, ASSIGNMENT): [dict(record, student_id=ME)]}
    why = provenance.refusal(log, "bob", ASSIGNMENT, NB, data)
    assert why.startswith(provenance.REASON) and f"account(s) {ME}" in why and "bob's" in why
    assert provenance.refusal(log, ME, ASSIGNMENT, NB, data) is None  # written by the student it names
    assert provenance.refusal(log, "bob", ASSIGNMENT, NB, b"other bytes") is None  # not what was collected
    assert provenance.refusal({}, "bob", ASSIGNMENT, NB, data) is None  # never collected through the course
    flag = explain.failure_flag(faults.student("refused", why))
    assert flag["kind"] == "not graded" and flag["rule"] == "submitter" and ME not in flag["advice"]


@pytest.mark.parametrize("accounts", ["per-student", "shared"])
def test_shared_accounts_turn_the_refusal_off(tmp_path, accounts):
    course_dir = make_course(tmp_path / "course")
    (course_dir / "course.yml").write_text((course_dir / "course.yml").read_text()
                                           + f"exchange:\n  accounts: {accounts}\n")
    data = b'{"cells": []}'
    record, _ = _record(tmp_path, "bob", data)
    provenance.append(course_dir, record)
    (course_dir / "submitted" / "bob" / ASSIGNMENT).mkdir(parents=True)
    (course_dir / "submitted" / "bob" / ASSIGNMENT / NB).write_bytes(data)
    [sub] = pipeline.find_submissions(load_course(course_dir), course_dir / "submitted", [ASSIGNMENT],
                                      provenance.load(course_dir))
    assert (sub.refused is not None) == (accounts == "per-student")
    assert json.loads((course_dir / provenance.LOG).read_text())["student_id"] == "bob"
