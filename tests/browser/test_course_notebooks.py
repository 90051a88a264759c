"""The course notebooks as a student meets them: JupyterLab 4 with nbgrader's lab extension, in
headless Chromium (issue 6, "In the browser").

* a released notebook with its answers filled in (from ``solutions/``): Run All through the
  menu; every visible check reports success, the summary says every task is done, every plot
  is an image on the page, and nbgrader's "Validate" button reports success;
* an untouched released notebook: Run All reaches the end; every visible check reports its
  task "not done yet" with the friendly message; the only errors on the page are the stubs'
  ``NotImplementedError`` and the test cells' visible lines saying "not done yet";
* screenshots of every rendered notebook and of the class report page, in
  ``test-output/screenshots/``.

What is proven here is JupyterLab's side (Run All through the menu, outputs and images on the page, the
Validate button), which does not depend on the notebook, so it runs on the notebooks with the most
for a page to show: 02 (the student's own numbers printed by a locked cell, three plots, answer keys
that raise until written) and 06 (the memory measurement in the kernel, two plots); each run costs
20-40 s of Chromium and JupyterLab. Every notebook's own properties are proven for each notebook of
``course.yml`` without a browser: its solutions pass every visible check and Validate line and its stubs
say "not done" in the student kit (``tests/kit/test_kit_venv.py``), Run All on the untouched release
stops at no untagged cell and draws no empty figure (``tests/course/test_structure.py``), each plot of
the solved notebook is an image and no cell writes to stderr under stock ``nbgrader autograde``
(``tests/course/test_nbgrader.py``),
and ``nbgrader validate`` passes the solved one (``tests/course/test_validate.py``). A notebook missing from
``solutions/`` or ``assignments/`` fails :func:`test_every_course_notebook_is_generated`.
"""
from __future__ import annotations

import re
import shutil

import pytest

from .nbtools import (REPO, SCREENSHOTS, assignments_in, checked_task, completed_notebook, draws_plot,
                      is_solution, is_summary, run_checks_summary, stage)

pytestmark = [pytest.mark.browser]

from autograder.config import load_course
from autograder.notebook import FAIL, PASS

STDERR = "application/vnd.jupyter.stderr"
NOT_DONE = "not done yet"


COURSE = [a.id for a in load_course(REPO).assignments]
#: The notebooks driven through the page (see the module docstring).
COMPLETED = ["02_scaling", "06_long_sequences"]
UNTOUCHED = ["02_scaling"]


def test_every_course_notebook_is_generated():
    assert assignments_in("solutions") == assignments_in("assignments") == sorted(COURSE)


def _text(cell: dict) -> str:
    return "\n".join(o["text"] for o in cell["outputs"])


def _describe(i: int, source: str, cell: dict) -> str:
    return f"cell {i} ({source.strip().splitlines()[0][:60] if source.strip() else 'empty'!r}): " \
           f"{_text(cell)[:400]!r}"


def test_the_browser_notebooks_are_course_notebooks():
    assert set(COMPLETED) | set(UNTOUCHED) <= set(COURSE)


@pytest.mark.parametrize("assignment", COMPLETED)
def test_completed_notebook_passes_its_checks_shows_plots_and_validates(lab, assignment):
    nb = completed_notebook(assignment)
    relpath = stage(assignment, "solutions", lab.server.root, nb)
    lab.open_notebook(relpath)
    lab.run_all()
    cells = lab.cells()
    assert len(cells) == len(nb.cells), "the page shows a different number of cells"

    problems = []
    for i, (src, cell) in enumerate(zip(nb.cells, cells)):
        if src.cell_type != "code":
            continue
        if not re.fullmatch(r"\[\d+\]:", cell["prompt"]):
            problems.append(f"cell {i} did not run (prompt {cell['prompt']!r})")
        if any(o["mime"] == STDERR for o in cell["outputs"]):
            problems.append("error/stderr in " + _describe(i, src.source, cell))
        task = checked_task(src.source)
        if task:
            text = _text(cell)
            if not text.startswith(f"{PASS} {task}:") or FAIL in text:
                problems.append(f"visible check of {task} does not pass: " + _describe(i, src.source, cell))
        if is_summary(src.source):
            rows = run_checks_summary(_text(cell))
            bad = {t: s for t, s in rows.items() if t != "task" and not s.startswith(PASS)}
            if not rows or bad:
                problems.append(f"summary does not show every task done: {bad or _text(cell)!r}")
        if draws_plot(src.source):
            imgs = cell["images"]
            if not imgs or not all(im["complete"] and im["width"] > 50 and im["height"] > 50 for im in imgs):
                problems.append("plot missing: " + _describe(i, src.source, cell) + f" images={imgs}")
            if "plot appears once" in _text(cell):
                problems.append("plot placeholder shown: " + _describe(i, src.source, cell))
    assert not problems, "\n".join(problems)
    assert sum(checked_task(c.source) is not None for c in nb.cells if c.cell_type == "code"), \
        "the notebook has no visible check cell"
    assert not lab.page_errors, lab.page_errors
    n_checks = sum(checked_task(c.source) is not None for c in nb.cells if c.cell_type == "code")
    n_plots = sum(len(c["images"]) for c in cells)
    print(f"\n[browser] {assignment}: {n_checks} visible checks pass, {n_plots} plots shown")
    lab.screenshot_notebook(f"completed-{assignment}")

    title, body = lab.validate()
    assert title == "Validation Results" and "Success! Your notebook passes all the tests." in body, \
        f"Validate said {title!r}: {body[:2000]}"


def _says_not_done(task: str, text: str) -> bool:
    """Whether a visible check's output says the task is not done yet, with the reason: a stub
    that still raises NotImplementedError, or a constant whose cell never defined the name."""
    return (text.startswith(f"{FAIL} {task}: {NOT_DONE}.")
            and ("NotImplementedError" in text or "is not defined yet" in text))


def _validate_not_done(src, text: str) -> bool:
    """A test cell's visible line (``grader.validate``) failing with "not done yet" on a stub: expected."""
    meta = src.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution") and "ValidationFailed" in text and NOT_DONE in text


@pytest.mark.parametrize("assignment", UNTOUCHED)
def test_untouched_notebook_reports_stubs_not_done(lab, assignment):
    import nbformat

    nb = nbformat.read(REPO / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    check_untouched(lab, assignment, nb)


def check_untouched(lab, assignment, nb):
    relpath = stage(assignment, "assignments", lab.server.root, nb)
    lab.open_notebook(relpath)
    lab.run_all()
    cells = lab.cells()
    assert len(cells) == len(nb.cells)

    never_ran = [i for i, (s, c) in enumerate(zip(nb.cells, cells))
                 if s.cell_type == "code" and not re.fullmatch(r"\[\d+\]:", c["prompt"])]
    if never_ran:
        stopper = max((i for i in range(never_ran[0]) if nb.cells[i].cell_type == "code"), default=None)
        pytest.fail(
            f"Run All stopped before the end: cells {never_ran} never ran. JupyterLab aborts the "
            f"cells after one that raises (here cell {stopper}, grade_id "
            f"{nb.cells[stopper].metadata.get('nbgrader', {}).get('grade_id')!r}) unless that "
            f"cell is tagged 'raises-exception'; tag the solution cells whose stub raises at "
            f"the top level in solutions/ (nbgrader keeps the tag in the student version).")

    problems = []
    seen_checks = 0
    for i, (src, cell) in enumerate(zip(nb.cells, cells)):
        if src.cell_type != "code":
            continue
        for o in cell["outputs"]:
            if o["mime"] == STDERR and not (is_solution(src) and "NotImplementedError" in o["text"]) \
                    and not _validate_not_done(src, o["text"]):
                problems.append("unexpected error/stderr in " + _describe(i, src.source, cell))
        task = checked_task(src.source)
        if task:
            seen_checks += 1
            text = _text(cell)
            if not _says_not_done(task, text):
                problems.append(f"visible check of {task} does not say 'not done yet': "
                                + _describe(i, src.source, cell))
        if is_summary(src.source):
            rows = run_checks_summary(_text(cell))
            done = {t: s for t, s in rows.items() if t != "task" and s.startswith(PASS)}
            if not rows or done:
                problems.append(f"summary of an untouched notebook shows tasks done: {done or _text(cell)!r}")
    assert not problems, "\n".join(problems)
    assert seen_checks, "the notebook has no visible check cell"
    assert not lab.page_errors, lab.page_errors
    lab.screenshot_notebook(f"untouched-{assignment}")


def test_nbgrader_lab_extension_is_loaded(lab):
    """The lab extension's "Validate" toolbar button and menu, and its server extension."""
    import nbgrader

    assignment = assignments_in("assignments")[0]
    import nbformat

    nb = nbformat.read(REPO / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    lab.open_notebook(stage(assignment, "assignments", lab.server.root, nb))
    toolbar = lab.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar")
    assert toolbar.get_by_text("Validate", exact=True).count() == 1
    assert lab.page.locator("#jp-menu-panel .lm-MenuBar-item", has_text="Nbgrader").count() == 1
    assert lab.server.api(f"nbgrader_version?version={nbgrader.__version__}") == {"success": True}


def test_class_report_page_screenshot(browser_context, tmp_path):
    fixture = REPO / "tests" / "views" / "fixtures" / "results_small.json"
    import io

    from autograder import report

    html = tmp_path / "reports" / "report.html"
    report.write_report(fixture, html, course_dir=REPO, out=io.StringIO())
    page = browser_context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        assert page.locator("svg").count() >= 1, "the report page shows no plot"
        assert "01_scores_softmax" in page.inner_text("body")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "class-report.png"), full_page=True)
        shutil.copy(html, SCREENSHOTS / "class-report.html")
    finally:
        page.close()
    assert not errors, errors
