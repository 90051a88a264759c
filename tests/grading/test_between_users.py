"""Security between the users of one course, as real Unix users on nbgrader's stock exchange (issue 21).

An instructor who is not root and three students are separate accounts (``tests/multiuser.py``); the
exchange is a shared directory as nbgrader's documentation asks (world-writable, sticky), the course
directory is the instructor's (mode 0700, as the README asks). Every step is a stock nbgrader command or
``autograder``, run as one of those users; what an account can read, write or signal is the kernel's
answer, not a model of it.

ag-alice submits her own work (a right answer whose cell also probes the instructor's processes from
her kernel), then submits as ag-bob (``nbgrader submit --student``) and as ag-carol (her nbgrader
config names carol, who has no account); ag-bob and ag-dave submit their own, and ag-alice, having
learned the name of dave's inbound folder, replaces his notebook in it (nbgrader makes a submission
folder writable by everyone: only its name, with 72 random bits, hides it). Then the instructor
collects, grades (while ag-alice watches ``/tmp``), writes and releases feedback.
"""
from __future__ import annotations

import ast
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.grading.minicourse import ANSWERS, ASSIGNMENT, make_course, student_notebook
from tests.multiuser import BIN, as_user, ensure_user

pytestmark = pytest.mark.slow

TEACHER, ALICE, BOB, DAVE = "ag-teacher", "ag-alice", "ag-bob", "ag-dave"
CAROL = "ag-carol"  # on the roster, no Unix account: ag-alice submits under her id
NB = f"{ASSIGNMENT}.ipynb"

#: ag-alice's answer: right, and from her kernel it probes an instructor's process whose pid she knows.
ALICE_ANSWER = '''def square(x):
    return x * x

import os, signal
_probe = {"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
for _what, _try in (("kill", lambda: os.kill(SENTINEL, signal.SIGKILL)),
                    ("stop", lambda: os.kill(SENTINEL, signal.SIGSTOP)),
                    ("cmdline", lambda: open("/proc/SENTINEL/cmdline", "rb").read()),
                    ("environ", lambda: open("/proc/SENTINEL/environ", "rb").read()),
                    ("kill_all", lambda: os.kill(-1, signal.SIGKILL))):
    try:
        _try()
        _probe[_what] = "done"
    except Exception as exc:
        _probe[_what] = type(exc).__name__
print("PROBE", _probe)
'''

#: ag-alice, during grading: every file under a /tmp entry of the instructor's that she can open.
WATCH = r'''
import json, os, sys, time
uid, stop = int(sys.argv[1]), sys.argv[2]
seen, read = set(), set()
while not os.path.exists(stop):
    for entry in os.scandir("/tmp"):
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        seen.add(entry.path)
        paths = [entry.path] if entry.is_file(follow_symlinks=False) else [
            os.path.join(base, f) for base, _, files in os.walk(entry.path) for f in files]
        for path in paths:
            try:
                with open(path, "rb") as fh:
                    fh.read(1)
                read.add(path)
            except OSError:
                pass
    time.sleep(0.02)
print(json.dumps({"seen": sorted(seen), "read": sorted(read)}))
'''


def _env(base: Path, name: str) -> dict:
    """The account's environment: its own Jupyter directories under the test's home (not ~/.jupyter,
    which other tests on this host may write)."""
    home = base / "home" / name
    return {"PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8", "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
            "JUPYTER_DATA_DIR": str(home / ".jupyter-data")}


def _run(base: Path, name: str, args: list[str], cwd: Path) -> str:
    done = as_user(name, args, cwd=cwd, env=_env(base, name), timeout=600)
    assert done.returncode == 0, f"{name}: {args} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _python(base: Path, name: str, code: str) -> subprocess.CompletedProcess:
    return as_user(name, [sys.executable, "-c", code], cwd=base, env=_env(base, name), timeout=120)


def _denied(base: Path, name: str, code: str) -> str:
    """The exception ``code`` raises run as ``name`` (it must raise one)."""
    done = _python(base, name, f"try:\n    {code}\nexcept Exception as exc:\n    print(type(exc).__name__)\n"
                               f"else:\n    print('ALLOWED')\n")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _home(base: Path, name: str, config: str = "") -> Path:
    home = base / "home" / name
    home.mkdir(parents=True, exist_ok=True)
    (home / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(base / 'exchange')!r}\nc.CourseDirectory.course_id = 'mini'\n"
        + config)
    return home


def _chown(path: Path, name: str, mode: int = 0o700) -> None:
    subprocess.run(["chown", "-R", f"{name}:{name}", str(path)], check=True)
    path.chmod(mode)


def _write_answer(path: Path, kind_or_source: str) -> None:
    nb = nbformat.read(path, as_version=4)
    if kind_or_source in ANSWERS:
        nb = student_notebook(nb, kind_or_source)
    else:
        nb = student_notebook(nb, "complete")
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "square":
                cell.source = kind_or_source
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def course_of_users():
    if os.geteuid() != 0:
        pytest.skip("makes Unix users: needs root (as here and in CI)")
    if not shutil.which("bwrap"):
        pytest.skip("grading students' code needs bubblewrap (apt-get install bubblewrap)")
    users = {n: ensure_user(n) for n in (TEACHER, ALICE, BOB, DAVE)}
    base = Path(tempfile.mkdtemp(prefix="ag-users-", dir="/tmp"))
    base.chmod(0o755)
    stop = base / "stop"
    sentinel = watcher = None
    try:
        probe = as_user(TEACHER, [sys.executable, "-c", "import autograder, nbgrader"], cwd="/")
        if probe.returncode != 0:
            pytest.skip(f"this checkout's virtual environment is not readable by other users: {probe.stderr[-300:]}")
        (base / "home").mkdir()
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)  # what /srv/nbgrader/exchange is on a hub
        course = make_course(base / "course")
        (course / "course.yml").write_text((course / "course.yml").read_text()
                                           + f"exchange:\n  root: {exchange}\nroster: roster.csv\n")
        (course / "roster.csv").write_text("student_id\n" + "".join(f"{s}\n" for s in (ALICE, BOB, CAROL, DAVE)))
        _chown(course, TEACHER)
        for name in users:
            _home(base, name)
        carol_dir = _home(base, ALICE) / "as-carol"
        forge_dir = base / "home" / ALICE / "as-bob"
        for d, config in ((carol_dir, f"c.CourseDirectory.student_id = {CAROL!r}\n"), (forge_dir, "")):
            d.mkdir()
            (d / "nbgrader_config.py").write_text((base / "home" / ALICE / "nbgrader_config.py").read_text() + config)
        for name in users:
            _chown(base / "home" / name, name)
        # An instructor's process whose pid ag-alice's code knows (the worst case: she guessed it).
        teacher = users[TEACHER]
        sentinel = subprocess.Popen(["sleep", "900"], user=teacher.pw_uid, group=teacher.pw_gid, extra_groups=[],
                                    cwd="/")

        _run(base, TEACHER, ["autograder", "generate"], course)
        _run(base, TEACHER, ["nbgrader", "release_assignment", ASSIGNMENT], course)
        answers = {ALICE: ALICE_ANSWER.replace("SENTINEL", str(sentinel.pid)), BOB: "complete", DAVE: "einsum"}
        for name, answer in answers.items():
            home = base / "home" / name
            _run(base, name, ["nbgrader", "fetch_assignment", ASSIGNMENT], home)
            subprocess.run(["chmod", "-R", "u+w", str(home)], check=True)
            _write_answer(home / ASSIGNMENT / NB, answer)
            _run(base, name, ["nbgrader", "submit", ASSIGNMENT], home)
        # ag-alice as ag-bob (--student), then as ag-carol (her config says so), each later than bob's own
        for d, extra in ((forge_dir, ["--student", BOB]), (carol_dir, [])):
            (d / ASSIGNMENT).mkdir()
            shutil.copyfile(base / "home" / ALICE / ASSIGNMENT / NB, d / ASSIGNMENT / NB)
            _write_answer(d / ASSIGNMENT / NB, "wrong")
            subprocess.run(["chown", "-R", f"{ALICE}:{ALICE}", str(d)], check=True)
            _run(base, ALICE, ["nbgrader", "submit", ASSIGNMENT, *extra], d)
        # ag-alice, knowing the name of dave's inbound folder, puts her notebook in his place
        inbound = exchange / "mini" / "inbound"
        dave_record = next(inbound.glob(f"{DAVE}+{ASSIGNMENT}+*"))
        mine = (forge_dir / ASSIGNMENT / NB).read_bytes()
        replaced = _python(base, ALICE, f"import os\np = {str(dave_record / NB)!r}\nos.unlink(p)\n"
                                        f"open(p, 'wb').write({mine!r})\nprint('replaced')")

        _run(base, TEACHER, ["nbgrader", "collect", ASSIGNMENT], course)
        watcher = subprocess.Popen([sys.executable, "-c", WATCH, str(teacher.pw_uid), str(stop)],
                                   user=users[ALICE].pw_uid, group=users[ALICE].pw_gid, extra_groups=[],
                                   stdout=subprocess.PIPE, text=True, cwd="/")
        graded = _run(base, TEACHER, ["autograder", "grade", ASSIGNMENT, "--workers", "1", "--no-progress"], course)
        stop.touch()
        watched = json.loads(watcher.communicate(timeout=60)[0])
        _run(base, TEACHER, ["autograder", "feedback"], course)
        _run(base, TEACHER, ["nbgrader", "release_feedback", ASSIGNMENT], course)
        _run(base, ALICE, ["nbgrader", "fetch_feedback", ASSIGNMENT], base / "home" / ALICE)
        yield {"base": base, "course": course, "exchange": exchange, "users": users, "sentinel": sentinel,
               "graded": graded, "watched": watched, "replaced": replaced, "dave_record": dave_record}
    finally:
        stop.touch()
        for proc in (sentinel, watcher):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(base, ignore_errors=True)


def _results(course: Path) -> dict:
    data = json.loads((course / "reports" / "results.json").read_text())
    return {s["student_id"]: s for s in data["submissions"]}


def _grades(course: Path) -> dict:
    with open(course / "reports" / "grades.csv", newline="") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def test_a_submission_made_as_another_student_is_refused_and_credits_nothing(course_of_users):
    course = course_of_users["course"]
    results, grades = _results(course), _grades(course)
    for victim in (BOB, CAROL, DAVE):
        r = results[victim]
        flags = [f for f in r["flags"] if f["kind"] == "not graded"]
        assert r["status"] == "failed" and r["score"] == 0, (victim, r["status"], r["score"])
        assert [f["rule"] for f in flags] == ["submitter"], r["flags"]
        assert f"written by the account(s) {ALICE}" in flags[0]["evidence"] and victim in flags[0]["evidence"]
        assert ALICE not in flags[0]["advice"]  # the victim's feedback does not name the classmate
        assert float(grades[victim][ASSIGNMENT]) == 0.0 and "not graded (submitter)" in grades[victim]["flags"]
        assert not (course / "feedback" / victim).exists()  # no page: only its maker, ag-alice, could fetch it
    # ag-alice's own submission is hers, and right
    assert results[ALICE]["status"] == "graded" and results[ALICE]["score"] == 3.0
    assert not any(f.get("rule") == "submitter" for f in results[ALICE]["flags"])
    # and the gradebook (what formgrader and `nbgrader export` read) credits the victims nothing
    con = sqlite3.connect(course / "gradebook.db")
    auto = dict(con.execute("""SELECT sa.student_id, SUM(COALESCE(g.auto_score, 0)) FROM grade g
                               JOIN submitted_notebook sn ON g.notebook_id = sn.id
                               JOIN submitted_assignment sa ON sn.assignment_id = sa.id GROUP BY sa.student_id"""))
    con.close()
    assert auto[ALICE] == 3.0 and all(auto.get(v, 0) == 0 for v in (BOB, CAROL, DAVE)), auto


def test_stock_collect_keeps_no_owner_so_collect_records_it(course_of_users):
    """What the grader's refusal rests on: nbgrader's copy in submitted/ is the instructor's, the record is not."""
    course, teacher = course_of_users["course"], course_of_users["users"][TEACHER]
    assert os.stat(course / "submitted" / BOB / ASSIGNMENT / NB).st_uid == teacher.pw_uid
    log = [json.loads(line) for line in (course / "reports" / "collected.jsonl").read_text().splitlines()]
    owners = {r["student_id"]: (r["owner"], r["files"][NB]["owner"]) for r in log}
    assert owners == {ALICE: (ALICE, ALICE), BOB: (ALICE, ALICE), CAROL: (ALICE, ALICE), DAVE: (DAVE, ALICE)}


def test_a_student_cannot_list_the_inbound_so_changing_a_classmates_submission_needs_its_secret_name(course_of_users):
    """nbgrader's design: a submission folder is writable by all, hidden by its name (72 random bits), and the
    inbound cannot be listed. With the name, ag-alice did replace dave's notebook; the grader refused it (above)."""
    base, exchange = course_of_users["base"], course_of_users["exchange"]
    assert _denied(base, ALICE, f"import os; os.listdir({str(exchange / 'mini' / 'inbound')!r})") == "PermissionError"
    assert course_of_users["replaced"].stdout.strip() == "replaced"
    assert len(course_of_users["dave_record"].name.rsplit("+", 1)[1]) == 12  # base64 of 9 random bytes


def test_a_student_cannot_read_or_change_a_classmates_collected_submission_or_feedback(course_of_users):
    base, course, exchange = course_of_users["base"], course_of_users["course"], course_of_users["exchange"]
    theirs = course / "submitted" / BOB / ASSIGNMENT / NB
    assert _denied(base, ALICE, f"open({str(theirs)!r}, 'rb').read()") == "PermissionError"
    assert _denied(base, ALICE, f"open({str(theirs)!r}, 'ab').write(b' ')") == "PermissionError"
    assert _denied(base, ALICE, f"import os; os.listdir({str(course)!r})") == "PermissionError"
    assert _denied(base, ALICE, f"open({str(course / 'feedback' / BOB / ASSIGNMENT / 'ps1.html')!r}).read()") \
        == "PermissionError"
    assert _denied(base, ALICE, f"import os; os.listdir({str(exchange / 'mini' / 'feedback')!r})") == "PermissionError"
    assert _denied(base, ALICE, f"import os; os.listdir({str(base / 'home' / BOB)!r})") == "PermissionError"
    # what she may read: her own feedback, fetched through the exchange
    mine = list((base / "home" / ALICE / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert len(mine) == 1 and f"Feedback for <strong>{ALICE}</strong>" in mine[0].read_text()


def test_a_student_cannot_read_or_write_the_gradebook(course_of_users):
    base, db = course_of_users["base"], course_of_users["course"] / "gradebook.db"
    assert _denied(base, ALICE, f"open({str(db)!r}, 'rb').read()") == "PermissionError"
    assert _denied(base, ALICE, f"import sqlite3; c = sqlite3.connect({str(db)!r}); "
                                f"c.execute('CREATE TABLE pwned (x)'); c.commit()") == "OperationalError"
    assert db.stat().st_size > 0 and "pwned" not in sqlite3.connect(db).execute(
        "SELECT group_concat(name) FROM sqlite_master").fetchone()[0]


def test_nothing_the_grader_writes_in_tmp_is_readable_by_a_student_while_it_grades(course_of_users):
    """The grader's private folders in /tmp (a worker's gradebook copy with the hidden tests, a student's
    notebook, the kernels' staging): ag-alice listed them all through grading and read none."""
    watched = course_of_users["watched"]
    assert any("/autograder-" in p for p in watched["seen"]), watched  # she did see the grader's folders
    assert watched["read"] == [], watched["read"]


def test_a_students_kernel_cannot_see_or_signal_the_instructors_processes(course_of_users):
    """From a notebook graded by the instructor's account: the instructor's process (pid known to the student)
    does not exist in her kernel's view, cannot be killed or stopped, and `kill(-1)` reaches nothing of the host."""
    sentinel, course = course_of_users["sentinel"], course_of_users["course"]
    assert sentinel.poll() is None  # still running after the whole semester
    with open(f"/proc/{sentinel.pid}/stat") as fh:
        assert fh.read().split(") ", 1)[1][0] in "SR"  # not stopped
    nb = nbformat.read(course / "autograded" / ALICE / ASSIGNMENT / NB, as_version=4)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    probe = ast.literal_eval(printed.split("PROBE ", 1)[1].splitlines()[0])
    assert probe["kill"] == probe["stop"] == "ProcessLookupError", probe
    assert probe["cmdline"] == probe["environ"] == "FileNotFoundError", probe
    assert sentinel.pid not in probe["pids"] and max(probe["pids"]) < 100, probe  # only its own pid namespace


def test_a_course_directory_others_can_read_is_named_by_the_grader(course_of_users):
    """Last (it opens the course for a moment): what the warning is about is real, and the warning says the fix."""
    base, course = course_of_users["base"], course_of_users["course"]
    course.chmod(0o755)
    try:
        read = _python(base, ALICE, f"print(len(open({str(course / 'gradebook.db')!r}, 'rb').read()) > 0)")
        out = _run(base, TEACHER, ["autograder", "grade", ASSIGNMENT, "--no-progress"], course)
    finally:
        course.chmod(0o700)
    assert read.stdout.strip() == "True", read.stderr  # a classmate could read the hidden tests
    assert "warning: other users of this host can read the course directory" in out and f"chmod 700 {course}" in out
