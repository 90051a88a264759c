"""The jobs a grading run has out: what is sent, what comes back, what is graded again.

The coordinator (:func:`.pipeline._run`) keeps every worker busy plus a little queue, without
pickling the whole class, and hands what comes back to the batch it records. A job that fails by
the grader's fault (:mod:`.faults`) is graded again, up to :data:`.faults.ATTEMPTS` times, and then
reported as a grader error for its submission, never recorded. When a worker dies, every job in
flight fails with it: each of those submissions is graded again alone, one at a time, so the
others are graded as usual and only the one that kills its worker even alone is reported. A job
that does not come back within ``job_seconds`` (a step of the grader's own hangs: the kernel's
watchdog only stops the student's code) is a grader fault too: its worker is stopped (the other
jobs in flight with it are graded again alone) and it is graded again.
"""
from __future__ import annotations

import time

from . import faults


class Flight:
    """The submissions in flight on ``executor`` and the batch of results not yet recorded."""

    def __init__(self, executor, make_job, todo, errors: list, batch_seconds: float,
                 job_seconds: float = float("inf")):
        self.executor, self.make_job, self.batch_seconds = executor, make_job, batch_seconds
        self.errors, self.job_seconds = errors, job_seconds  # errors: the persistent grader faults, reported
        self.pending = iter(todo)
        self.in_flight: dict = {}  # future -> submission
        self.sent: dict = {}  # future -> when it was sent (time.monotonic)
        self.again: list = []  # failed by a grader fault: graded again
        self.suspects: list = []  # in flight when a worker died: graded again, alone
        self.solo: set = set()  # graded alone at least once
        self.tries: dict = {}  # submission -> grader faults so far
        self.batch: list = []  # (submission, JobResult) not yet recorded
        self.oldest = 0.0  # when the batch's first result arrived

    def _send(self, sub) -> int:
        """Send ``sub``'s job; 1 when it could not be sent and is finished with (reported), else 0."""
        try:
            job = self.make_job(sub)  # reads the submission's bytes again
        except OSError as exc:  # it vanished or cannot be read since it was found: not the student's doing
            return self._fault(sub, faults.of_host(exc) or faults.grader(
                "unreadable", f"the submission could not be read ({type(exc).__name__}: {exc})"))
        future = self.executor.submit(sub.assignment_id, job)
        self.in_flight[future], self.sent[future] = sub, time.monotonic()
        return 0

    def fill(self) -> int:
        """Send jobs until every worker is busy plus a little queue (a suspect only into an empty flight).

        Returns how many submissions are finished with because their job could not be sent.
        """
        finished = 0
        while self.suspects and not self.in_flight:  # isolate: one suspect at a time, nothing beside it
            sub = self.suspects.pop(0)
            self.solo.add(sub)
            finished += self._send(sub)
        if self.suspects:
            return finished
        while len(self.in_flight) < 2 * self.executor.workers:
            sub = self.again.pop(0) if self.again else next(self.pending, None)
            if sub is None:
                break
            finished += self._send(sub)
        return finished

    def wait(self) -> set:
        """The futures done, waiting no longer than the batch's oldest result may wait to be recorded."""
        ends = [self.oldest + self.batch_seconds] if self.batch else []
        ends += [min(self.sent[f] for f in self.in_flight) + self.job_seconds] if self.job_seconds < float("inf") else []
        timeout = max(0.0, min(ends) - time.monotonic()) if ends else None
        done, _ = self.executor.wait_any(list(self.in_flight), timeout=timeout)
        return done

    def overdue(self) -> int:
        """Stop the jobs out for longer than ``job_seconds`` (a grader fault each); how many submissions are finished with."""
        now, finished = time.monotonic(), 0
        for future in [f for f in self.in_flight if now - self.sent[f] > self.job_seconds and not f.done()]:
            sub = self.in_flight.pop(future)
            self.sent.pop(future)
            self.executor.stop(future)
            finished += self._fault(sub, faults.grader(
                "grader timeout", f"grading did not come back within {self.job_seconds:g} s (the wall-clock limits "
                                  f"of the student's code plus the grader's own margin): a step of the grader hung"))
        return finished

    def settle(self, future) -> bool:
        """Take a finished job: its result joins the batch, a grader fault is graded again or reported.

        Returns whether the submission is finished with (for the progress bar).
        """
        sub = self.in_flight.pop(future)
        self.sent.pop(future, None)
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - every failure of a job is classified, none is the student's 0
            return self._fault(sub, faults.of_job(exc))
        self.oldest = self.oldest if self.batch else time.monotonic()
        self.batch.append((sub, result))
        return True

    def _fault(self, sub, fault: faults.Fault) -> bool:
        if fault.cause == "worker died" and sub not in self.solo:
            self.suspects.append(sub)  # maybe another job killed the worker: no try counted
            return False
        self.tries[sub] = self.tries.get(sub, 0) + 1
        if self.tries[sub] < faults.ATTEMPTS:
            (self.suspects if sub in self.solo else self.again).append(sub)
            return False
        self.errors.append(faults.report(sub, fault, self.tries[sub]))
        return True

    def batch_due(self, batch_size: int) -> bool:
        """Whether the batch is full, or its oldest result has waited ``batch_seconds``."""
        return len(self.batch) >= batch_size or bool(self.batch) and \
            time.monotonic() - self.oldest >= self.batch_seconds
