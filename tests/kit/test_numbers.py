"""Issue 22 in the student kit: each student's notebook shows their own numbers, read from the kit by their id.

The session's kit (``conftest.kit``, built from this course, which has no ``variants``) is copied and
given the ``numbers.json`` that ``autograder kit`` writes for a course with ``variants`` and a roster
(:func:`autograder.kit.build.kit_numbers`, on a temporary course with a test secret): the kit's own
code runs in the kit's virtual environment, with only that copy on its path. Expected numbers are
derived here with :mod:`autograder.variants` from the secret, independently of the kit.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder import submissions, variants
from autograder.checks.items import ITEM, LESSON
from autograder.config import load_course
from autograder.kit.build import kit_numbers
from autograder.kit.publicdata import KitBuildError
from autograder.notebook.numbers import GRADED_FILE, KIT_FILE, entry
from tests.kit.conftest import ROOT

SECRET_ENV = "AUTOGRADER_TEST_KIT_SECRET"
SECRET = "the kit test's course secret, 0123456789abcdef"
ROSTER = ("alice", "bob")
AID = "02_scaling"
CONCEPTS = "02_scaling/concepts"  # the order of the understanding question's options


def _course(tmp_path: Path, roster: bool = True) -> Path:
    course = tmp_path / "course"
    course.mkdir(parents=True)
    text = (ROOT / "course.yml").read_text() + (
        f"variants:\n  secret_env: {SECRET_ENV}\n  fingerprint: {variants.fingerprint(SECRET.encode())}\n")
    if roster:
        (course / "roster.csv").write_text("student_id\n" + "\n".join(ROSTER) + "\n")
        text += "roster: roster.csv\n"
    (course / "course.yml").write_text(text)
    return course


def _own(sid: str, item: str = ITEM):
    return variants.student_items(SECRET.encode(), "attention-arithmetic", sid, [item])[item]


@pytest.fixture(scope="module")
def roster_kit(kit, tmp_path_factory, request) -> Path:
    """A copy of the kit's ``site/`` whose ``numbers.json`` holds the roster's numbers (as ``autograder kit`` writes)."""
    tmp = tmp_path_factory.mktemp("roster-kit")
    site = tmp / "site"
    shutil.copytree(kit / "site", site)
    os.environ[SECRET_ENV] = SECRET
    try:
        data = kit_numbers(load_course(_course(tmp)), tmp / "course", [AID], roster=True)
    finally:
        del os.environ[SECRET_ENV]
    (site / "autograder/kit" / KIT_FILE).write_text(json.dumps(data))
    return site


def _run(kit_python: Path, site: Path, code: str, cwd: Path, **env) -> subprocess.CompletedProcess:
    env = {"PATH": f"{kit_python.parent}:/usr/bin:/bin", "HOME": str(cwd), "MPLBACKEND": "Agg",
           "MPLCONFIGDIR": str(cwd / ".mpl"), "PYTHONPATH": str(site), **env}
    return subprocess.run([str(kit_python), *code], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def _numbers(kit_python, site, cwd, **env):
    code = ("import json; from autograder.notebook import Grader; "
            f"q, k = Grader({AID!r}, {{}}).numbers({ITEM!r}); print(json.dumps([q.tolist(), k.tolist()]))")
    return _run(kit_python, site, ["-c", code], cwd, **env)


def test_each_students_kit_shows_their_own_numbers_and_refuses_an_unknown_id(roster_kit, kit_python, tmp_path):
    shown = {}
    for sid in ROSTER:
        done = _numbers(kit_python, roster_kit, tmp_path, JUPYTERHUB_USER=sid)
        assert done.returncode == 0, done.stderr[-2000:]
        *printed, values = done.stdout.splitlines()
        shown[sid] = json.loads(values)
        assert shown[sid] == [list(_own(sid).query), [list(k) for k in _own(sid).keys]]
        assert f"student {sid}, from JUPYTERHUB_USER" in printed[0] and _own(sid).describe() in printed[1]
    assert shown["alice"] != shown["bob"]
    # the option order of the understanding question: each student's own, printed as they will read it
    for sid in ROSTER:
        code = ("import json; from autograder.notebook import Grader; "
                f"order = Grader({AID!r}, {{}}).numbers({CONCEPTS!r}); print(json.dumps(order.tolist()))")
        done = _run(kit_python, roster_kit, ["-c", code], tmp_path, JUPYTERHUB_USER=sid)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.splitlines()[-1]) == list(_own(sid, CONCEPTS).order)
        assert _own(sid, CONCEPTS).describe() in done.stdout
    # no JUPYTERHUB_USER: the id of the student's nbgrader_config.py
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.student_id = 'bob'\n")
    done = _numbers(kit_python, roster_kit, tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1]) == shown["bob"], done.stderr[-2000:]
    assert "CourseDirectory.student_id of" in done.stdout
    # an id the kit has no numbers for is an error that says so, never the lesson's numbers
    done = _numbers(kit_python, roster_kit, tmp_path, JUPYTERHUB_USER="mallory")
    assert done.returncode == 1 and "NumbersMissing: this kit has no numbers of 02_scaling/stop_and_try for " \
                                    "student 'mallory' (the id comes from JUPYTERHUB_USER)" in done.stderr


def test_graded_numbers_win_over_any_id_the_notebook_claims(roster_kit, kit_python, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(roster_kit, site)
    (site / "autograder/kit" / GRADED_FILE).write_text(json.dumps({"student": "bob", "items": {ITEM: entry(_own("bob"))}}))
    done = _numbers(kit_python, site, tmp_path, JUPYTERHUB_USER="alice", USER="alice", LOGNAME="alice")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1])[0] == list(_own("bob").query) != list(_own("alice").query)
    assert "student bob (graded)" in done.stdout


def test_a_students_solution_passes_the_kits_check_on_their_own_numbers(roster_kit, kit_python, tmp_path):
    path = f"{AID}/{AID}.ipynb"
    answers = submissions.solution_answers(submissions.read(ROOT / "solutions" / path))
    (tmp_path / "nb.ipynb").write_text(json.dumps(submissions.fill(submissions.read(ROOT / "assignments" / path),
                                                                   answers)))
    done = _run(kit_python, roster_kit, ["-m", "autograder.cli", "check", "nb.ipynb"], tmp_path, JUPYTERHUB_USER="bob")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "STOP_AND_TRY_SCORES: answered in the expected form" in done.stdout


def test_the_roster_kit_holds_no_secret_and_no_items_module(roster_kit):
    files = [p for p in roster_kit.rglob("*") if p.is_file()]
    assert not [p for p in files if SECRET.encode() in p.read_bytes()]
    assert not (roster_kit / "autograder/checks/items.py").exists() and not (roster_kit / "autograder/variants.py").exists()
    data = json.loads((roster_kit / "autograder/kit" / KIT_FILE).read_text())
    assert data["variants"] and sorted(data["students"]) == sorted(ROSTER)
    assert data["lesson"][ITEM]["values"] == {"query": [1.0, 0.0], "keys": [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]}  # seed 000
    assert set(data["students"]["alice"][ITEM]) == {"values", "text"}  # the question only: no scores, no weights
    assert set(data["students"]["alice"][CONCEPTS]["values"]) == {"order"}  # the order only, never the right letter


def test_a_kit_of_per_student_numbers_needs_the_roster_and_the_secret(tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET_ENV, SECRET)
    with pytest.raises(KitBuildError, match="set `roster:`"):
        kit_numbers(load_course(_course(tmp_path / "a", roster=False)), tmp_path / "a/course", [AID], roster=True)
    monkeypatch.delenv(SECRET_ENV)
    course = _course(tmp_path / "b")
    with pytest.raises(KitBuildError, match=f"derived from the course secret: .*{SECRET_ENV}, which is not set"):
        kit_numbers(load_course(course), course, [AID], roster=True)
    # without variants everyone gets the lesson's numbers, and the kit says so
    plain = kit_numbers(load_course(ROOT), ROOT, [AID], roster=True)
    assert plain == {"variants": False, "lesson": {i: entry(LESSON[i]) for i in (ITEM, CONCEPTS)}, "students": {}}
