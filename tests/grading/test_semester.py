"""A semester of the mini course through nbgrader's exchange, with stock nbgrader commands (issue 15).

release_assignment -> fetch_assignment (two students) -> submit -> collect -> autograder grade ->
a hand grade and comments (as formgrader writes them) -> autograder feedback/report ->
release_feedback -> fetch_feedback -> export; then a forced regrade. A third roster student
never submits. Each test asserts one item of the issue on the one semester (module fixture).
"""
from __future__ import annotations

import csv
import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.grading.minicourse import ASSIGNMENT, make_course, student_notebook

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
RUBRIC = ("**Rubric (instructor only)** for `why`: 1 point for naming the product x·x; "
          "0 for 'because' alone (zebra-marker).")
HIDDEN_TEST_TEXT = ("square(-1.5)", "2.25", "BEGIN HIDDEN TESTS")
STUDENTS = {"alice": "complete", "bob": "wrong"}  # carol is on the roster and never submits
LMS_IDS = {"alice": "A-1001", "bob": "B-2002", "carol": "C-3003"}  # the learning platform's ids (course.yml lms.ids)


def run(args: list[str], cwd: Path, user: str | None = None) -> str:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if user:  # nbgrader keeps a student's submissions in a cache under the Jupyter data dir: one each
        env.update(USER=user, LOGNAME=user, JUPYTER_DATA_DIR=str(cwd / ".jupyter-data"))
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{args} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def _course(root: Path, due: dt.datetime) -> Path:
    course = make_course(root / "course")
    text = (course / "course.yml").read_text().replace(
        "    points: 4\n",
        f"    points: 4\n    due: '{due.isoformat()}'\n    late_policy: {{method: per_day, points_per_day: 0.5}}\n")
    # Everyone is root here (one account for all): tests/grading/test_between_users.py has real users.
    (course / "course.yml").write_text(text + "exchange:\n  root: ../exchange\n  accounts: shared\nroster: roster.csv\n"
                                              "lms:\n  ids: lms_ids.csv\n")
    (course / "roster.csv").write_text("student_id\nalice\nbob\ncarol\n")
    (course / "lms_ids.csv").write_text("student_id,lms_id\n" + "".join(f"{s},{i}\n" for s, i in LMS_IDS.items()))
    src = course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(src, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "why")
    nb.cells.insert(at + 1, nbformat.v4.new_markdown_cell(RUBRIC, metadata={"autograder": {"rubric_for": "why"}}))
    nbformat.write(nb, src)
    return course


def _student(root: Path, sid: str) -> Path:
    home = root / "home" / sid
    home.mkdir(parents=True)
    (home / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(root / 'exchange')!r}\nc.CourseDirectory.course_id = 'mini'\n"
        # Everyone is root on this machine: the student id nbgrader would take from the login.
        f"c.CourseDirectory.student_id = {sid!r}\n")
    return home


@pytest.fixture(scope="module")
def semester(tmp_path_factory):
    root = tmp_path_factory.mktemp("semester")
    # Due a minute ago: every submission is late by one started day, 0.5 points off.
    course = _course(root, dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(minutes=1))
    ag, nbg = str(BIN / "autograder"), str(BIN / "nbgrader")
    run([ag, "generate"], course)
    run([nbg, "release_assignment", ASSIGNMENT, "--force"], course)
    homes = {}
    for sid, kind in STUDENTS.items():
        homes[sid] = home = _student(root, sid)
        run([nbg, "fetch_assignment", ASSIGNMENT], home, sid)
        path = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        nbformat.write(student_notebook(nbformat.read(path, as_version=4), kind), path)
        run([nbg, "submit", ASSIGNMENT], home, sid)
    run([nbg, "collect", ASSIGNMENT], course)
    run([ag, "grade", ASSIGNMENT, "--workers", "1", "--no-progress"], course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "mini") as gb:  # what formgrader writes
        grade = gb.find_grade("why", ASSIGNMENT, ASSIGNMENT, "alice")
        grade.manual_score, grade.needs_manual_grade = 0.5, False
        gb.find_comment("why", ASSIGNMENT, ASSIGNMENT, "alice").manual_comment = "Half right: name x*x."
        gb.find_comment("square", ASSIGNMENT, ASSIGNMENT, "bob").manual_comment = "Look at x + x again."
        gb.db.commit()
    run([ag, "feedback"], course)
    report = run([ag, "report", "--no-html"], course)
    run([nbg, "release_feedback", ASSIGNMENT], course)
    for sid, home in homes.items():
        run([nbg, "fetch_feedback", ASSIGNMENT], home, sid)
    run([nbg, "export", "--to", "export.csv"], course)
    for lms in ("Canvas", "Moodle"):
        run([nbg, "export", "--exporter", f"autograder.grading.lms.{lms}Export", "--to", f"{lms.lower()}.csv"], course)
    return {"root": root, "course": course, "homes": homes, "report": report}


def _csv(path: Path) -> dict[str, dict]:
    with open(path, newline="") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def _export(course: Path) -> dict[str, dict]:
    return {sid: row for sid, row in _csv(course / "export.csv").items() if row["assignment"] == ASSIGNMENT}


def _results(course: Path) -> dict[str, dict]:
    data = json.loads((course / "reports" / "results.json").read_text())
    return {s["student_id"]: s for s in data["submissions"]}


def test_exchange_flow_with_stock_commands(semester):
    course = semester["course"]
    assert (semester["root"] / "exchange" / "mini" / "outbound" / ASSIGNMENT).is_dir()
    for sid in STUDENTS:
        assert (course / "submitted" / sid / ASSIGNMENT / "timestamp.txt").is_file()
        fetched = list((semester["homes"][sid] / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(fetched) == 1, f"{sid} fetched {fetched}"
        assert f"Feedback for <strong>{sid}</strong>" in fetched[0].read_text()


def test_hand_grades_agree_with_nbgrader_export(semester):
    course = semester["course"]
    export, grades, results = _export(course), _csv(course / "reports" / "grades.csv"), _results(course)
    # alice: 3 auto points + 0.5 by hand - 0.5 late = 3; bob: 1 auto point (square(2) == 4) - 0.5 late.
    assert float(export["alice"]["score"]) == pytest.approx(3.0)
    assert float(export["bob"]["score"]) == pytest.approx(0.5)
    for sid in STUDENTS:
        assert float(grades[sid][ASSIGNMENT]) == pytest.approx(float(export[sid]["score"]))
        r = results[sid]
        assert r["score"] - r["late_penalty"] == pytest.approx(float(export[sid]["score"]))
        assert r["late_penalty"] == pytest.approx(float(export[sid]["late_submission_penalty"]))
    why = {c["grade_id"]: c for c in results["alice"]["cells"]}["why"]
    assert why["manual_score"] == 0.5 and why["score"] == 0.5 and why["comment"] == "Half right: name x*x."
    assert results["alice"]["hand_graded"] == 0.5 and results["alice"]["needs_manual_grading"] == 0
    assert results["bob"]["needs_manual_grading"] == 1
    assert grades["bob"]["needs_manual_grading"] == "1"


def test_report_shows_hand_grading_and_missing(semester):
    text = semester["report"]
    assert re.search(r"ps1\s+hand-graded 0\.5 of 2 points\s+needs manual grading: 1", text), text
    assert re.search(r"ps1\s+2\s+1\s", text), text  # 2 submitted, 1 missing (carol)
    assert "an assignment not submitted counts 0" in text


def test_feedback_carries_hand_grades_and_no_instructor_content(semester):
    pages = {sid: next((semester["homes"][sid] / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")).read_text()
             for sid in STUDENTS}
    assert "Half right: name x*x." in pages["alice"] and "Look at x + x again." in pages["bob"]
    assert "not graded yet" in pages["bob"] and "deducted" in pages["alice"]
    released = sorted((semester["root"] / "exchange" / "mini" / "feedback").glob("*.html"))
    assert len(released) == len(STUDENTS)  # every page release_feedback published
    for page in [*pages.values(), *(p.read_text() for p in released)]:
        for text in HIDDEN_TEST_TEXT + ("zebra-marker", "instructor only", "check("):
            assert text not in page


def test_generate_feedback_force_writes_the_same_safe_page(semester):
    course = semester["course"]
    ours = (course / "feedback" / "bob" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    run([str(BIN / "nbgrader"), "generate_feedback", ASSIGNMENT, "--force"], course)
    stock = (course / "feedback" / "bob" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    strip = re.compile(r"feedback written [^<]*")
    assert strip.sub("", stock) == strip.sub("", ours)
    for text in HIDDEN_TEST_TEXT + ("zebra-marker",):
        assert text not in stock


def test_rubric_is_instructor_only(semester):
    course = semester["course"]
    assert "zebra-marker" not in (course / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    fetched = semester["homes"]["alice"] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert "zebra-marker" not in fetched.read_text()
    nb = nbformat.read(course / "autograded" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") or c.metadata.get("autograder", {}).get("rubric_for")
           for c in nb.cells]
    at = ids.index("why")
    rubric = nb.cells[at + 1]
    assert rubric.metadata["autograder"] == {"rubric_for": "why"} and "zebra-marker" in rubric.source
    assert "Model answer (instructor only)" in rubric.source and "YOUR ANSWER HERE" in rubric.source


def test_missing_is_not_zero(semester):
    grades = _csv(semester["course"] / "reports" / "grades.csv")
    assert grades["carol"][ASSIGNMENT] == "" and grades["carol"]["not_submitted"] == ASSIGNMENT
    assert grades["carol"]["total"] == "0" and grades["alice"]["not_submitted"] == ""
    assert json.loads((semester["course"] / "reports" / "results.json").read_text())["missing_policy"]


def test_regrade_never_erases_a_hand_grade(semester):
    course = semester["course"]
    run([str(BIN / "autograder"), "grade", ASSIGNMENT, "--force", "--workers", "1", "--no-progress"], course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "mini") as gb:
        assert gb.find_grade("why", ASSIGNMENT, ASSIGNMENT, "alice").manual_score == 0.5
        assert gb.find_comment("why", ASSIGNMENT, ASSIGNMENT, "alice").manual_comment == "Half right: name x*x."
    run([str(BIN / "nbgrader"), "export", "--to", "export2.csv"], course)
    export = {sid: row for sid, row in _csv(course / "export2.csv").items()}
    grades = _csv(course / "reports" / "grades.csv")
    for sid in STUDENTS:
        assert float(grades[sid][ASSIGNMENT]) == pytest.approx(float(export[sid]["score"]))
    assert float(grades["alice"][ASSIGNMENT]) == pytest.approx(3.0)


def _lms_csv(path: Path) -> list[list[str]]:
    # Both platforms read UTF-8: a file that is not (or that starts with a byte-order mark) fails here.
    text = path.read_bytes().decode("utf-8")
    assert not text.startswith("\ufeff")
    return list(csv.reader(text.splitlines()))


def test_canvas_export_is_canvas_gradebook_csv(semester):
    course = semester["course"]
    header, points, *rows = _lms_csv(course / "canvas.csv")
    from autograder.config import load_course

    title = load_course(course).assignments[0].title
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title]
    assert points == ["Points Possible", "", "", "", "", "4"]
    by_login = {row[3]: row for row in rows}
    assert set(by_login) == set(LMS_IDS)  # the roster's carol too, with no grade
    assert {login: row[2] for login, row in by_login.items()} == LMS_IDS
    export = _export(course)
    for sid in STUDENTS:  # the gradebook's score after the late penalty, hand grade included
        assert float(by_login[sid][5]) == pytest.approx(float(export[sid]["score"]))
    assert by_login["carol"][5] == ""  # not submitted stays blank: an import never makes it a 0
    grades = _csv(course / "reports" / "grades.csv")  # the totals round-trip (missing counts 0)
    assert {s: sum(float(x or 0) for x in row[5:]) for s, row in by_login.items()} == \
        pytest.approx({s: float(row["total"]) for s, row in grades.items()})


def test_moodle_export_is_moodle_grade_import_csv(semester):
    course = semester["course"]
    header, *rows = _lms_csv(course / "moodle.csv")
    assert header[:2] == ["Username", "ID number"] and len(header) == 3
    grades = _csv(course / "reports" / "grades.csv")
    assert {row[0]: row[1] for row in rows} == LMS_IDS
    for login, _, score in rows:  # the same numbers as grades.csv, blank where it is blank
        assert score == grades[login][ASSIGNMENT]
        assert (score == "") == (ASSIGNMENT in grades[login]["not_submitted"].split())


def test_lms_export_refuses_a_student_without_an_lms_id(semester, tmp_path):
    import shutil

    from autograder.grading import lms

    course = shutil.copytree(semester["course"], tmp_path / "course", ignore=shutil.ignore_patterns("*.ipynb"))
    (course / "lms_ids.csv").write_text("student_id,lms_id\nalice,A-1001\nbob,B-2002\n")
    with pytest.raises(lms.LmsExportError, match="no LMS id for 1 graded student.*carol"):
        lms.write_canvas(course, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    (course / "lms_ids.csv").write_text("student_id,lms_id\nalice,A-1\nbob,A-1\ncarol,C\n")
    with pytest.raises(lms.LmsExportError, match="'A-1' belongs to more than one student"):
        lms.write_moodle(course, tmp_path / "out.csv")
    (course / "lms_ids.csv").write_text("login,lms_id\nalice,A-1\n")
    with pytest.raises(lms.LmsExportError, match="no column student_id"):
        lms.write_moodle(course, tmp_path / "out.csv")
    with pytest.raises(lms.LmsExportError, match="--assignment: no assignment 'nope'"):
        lms.write_moodle(course, tmp_path / "out.csv", assignments=["nope"])
