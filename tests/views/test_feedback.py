"""autograder feedback: per-student pages with scores and messages, never hidden-test or solution code."""
from __future__ import annotations

import re

import nbformat

from autograder import cli, feedback
from autograder.submissions import solution_answers

from .conftest import course_notebook, tiny_notebook

HIDDEN_MARKERS = re.compile(r"BEGIN HIDDEN TESTS|END HIDDEN TESTS|BEGIN SOLUTION|END SOLUTION|\bcheck\(|autograder\.hidden")


def _pages(tmp_path, results_path, **kw):
    out = tmp_path / "feedback"
    written = feedback.write_feedback(results_path, out, course_dir=None, **kw)
    return out, {p.relative_to(out).as_posix(): p.read_text() for p in written}


def test_one_page_per_student_and_notebook(tmp_path, results_path):
    out, pages = _pages(tmp_path, results_path)
    assert sorted(pages) == sorted([
        "s01/01_scores_softmax/01_scores_softmax.html", "s01/02_scaling/02_scaling.html",
        "s02/01_scores_softmax/01_scores_softmax.html", "s02/02_scaling/02_scaling.html",
        "s03/01_scores_softmax/01_scores_softmax.html",
        "s04/01_scores_softmax/01_scores_softmax.html", "s04/02_scaling/02_scaling.html",
        "s05/01_scores_softmax/01_scores_softmax.html", "s05/02_scaling/02_scaling.html"])


def test_scores_messages_and_misconceptions(tmp_path, results_path):
    _, pages = _pages(tmp_path, results_path)
    s04 = pages["s04/01_scores_softmax/01_scores_softmax.html"]
    assert "3 <span" in s04 and "/ 10" in s04  # score 3 of 10
    assert "you returned the products of matching entries" in s04
    assert "returns the elementwise products instead of their sum" in s04  # misconception title
    assert "softmax normalised along the wrong axis" in s04
    assert "to fix" in s04 and "possible tampering" not in s04  # flags are for the instructor
    s03 = pages["s03/01_scores_softmax/01_scores_softmax.html"]
    assert "not started" in s03 and "NotImplementedError" in s03
    s01 = pages["s01/02_scaling/02_scaling.html"]
    assert "STOP_AND_TRY_WHY" in s01 and "not graded yet" in s01  # no hand grade in the fixture
    failed = pages["s05/02_scaling/02_scaling.html"]
    assert "could not be graded" in failed and "invalid JSON" in failed


def test_no_hidden_test_code_in_any_page(tmp_path, results_path):
    _, pages = _pages(tmp_path, results_path)
    for name, page in pages.items():
        assert not HIDDEN_MARKERS.search(page), name


def _autograded(student_code: str, hidden_source: str):
    """An autograded notebook as nbgrader leaves it: given cell, the student's answer, a test cell
    with its hidden test restored and a traceback in its output."""
    nb = tiny_notebook({"softmax": student_code})
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = hidden_source
            cell.outputs = [nbformat.v4.new_output("error", ename="CheckFailed", evalue="softmax: wrong axis",
                                                   traceback=[hidden_source])]
    return nb


def test_student_answers_shown_test_cells_not(tmp_path, results_small):
    import json
    student = "def softmax(x, axis=-1):\n    e = np.exp(x)\n    return e / e.sum(axis=0, keepdims=True)  # my try"
    hidden = '### BEGIN HIDDEN TESTS\ncheck("softmax_rows_sum_to_one", globals())\n### END HIDDEN TESTS'
    autograded = tmp_path / "autograded"
    path = autograded / "s04" / "01_scores_softmax" / "01_scores_softmax.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(_autograded(student, hidden), str(path))
    # a message that smuggles a traceback with the test line must be scrubbed
    sub = next(s for s in results_small["submissions"] if s["student_id"] == "s04" and s["assignment_id"] == "01_scores_softmax")
    sub["cells"][2]["message"] = ('\x1b[0;31mCheckFailed\x1b[0m: wrong axis\n'
                                  'Cell In[7], line 2\n      1 ### BEGIN HIDDEN TESTS\n----> 2 check("softmax_rows_sum_to_one", globals())')
    results = tmp_path / "results.json"
    results.write_text(json.dumps(results_small))
    _, pages = _pages(tmp_path, results, autograded_dir=autograded)
    page = pages["s04/01_scores_softmax/01_scores_softmax.html"]
    assert "# my try" in page and "e.sum(axis=0, keepdims=True)" in page  # the student's own code
    assert "Your answers" in page
    assert not HIDDEN_MARKERS.search(page)
    assert "from autograder" not in page and "Grader(" not in page  # the given cell is not an answer
    assert "\x1b" not in page and "CheckFailed: wrong axis" in page


def test_answer_cells_filter():
    nb = tiny_notebook({"softmax": "def softmax(x):\n    return x", "dot_product": "### BEGIN SOLUTION\nsecret\n### END SOLUTION"})
    cells = feedback.answer_cells(nb)
    assert [c["grade_id"] for c in cells] == ["softmax"]  # the instructor's marked source is dropped


def test_no_instructor_solution_in_pages(tmp_path, results_path):
    """Pages of a blank and a mistaken student, built from the real released notebook, contain
    none of the instructor's solution lines nor the test cells."""
    source = course_notebook("solutions")
    release = course_notebook("assignments")
    autograded = tmp_path / "autograded"
    for student in ("s03", "s04"):
        path = autograded / student / "01_scores_softmax" / "01_scores_softmax.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(release, str(path))
    _, pages = _pages(tmp_path, results_path, autograded_dir=autograded)
    solution_lines = {line.strip() for src in solution_answers(source).values() for line in src.splitlines()
                      if len(line.strip()) > 12 and not line.strip().startswith(("def ", '"""', "#", "Parameters", "Returns", "---"))
                      and line.strip() not in "\n".join(c.source for c in release.cells)}
    assert solution_lines, "expected instructor solution lines to look for"
    for student in ("s03", "s04"):
        page = pages[f"{student}/01_scores_softmax/01_scores_softmax.html"]
        assert "NotImplementedError" in page  # the stubs are the student's answers
        assert not HIDDEN_MARKERS.search(page)
        leaked = [line for line in solution_lines if line in page]
        assert not leaked, leaked


def test_cli(tmp_path, results_path, capsys):
    out = tmp_path / "fb"
    assert cli.main(["feedback", "--results", str(results_path), "--out", str(out), "--student", "s02", "--course", str(tmp_path)]) == 0
    assert "wrote 2 feedback pages" in capsys.readouterr().out
    assert sorted(p.name for p in out.rglob("*.html")) == ["01_scores_softmax.html", "02_scaling.html"]


def test_inline_markdown_is_escaped():
    html = str(feedback.inline_markdown("use `K.T` *not* <b>this</b> a*b*c"))
    assert html == "use <code>K.T</code> <em>not</em> &lt;b&gt;this&lt;/b&gt; a*b*c"
