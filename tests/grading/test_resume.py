"""A killed ``autograder grade`` loses nothing it recorded, and re-running finishes the rest."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import nbformat
import pytest
from .conftest import BIN, ENV, N_STUDENTS, copy_course, grades

from autograder.grading.state import STATE_FILE

pytestmark = pytest.mark.slow


def _state_lines(root):
    path = root / "reports" / STATE_FILE
    return path.read_text().splitlines() if path.exists() else []


#: Seconds each submission's answer cell sleeps: longer than a batch may wait to be recorded (pipeline.BATCH_SECONDS,
#: 2 s), so the first result is on disk while the next submission is still running. Without it the mini course's
#: four submissions were graded in well under 2 s and all recorded in one batch before the kill.
SLOW = 3


def _slow(root) -> None:
    for path in (root / "submitted").glob("*/*/*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "square":
                cell.source = f"import time\ntime.sleep({SLOW})\n" + cell.source
        nbformat.write(nb, path)


def test_kill_mid_run_then_resume(generated_course, tmp_path):
    root = copy_course(generated_course, tmp_path / "course")
    _slow(root)
    cmd = [os.path.join(BIN, "autograder"), "grade", "--workers", "1", "--no-verify", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=root, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not _state_lines(root) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole run: coordinator, workers, kernels
    proc.wait()
    done_before = {json.loads(line)["student_id"] for line in _state_lines(root)}
    assert 1 <= len(done_before) < N_STUDENTS
    graded_before = {k: v for k, v in grades(root).items() if k[0] in done_before}

    rerun = subprocess.run(cmd, cwd=root, env=ENV, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"graded {N_STUDENTS - len(done_before)}, failed 0, unchanged {len(done_before)}" in rerun.stdout

    after = grades(root)
    assert {s for s, _ in after} == {f"s{i:02d}" for i in range(N_STUDENTS)}
    assert {k: v for k, v in after.items() if k[0] in done_before} == graded_before
    report = json.loads((root / "reports" / "results.json").read_text())
    assert sorted(s["student_id"] for s in report["submissions"]) == sorted({s for s, _ in after})
    # one submission row per student in nbgrader's gradebook: nothing duplicated
    import sqlite3
    con = sqlite3.connect(root / "gradebook.db")
    assert con.execute("SELECT COUNT(*) FROM submitted_assignment").fetchone()[0] == N_STUDENTS
    con.close()
