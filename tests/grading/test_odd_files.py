"""Odd and broken files beside honest controls: each is recorded with its reason, nobody else is touched.

The cases the red team and the "every submission recorded" issue found: a ``timestamp.txt``
that is not a date (it crashed the batch's commit, every run), one that is not UTF-8, a notebook
larger than ``grading.max_submission_mb``, JSON nested 20,000 deep and an integer of 5,000
digits (they raised past the JSON error handler: "grader error" forever); notebooks stripped of
their nbgrader metadata; a solution that kills its own kernel (the student's fault) and a kernel
that never starts (the grader's: reported, never recorded).
"""
from __future__ import annotations

import json

import pytest
from nbclient.util import run_sync

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT, COURSE_YML
from autograder.grading.timing import TimedExecute

from .conftest import copy_course, grades

pytestmark = pytest.mark.slow

ODD = {
    "deep": b'{"cells": [], "metadata": {"x": ' + b"[" * 20_000 + b"]" * 20_000 + b'}, "nbformat": 4}',
    "bigint": b'{"cells": [], "metadata": {"x": ' + b"7" * 5000 + b'}, "nbformat": 4, "nbformat_minor": 5}',
    "huge": None,  # the complete answer padded past the size limit
}
STAMPS = {"badstamp": b"the night before the deadline", "bytestamp": b"\xff\xfe2024"}


def _no_kernel_for(student: str):
    """TimedExecute's kernel start, failing as a kernel that dies before it is ready, for ``student`` only."""
    real = TimedExecute.async_start_new_kernel_client

    async def start(self):
        if f"/{student}/" in str(self.resources.get("metadata", {}).get("path")):
            raise RuntimeError("Kernel died before replying to kernel_info")
        return await real(self)
    return start


def _stripped_and_broken(root, complete: bytes) -> None:
    """Stripped metadata (by order; unmatched; hostile) and a solution that kills its own kernel."""
    def write(sid, nb):
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(nb))

    def strip(nb, ids):
        for cell in nb["cells"]:
            cell["metadata"].pop("nbgrader", None)
            if not ids:
                cell.pop("id", None)
        return nb

    write("z_noids", strip(json.loads(complete), ids=False))
    nb = strip(json.loads(complete), ids=False)
    nb["cells"].insert(1, {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [],
                           "execution_count": None})
    write("z_unmatched", nb)
    nb = json.loads(complete)  # a wrong answer; the test cells made harmless before stripping
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            cell["source"] = "def square(x):\n    return x + x"
        elif meta.get("grade"):
            cell["source"] = "pass"
    write("z_hostile", strip(nb, ids=True))
    nb = json.loads(complete)
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution") and cell["cell_type"] == "code":
            cell["source"] = "import os\nos._exit(3)"
    write("z_exit", nb)
    nb = json.loads(complete)  # a test cell made an unlocked answer worth 100 points, its test replaced
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "square_hidden":
            cell["metadata"]["nbgrader"].update(solution=True, locked=False, points=100)
            cell["source"] = "pass"
    write("z_flip", nb)
    write("z_nokernel", json.loads(complete))


@pytest.fixture(scope="module")
def odd_class(generated_course, tmp_path_factory):
    root = copy_course(generated_course, tmp_path_factory.mktemp("odd") / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", "grading:\n  max_submission_mb: 0.05\n"))
    complete = (root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes()
    for sid, data in ODD.items():
        if data is None:
            nb = json.loads(complete)
            nb["cells"].append({"cell_type": "markdown", "id": "pad", "metadata": {}, "source": "x" * 100_000})
            data = json.dumps(nb).encode()
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
    nb = json.loads(complete)  # the solution cell copied above itself, the copy wrong: the last one wins
    solution = next(i for i, c in enumerate(nb["cells"]) if c.get("metadata", {}).get("nbgrader", {}).get("solution")
                    and c["cell_type"] == "code")
    copy = json.loads(json.dumps(nb["cells"][solution]))
    copy["id"], copy["source"] = "my-first-try", "def square(x):\n    return x + x"
    nb["cells"].insert(solution, copy)
    path = root / "submitted" / "duplicated" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb))
    nb = json.loads(complete)  # every test cell deleted / blanked / moved to the end
    tests = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")
             and not c["metadata"]["nbgrader"].get("solution")]
    variants = {"no_tests": [c for c in nb["cells"] if c not in tests],
                "blank_tests": [dict(c, source="") if c in tests else c for c in nb["cells"]],
                "tests_last": [c for c in nb["cells"] if c not in tests] + tests}
    for sid, cells in variants.items():
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(dict(nb, cells=cells)))
    _stripped_and_broken(root, complete)
    for sid, stamp in STAMPS.items():
        path = root / "submitted" / sid / ASSIGNMENT
        path.mkdir(parents=True)
        (path / f"{ASSIGNMENT}.ipynb").write_bytes(complete)
        (path / "timestamp.txt").write_bytes(stamp)
    with pytest.MonkeyPatch.context() as mp:  # workers fork after this: z_nokernel's kernel never starts
        start = _no_kernel_for("z_nokernel")
        mp.setattr(TimedExecute, "async_start_new_kernel_client", start)
        mp.setattr(TimedExecute, "start_new_kernel_client", run_sync(start))  # what nbconvert's preprocess calls
        summary = api.grade(root, workers=2, progress=False, verify=False)
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    return root, summary, subs


STRIPPED = {"z_noids", "z_unmatched", "z_hostile", "z_exit", "z_flip"}
#: The odd files that are not an honest notebook: each must carry a flag naming its rule (issue 25).
ODD_CASES = set(ODD) | set(STAMPS) | STRIPPED


def _kinds(sub) -> set[tuple[str, str]]:
    return {(f["kind"], f.get("rule")) for f in sub["flags"] if f.get("rule") and f.get("evidence")}


def test_only_the_grader_s_fault_is_a_grader_error_and_everyone_else_is_recorded(odd_class, generated_course):
    """Issue 13: the kernel that never starts (z_nokernel) is the grader's fault: tried again, then reported,
    never recorded as a 0; everyone else, honest or broken, is recorded."""
    root, summary, subs = odd_class
    assert len(summary.errors) == 1, summary.errors
    error = str(summary.errors[0])
    assert "/z_nokernel/" in error and "kernel start (3 tries)" in error
    assert "Kernel died before replying to kernel_info" in error
    honest = {p.parent.parent.name for p in (generated_course / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb")}
    assert set(subs) == honest | set(ODD) | set(STAMPS) | STRIPPED | {"duplicated", "no_tests", "blank_tests",
                                                                      "tests_last"}
    assert {s for s, _ in grades(root)} == set(subs)  # in the gradebook too; z_nokernel in neither


def test_the_controls_are_graded_as_stock_nbgrader_grades_them(odd_class, stock_graded):
    root, _, _ = odd_class
    stock = grades(stock_graded)
    assert {k: v for k, v in grades(root).items() if k[0] in {s for s, _ in stock}} == stock


def test_stripped_metadata_matched_by_order_is_graded(odd_class):
    _, _, subs = odd_class
    assert subs["z_noids"]["status"] == "graded", subs["z_noids"]["reason"]
    assert subs["z_noids"]["cells"] == subs["s00"]["cells"]
    assert _kinds(subs["z_noids"]) == {("restored metadata", "nbgrader metadata")}


def test_stripped_metadata_that_cannot_be_matched_fails_with_what_to_do(odd_class):
    _, _, subs = odd_class
    sub = subs["z_unmatched"]
    assert sub["status"] == "failed" and sub["score"] == 0.0
    assert "metadata was removed" in sub["reason"] and "download the released notebook again" in sub["reason"]
    assert _kinds(sub) == {("not graded", "nbgrader metadata")}


def test_stripping_metadata_does_not_turn_a_test_into_an_answer(odd_class):
    """Hostile: the tests were replaced by ``pass`` before the metadata was stripped: the release's
    metadata makes them tests again, nbgrader puts their source back, and the wrong answer scores as
    the wrong answer (s02) does."""
    _, _, subs = odd_class
    assert subs["z_hostile"]["status"] == "graded", subs["z_hostile"]["reason"]
    assert [(c["grade_id"], c["score"], c["max_score"]) for c in subs["z_hostile"]["cells"]] == \
        [(c["grade_id"], c["score"], c["max_score"]) for c in subs["s02"]["cells"]]
    assert subs["z_hostile"]["score"] == 1.0
    assert _kinds(subs["z_hostile"]) == {("restored metadata", "nbgrader metadata")}  # issue 25: said, not silent


def test_a_test_cell_turned_into_an_answer_is_a_test_again(odd_class):
    """Hostile: the release's metadata wins (stock nbgrader failed the notebook on "Inconsistent checksums"):
    the hidden test runs as released and the points are the release's."""
    _, _, subs = odd_class
    assert subs["z_flip"]["status"] == "graded", subs["z_flip"]["reason"]
    assert subs["z_flip"]["cells"] == subs["s00"]["cells"] and subs["z_flip"]["max_score"] == subs["s00"]["max_score"]


def test_code_that_kills_its_own_kernel_is_the_student_s_fault(odd_class):
    _, _, subs = odd_class
    sub = subs["z_exit"]
    assert sub["status"] == "failed" and sub["score"] == 0.0
    assert "kernel died or stopped answering while your code ran" in sub["reason"]
    assert _kinds(sub) == {("not graded", "kernel died")}


def test_an_unreadable_timestamp_is_flagged_and_graded_on_time(odd_class):
    _, _, subs = odd_class
    complete = subs["s00"]
    for sid in STAMPS:
        sub = subs[sid]
        assert sub["status"] == "graded" and sub["score"] == complete["score"] > 0
        flag = next(f for f in sub["flags"] if f["kind"] == "timestamp unreadable")
        assert "timestamp.txt is not a date" in flag["evidence"] and "on time" in flag["evidence"]
        assert not sub.get("late_penalty")


@pytest.mark.parametrize("sid, reason", [("deep", "nested too deeply"), ("bigint", "cannot be read"),
                                         ("huge", "max_submission_mb")])
def test_a_broken_file_is_recorded_as_failed_with_its_reason(odd_class, sid, reason):
    _, _, subs = odd_class
    assert subs[sid]["status"] == "failed" and reason in subs[sid]["reason"]
    assert subs[sid]["score"] == 0.0
    flag = next(f for f in subs[sid]["flags"] if f["kind"] == "not graded")  # issue 25: the rule and what to do
    assert flag["rule"] == ("grading.max_submission_mb" if sid == "huge" else "invalid notebook")
    assert flag["advice"].startswith(subs[sid]["reason"].rstrip(". "))


def test_every_odd_file_carries_a_named_flag(odd_class):
    """Issue 25: before, deep, bigint, huge, z_unmatched, z_exit (failed with a reason, no flag) and z_hostile, z_flip
    and z_noids (graded on the release's metadata, silently) carried none; the honest controls still carry none."""
    _, _, subs = odd_class
    assert sorted(sid for sid in ODD_CASES if not _kinds(subs[sid])) == []
    assert all(subs[sid]["flags"] == [] for sid in subs if sid.startswith("s0"))


def test_a_duplicated_solution_cell_is_graded_like_run_all(odd_class):
    """Issue 13 (4): nbgrader refused two cells with one grade_id ("nbgrader update ."), a 0; the last wins."""
    _, _, subs = odd_class
    assert subs["duplicated"]["status"] == "graded", subs["duplicated"]["reason"]
    assert subs["duplicated"]["score"] == subs["s00"]["score"] > 0


@pytest.mark.parametrize("sid", ["no_tests", "blank_tests", "tests_last"])
def test_deleted_blanked_or_moved_test_cells_do_not_matter(odd_class, sid):
    """Issue 13 (4): deleting the test placeholders failed the notebook as "metadata stripped"."""
    _, _, subs = odd_class
    assert subs[sid]["status"] == "graded", subs[sid]["reason"]
    auto = {c["grade_id"]: c["score"] for c in subs[sid]["cells"] if not c.get("manual")}
    assert auto == {c["grade_id"]: c["score"] for c in subs["s00"]["cells"] if not c.get("manual")}


def test_with_unreadable_timestamp_late_the_job_is_stamped_now_and_flagged(generated_course, tmp_path):
    """``grading.unreadable_timestamp: late``: a submission whose timestamp.txt is not a date is graded as
    submitted when it is graded (so a late policy applies), and the job carries the reason for the flag."""
    import datetime as dt

    from autograder.config import load_course
    from autograder.grading import pipeline

    root = copy_course(generated_course, tmp_path / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", "grading:\n  unreadable_timestamp: late\n"))
    course = load_course(root)
    sub = pipeline.find_submissions(course, root / "submitted", [ASSIGNMENT])[0]
    (sub.path.parent / "timestamp.txt").write_bytes(STAMPS["badstamp"])
    before = dt.datetime.now(dt.timezone.utc)
    job = pipeline._job(course, sub, 1, False, False, False)
    assert before <= dt.datetime.fromisoformat(job.timestamp) <= dt.datetime.now(dt.timezone.utc)
    assert "timestamp.txt is not a date" in job.timestamp_problem
    on_time = pipeline._job(load_course(generated_course), sub, 1, False, False, False)  # the default: on time
    assert on_time.timestamp is None and on_time.timestamp_problem == job.timestamp_problem
