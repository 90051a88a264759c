"""An assignment without registered checks (the mini course's ps1, like an instructor's own notebook in
course.yml): its sandboxed kernel holds nothing of the grader (it held the whole grader, the reference
included), and the scores nbgrader gives there, which nothing verifies, are recorded flagged "unverified"."""
from __future__ import annotations

import csv
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT
from autograder.sandbox import command

from .conftest import copy_course, grades

pytestmark = pytest.mark.slow

#: What a student's cell finds of ours in the kernel.
PROBE = """
import json, os
found = {'files': sorted(os.path.relpath(os.path.join(b, n), '/kit') for b, _, names in os.walk('/kit') for n in names)}
for name in ('autograder.checks', 'autograder.hidden', 'autograder.notebook'):
    try:
        __import__(name)
        found[name] = 'imported'
    except ImportError as exc:
        found[name] = type(exc).__name__
try:
    from attention_ref import softmax
    found['softmax'] = 'imported'
except ImportError as exc:
    found['softmax'] = type(exc).__name__
print('PROBE=' + json.dumps(found))
"""


def _probe(root) -> dict:
    nb = nbformat.read(root / "autograded" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    return json.loads(text.split("PROBE=", 1)[1])


def test_the_kernel_holds_nothing_of_the_grader_and_the_scores_are_flagged_unverified(generated_course, tmp_path):
    if command._detect() != "bubblewrap":
        pytest.skip("bubblewrap is not installed (.ci/install-system-deps.sh installs it)")
    root = copy_course(generated_course, tmp_path / "course")
    for sid in ("s01", "s02", "s03"):
        (root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").unlink()
    path = root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell(PROBE))
    nbformat.write(nb, path)

    summary = api.grade(root, workers=1, progress=False)
    assert (summary.graded, summary.failed, summary.errors) == (1, 0, [])
    found = _probe(root)
    assert found["files"] == ["attention_ref/__init__.py", "autograder/__init__.py"]
    assert {k: v for k, v in found.items() if k != "files"} == {
        "autograder.checks": "ModuleNotFoundError", "autograder.hidden": "ModuleNotFoundError",
        "autograder.notebook": "ModuleNotFoundError", "softmax": "ImportError"}
    sub = json.loads((root / "reports" / "results.json").read_text())["submissions"][0]
    assert (sub["verified"], sub["score"]) == (False, 3.0)  # nbgrader's scores, as they are
    assert [f["kind"] for f in sub["flags"]] == ["unverified"]
    assert "no checks are registered for ps1" in sub["flags"][0]["evidence"]
    assert grades(root)[("s00", "square_hidden")] == (2.0, False)
    with open(root / "reports" / "grades.csv", newline="") as fh:
        assert "unverified: ps1/-" in next(csv.DictReader(fh))["flags"]

    # --no-verify: the in-kernel scores are the scores by choice, the kernel holds the whole grader (documented)
    api.grade(root, workers=1, progress=False, verify=False, force=True)
    found = _probe(root)
    assert "autograder/checks/__init__.py" in found["files"] and found["autograder.checks"] == "imported"
    assert json.loads((root / "reports" / "results.json").read_text())["submissions"][0]["flags"] == []
