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


def _ipython_notebook(tmp_path):
    """01 with its answers, where the softmax answer sits in a test cell and weighted_average's in a ``%%writefile``
    cell (neither runs when graded), beside a line magic, a ``!`` line, a ``%%capture`` cell and a markdown cell."""
    from nbformat.v4 import new_code_cell, new_markdown_cell

    path = "01_scores_softmax/01_scores_softmax.ipynb"
    answers = submissions.solution_answers(submissions.read(ROOT / "solutions" / path))
    softmax, average = answers.pop("softmax"), answers.pop("weighted_average")
    nb = submissions.fill(submissions.read(ROOT / "assignments" / path), answers)
    test = next(c for c in nb.cells if c.get("id") == "c18-softmax-seed-example")
    test.source = softmax + "\n" + test.source
    at = next(i for i, c in enumerate(nb.cells) if c.get("id") == "c27-weighted-average")
    nb.cells[at + 1:at + 1] = [
        new_markdown_cell("My notes: `%time` times a line."),
        new_code_cell("%time _timed = sum(range(10))\n!echo shell\nif True:\n    %who\n    line_magic_ran = True"),
        new_code_cell("%%capture captured\nprint('hidden')\ncapture_ran = True"),
        new_code_cell("%%writefile average.py\n" + average),
    ]
    target = tmp_path / "ipython.ipynb"
    target.write_text(json.dumps(nb))
    return target


def test_check_and_grade_read_a_notebook_by_one_rule(kit_python, tmp_path):
    """Issue 11: the kit's ``autograder check`` runs the cells the grader runs, as the same Python (magics, shell
    lines, a ``%%capture`` body, no test cell, no other cell magic), so it cannot pass an answer grading ignores."""
    from autograder.notebook import model

    path = _ipython_notebook(tmp_path)
    check = _check(kit_python, path, tmp_path)
    assert check.returncode == 1, check.stdout + check.stderr
    summary = {line.split()[0]: line for line in check.stdout.splitlines() if line.split()}
    assert "✔ done" in summary["dot_product"] and "✔ done" in summary["attention_scores"]
    assert "not started" in summary["softmax"] and "not started" in summary["weighted_average"], check.stdout
    graded = [[c.index, c.python] for c in model.read(path).code_cells if c.python is not None]
    code = "import json, sys\nfrom autograder.cli import runnable\nprint(json.dumps(runnable(sys.argv[1])))"
    kit = subprocess.run([str(kit_python), "-I", "-c", code, str(path)], capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin"})
    assert kit.returncode == 0, kit.stderr
    assert json.loads(kit.stdout) == graded
    python = dict((index, text) for index, text in graded)
    cells = model.read(path).cells
    kinds = {c.index: c for c in cells}
    magic = next(i for i, c in kinds.items() if c.source.startswith("%time "))
    assert python[magic] == "pass\npass\nif True:\n    pass\n    line_magic_ran = True"
    assert python[magic + 1] == "\nprint('hidden')\ncapture_ran = True"
    assert magic - 1 not in python and magic + 2 not in python  # the markdown and the %%writefile cells
    assert not any(i in python for i, c in kinds.items() if c.cell_id == "c18-softmax-seed-example")
