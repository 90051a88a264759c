"""The browser harness on small notebooks made here, so it is proven before the course exists.

What these show about JupyterLab 4 itself (and what the course notebooks must respect):

* Run > Run All Cells sends every cell with ``stop_on_error``: the first cell that raises makes
  the kernel abort all the cells after it, unless that cell is tagged ``raises-exception``.
  A stub ``raise NotImplementedError()`` at the top level of a cell (a constant task such as
  ``STOP_AND_TRY_SCORES``) therefore needs that tag for "Run All" to reach the checks after it.
  A stub inside a function body raises only when the function is called (in the check, which
  catches it), so it needs nothing.
* nbgrader's lab extension puts a "Validate" button on every notebook's toolbar; it saves the
  notebook and POSTs its path to the server extension, which runs nbgrader's ``Validator``.
"""
from __future__ import annotations

import nbformat
import pytest

from .nbtools import NBGRADER_CODE_STUB, PYTHON3, nbgrader_meta, run_checks_summary

pytestmark = [pytest.mark.browser]


def _small_notebook(tag_stub: bool):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(PYTHON3)
    stub = nbformat.v4.new_code_cell("ANSWER = ...\n" + NBGRADER_CODE_STUB)
    if tag_stub:
        stub.metadata["tags"] = ["raises-exception"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# A small notebook\nA check, a plot and a stub."),
        nbformat.v4.new_code_cell("print('✔ ok: all 1 checks passed.')"),
        nbformat.v4.new_code_cell(
            "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(4, 3))\nax.plot([0, 1, 2], [0, 1, 4])\n"
            "ax.set_xlabel('x'); ax.set_ylabel('y'); ax.set_title('a curve')\nplt.show()"),
        stub,
        nbformat.v4.new_code_cell("print('after the stub')"),
    ]
    return nb


@pytest.mark.parametrize("tag_stub", [False, True], ids=["untagged-stub", "tagged-stub"])
def test_run_all_reads_checks_plots_and_stops(lab, tag_stub):
    nbformat.write(_small_notebook(tag_stub), lab.server.root / "small.ipynb")
    lab.open_notebook("small.ipynb")
    lab.run_all()
    cells = lab.cells()
    assert [c["code"] for c in cells] == [False, True, True, True, True]
    assert cells[1]["outputs"][0]["text"].startswith("✔ ok")
    [img] = cells[2]["images"]
    assert img["complete"] and img["width"] > 100 and img["height"] > 100
    assert "NotImplementedError" in cells[3]["outputs"][0]["text"]
    assert cells[3]["outputs"][0]["mime"] == "application/vnd.jupyter.stderr"
    if tag_stub:  # Run All goes on past a cell tagged raises-exception
        assert cells[4]["outputs"][0]["text"].strip() == "after the stub"
    else:  # ... and stops at one that is not
        assert cells[4]["prompt"] == "[ ]:" and cells[4]["outputs"] == []
    assert not lab.page_errors
    if tag_stub:
        lab.screenshot("harness-small-notebook")


def _nbgrader_notebook(answer: str):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(PYTHON3)
    sol = nbformat.v4.new_code_cell(f"def double(x):\n    {answer}")
    sol.metadata["nbgrader"] = nbgrader_meta("double", solution=True)
    test = nbformat.v4.new_code_cell("assert double(2) == 4")
    test.metadata["nbgrader"] = nbgrader_meta("double_test", grade=True, locked=True, points=1)
    nb.cells = [sol, test]
    return nb


@pytest.mark.parametrize("answer,ok", [("return 2 * x", True), ("raise NotImplementedError()", False)],
                         ids=["answered", "stub"])
def test_validate_button(lab, answer, ok):
    d = lab.server.root / "validate_small"
    d.mkdir(exist_ok=True)
    nbformat.write(_nbgrader_notebook(answer), d / "small.ipynb")
    lab.open_notebook("validate_small/small.ipynb")
    title, body = lab.validate()
    if ok:
        assert title == "Validation Results"
        assert "Success! Your notebook passes all the tests." in body
    else:
        assert "Success" not in body
        assert "NotImplementedError" in body


def test_summary_helper_reads_lines():
    text = "task  checks  status\n----\nsoftmax  3/3  ✔ done\n1 of 1 tasks pass their visible checks."
    assert run_checks_summary(text) == {"softmax": "✔ done"}
