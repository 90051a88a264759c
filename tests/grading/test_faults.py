"""Whose fault a failure is (autograder.grading.faults), and stripped metadata put back (notebook.model).

Pure functions, no kernels: every kind of failure the grader knows is classified here from the
exception and the job clock's marks it would see; the end-to-end runs are in test_odd_files and
test_batches.
"""
from __future__ import annotations

import asyncio
import errno
import json
import pickle
from concurrent.futures.process import BrokenProcessPool

import pytest
from jupyter_client.kernelspec import NoSuchKernel
from nbclient.exceptions import DeadKernelError
from nbgrader.nbgraderformat import ValidationError
from nbgrader.preprocessors.execute import UnresponsiveKernelError

from autograder.grading import faults
from autograder.grading.timing import StudentKernelError
from autograder.notebook import model
from autograder.sandbox.command import SandboxError

STARTING = {"begin": 0.0, "exec_start": 1.0}  # the kernel is being started, no cell has run
RUNNING = {"begin": 0.0, "exec_start": 1.0, "ready": 2.0}
AFTER = {**RUNNING, "cells_done": 3.0, "exec_end": 4.0}  # nbgrader's bookkeeping after the cells


def _raised_in_nbclient(exc: BaseException) -> BaseException:
    """``exc`` with a traceback through nbclient's client (where a kernel start fails)."""
    from nbclient import client

    code = compile("raise exc", client.__file__, "exec")
    try:
        exec(code, {"exc": exc})
    except BaseException as raised:  # noqa: BLE001
        return raised
    raise AssertionError("unreachable")


@pytest.mark.parametrize("exc, marks, fired, party, cause", [
    # the student's: their code ran past the wall clock, killed or hung its kernel, or the metadata is invalid
    (DeadKernelError("Kernel died"), RUNNING, set(RUNNING), faults.STUDENT, "timeout"),
    (DeadKernelError("Kernel died"), AFTER, None, faults.STUDENT, "kernel died"),
    (UnresponsiveKernelError(), AFTER, None, faults.STUDENT, "kernel died"),
    (ValidationError("Duplicate grade id: square"), {"begin": 0.0}, None, faults.STUDENT, "notebook invalid"),
    (NoSuchKernel("julia-1.9"), STARTING, None, faults.STUDENT, "notebook invalid"),
    # red team 3: nbclient could not follow the student's kernel while a cell ran (forged or mangled messages,
    # an interrupt swallowed): the student's, never a grader error that is retried and never recorded
    (StudentKernelError(7, 30, KeyError("execution_state")), AFTER, None, faults.STUDENT, "kernel misbehaved"),
    # the grader's: its kernel did not start, its own steps ran out of time, the host ran out, or unknown
    (_raised_in_nbclient(RuntimeError("Kernel died before replying to kernel_info")), STARTING, None,
     faults.GRADER, "kernel start"),
    (DeadKernelError("Kernel died"), STARTING, set(STARTING), faults.GRADER, "grader timeout"),
    (RuntimeError("stuck"), AFTER, set(AFTER), faults.GRADER, "grader timeout"),
    (OSError(errno.ENOSPC, "No space left on device"), AFTER, None, faults.GRADER, "host resource"),
    (MemoryError(), RUNNING, None, faults.GRADER, "host resource"),
    (KeyError("NBGRADER_EXECUTION"), AFTER, None, faults.GRADER, "nbgrader"),
    (None, {"begin": 0.0}, None, faults.GRADER, "nbgrader"),
])
def test_an_nbgrader_failure_is_classified(exc, marks, fired, party, cause):
    fault = faults.of_nbgrader(exc, ["There was an error processing assignment", "some reason"], marks,
                               fired=fired, limit=40)
    assert (fault.party, fault.cause) == (party, cause), fault.message
    if cause == "timeout":
        assert "wall-clock limit of 40 s" in fault.message


def test_an_invalid_notebook_keeps_nbgrader_s_whole_reason():
    lines = ["There was an error processing assignment: x", "Traceback (most recent call last): ...",
             "Duplicate grade id: square (the cell with this id\nwas copied)"]
    fault = faults.of_nbgrader(ValidationError("Duplicate grade id: square"), lines, {"begin": 0.0}, limit=40)
    assert fault.message == ("nbgrader cannot grade this notebook: Duplicate grade id: square (the cell with "
                             "this id was copied)")


@pytest.mark.parametrize("exc, cause", [
    (BrokenProcessPool("A child process terminated abruptly"), "worker died"),
    (type("KilledWorker", (Exception,), {})("worker"), "worker died"),
    (SandboxError("bwrap: setting up uid map: Permission denied"), "sandbox"),
    (OSError(errno.EMFILE, "Too many open files"), "host resource"),
    (faults.GraderFault("kernel start", "the kernel did not start"), "kernel start"),
    (asyncio.TimeoutError(), "grader bug"),
    (ValueError("anything else"), "grader bug"),
])
def test_whatever_a_job_raises_is_the_grader_s(exc, cause):
    fault = faults.of_job(exc)
    assert fault.is_grader and fault.cause == cause


def test_a_grader_fault_crosses_a_process_boundary():
    exc = pickle.loads(pickle.dumps(faults.GraderFault("kernel start", "no kernel")))
    assert (exc.cause, exc.message) == ("kernel start", "no kernel")
    with pytest.raises(faults.GraderFault):
        faults.raise_if_grader(faults.grader("x", "y"))
    assert faults.raise_if_grader(faults.student("x", "y")).message == "y"


# ---- stripped metadata --------------------------------------------------------------------------------------

def _meta(grade_id, **kw):
    return {"grade": False, "grade_id": grade_id, "locked": False, "schema_version": 3, "solution": False,
            "task": False, **kw}


RELEASE = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "id": "c00", "metadata": {}, "source": "# Squares"},
    {"cell_type": "code", "id": "c01-square", "metadata": {"nbgrader": _meta("square", solution=True)},
     "source": "# YOUR CODE HERE", "outputs": [], "execution_count": None},
    {"cell_type": "code", "id": "c02-square-two", "metadata": {"nbgrader": _meta("square_two", grade=True,
                                                                                 locked=True, points=1)},
     "source": "assert square(2) == 4", "outputs": [], "execution_count": None},
]}


def _stripped(cells=None, ids=True) -> dict:
    nb = json.loads(json.dumps(RELEASE))
    nb["cells"][1]["source"] = "def square(x):\n    return x * x"
    for cell in nb["cells"]:
        cell["metadata"].pop("nbgrader", None)
        if not ids:
            cell.pop("id")
    if cells is not None:
        nb["cells"] = cells(nb["cells"])
    return nb


def _restore(nb: dict) -> list[dict]:
    data = json.dumps(nb).encode()
    return json.loads(model.restore_metadata(data, model.layout(RELEASE)))["cells"]


@pytest.mark.parametrize("ids", [True, False], ids=["by cell id", "by order and type"])
def test_stripped_metadata_is_put_back(ids):
    cells = _restore(_stripped(ids=ids))
    assert [c["metadata"].get("nbgrader") for c in cells] == [c["metadata"].get("nbgrader") for c in RELEASE["cells"]]
    assert cells[1]["source"] == "def square(x):\n    return x * x"  # the answer is kept


def test_by_id_a_scratch_cell_the_student_added_stays_an_ordinary_cell():
    scratch = {"cell_type": "code", "id": "mine", "metadata": {}, "source": "square(5)", "outputs": [],
               "execution_count": None}
    cells = _restore(_stripped(lambda cs: [cs[0], scratch, *cs[1:]]))
    assert "nbgrader" not in cells[1]["metadata"]
    assert cells[2]["metadata"]["nbgrader"]["grade_id"] == "square"


def test_the_release_decides_which_cell_is_a_test_and_its_points():
    """Hostile: the student's code where a test cell is expected gets the test's metadata (nbgrader then
    puts the test's source back), never a solution cell's, and the points are the release's."""
    def swap(cells):
        cells[2]["source"] = "def square(x):\n    return 0\nprint('my answer, not a test')"
        return cells
    for ids in (True, False):
        cells = _restore(_stripped(swap, ids=ids))
        assert cells[2]["metadata"]["nbgrader"] == _meta("square_two", grade=True, locked=True, points=1)
        assert not cells[2]["metadata"]["nbgrader"]["solution"]


def test_an_honest_notebook_is_not_touched():
    nb = json.loads(json.dumps(RELEASE))
    nb["cells"][1]["source"] = "def square(x):\n    return x * x"
    nb["cells"][2]["metadata"]["nbgrader"]["checksum"] = "abc"  # nbgrader's own key: not the student's change
    data = json.dumps(nb).encode()
    assert model.restore_metadata(data, model.layout(RELEASE)) is data


@pytest.mark.parametrize("change", [dict(points=100), dict(solution=True), dict(locked=False), dict(grade=False)])
def test_a_test_cell_s_changed_metadata_is_the_release_s_again(change):
    """Hostile: a test cell made an answer, unlocked or given more points; the scratch cell that claims a
    grade_id the release does not know is left to nbgrader (which drops the grade_id)."""
    nb = json.loads(json.dumps(RELEASE))
    nb["cells"][2]["metadata"]["nbgrader"].update(change)
    nb["cells"].append({"cell_type": "code", "id": "mine", "metadata": {"nbgrader": _meta("bonus", grade=True,
                                                                                          points=50)},
                        "source": "", "outputs": [], "execution_count": None})
    cells = _restore(nb)
    assert cells[2]["metadata"]["nbgrader"] == RELEASE["cells"][2]["metadata"]["nbgrader"]
    assert cells[3]["metadata"]["nbgrader"]["grade_id"] == "bonus"


@pytest.mark.parametrize("change", [
    lambda cs: cs + [dict(cs[0], id="extra")],  # a cell more, ids gone below
    lambda cs: [cs[1], cs[0], cs[2]],  # reordered
    lambda cs: [dict(cs[0]), dict(cs[1], cell_type="markdown"), cs[2]],  # the answer turned into markdown
])
def test_cells_that_match_neither_way_fail_with_what_to_do(change):
    nb = _stripped(change, ids=False)
    with pytest.raises(model.Unmatched, match="download the released notebook again"):
        _restore(nb)


def test_an_answer_cell_id_found_twice_is_matched_by_order_or_not_at_all():
    nb = _stripped(lambda cs: [cs[0], cs[1], dict(cs[1], source="def square(x): return 1"), cs[2]])
    with pytest.raises(model.Unmatched):
        _restore(nb)


@pytest.mark.parametrize("exc, grader_s", [(MemoryError(), True), (OSError(errno.ENOSPC, "disk full"), True),
                                           (ValueError("an answer that does not decode"), False)])
def test_verification_that_runs_the_host_out_is_retried_not_withheld(monkeypatch, exc, grader_s):
    """Fail closed stays for what verification cannot tell apart (withheld, flagged); the grading host
    running out of memory or disk is the grader's fault: the job fails, the submission is graded again."""
    from autograder.grading import verification

    def verifier(*args, **kwargs):
        raise exc

    monkeypatch.setattr(verification, "load_verifier", lambda: verifier)
    cells = [{"grade_id": "t", "max_score": 1.0, "nbgrader_score": 1.0, "manual": False, "message": None}]
    if grader_s:
        with pytest.raises(faults.GraderFault, match="verification"):
            verification.verify("ps1", b"{}", 1, {}, cells)
    else:
        verdicts, flags = verification.verify("ps1", b"{}", 1, {}, cells)
        assert verdicts["t"]["withheld"] and flags[0]["kind"] == "verification failed"
