"""A course on a real JupyterHub, with students and an instructor as separate Unix users (issue 21).

The hub (``conftest.py``) serves each student's JupyterLab from the student image (the kit, no grader)
as that student, and formgrader from the course's hub service as the instructor, who is not root.

* ``test_a_students_kernel_holds_no_grader``: in alice's kernel, no check of the grader can be imported
  (the kit's ``autograder.checks`` is the check machinery only: ``import autograder.checks`` itself works,
  by the kit's design, and ``autograder.checks.nb01_scores_softmax``, the registry ``CHECKS``, the judges,
  the grading, sandbox and catalogue packages fail), nor the reference of a graded or undue name; and
  neither this repository's solutions and checks nor the instructor's course (solutions, gradebook), the
  course secret or the instructor's installed grader can be read; the kit in the image holds no secret.
* ``test_a_course_on_the_hub``: alice logs in, fetches 01 in the Assignments tab, fills it in (the
  solution's answers, and the concept letters under which *her* order shows the right options), runs it
  (her locked ``concepts_numbers`` cell prints her own order, by the JUPYTERHUB_USER the hub gave her
  server), runs Validate and submits; bob, from his own server, sees his own order printed and submits a
  notebook with one typical mistake and alice's concept letters; the instructor collects and grades as
  their own non-root account, reading the secret from their own file (the warning says what an account
  without a delegated control group loses), logs in, hand-grades the written answer in formgrader (the
  course service), writes and releases feedback; alice fetches hers and sees her score and no hidden test.
  Each submission is graded on the order of its folder's student: alice gets the concept point, bob, whose
  order shows other options under her letters, does not. The gradebook, ``grades.csv``, the class report
  (its item analysis counts the students right on their own order), the released feedback and ``nbgrader
  export`` agree.
"""
from __future__ import annotations

import csv
import html
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

from autograder.checks.concepts import questions
from autograder.checks.items import LESSON
from tests.browser.conftest import CURRENT, LabPage
from tests.browser.nbtools import REPO, SCREENSHOTS, completed_notebook
from tests.checks.test_variants import shown_letters

from .conftest import ASSIGNMENT, CONCEPTS, INSTRUCTOR, Hub, right_letters

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WRITTEN = "SOFTMAX_NOT_ARGMAX_WHY"  # 01's hand-graded answer (1 point)
CONCEPTS_TASK = "CONCEPTS_01"  # 01's concept questions: one letter each, on the student's own order of the options
NUMBERS_CELL = "concepts_numbers"  # the locked cell that prints that order (CONCEPT_ORDER = grader.numbers(...))
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
        "course secret": hub.secret_file,
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
    # the kit's numbers are derived from the secret by the instructor: the secret itself never reaches the image
    secret = hub.secret_file.read_bytes().strip()
    kit = [p for top in ("autograder", "attention_ref")
           for p in next(hub.student_image.glob(f"lib/python*/site-packages/{top}")).rglob("*") if p.is_file()]
    assert any(p.name == "numbers.json" for p in kit) and not [p for p in kit if secret in p.read_bytes()]


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


def _letters_answer(letters) -> str:
    """The concept answer typed as letters (the solution computes it from ``CONCEPT_ORDER``)."""
    return f"{CONCEPTS_TASK} = {tuple(letters)!r}\n"


def _alices_work(path: Path, letters) -> None:
    """The solutions' answers in alice's fetched notebook (its metadata kept), the concept letters typed as
    ``letters``, owned by alice."""
    nb = completed_notebook(ASSIGNMENT)
    nb.metadata = nbformat.read(path, as_version=4).metadata
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == CONCEPTS_TASK]
    cell.source = _letters_answer(letters)
    nbformat.write(nb, path)
    pw = pwd.getpwnam("alice")
    os.chown(path, pw.pw_uid, pw.pw_gid)


def _bobs_mistake():
    """A typical mistake on softmax from the catalogue (:mod:`autograder.synthetic` deals them), one that
    costs its own task only."""
    from autograder.catalogue import all_variants

    return next(v for v in all_variants() if v.assignment == ASSIGNMENT and not v.correct
                and v.task == "softmax" and not v.also_fails)


def _bobs_work(fetched: dict, mistake, letters):
    """bob's notebook: every answer right but ``mistake``, the concept letters ``letters`` (a classmate's), and his
    own written answer."""
    from autograder.submissions import fill
    from autograder.synthetic import load_course_notebooks

    (course_nb,) = load_course_notebooks(REPO, [ASSIGNMENT])
    nb = fill(course_nb.release, {**course_nb.answers, **mistake.answers, CONCEPTS_TASK: _letters_answer(letters),
                                  **{g: BOB_WHY for g in course_nb.written}})
    nb.metadata = nbformat.from_dict(fetched["metadata"])
    return nb


def _cell_index(nb, grade_id: str) -> int:
    (index,) = [i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return index


def _run_numbers_cell(page, nb) -> str:
    """In the open notebook ``nb``: run its given cell, then its locked ``concepts_numbers`` cell (as a student does,
    one cell after another: Run All took 6 s more here); what the latter prints."""
    index = _cell_index(nb, NUMBERS_CELL)
    page.evaluate("""async (indices) => {
        const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
        for (const i of indices) { notebook.activeCellIndex = i; await app.commands.execute('notebook:run-cell'); }
    }""", [_cell_index(nb, "given"), index])
    output = page.locator(f"{CURRENT} .jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea-output")
    output.first.wait_for(timeout=60_000)
    return "\n".join(output.all_inner_texts())


def _printed_order(hub: Hub, user: str, fetched: dict) -> str:
    """What the fetched notebook's given cell and its locked ``concepts_numbers`` cell print in a kernel of
    ``user``'s own server."""
    code = "\n".join(fetched["cells"][_cell_index(fetched, g)]["source"] for g in ("given", NUMBERS_CELL))
    ran = hub.execute(user, code)
    assert ran["error"] is None, ran
    return ran["stdout"]


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


def _gradebook_cell(course: Path, sid: str, grade_id: str) -> float:
    """``sid``'s auto score of the cell ``grade_id`` in the gradebook."""
    with closing(sqlite3.connect(course / "gradebook.db")) as con:
        (score,) = con.execute(
            "SELECT g.auto_score FROM grade g JOIN base_cell bc ON g.cell_id = bc.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.student_id = ? AND bc.name = ?", (sid, grade_id)).fetchone()
    return score


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

    orders = {sid: hub.order(sid) for sid in HAND}  # each student's own, derived from the secret as grading does
    letters = {sid: right_letters(order) for sid, order in orders.items()}
    printed: dict[str, str] = {}
    people = People(hub, hub_browser)
    try:
        # alice, in the browser: log in, fetch, work, run it (her order is printed), Validate, submit.
        hub.start_server("alice")
        alice = people.login("alice", "/user/alice/lab")
        alice.wait_for_selector("#jp-main-dock-panel .lm-TabBar-tab", timeout=120_000)
        lab = LabPage(alice, None)
        people.shot(alice, "alice-lab")
        _assignments_tab(alice)
        _row(alice, "released_assignments_list", "Fetch").click()
        _row(alice, "fetched_assignments_list", "Submit").wait_for(timeout=60_000)
        people.shot(alice, "alice-fetched")
        fetched_path = hub.homes["alice"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        _alices_work(fetched_path, letters["alice"])
        lab.open_notebook(f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
        printed["alice"] = _run_numbers_cell(alice, nbformat.read(fetched_path, as_version=4))
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

        # bob, from his own server (what the Assignments tab calls): his order printed there; one typical mistake,
        # and alice's concept letters.
        hub.start_server("bob")
        mistake = _bobs_mistake()

        def bobs_work(fetched):
            printed["bob"] = _printed_order(hub, "bob", fetched)
            return _bobs_work(fetched, mistake, letters["alice"])

        _submit_from_server(hub, "bob", bobs_work)
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
        report = hub.instructor("autograder", "report").stdout
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
    # his mistake costs its own task only, alice's letters the concept value only (their form is right)
    assert {c["task"] for c in lost.values()} == {mistake.task, CONCEPTS_TASK}, lost
    assert [g for g, c in lost.items() if c["task"] == CONCEPTS_TASK] == [f"{CONCEPTS_TASK}_value"], lost
    assert results["bob"]["score"] == auto_max - sum(c["max_score"] for c in lost.values()) + HAND["bob"][0]

    # Each student's own order: printed by their own server, as the hub names them, and different ...
    for sid in HAND:
        assert f"your own numbers (student {sid}, from JUPYTERHUB_USER)" in printed[sid], printed[sid]
        assert orders[sid].describe() in printed[sid], (sid, printed[sid])
    assert orders["alice"] != orders["bob"] and letters["alice"] != letters["bob"]
    # ... alice's letters are the right options as her notebook printed them, and the lesson's letters are not ...
    rights = [q.options["abcd".index(q.right)] for q in questions(ASSIGNMENT)]
    assert shown_letters(printed["alice"], rights) == letters["alice"] != right_letters(LESSON[CONCEPTS])
    # ... and grading took each submission's order from its folder: the graded kernel printed its student's
    # (the job's graded.json), alice got the point on her letters, bob not on hers, his wrong option named
    for sid in HAND:
        graded = nbformat.read(hub.course / "autograded" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        out = "".join(o.get("text", "") for o in graded.cells[_cell_index(graded, NUMBERS_CELL)].outputs)
        assert f"the numbers of student {sid} (graded)" in out and orders[sid].describe() in out, (sid, out)
    concept = {sid: cells[sid][f"{CONCEPTS_TASK}_value"] for sid in HAND}
    assert (concept["alice"]["score"], concept["bob"]["score"]) == (concept["alice"]["max_score"], 0), concept
    first = next(i for i, (a, b) in enumerate(zip(letters["alice"], letters["bob"])) if a != b)
    picked = orders["bob"].lesson_letter(first, letters["alice"][first])  # what bob's order shows under her letter
    assert concept["bob"]["misconception"] == f"{CONCEPTS_TASK}.{questions(ASSIGNMENT)[first].wrong[picked][0]}"
    assert not [f for f in results["bob"]["flags"] if f["kind"] == "another student's numbers"]  # 4 letters: chance
    assert {sid: _gradebook_cell(hub.course, sid, f"{CONCEPTS_TASK}_value") for sid in HAND} == {
        sid: c["score"] for sid, c in concept.items()}

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
    # its item analysis counts the students right on their own order, and names bob's wrong option
    items = (hub.course / "reports" / "report.html").read_text().split('id="items"')[1].split("</section>")[0]
    _, row = items.split(f"<code>{CONCEPTS_TASK}_value</code>")
    row = row.split("</tr>")[0]
    assert "own numbers" in row and "1 of 2 on their own" in row, row
    assert f"{concept['bob']['misconception']} &times;1" in row, row

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
    # the released pages give each student the concept points grading gave, and bob what his letters chose
    pages = {re.search(r"Feedback for <strong>(\w+)</strong>", p.read_text()).group(1): p.read_text() for p in released}
    for sid in HAND:
        task = re.search(rf"<code>{CONCEPTS_TASK}</code></td><td class=\"num\">(\d+)/(\d+)</td>\s*"
                         rf"<td class=\"num\">(\S+) / (\S+)</td>", pages[sid])
        mine = [c for c in cells[sid].values() if c["task"] == CONCEPTS_TASK]
        assert task and [float(x) for x in task.groups()] == [
            sum(c["passed"] for c in mine), len(mine), sum(c["score"] for c in mine), sum(c["max_score"] for c in mine)]
    assert concept["bob"]["message"] in html.unescape(re.sub(r"<[^>]+>", "", pages["bob"])), concept["bob"]
