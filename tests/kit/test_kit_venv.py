"""Issue 12, "How it is proven": the student kit installed in a fresh virtual environment with no
access to this repository runs every released notebook: the instructor's solutions pass every
visible check and every test cell's Validate line; the stubs say "not done"; the printed visible
checks are the same text the grader's own package prints."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from autograder import submissions
from tests.kit.conftest import ALL, ROOT, installed_site, run_notebook


def _solved(assignment: str, directory) -> object:
    path = f"{assignment}/{assignment}.ipynb"
    source = submissions.read(ROOT / "solutions" / path)
    nb = submissions.fill(submissions.read(ROOT / "assignments" / path), submissions.solution_answers(source))
    target = directory / f"{assignment}.ipynb"
    target.write_text(json.dumps(nb))
    return target


def test_the_kit_environment_cannot_see_the_repository(kit_python, tmp_path):
    site = installed_site(kit_python)
    out = subprocess.run([str(kit_python), "-I", "-c", "import sys, autograder, attention_ref; "
                          "print(autograder.__file__); print(attention_ref.__file__); print(sys.path)"],
                         capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, check=True).stdout
    assert str(ROOT) + "/autograder" not in out and str(ROOT) + "/attention_ref" not in out
    assert out.splitlines()[0].startswith(str(site))
    assert not any((site / n).exists() for n in ("autograder/checks/nb01_scores_softmax.py", "autograder/grading"))


@pytest.mark.parametrize("assignment", ALL)
def test_solutions_pass_and_print_what_the_grader_prints(assignment, kit_python, full_python, tmp_path):
    path = _solved(assignment, tmp_path)
    in_kit = run_notebook(kit_python, path, assignment, tmp_path)
    in_full = run_notebook(full_python, path, assignment, tmp_path)
    assert "/site-packages/autograder/" in in_kit["modules"]["autograder"]
    assert [c["error"] for c in in_kit["cells"] if c["error"]] == []
    assert in_kit["validate"] and all(v is None for v in in_kit["validate"].values())
    assert [c["output"] for c in in_kit["cells"]] == [c["output"] for c in in_full["cells"]]
    assert in_kit["validate"] == in_full["validate"]
    summary = in_kit["cells"][-1]["output"]
    assert "✘" not in summary and "tasks pass their visible checks" in summary


@pytest.mark.parametrize("assignment", ALL)
def test_stubs_say_not_done(assignment, kit_python, full_python, tmp_path):
    path = tmp_path / f"{assignment}.ipynb"
    shutil.copyfile(ROOT / "assignments" / assignment / f"{assignment}.ipynb", path)
    in_kit = run_notebook(kit_python, path, assignment, tmp_path)
    in_full = run_notebook(full_python, path, assignment, tmp_path)
    checks = [c["output"] for c in in_kit["cells"] if c["output"].startswith(("✔", "✘"))]
    assert checks and all("not done yet" in out for out in checks), checks
    assert all(v is not None and "not done yet" in v for v in in_kit["validate"].values())
    assert [c["output"] for c in in_kit["cells"]] == [c["output"] for c in in_full["cells"]]
    assert in_kit["validate"] == in_full["validate"]
    assert "not started" in in_kit["cells"][-1]["output"]
