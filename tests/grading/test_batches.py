"""The coordinator records results in batches, by count and by age, and keeps what arrived on Ctrl-C.

The jobs are replaced by a fake executor whose results are ready at once (the real path is
covered by test_pipeline and test_resume); the gradebook, the state log and the reports are real.
"""
from __future__ import annotations

import csv
import json
import re
import time
import sqlite3
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from autograder import api
from autograder.grading import executors, pipeline
from autograder.grading.faults import GraderFault
from autograder.grading.job import JobResult
from autograder.grading.minicourse import ASSIGNMENT
from autograder.grading.reports import RunReports, refresh_reports

from .conftest import N_STUDENTS, copy_course


class FakePool:
    """A LocalPool look-alike: every job's result is ready, handed back one per wait."""

    interrupt_at: int | None = None  # raise KeyboardInterrupt at this call of wait_any

    def __init__(self, bundles, workers=None, memory_mb=None):
        self.workers, self.waits = 1, 0

    def submit(self, assignment_id, job):
        future = Future()
        future.set_result(JobResult(job.student_id, assignment_id, job.notebook_id, job.sha256, "graded", None,
                                    [], {}, None))
        return future

    def wait_any(self, futures, timeout=None):
        self.waits += 1
        if self.waits == FakePool.interrupt_at:
            raise KeyboardInterrupt
        return {futures[0]}, set(futures[1:])

    def close(self, cancel=False):
        pass


@pytest.fixture
def course(generated_course, tmp_path, monkeypatch):
    monkeypatch.setattr(executors, "LocalPool", FakePool)
    FakePool.interrupt_at = None
    sizes = []
    real = pipeline.record_batch

    def spy(gb, course, items):
        sizes.append(len(items))
        return real(gb, course, items)

    monkeypatch.setattr(pipeline, "record_batch", spy)
    return copy_course(generated_course, tmp_path / "course"), sizes


def _recorded(root) -> tuple[int, int]:
    """(submissions in the gradebook, lines in the state log)."""
    con = sqlite3.connect(root / "gradebook.db")
    try:
        in_gradebook = con.execute("SELECT COUNT(*) FROM submitted_assignment").fetchone()[0]
    finally:
        con.close()
    log = root / "reports" / ".grading-state.jsonl"
    return in_gradebook, len(log.read_text().splitlines()) if log.exists() else 0


def test_full_batches_then_the_rest(course, monkeypatch):
    root, sizes = course
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 3)
    monkeypatch.setattr(pipeline, "BATCH_SECONDS", 3600.0)
    summary = api.grade(root, progress=False, verify=False)
    assert sizes == [3, N_STUDENTS - 3] and summary.graded == N_STUDENTS
    assert _recorded(root) == (N_STUDENTS, N_STUDENTS)


def test_no_result_waits_longer_than_batch_seconds(course, monkeypatch):
    root, sizes = course
    monkeypatch.setattr(pipeline, "BATCH_SECONDS", 0.0)
    api.grade(root, progress=False, verify=False)
    assert sizes == [1] * N_STUDENTS


def test_ctrl_c_keeps_what_has_arrived(course, monkeypatch):
    root, sizes = course
    FakePool.interrupt_at = 3  # two results have arrived, none recorded yet (the batch is not full)
    with pytest.raises(KeyboardInterrupt):
        api.grade(root, progress=False, verify=False)
    assert sizes == [2] and _recorded(root) == (2, 2)
    report = json.loads((root / "reports" / "results.json").read_text())
    assert len(report["submissions"]) == 2


def test_results_json_is_current_after_every_batch(course, monkeypatch):
    """Issue 13 (6): results.json was written only at the end of a run; now after each batch."""
    root, sizes = course
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 3)
    monkeypatch.setattr(pipeline, "BATCH_SECONDS", 3600.0)
    seen = []
    real = RunReports.write

    def spy(self):
        written = real(self)
        seen.append(len(json.loads(written[1].read_text())["submissions"]))
        return written

    monkeypatch.setattr(RunReports, "write", spy)
    api.grade(root, progress=False, verify=False)
    assert seen[:2] == [3, N_STUDENTS]  # one write per batch, each with everything recorded so far
    report = json.loads((root / "reports" / "results.json").read_text())
    assert len(report["submissions"]) == N_STUDENTS


class CellPool(FakePool):
    """A FakePool whose results score the mini notebook's cells (``square_two`` failed for every other student)."""

    def submit(self, assignment_id, job):
        future = Future()
        ok = int(job.student_id[1:]) % 2 == 0
        cells = [{"grade_id": "square_two", "max_score": 1.0, "score": float(ok), "nbgrader_score": float(ok),
                  "manual": False, "message": None if ok else "wrong"},
                 {"grade_id": "square_hidden", "max_score": 2.0, "score": 2.0, "nbgrader_score": 2.0,
                  "manual": False, "message": None},
                 {"grade_id": "why", "max_score": 1.0, "score": 0.0, "nbgrader_score": None, "manual": True,
                  "message": None}]
        future.set_result(JobResult(job.student_id, assignment_id, job.notebook_id, job.sha256, "graded", None,
                                    cells, {}, None))
        return future


def _without_time(data: bytes) -> bytes:
    return re.sub(rb'"generated_at": "[^"]*"', b'"generated_at": ""', data)


def test_a_run_s_reports_after_each_batch_are_the_full_rewrite_s(course, monkeypatch):
    """The reports after a batch read only the batch's gradebook rows (issue 20: the whole gradebook was read
    after every batch): after every batch they are byte for byte what ``autograder report`` writes then, hand
    grades of submissions outside the batch and a grader error of an earlier run included."""
    root, _ = course
    monkeypatch.setattr(executors, "LocalPool", CellPool)
    api.grade(root, progress=False, verify=False)
    con = sqlite3.connect(root / "gradebook.db")  # formgrader: s03's written answer graded, with a comment
    con.execute("""UPDATE grade SET manual_score = 1.0 WHERE cell_id IN (SELECT id FROM base_cell WHERE name = 'why')
                   AND notebook_id IN (SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa
                   ON sn.assignment_id = sa.id WHERE sa.student_id = 's03')""")
    con.execute("""UPDATE comment SET manual_comment = 'Well argued.' WHERE notebook_id IN (SELECT sn.id FROM
                   submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id
                   WHERE sa.student_id = 's03')""")
    con.commit()
    con.close()
    (root / "reports" / ".not-recorded.json").write_text(json.dumps([{
        "student_id": "s09", "assignment_id": ASSIGNMENT, "notebook_id": ASSIGNMENT, "path": "x", "cause": "worker died",
        "message": "m", "attempts": 3}]))
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 3)
    monkeypatch.setattr(pipeline, "BATCH_SECONDS", 3600.0)
    pairs = []
    real = RunReports.update

    def compare(self, records, unrecorded):
        csv_path, json_path = real(self, records, unrecorded)
        incremental = csv_path.read_bytes(), _without_time(json_path.read_bytes())
        refresh_reports(root)
        pairs.append((incremental, (csv_path.read_bytes(), _without_time(json_path.read_bytes()))))
        return csv_path, json_path

    monkeypatch.setattr(RunReports, "update", compare)
    api.grade(root, progress=False, verify=False, force=True)
    assert len(pairs) == 2
    for incremental, full in pairs:
        assert incremental == full
    s03 = next(r for r in json.loads(pairs[0][0][1])["submissions"] if r["student_id"] == "s03")
    assert s03["hand_graded"] == 1.0  # not in the first batch: the run's one full read gave it
    assert b"s09" in pairs[0][0][1] and b"not graded (grader error)" in pairs[0][0][0]


class CrashPool(FakePool):
    """A pool whose worker dies while the ``culprit``'s job is in flight: every job in flight then
    fails with BrokenProcessPool, as concurrent.futures reports it."""

    culprit = "s01"

    def __init__(self, bundles, workers=None, memory_mb=None):
        super().__init__(bundles, workers)
        self.workers, self.live, self.alone = 2, [], []

    def submit(self, assignment_id, job):
        future = Future()
        future.job, future.assignment_id = job, assignment_id
        self.live.append(future)
        return future

    def wait_any(self, futures, timeout=None):
        live = [f for f in self.live if not f.done()]
        if any(f.job.student_id == self.culprit for f in live):
            for f in live:
                f.set_exception(BrokenProcessPool("A child process terminated abruptly"))
            self.alone.append(len(live))
        else:
            f = live[0]
            f.set_result(JobResult(f.job.student_id, f.assignment_id, f.job.notebook_id, f.job.sha256, "graded",
                                   None, [], {}, None))
        return {f for f in futures if f.done()}, {f for f in futures if not f.done()}


def test_a_worker_killed_by_one_notebook_costs_only_that_notebook(course, monkeypatch):
    """Red team 2: one dead worker broke the pool and aborted the class's run, every run. Now the jobs
    in flight are graded again one at a time. A dead worker is the grader's fault (issue 13): the one
    that kills its worker even alone is tried again and then reported as a grader error, never recorded
    as the student's 0; the others are graded and recorded."""
    root, _ = course
    monkeypatch.setattr(executors, "LocalPool", CrashPool)
    summary = api.grade(root, progress=False, verify=False)
    error = str(summary.errors[0])
    assert len(summary.errors) == 1 and "s01" in error and "worker died (3 tries)" in error
    assert "nothing was recorded" in error
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    assert set(subs) == {f"s{i:02d}" for i in range(N_STUDENTS)} - {"s01"}
    assert all(s["status"] == "graded" for s in subs.values())
    assert _recorded(root) == (N_STUDENTS - 1, N_STUDENTS - 1)


class FaultyPool(FakePool):
    """A pool whose job of ``student`` fails by the grader's fault its first ``times`` tries."""

    student, times, cause = "s02", 1, "kernel start"

    def __init__(self, bundles, workers=None, memory_mb=None):
        super().__init__(bundles, workers)
        self.tries = 0

    def submit(self, assignment_id, job):
        if job.student_id == self.student and self.tries < self.times:
            self.tries += 1
            future = Future()
            future.set_exception(GraderFault(self.cause, "the kernel did not start: Kernel died before replying"))
            return future
        return super().submit(assignment_id, job)


@pytest.mark.parametrize("times", [1, 2])
def test_a_passing_grader_fault_is_retried_and_the_submission_graded(course, monkeypatch, times):
    root, _ = course
    monkeypatch.setattr(FaultyPool, "times", times)
    monkeypatch.setattr(executors, "LocalPool", FaultyPool)
    summary = api.grade(root, progress=False, verify=False)
    assert (summary.graded, summary.failed, summary.errors) == (N_STUDENTS, 0, [])
    assert _recorded(root) == (N_STUDENTS, N_STUDENTS)


def test_a_persistent_grader_fault_is_reported_and_never_recorded(course, monkeypatch):
    root, _ = course
    monkeypatch.setattr(FaultyPool, "times", 99)
    monkeypatch.setattr(executors, "LocalPool", FaultyPool)
    summary = api.grade(root, progress=False, verify=False)
    assert (summary.graded, summary.failed) == (N_STUDENTS - 1, 0)
    assert len(summary.errors) == 1
    assert str(summary.errors[0]).endswith("s02/ps1/ps1.ipynb: kernel start (3 tries): the kernel did not start: "
                                           "Kernel died before replying; nothing was recorded for this submission, "
                                           "the next run grades it again")
    results = json.loads((root / "reports" / "results.json").read_text())
    subs = {s["student_id"] for s in results["submissions"]}
    assert subs == {f"s{i:02d}" for i in range(N_STUDENTS)} - {"s02"}  # not a 0: not there at all
    assert _recorded(root) == (N_STUDENTS - 1, N_STUDENTS - 1)
    # ... but the reports say it was submitted and why it has no grade, not that it is missing
    assert [(r["student_id"], r["cause"], r["attempts"]) for r in results["not_recorded"]] == [("s02", "kernel start", 3)]
    row = _csv_row(root, "s02")
    assert (row["ps1"], row["not_submitted"]) == ("", "")
    assert "not graded (grader error): ps1 (kernel start; run `autograder grade` again)" in row["flags"]
    assert "not graded" in _csv_row(_refreshed(root), "s02")["flags"]  # after hand grading too (autograder report)
    # the next run grades it again (and only it), and it is recorded once the fault has passed
    monkeypatch.setattr(FaultyPool, "times", 0)
    again = api.grade(root, progress=False, verify=False)
    assert (again.graded, again.skipped, again.errors) == (1, N_STUDENTS - 1, [])
    assert _recorded(root) == (N_STUDENTS, N_STUDENTS)
    assert json.loads((root / "reports" / "results.json").read_text())["not_recorded"] == []
    assert "not graded" not in _csv_row(root, "s02")["flags"]


def _csv_row(root, student):
    with open(root / "reports" / "grades.csv", newline="") as fh:
        return next(r for r in csv.DictReader(fh) if r["student_id"] == student)


def _refreshed(root):
    from autograder.grading.reports import refresh_reports

    (root / "reports" / "grades.csv").unlink()
    refresh_reports(root)
    return root


class HangPool(FakePool):
    """A pool whose job of ``student`` never comes back its first ``hangs`` tries (a grader step hung)."""

    student, hangs = "s02", 1

    def __init__(self, bundles, workers=None, memory_mb=None):
        super().__init__(bundles, workers)
        self.tries, self.stopped = 0, []

    def submit(self, assignment_id, job):
        if job.student_id == self.student and self.tries < self.hangs:
            self.tries += 1
            return Future()  # never done
        return super().submit(assignment_id, job)

    def wait_any(self, futures, timeout=None):
        done = {f for f in futures if f.done()}
        if not done:
            time.sleep(timeout or 0)
        return done, set(futures) - done

    def stop(self, future):
        self.stopped.append(future)
        future.cancel()


@pytest.mark.parametrize("hangs", [1, 99])
def test_a_job_that_never_comes_back_is_stopped_as_the_grader_s_fault(course, monkeypatch, hangs):
    """Issue 13: the kernel's watchdog stops the student's code only; a step of the grader's own that hangs
    (nbgrader's bookkeeping, a gradebook copy) hung the whole run. A job out longer than its bound is stopped
    and graded again; if it hangs every time it is reported, never recorded as the student's 0."""
    root, _ = course
    pools = []
    monkeypatch.setattr(HangPool, "hangs", hangs)
    monkeypatch.setattr(executors, "LocalPool", lambda b, w=None, memory_mb=None: pools.append(HangPool(b, w)) or pools[-1])
    monkeypatch.setattr(pipeline, "job_seconds", lambda course: 0.3)
    summary = api.grade(root, progress=False, verify=False)
    if hangs == 1:
        assert (summary.graded, summary.errors) == (N_STUDENTS, []) and len(pools[0].stopped) == 1
        assert _recorded(root) == (N_STUDENTS, N_STUDENTS)
    else:
        assert summary.graded == N_STUDENTS - 1 and len(pools[0].stopped) == 3
        assert len(summary.errors) == 1 and "s02" in str(summary.errors[0])
        assert "grader timeout (3 tries): grading did not come back within 0.3 s" in str(summary.errors[0])
        assert _recorded(root) == (N_STUDENTS - 1, N_STUDENTS - 1)


def _sleepy(bundle, job):
    if job == "hang":
        time.sleep(600)
    return job


def test_a_hung_job_in_the_local_pool_is_stopped_and_the_pool_replaced(monkeypatch):
    monkeypatch.setattr(executors, "grade_job", _sleepy)
    pool = executors.LocalPool({"a": None}, workers=2, memory_mb=1024)
    try:
        hung, other = pool.submit("a", "hang"), pool.submit("a", "x")
        assert other.result(timeout=60) == "x"
        pool.stop(hung)
        with pytest.raises(BrokenProcessPool):
            hung.result(timeout=60)
        assert pool.submit("a", "y").result(timeout=60) == "y"  # a fresh pool
    finally:
        pool.close(cancel=True)


@pytest.mark.parametrize("when", ["found", "sent"])
def test_a_submission_that_vanishes_is_a_grader_error_for_it_alone(course, monkeypatch, when):
    """A file deleted (or refused by the host) after it was found crashed the whole run: now it is reported
    for that submission, the others are graded and recorded."""
    root, _ = course
    real, reads = pipeline.Submission.read_bytes, []

    def read_bytes(self):
        reads.append(self.student_id)
        if self.student_id == "s01" and (when == "found" or reads.count("s01") > 1):
            raise FileNotFoundError(2, "No such file or directory", str(self.path))
        return real(self)

    monkeypatch.setattr(pipeline.Submission, "read_bytes", read_bytes)
    summary = api.grade(root, progress=False, verify=False)
    assert summary.graded == N_STUDENTS - 1 and len(summary.errors) == 1
    tries = "1 try" if when == "found" else "3 tries"
    assert f"s01/ps1/ps1.ipynb: unreadable ({tries}): the submission could not be read (FileNotFoundError" in \
        str(summary.errors[0])
    assert _recorded(root) == (N_STUDENTS - 1, N_STUDENTS - 1)


@pytest.mark.parametrize("controllers", [{"pids", "memory"}, {"pids"}, set()])
def test_a_host_without_control_groups_is_reported_not_silent(course, monkeypatch, controllers):
    """Issue 10: where no control group is writable, a submission's process tree is bounded per process only;
    the run says so (the CLI prints it), naming what is missing and what to do."""
    from autograder.sandbox import cgroup

    root, _ = course
    monkeypatch.setattr(cgroup, "available", lambda: set(controllers))
    warnings = api.grade(root, progress=False, verify=False).warnings
    if controllers == {"pids", "memory"}:
        assert warnings == []
        return
    assert len(warnings) == 1 and "not as a tree" in warnings[0]
    # what to do (as root here; a non-root instructor's steps: tests/grading/test_nonroot.py)
    assert "To get" in warnings[0] and "grade where /sys/fs/cgroup is writable" in warnings[0]
    assert ("no writable memory control group" in warnings[0]) == (controllers == {"pids"})
    assert ("06's memory check is withheld" in warnings[0]) and (("64 processes" in warnings[0]) == (not controllers))
