"""Each grading worker's memory is bounded (``grading.worker_memory_mb``, executors.bound_memory).

A kernel can make its worker receive far more than the output cap counts: one IOPub message whose
frames all reference one buffer (32 MB held by the kernel, 512 MB on the wire). Unbounded, the
worker took it all and graded the notebook; bounded, the receive fails, the job fails as the
host's (never the student's 0), is tried again, reported, and the rest of the class is recorded.
"""
from __future__ import annotations

import json
import resource

import nbformat

from autograder import api
from autograder.grading import executors, faults
from autograder.grading.minicourse import ASSIGNMENT

from .conftest import N_STUDENTS, copy_course, grades

BOUND_MB = 256
#: The student's cell: ``square`` right, then one message of 16 frames that are one 32 MB buffer. The
#: sleep lets an unbounded worker take the whole message before the cell's reply (what it did).
ATTACK = ("def square(x):\n    return x * x\n"
          "import time\n"
          "k = get_ipython().kernel\n"
          "buf = memoryview(bytearray(32 << 20))\n"
          "k.session.send(k.iopub_socket, 'display_data', {'data': {'text/plain': 'x'}, 'metadata': {}},\n"
          "               parent=k.get_parent(), buffers=[buf] * 16)\n"
          "time.sleep(8)\n")


def _attack(root, sid: str) -> None:
    path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "square":
            cell.source = ATTACK
    nbformat.write(nb, path)


def test_a_kernel_message_beyond_the_worker_s_bound_is_a_reported_grader_error(generated_course, tmp_path,
                                                                                monkeypatch):
    root = copy_course(generated_course, tmp_path / "course")
    (root / "course.yml").write_text((root / "course.yml").read_text() + f"  worker_memory_mb: {BOUND_MB}\n")
    _attack(root, "s01")  # s01 answers like s00 (x * x): unbounded, it scored full marks
    monkeypatch.setattr(faults, "ATTEMPTS", 2)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    assert [(e.student_id, e.cause, e.attempts) for e in summary.errors] == [("s01", "host resource", 2)]
    assert "grading.worker_memory_mb" in summary.errors[0].message
    report = json.loads((root / "reports" / "results.json").read_text())
    assert [r["student_id"] for r in report["not_recorded"]] == ["s01"]
    others = {f"s{i:02d}" for i in range(N_STUDENTS)} - {"s01"}
    assert {r["student_id"]: r["status"] for r in report["submissions"]} == dict.fromkeys(others, "graded")
    recorded = grades(root)
    assert {s for s, _ in recorded} == others
    assert recorded[("s00", "square_hidden")][0] == 2.0  # an honest kernel is not hurt by its worker's bound


def _limits(bundle, job):
    return resource.getrlimit(resource.RLIMIT_AS), executors._address_space()


def test_every_pool_worker_is_bounded_and_its_children_may_set_their_own(monkeypatch):
    """The soft limit only: a kernel's prlimit and a runner's setrlimit raise theirs to sandbox.memory_mb."""
    monkeypatch.setattr(executors, "grade_job", _limits)
    pool = executors.LocalPool({"a": None}, workers=1, memory_mb=BOUND_MB)
    try:
        (soft, hard), now = pool.submit("a", None).result(timeout=60)
    finally:
        pool.close(cancel=True)
    assert hard == resource.getrlimit(resource.RLIMIT_AS)[1]
    assert now < soft <= now + (BOUND_MB << 20)
