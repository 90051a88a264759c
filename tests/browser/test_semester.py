"""A semester for one assignment and two students, in JupyterLab with nbgrader's lab extension (issue 15).

The instructor releases 02_scaling through the course's exchange (course.yml); alice and bob
fetch it in the Assignments tab, work (alice: the solutions; bob: the same with the typical
``scale_scores`` bug, dividing by d_k instead of its square root), Validate, and submit in the
Assignments tab. The instructor collects, grades with ``autograder grade``, hand-grades the
written answer in formgrader (where the rubric and model answer are shown), writes and releases
feedback; each student fetches it in the Assignments tab. The final numbers must agree in the
gradebook, ``grades.csv``, the class report and ``nbgrader export``; no released page carries a
hidden test, a ``check(`` call, the rubric or the model answer's values.

One JupyterLab server plays every part: it serves the course from the course directory (so
formgrader and Validate read the course's ``nbgrader_config.py``), and the student's settings
(exchange, course, student id, where fetched assignments go) are in the Jupyter config directory,
which the Assignments tab re-reads on every request; switching students rewrites that file.
"""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from .conftest import SCREENSHOTS, LabPage, browser_skip_reason, start_lab, stop_lab
from .nbtools import REPO, completed_notebook

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ASSIGNMENT = "02_scaling"
BIN = Path(sys.executable).parent
BUG = "def scale_scores(scores, d_k):\n    return np.asarray(scores) / d_k  # no square root\n"
BOB_WHY = "Key 1 is the most similar to the query so it scores highest; without the scaling it would still win."
HAND = {"alice": (2, "Complete: order, positivity and sharpness."), "bob": (1, "Say why every key keeps a weight.")}
# What a released page must never contain: test code, the rubric; and, in the page of a student who
# did not write them (bob), the model answer's values (alice copied the model answer: hers are her own).
FORBIDDEN = ("BEGIN HIDDEN TESTS", "check(", "Rubric (instructor only)", "Model answer", "lose points")
ANSWER_KEY = ("0.665, 0.245", "0.576")


def _run(args: list[str], cwd: Path) -> str:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{args}: {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _course(base: Path) -> tuple[Path, Path, str]:
    """The course (02 only in use) under the server root, its exchange beside it; returns (root, course, id)."""
    root = base / "root"
    course = root / "course"
    (course / "solutions").mkdir(parents=True)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, course / "solutions" / ASSIGNMENT)
    shutil.copy2(REPO / "nbgrader_config.py", course)
    text = (REPO / "course.yml").read_text()
    text = re.sub(r"(?m)^exchange:.*\n(  .*\n)*", "", text)
    # every student is root here (one account for all), so who submitted cannot be told (grading/provenance.py)
    (course / "course.yml").write_text(text + f"exchange:\n  root: {base / 'exchange'}\n  accounts: shared\n")
    for sid in HAND:
        (root / sid).mkdir()
    _run([str(BIN / "autograder"), "generate", ASSIGNMENT], course)
    course_id = re.search(r"(?m)^course_id:\s*(\S+)", text).group(1)
    return root, course, course_id


def _as_student(base: Path, root: Path, course_id: str, sid: str) -> None:
    """The student's nbgrader settings, where the Assignments tab reads them (the Jupyter config dir)."""
    (base / "config").mkdir(exist_ok=True)
    (base / "config" / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.Exchange.root = {str(base / 'exchange')!r}\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        f"c.CourseDirectory.student_id = {sid!r}\n"
        f"c.Exchange.assignment_dir = {str(root / sid)!r}\n"
        f"c.Exchange.cache = {str(base / 'cache' / sid)!r}\n")


def _work(path: Path, sid: str) -> None:
    """What the student writes: the solutions; bob with the typical bug and his own words."""
    nb = completed_notebook(ASSIGNMENT)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if sid == "bob" and gid == "scale_scores":
            cell.source = BUG
        if sid == "bob" and gid == "STOP_AND_TRY_WHY":
            cell.source = BOB_WHY
    released = nbformat.read(path, as_version=4)
    nb.metadata = released.metadata
    nbformat.write(nb, path)


class Semester:
    def __init__(self, page, server, base: Path, root: Path, course: Path, course_id: str):
        self.page, self.server, self.base, self.root, self.course = page, server, base, root, course
        self.course_id = course_id
        self.lab = LabPage(page, server)
        self.shots: list[Path] = []

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"semester-{len(self.shots) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path)

    def assignments_tab(self, sid: str):
        _as_student(self.base, self.root, self.course_id, sid)
        self.page.evaluate("() => window.jupyterapp.commands.execute('nbgrader:open-assignment-list')")
        self.page.locator("#refresh_assignments_list").click()
        return self.page

    def row(self, listing: str, button: str):
        return self.page.locator(f"#{listing} .list_item", has_text=ASSIGNMENT).get_by_role("button", name=button)

    def fetch(self, sid: str) -> None:
        self.assignments_tab(sid)
        self.row("released_assignments_list", "Fetch").click()
        self.row("fetched_assignments_list", "Submit").wait_for(timeout=60_000)
        self.shot(f"{sid}-fetched")

    def validate(self, sid: str) -> tuple[str, str]:
        self.lab.open_notebook(f"{sid}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
        self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar").get_by_text(
            "Validate", exact=True).click()
        dialog = self.page.locator(".jp-Dialog")
        dialog.wait_for(state="visible", timeout=240_000)
        self.shot(f"{sid}-validated")  # the result, as the student sees it
        title = dialog.locator(".jp-Dialog-header").inner_text().strip()
        body = dialog.locator(".jp-Dialog-body").inner_text()
        dialog.locator(".jp-Dialog-footer button").last.click()
        dialog.wait_for(state="detached")
        self.lab.close_all_tabs()
        return title, body

    def submit(self, sid: str) -> None:
        self.assignments_tab(sid)
        self.row("fetched_assignments_list", "Submit").click()
        self.row("submitted_assignments_list", "Fetch Feedback").wait_for(timeout=60_000)
        self.shot(f"{sid}-submitted")

    def hand_grade(self, sid: str, points: int, comment: str) -> None:
        con = sqlite3.connect(self.course / "gradebook.db")
        (sn_id,) = con.execute(
            "SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.student_id = ?", (sid,)).fetchone()
        con.close()
        page = self.page.context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("response", lambda r: errors.append(f"{r.request.method} {r.url[:90]} {r.status}")
                if "/api/" in r.url else None)
        page.goto(self.server.url(f"formgrader/submissions/{sn_id}"), wait_until="networkidle")
        # $\sqrt{d_k}$ in the question and the rubric is typeset (MathJax from the server: no CDN here).
        page.locator(".MathJax").first.wait_for(timeout=60_000)
        self.typeset = page.locator(".MathJax").count()
        score = page.locator("input.score#STOP_AND_TRY_WHY")
        score.click()
        score.fill(str(points))
        score.press("Tab")  # formgrader saves a field when it loses focus ("change")
        box = page.locator("textarea.comment#STOP_AND_TRY_WHY-comment")
        box.click()
        box.fill(comment)
        score.click()
        deadline = time.monotonic() + 30
        while _manual(self.course, sid) != (points, comment):
            assert time.monotonic() < deadline, (f"formgrader did not save {sid}'s grade: "
                                                 f"{_manual(self.course, sid)}; console errors: {errors}\n{self.server.log_tail(30)}")
            page.wait_for_timeout(300)
        rubric = page.locator(".text_cell_render", has_text="Rubric (instructor only)")
        rubric.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"semester-{len(self.shots) + 1:02d}-{sid}-formgrader.png"))
        self.shots.append(SCREENSHOTS / f"semester-{len(self.shots) + 1:02d}-{sid}-formgrader.png")
        self.formgrader_text = page.locator("body").inner_text()
        page.close()

    def fetch_feedback(self, sid: str) -> str:
        self.assignments_tab(sid)
        self.row("submitted_assignments_list", "Fetch Feedback").click()
        deadline = time.monotonic() + 60
        while not list((self.root / sid / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")):
            assert time.monotonic() < deadline, f"{sid}'s feedback never arrived"
            self.page.wait_for_timeout(300)
        self.shot(f"{sid}-feedback-fetched")
        (page_path,) = (self.root / sid / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")
        view = self.page.context.new_page()
        view.goto(self.server.url(f"files/{page_path.relative_to(self.root).as_posix()}"))
        view.screenshot(path=str(SCREENSHOTS / f"semester-{len(self.shots) + 1:02d}-{sid}-feedback.png"),
                        full_page=True)
        self.shots.append(SCREENSHOTS / f"semester-{len(self.shots) + 1:02d}-{sid}-feedback.png")
        view.close()
        return page_path.read_text()


def _manual(course: Path, sid: str):
    con = sqlite3.connect(course / "gradebook.db")
    # The answer cell is a grade cell and a solution cell: two base_cell rows with one name.
    row = con.execute(
        "SELECT g.manual_score, c.manual_comment FROM grade g JOIN base_cell bc ON g.cell_id = bc.id "
        "JOIN submitted_notebook sn ON g.notebook_id = sn.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
        "JOIN comment c ON c.notebook_id = sn.id JOIN base_cell cc ON c.cell_id = cc.id AND cc.name = bc.name "
        "WHERE sa.student_id = ? AND bc.name = 'STOP_AND_TRY_WHY'", (sid,)).fetchone()
    con.close()
    return (None, None) if row is None else (row[0], row[1])


def _gradebook_scores(course: Path) -> dict[str, float]:
    con = sqlite3.connect(course / "gradebook.db")
    rows = con.execute(
        "SELECT sa.student_id, SUM(COALESCE(g.manual_score, g.auto_score, 0) + COALESCE(g.extra_credit, 0)) "
        "FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id "
        "JOIN submitted_assignment sa ON sn.assignment_id = sa.id GROUP BY sa.student_id").fetchall()
    con.close()
    return dict(rows)


@pytest.fixture
def semester(browser_context, tmp_path):
    reason = browser_skip_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path / "semester"
    base.mkdir()
    root, course, course_id = _course(base)
    _run([str(BIN / "nbgrader"), "release_assignment", ASSIGNMENT, "--force"], course)
    _as_student(base, root, course_id, "alice")
    server = start_lab(base, root, cwd=course, extra_args=("--LabApp.expose_app_in_browser=True",))
    page = browser_context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server.url("lab?reset"), wait_until="domcontentloaded")
        page.wait_for_selector("#jp-main-dock-panel .lm-TabBar-tab", timeout=120_000)
        yield Semester(page, server, base, root, course, course_id)
    finally:
        page.close()
        stop_lab(server)


def test_a_semester_for_one_assignment(semester):
    s, t0 = semester, time.monotonic()
    verdicts = {}
    for sid in HAND:
        s.fetch(sid)
        _work(s.root / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", sid)
        verdicts[sid] = s.validate(sid)
        s.submit(sid)
    # Validate (the test cells' visible lines, issue 15 item 1): bob's divisor fails, naming its task.
    assert verdicts["alice"] == ("Validation Results", "Success! Your notebook passes all the tests."), verdicts
    assert "Success" not in verdicts["bob"][1] and "scale_scores" in verdicts["bob"][1], verdicts
    _run([str(BIN / "nbgrader"), "collect", ASSIGNMENT], s.course)
    _run([str(BIN / "autograder"), "grade", ASSIGNMENT, "--workers", "2", "--no-progress"], s.course)
    for sid, (points, comment) in HAND.items():
        s.hand_grade(sid, points, comment)
    assert "Model answer (instructor only)" in s.formgrader_text
    assert s.typeset >= 2 and "\\sqrt{d_k}" not in s.formgrader_text  # typeset, not raw TeX
    _run([str(BIN / "autograder"), "feedback"], s.course)
    report = _run([str(BIN / "autograder"), "report", "--no-html"], s.course)
    _run([str(BIN / "nbgrader"), "release_feedback", ASSIGNMENT], s.course)
    pages = {sid: s.fetch_feedback(sid) for sid in HAND}
    _run([str(BIN / "nbgrader"), "export", "--to", "export.csv"], s.course)
    print(f"\n[semester] {time.monotonic() - t0:.0f} s, screenshots: {[p.name for p in s.shots]}")
    print(f"[semester] Validate: {json.dumps(verdicts)[:600]}")

    results = {r["student_id"]: r for r in json.loads((s.course / "reports" / "results.json").read_text())["submissions"]}
    # alice: every auto-graded point and 2 by hand; bob loses the scale_scores cells and nothing else
    # (scaled_dot_product_attention is graded with the correct scale_scores), and gets 1 by hand.
    cells = {sid: {c["grade_id"]: c for c in r["cells"]} for sid, r in results.items()}
    auto_max = sum(c["max_score"] for c in cells["alice"].values() if not c["manual"])
    assert results["alice"]["score"] == auto_max + 2 == 26  # 02: 24 auto-graded points, STOP_AND_TRY_WHY 2 by hand
    lost = {g: c for g, c in cells["bob"].items() if not c["manual"] and c["score"] < c["max_score"]}
    assert {c["task"] for c in lost.values()} == {"scale_scores"}
    assert results["bob"]["score"] == auto_max - sum(c["max_score"] for c in lost.values()) + 1

    with open(s.course / "export.csv", newline="") as fh:
        export = {r["student_id"]: float(r["score"]) for r in csv.DictReader(fh) if r["assignment"] == ASSIGNMENT}
    with open(s.course / "reports" / "grades.csv", newline="") as fh:
        grades = {r["student_id"]: float(r[ASSIGNMENT]) for r in csv.DictReader(fh)}
    gradebook = _gradebook_scores(s.course)
    for sid in HAND:
        assert export[sid] == grades[sid] == gradebook[sid] == results[sid]["score"], sid
        assert re.search(rf"Feedback for <strong>{sid}</strong>", pages[sid])
        assert f">{results[sid]['score']:g} <span" in pages[sid], sid
        assert HAND[sid][1] in pages[sid]
        for text in FORBIDDEN + (ANSWER_KEY if sid == "bob" else ()):
            assert text not in pages[sid], (sid, text)
    released = sorted((s.base / "exchange" / s.course_id / "feedback").glob("*.html"))
    assert len(released) == len(HAND)
    for path in released:  # every page release_feedback published
        assert not any(text in path.read_text() for text in FORBIDDEN), path
    assert re.search(r"02_scaling\s+hand-graded 3 of 4 points\s+needs manual grading: 0", report), report
