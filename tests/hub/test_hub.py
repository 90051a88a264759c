"""A course on a real JupyterHub, with students and an instructor as separate Unix users (issue 21).

The hub (``conftest.py``) serves each student's JupyterLab from the student image (the kit, no grader)
as that student, and formgrader from the course's hub service as the instructor, who is not root.

* ``test_a_students_kernel_holds_no_grader``: in alice's kernel, no check of the grader can be imported
  (the kit's ``autograder.checks`` is the check machinery only: ``import autograder.checks`` itself works,
  by the kit's design, and ``autograder.checks.nb01_scores_softmax``, the registry ``CHECKS``, the judges,
  the grading, sandbox and catalogue packages fail), nor the reference of a graded or undue name; and
  neither this repository's solutions and checks nor the instructor's course (solutions, gradebook) nor
  the instructor's installed grader can be read.
* ``test_a_course_on_the_hub``: alice logs in, fetches 01 in the Assignments tab, fills it in (the
  solution's answers), runs Validate and submits; bob submits, from his own server, a notebook with one
  typical mistake; the instructor collects and grades as their own non-root account (the warning says what
  an account without a delegated control group loses), logs in, hand-grades the written answer in
  formgrader (the course service), writes and releases feedback; alice fetches hers and sees her score
  and no hidden test. The gradebook, ``grades.csv``, the class report and ``nbgrader export`` agree.
"""
from __future__ import annotations

import csv
import json
import os
import pwd
import re
import sqlite3
import time
import urllib.parse
from contextlib import closing
from pathlib import Path

import nbformat
import pytest

from tests.browser.conftest import LabPage
from tests.browser.nbtools import REPO, SCREENSHOTS, completed_notebook

from .conftest import ASSIGNMENT, INSTRUCTOR, Hub

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WRITTEN = "SOFTMAX_NOT_ARGMAX_WHY"  # 01's hand-graded answer (1 point)
BOB_WHY = "Argmax picks one key, softmax gives every key some weight."
HAND = {"alice": (1, "Right: argmax has no gradient to learn from."),
        "bob": (0, "Say what training needs from the output.")}
# What a page a student fetches must never hold: test code, the rubric, the model answer.
FORBIDDEN = ("BEGIN HIDDEN TESTS", "check(", "Rubric (instructor only)", "Model answer")

PROBE = '''
import json, os, sys
found = {"uid": os.getuid(), "prefix": sys.prefix}
for module in MODULES:
    try:
        __import__(module)
        found[module] = "imported from " + sys.modules[module].__file__
    except ImportError as exc:
        found[module] = type(exc).__name__
for name in NAMES:
    try:
        exec(name)
        found[name] = "imported"
    except ImportError as exc:
        found[name] = type(exc).__name__
for label, path in PATHS.items():
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        found[label] = "read"
    except OSError as exc:
        found[label] = type(exc).__name__
print(json.dumps(found))
'''


def _grader_modules() -> list[str]:
    """The grader's modules a student must not import: every module of ``autograder/checks`` that the kit
    does not ship (the kit ships the check machinery, ``core``, ``expect`` and ``forms``: no check), and
    the packages that grade, verify or hold the catalogue of mistakes."""
    from autograder.kit.build import KIT_FILES

    shipped = {p.removesuffix(".py").replace("/", ".") for p in KIT_FILES}
    checks = [f"autograder.checks.{p.stem}" for p in sorted((REPO / "autograder" / "checks").glob("*.py"))
              if p.stem != "__init__"]
    return [m for m in checks if m not in shipped] + ["autograder.grading", "autograder.sandbox",
                                                       "autograder.catalogue"]


def test_a_students_kernel_holds_no_grader(hub: Hub):
    t0 = time.monotonic()
    hub.start_server("alice")
    started = time.monotonic() - t0
    paths = {
        "repository solutions": REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
        "repository checks": REPO / "autograder" / "checks" / "__init__.py",
        "course solutions": hub.course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
        "course gradebook": hub.course / "gradebook.db",
        "instructor's grader": next((hub.instructor_env / "lib").glob("python*/site-packages/autograder/checks/__init__.py")),
    }
    for label, path in paths.items():  # each exists: unreadable must mean hidden, not missing
        assert path.is_file(), (label, path)
    modules = _grader_modules()
    names = ["from autograder.checks import CHECKS",  # the grader's registry of checks
             "from attention_ref import softmax",  # graded in 01
             "from attention_ref import scaled_dot_product_attention"]  # graded in 02, not due
    ran = hub.execute("alice", f"PATHS = {json.dumps({k: str(v) for k, v in paths.items()})}\n"
                               f"MODULES = {['autograder.hidden', *modules]!r}\nNAMES = {names!r}\n{PROBE}")
    assert ran["error"] is None, ran
    found = json.loads(ran["stdout"])
    print(f"\n[hub] setup {hub.setup_seconds}; alice's server ready after {started:.1f} s, her kernel's answer after "
          f"{time.monotonic() - t0:.1f} s: {found}")
    assert found["uid"] == pwd.getpwnam("alice").pw_uid
    assert Path(found["prefix"]) == hub.student_image
    # the kit is there: what a notebook imports works
    assert found["autograder.hidden"].startswith(f"imported from {hub.student_image}/"), found
    assert "autograder.checks.nb01_scores_softmax" in modules
    for module in modules:
        assert found[module] == "ModuleNotFoundError", (module, found)
    for name in names:
        assert found[name] == "ImportError", (name, found)
    for label in paths:
        assert found[label] in ("FileNotFoundError", "PermissionError"), (label, found)


# ------------------------------------------------------------------------------------------ the semester
class People:
    """The browser as each person: a context (cookies) of their own, logged in to the hub."""

    def __init__(self, hub: Hub, browser):
        self.hub, self.browser = hub, browser
        self.pages: dict[str, object] = {}
        self.shots: list[Path] = []

    def login(self, user: str, next_path: str):
        context = self.browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{self.hub.url}/hub/login?next={urllib.parse.quote(next_path)}")
        page.locator("#username_input").fill(user)
        page.locator("#password_input").fill(self.hub.passwords[user])
        page.locator("#login_submit").click()
        self.pages[user] = page
        return page

    def shot(self, page, name: str, full_page: bool = False) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"hub-{len(self.shots) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path)

    def failed(self) -> None:
        """Screenshots of every page each person has open (``hub-FAILED-<person>-<n>.png``)."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for user, page in self.pages.items():
            for i, open_page in enumerate(page.context.pages):
                try:
                    open_page.screenshot(path=str(SCREENSHOTS / f"hub-FAILED-{user}-{i}.png"))
                except Exception:  # noqa: BLE001 - best effort on a failing test
                    pass

    def close(self) -> None:
        for page in self.pages.values():
            page.context.close()


def _assignments_tab(page):
    page.evaluate("() => window.jupyterapp.commands.execute('nbgrader:open-assignment-list')")
    page.locator("#refresh_assignments_list").click()


def _row(page, listing: str, button: str):
    return page.locator(f"#{listing} .list_item", has_text=ASSIGNMENT).get_by_role("button", name=button)


def _alices_work(path: Path) -> None:
    """The solutions' answers in alice's fetched notebook (its metadata kept), owned by alice."""
    nb = completed_notebook(ASSIGNMENT)
    nb.metadata = nbformat.read(path, as_version=4).metadata
    nbformat.write(nb, path)
    pw = pwd.getpwnam("alice")
    os.chown(path, pw.pw_uid, pw.pw_gid)


def _bobs_mistake():
    """A typical mistake on softmax from the catalogue (:mod:`autograder.synthetic` deals them), one that
    costs its own task only."""
    from autograder.catalogue import all_variants

    return next(v for v in all_variants() if v.assignment == ASSIGNMENT and not v.correct
                and v.task == "softmax" and not v.also_fails)


def _bobs_work(fetched: dict, mistake):
    """bob's notebook: every answer right but ``mistake``, and his own written answer."""
    from autograder.submissions import fill
    from autograder.synthetic import load_course_notebooks

    (course_nb,) = load_course_notebooks(REPO, [ASSIGNMENT])
    nb = fill(course_nb.release, {**course_nb.answers, **mistake.answers, **{g: BOB_WHY for g in course_nb.written}})
    nb.metadata = nbformat.from_dict(fetched["metadata"])
    return nb


def _submit_from_server(hub: Hub, user: str, work) -> None:
    """What the Assignments tab does, through ``user``'s own server: fetch, save ``work(fetched notebook)``
    over the fetched notebook, submit."""
    form = {"course_id": hub.course_id, "assignment_id": ASSIGNMENT}
    done = hub.request(f"user/{user}/assignments/fetch", method="POST", data=form, form=True)
    assert done["success"], done
    rel = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    fetched = hub.request(f"user/{user}/api/contents/{rel}")["content"]
    hub.request(f"user/{user}/api/contents/{rel}", method="PUT",
                data={"type": "notebook", "format": "json", "content": work(fetched)})
    done = hub.request(f"user/{user}/assignments/submit", method="POST", data=form, form=True)
    assert done["success"], done


def _hand_grade(hub: Hub, page, sid: str, points: int, comment: str) -> str:
    """In formgrader: score and comment on ``sid``'s written answer; wait until the gradebook has them."""
    with closing(sqlite3.connect(hub.course / "gradebook.db")) as con:
        (sn_id,) = con.execute(
            "SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.student_id = ?", (sid,)).fetchone()
    page.goto(f"{hub.url}/services/{hub.course_id}/formgrader/submissions/{sn_id}", wait_until="networkidle")
    score = page.locator(f"input.score#{WRITTEN}")
    score.click()
    score.fill(str(points))
    score.press("Tab")  # formgrader saves a field when it loses focus
    box = page.locator(f"textarea.comment#{WRITTEN}-comment")
    box.click()
    box.fill(comment)
    score.click()
    deadline = time.monotonic() + 30
    while _manual(hub.course, sid) != (points, comment):
        assert time.monotonic() < deadline, f"formgrader did not save {sid}'s grade: {_manual(hub.course, sid)}"
        page.wait_for_timeout(300)
    return page.locator("body").inner_text()


def _manual(course: Path, sid: str):
    with closing(sqlite3.connect(course / "gradebook.db")) as con:
        row = con.execute(
            "SELECT g.manual_score, c.manual_comment FROM grade g JOIN base_cell bc ON g.cell_id = bc.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "JOIN comment c ON c.notebook_id = sn.id JOIN base_cell cc ON c.cell_id = cc.id AND cc.name = bc.name "
            "WHERE sa.student_id = ? AND bc.name = ?", (sid, WRITTEN)).fetchone()
    return (None, None) if row is None else (row[0], row[1])


def _gradebook_scores(course: Path) -> dict[str, float]:
    with closing(sqlite3.connect(course / "gradebook.db")) as con:
        rows = con.execute(
            "SELECT sa.student_id, SUM(COALESCE(g.manual_score, g.auto_score, 0) + COALESCE(g.extra_credit, 0)) "
            "FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id GROUP BY sa.student_id").fetchall()
    return dict(rows)


def test_a_course_on_the_hub(hub: Hub, hub_browser):
    t0 = time.monotonic()
    laps: dict[str, float] = {}

    def lap(name: str) -> None:
        laps[name] = round(time.monotonic() - t0 - sum(laps.values()), 1)

    people = People(hub, hub_browser)
    try:
        # alice, in the browser: log in, fetch, work, Validate, submit.
        hub.start_server("alice")
        alice = people.login("alice", "/user/alice/lab")
        alice.wait_for_selector("#jp-main-dock-panel .lm-TabBar-tab", timeout=120_000)
        lab = LabPage(alice, None)
        people.shot(alice, "alice-lab")
        _assignments_tab(alice)
        _row(alice, "released_assignments_list", "Fetch").click()
        _row(alice, "fetched_assignments_list", "Submit").wait_for(timeout=60_000)
        people.shot(alice, "alice-fetched")
        _alices_work(hub.homes["alice"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        lab.open_notebook(f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
        alice.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar").get_by_text(
            "Validate", exact=True).click()
        dialog = alice.locator(".jp-Dialog")
        dialog.wait_for(state="visible", timeout=120_000)
        people.shot(alice, "alice-validated")
        validated = (dialog.locator(".jp-Dialog-header").inner_text().strip(),
                     dialog.locator(".jp-Dialog-body").inner_text())
        dialog.locator(".jp-Dialog-footer button").last.click()
        dialog.wait_for(state="detached")
        lab.close_all_tabs()
        _assignments_tab(alice)
        _row(alice, "fetched_assignments_list", "Submit").click()
        _row(alice, "submitted_assignments_list", "Fetch Feedback").wait_for(timeout=60_000)
        people.shot(alice, "alice-submitted")
        assert validated == ("Validation Results", "Success! Your notebook passes all the tests."), validated
        lap("alice")

        # bob, from his own server (what the Assignments tab calls): one typical mistake.
        hub.start_server("bob")
        mistake = _bobs_mistake()
        _submit_from_server(hub, "bob", lambda fetched: _bobs_work(fetched, mistake))
        lap("bob")

        # The instructor, as their own account: collect and grade.
        hub.instructor("nbgrader", "collect", ASSIGNMENT)
        lap("collect")
        graded = hub.instructor("autograder", "grade", ASSIGNMENT, "--workers", "2", "--no-progress")
        missing = hub.instructor("python", "-c", "from autograder.sandbox.cgroup import available; "
                                 "print(' '.join(sorted({'memory', 'pids'} - available())))").stdout.split()
        said = graded.stdout + graded.stderr
        if missing:  # no delegated control group: the warning names each one lost and what it costs
            assert re.search(r"no writable .*control group", said), said
            for controller in missing:
                assert controller in said, (controller, said)
            assert "not as a tree" in said, said
            if "memory" in missing:
                assert "06's memory check is withheld" in said, said
        lap("grade")

        # ... logs in and hand-grades in formgrader (the course's service).
        teacher = people.login(INSTRUCTOR, f"/services/{hub.course_id}/formgrader")
        teacher.wait_for_url(re.compile(rf"/services/{re.escape(hub.course_id)}/formgrader"), timeout=60_000)
        texts = {}
        for sid, (points, comment) in HAND.items():
            texts[sid] = _hand_grade(hub, teacher, sid, points, comment)
            if sid == "alice":
                teacher.locator(".text_cell_render", has_text="Rubric (instructor only)").scroll_into_view_if_needed()
                people.shot(teacher, "instructor-formgrader")
        assert "Model answer (instructor only)" in texts["alice"]
        lap("formgrader")
        hub.instructor("autograder", "feedback")
        report = hub.instructor("autograder", "report", "--no-html").stdout
        hub.instructor("nbgrader", "release_feedback", ASSIGNMENT)
        hub.instructor("nbgrader", "export", "--to", "export.csv")
        lap("feedback, report, release, export")

        # alice fetches her feedback in the Assignments tab and reads it.
        _assignments_tab(alice)
        _row(alice, "submitted_assignments_list", "Fetch Feedback").click()
        feedback_dir = hub.homes["alice"] / ASSIGNMENT / "feedback"
        deadline = time.monotonic() + 60
        while not list(feedback_dir.glob(f"*/{ASSIGNMENT}.html")):
            assert time.monotonic() < deadline, "alice's feedback never arrived"
            alice.wait_for_timeout(300)
        people.shot(alice, "alice-feedback-fetched")
        (page_path,) = feedback_dir.glob(f"*/{ASSIGNMENT}.html")
        view = alice.context.new_page()
        rel = page_path.relative_to(hub.homes["alice"]).as_posix()
        view.goto(f"{hub.url}/user/alice/files/{urllib.parse.quote(rel)}")
        view.wait_for_selector("text=Feedback for")
        people.shot(view, "alice-feedback", full_page=True)
        shown = view.locator("body").inner_text()
        feedback = page_path.read_text()
        lap("alice's feedback")
    except Exception:
        people.failed()
        print(f"[hub] the hub's log (with its servers' and the course service's):\n{hub.log_tail(150)}")
        raise
    finally:
        people.close()
    print(f"\n[hub] setup {hub.setup_seconds}, test {laps}, screenshots {[p.name for p in people.shots]}; "
          f"CPU seconds of the instructor's commands {hub.cpu_seconds}")

    results = {r["student_id"]: r for r in json.loads((hub.course / "reports" / "results.json").read_text())["submissions"]}
    cells = {sid: {c["grade_id"]: c for c in r["cells"]} for sid, r in results.items()}
    auto_max = sum(c["max_score"] for c in cells["alice"].values() if not c["manual"])
    source = nbformat.read(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    points = {c.cell_type: 0 for c in source.cells}
    for cell in source.cells:  # the source's grade cells: code ones are auto-graded, the written answer by hand
        meta = cell.metadata.get("nbgrader", {})
        points[cell.cell_type] += meta.get("points", 0) if meta.get("grade") else 0
    assert (auto_max, points["markdown"]) == (points["code"], 1), points
    assert results["alice"]["score"] == auto_max + HAND["alice"][0]
    lost = {g: c for g, c in cells["bob"].items() if not c["manual"] and c["score"] < c["max_score"]}
    assert {c["task"] for c in lost.values()} == {mistake.task}, lost  # one mistake costs its own task only
    assert results["bob"]["score"] == auto_max - sum(c["max_score"] for c in lost.values()) + HAND["bob"][0]

    with open(hub.course / "export.csv", newline="") as fh:
        export = {r["student_id"]: float(r["score"]) for r in csv.DictReader(fh) if r["assignment"] == ASSIGNMENT}
    with open(hub.course / "reports" / "grades.csv", newline="") as fh:
        grades = {r["student_id"]: float(r[ASSIGNMENT]) for r in csv.DictReader(fh)}
    gradebook = _gradebook_scores(hub.course)
    for sid in HAND:
        assert export[sid] == grades[sid] == gradebook[sid] == results[sid]["score"], sid
    # the class report's row: submitted, missing, mean, median, min, max, of (bob's score is the min, alice's the max)
    row = re.search(rf"(?m)^\s+{ASSIGNMENT}\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\|", report)
    assert row, report
    scores = sorted(results[sid]["score"] for sid in HAND)
    assert [float(x) for x in row.groups()] == [2, 0, sum(scores) / 2, sum(scores) / 2, scores[0], scores[1],
                                                auto_max + 1], report
    assert results["bob"]["score"] < results["alice"]["score"]
    assert re.search(rf"{ASSIGNMENT}\s+hand-graded 1 of 2 points\s+needs manual grading: 0", report), report

    # alice's feedback: her score and comment, nothing of the tests.
    assert re.search(r"Feedback for <strong>alice</strong>", feedback)
    assert f">{results['alice']['score']:g} <span" in feedback
    assert HAND["alice"][1] in feedback and HAND["alice"][1] in shown
    for text in FORBIDDEN:
        assert text not in feedback and text not in shown, text
    released = sorted((hub.exchange / hub.course_id / "feedback").glob("*.html"))
    assert len(released) == len(HAND)  # every page release_feedback published, bob's too
    for path in released:
        assert not any(text in path.read_text() for text in FORBIDDEN), path
