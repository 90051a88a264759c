"""Whose fault a failed grading is: the one place that decides (issue 13).

Every way a submission's grading can fail is classified here, and every path of the grader
(the job's admission check, nbgrader's run, verification, the coordinator's futures, the
gradebook write) asks this module:

* a **student fault** (the file is not a notebook, its cells cannot be matched to the released
  notebook, nbgrader finds its metadata invalid, the student's code ran past its time, killed
  its own kernel, or made it misbehave while its cells ran: ``timing.StudentKernelError``) is recorded as a failed submission, with the whole reason, worded so that the
  student can act on it;
* a **grader fault** (a worker process died, a kernel or sandbox did not start, the grading host
  ran out of a resource, a step of the grader's own ran past its time, the gradebook could not
  be written, or anything this module does not know) is never recorded as the student's 0: the
  submission is graded again (up to :data:`ATTEMPTS` times in a run), and if the fault persists
  it is reported as a grader error for that submission and left unrecorded, so the next run
  grades it again.

Unknown failures are the grader's: a student is never charged for what the grader cannot
explain.
"""
from __future__ import annotations

import errno
import traceback
from dataclasses import dataclass

GRADER, STUDENT = "grader", "student"

#: Tries of one submission in a run when its grading fails by the grader's fault.
ATTEMPTS = 3

#: Names of exceptions (any module) that mean the student's code brought its kernel down or hung it.
_KERNEL_LOST = {"DeadKernelError", "UnresponsiveKernelError"}
#: Names of exceptions raised by nbgrader or nbformat for metadata or a notebook the student edited.
_INVALID = {"ValidationError", "SchemaTooOldError", "SchemaTooNewError", "NotebookValidationError"}
#: OS errors of the grading host's resources (disk, descriptors, memory, processes).
_HOST_ERRNOS = {errno.ENOSPC, errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.EDQUOT}


@dataclass(frozen=True)
class Fault:
    """A classified failure: whose it is, a short cause, and the message for whoever must act."""

    party: str  # GRADER or STUDENT
    cause: str
    message: str

    @property
    def is_grader(self) -> bool:
        return self.party == GRADER


class GraderFault(RuntimeError):
    """Raised by a grading job whose failure is the grader's: the coordinator retries it, records nothing."""

    def __init__(self, cause: str, message: str):
        super().__init__(f"{cause}: {message}")
        self.cause, self.message = cause, message

    def __reduce__(self):  # travels from a worker process (pickle) with its two fields
        return GraderFault, (self.cause, self.message)


def student(cause: str, message: str) -> Fault:
    """A failure of the submission itself (recorded as failed with ``message``)."""
    return Fault(STUDENT, cause, " ".join(message.split())[:2000])


def grader(cause: str, message: str) -> Fault:
    """A failure of the grader (retried, then reported; never recorded as the student's 0)."""
    return Fault(GRADER, cause, " ".join(message.split())[:2000])


def raise_if_grader(fault: Fault | None) -> Fault | None:
    """Raise :class:`GraderFault` for a grader fault; return a student fault (or None) as it is."""
    if fault is not None and fault.is_grader:
        raise GraderFault(fault.cause, fault.message)
    return fault


def _chain(exc: BaseException | None):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def _raised_during_execution(exc: BaseException) -> bool:
    """Whether ``exc`` came out of the notebook's execution (our Execute preprocessor) rather than nbgrader's
    bookkeeping around it."""
    return any(frame.filename.endswith(("grading/timing.py", "nbclient/client.py"))
               for e in _chain(exc) for frame in traceback.extract_tb(e.__traceback__))


def of_host(exc: BaseException) -> Fault | None:
    """A grader fault when ``exc`` (or its cause) is the grading host running out of a resource."""
    for e in _chain(exc):
        if isinstance(e, MemoryError):
            detail = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            return grader("host resource", f"the grading process ran out of memory ({detail})")
        if isinstance(e, OSError) and e.errno in _HOST_ERRNOS:
            return grader("host resource", f"the grading host ran out of a resource: {e}")
    return None


def of_nbgrader(exc: BaseException | None, log_lines: list[str], marks: dict, *,
                fired: set | None = None, limit: float = 0.0) -> Fault:
    """Classify a failed nbgrader run of one submission.

    Parameters
    ----------
    exc : BaseException or None
        The exception nbgrader caught (the first one it logged), else what it raised.
    log_lines : list of str
        nbgrader's error messages, in order.
    marks : dict
        The job clock's time marks (``exec_start``: execution began, ``ready``: the kernel was
        ready, ``exec_end``: execution ended; see :mod:`.timing`).
    fired : set, optional
        The marks there were when the submission's wall-clock watchdog fired (None: it did not):
        between ``ready`` and ``exec_end`` the student's code was running.
    limit : float
        That wall-clock limit, in seconds (for the message).

    Returns
    -------
    Fault
    """
    ran_cells = "ready" in marks
    if fired is not None:
        if "ready" in fired and "exec_end" not in fired:
            return student("timeout", f"the submission ran past its wall-clock limit of {limit:g} s (all cells "
                                      f"together): make the slow cell faster, or remove the code that never ends")
        step = "starting its kernel" if "ready" not in fired else "nbgrader's bookkeeping after the cells ran"
        return grader("grader timeout", f"the grader's own step ({step}) ran past the {limit:g} s wall-clock limit")
    host = of_host(exc) if exc is not None else None
    if host is not None:
        return host
    names = {type(e).__name__ for e in _chain(exc)}
    if "NoSuchKernel" in names:  # the notebook's own metadata names a kernel this course does not have
        return student("notebook invalid", f"the notebook asks for a kernel the grader does not have ({exc}): set its "
                                           f"kernel to Python 3 (Kernel > Change Kernel), save, and submit it again")
    lost = next((e for e in _chain(exc) if type(e).__name__ == "StudentKernelError"), None)
    if lost is not None and not names & _KERNEL_LOST:
        return student("kernel misbehaved", f"while your code ran (notebook cell {lost.index}), the kernel stopped "
                                            f"answering as Jupyter expects ({lost}): most often a loop that "
                                            f"swallows the interrupt of the {lost.timeout} s cell time limit (a bare "
                                            f"`except:` or `except KeyboardInterrupt`), or code that talks to the "
                                            f"kernel's own channels (get_ipython().kernel); fix that cell, run "
                                            f"Restart & Run All, and submit again")
    if names & _KERNEL_LOST and ran_cells:
        return student("kernel died", "the notebook's kernel died or stopped answering while your code ran (most "
                                      "often: it used more memory than the grader allows, ran without end, or "
                                      "ended its own process); run it with Restart & Run All and fix the cell "
                                      "that stops it")
    if names & _INVALID or any("Inconsistent checksums" in str(e) for e in _chain(exc)):
        reason = next((line for line in log_lines if "Traceback" not in line and "There was an error" not in line),
                      f"{type(exc).__name__}: {exc}")
        return student("notebook invalid", f"nbgrader cannot grade this notebook: {reason}")
    if exc is not None and "exec_start" in marks and not ran_cells and _raised_during_execution(exc):
        return grader("kernel start", f"the kernel did not start: {type(exc).__name__}: {exc}")
    where = "while running the notebook" if exc is not None and _raised_during_execution(exc) else \
        "in nbgrader's bookkeeping"
    detail = f"{type(exc).__name__}: {exc}" if exc is not None else " ".join(log_lines)[-500:]
    return grader("nbgrader", f"nbgrader failed {where}: {detail}")


def of_job(exc: BaseException) -> Fault:
    """Classify an exception a grading job raised to the coordinator (all of them are grader faults)."""
    if isinstance(exc, GraderFault):
        return grader(exc.cause, exc.message)
    name = type(exc).__name__
    if name in ("BrokenProcessPool", "KilledWorker"):
        return grader("worker died", f"the grading process died while this notebook was in it ({name})")
    if name == "SandboxError":
        return grader("sandbox", f"the sandbox did not start: {exc}")
    host = of_host(exc)
    if host is not None:
        return host
    return grader("grader bug", f"{name}: {exc}")


@dataclass(frozen=True)
class Unrecorded:
    """A submission that a persistent grader fault left unrecorded (``RunSummary.errors``).

    It is reported (``str`` is the line the CLI prints), kept in the grading state until the
    submission is recorded, and shown in the reports: the student submitted, so the assignment
    is never listed as not submitted, and the instructor sees why there is no grade.
    """

    student_id: str
    assignment_id: str
    notebook_id: str
    path: str
    cause: str
    message: str
    attempts: int

    def __str__(self) -> str:
        return (f"{self.path}: {self.cause} ({self.attempts} {'try' if self.attempts == 1 else 'tries'}): "
                f"{self.message}; nothing was recorded for this submission, the next run grades it again")

    def record(self) -> dict:
        """Its entry in results.json's ``not_recorded`` (and the grading state)."""
        return {"student_id": self.student_id, "assignment_id": self.assignment_id, "notebook_id": self.notebook_id,
                "path": self.path, "cause": self.cause, "message": self.message, "attempts": self.attempts}


def report(sub, fault: Fault, attempts: int) -> Unrecorded:
    """The report of a persistent grader fault for submission ``sub`` (a ``pipeline.Submission``)."""
    return Unrecorded(sub.student_id, sub.assignment_id, sub.notebook_id, str(sub.path), fault.cause, fault.message,
                      attempts)
