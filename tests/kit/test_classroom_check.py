"""Classroom mode: the kit's ``autograder check`` runs the public checks only and says so; on a wrong
Stop-and-try reason it prints exactly what it prints for the right one."""
from __future__ import annotations

import json
import subprocess

from autograder import submissions
from tests.kit.conftest import ROOT


def _notebook(tmp_path, name, reason):
    path = "02_scaling/02_scaling.ipynb"
    answers = submissions.solution_answers(submissions.read(ROOT / "solutions" / path))
    answers["STOP_AND_TRY_REASON"] = f'STOP_AND_TRY_REASON = "{reason}"'
    nb = submissions.fill(submissions.read(ROOT / "assignments" / path), answers)
    target = tmp_path / name
    target.write_text(json.dumps(nb))
    return target


def _check(kit_python, path, cwd):
    script = kit_python.parent / "autograder"
    env = {"PATH": f"{kit_python.parent}:/usr/bin:/bin", "HOME": str(cwd), "MPLBACKEND": "Agg",
           "MPLCONFIGDIR": str(cwd / ".mpl")}
    return subprocess.run([str(script), "check", str(path)], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


def test_a_wrong_reason_reads_like_the_right_one(kit_python, tmp_path):
    from autograder.checks.nb02_scaling import REASONS, RIGHT_REASON

    wrong = next(r for r in REASONS if r != RIGHT_REASON)
    right = _check(kit_python, _notebook(tmp_path, "right.ipynb", RIGHT_REASON), tmp_path)
    other = _check(kit_python, _notebook(tmp_path, "wrong.ipynb", wrong), tmp_path)
    assert right.returncode == other.returncode == 0, right.stderr + other.stderr
    assert right.stdout == other.stdout
    assert "runs the public checks only" in right.stdout and "not said here" in right.stdout
    assert "STOP_AND_TRY_REASON: answered in the expected form" in right.stdout


def test_a_stub_exits_1_and_an_unknown_notebook_2(kit_python, tmp_path):
    stub = _check(kit_python, ROOT / "assignments/01_scores_softmax/01_scores_softmax.ipynb", tmp_path)
    assert stub.returncode == 1 and "not started" in stub.stdout
    (tmp_path / "x.ipynb").write_text("not json")
    assert _check(kit_python, tmp_path / "x.ipynb", tmp_path).returncode == 2
