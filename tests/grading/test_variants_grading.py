"""Per-student numbers through the whole grader (issue 22): the real 02 notebook, four students, one secret.

alice types her own Stop-and-try answers, bob hands in alice's, carol the lesson's worked example, and
eve hands in the solution as released (computed from ``STOP_Q, STOP_K = grader.numbers(...)``) after a
cell that claims to be alice in every environment variable an id could be read from. Each is judged on
the numbers of the folder nbgrader collected the notebook from: alice and eve get full marks (the
kernel's and the verification runner's ``grader.numbers`` gave eve her own numbers, not alice's),
bob loses the values that are alice's with a flag naming her, carol is told she answered the
lesson's example. Expected values are computed here from the drawn query and keys with ``math``.
That class, graded once (:func:`graded`), also shows that the same submission, secret and id give the
same verdicts at another seed of the run, and that grading it again with a wrong secret changes nothing.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder import api, submissions, variants
from autograder.checks.items import ITEM, LESSON

from .conftest import grades

REPO = Path(__file__).resolve().parents[2]
AID = "02_scaling"
SECRET_ENV = "AUTOGRADER_TEST_COURSE_SECRET"
SECRET = "a test secret of the course, 0123456789abcdef"
CONCEPTS = "02_scaling/concepts"
VALUES = ("STOP_AND_TRY_SCORES_values", "STOP_AND_TRY_WEIGHTS_values", "STOP_AND_TRY_LARGEST_value")


def _course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    text = (REPO / "course.yml").read_text()
    assert "\nmode: classroom\n" in text and "variants:" not in text
    (root / "course.yml").write_text(text + f"variants:\n  secret_env: {SECRET_ENV}\n"
                                            f"  fingerprint: {variants.fingerprint(SECRET.encode())}\n")
    shutil.copytree(REPO / "solutions" / AID, root / "solutions" / AID)
    return root


def _letter(order) -> str:
    """The letter under which 02's right option (the lesson's a: 'at initialisation') is shown in ``order``."""
    return "abcd"[order.order[0].index("a")]


def _answers(item) -> dict[str, str]:
    (qx, qy), keys = item.query, item.keys
    scores = [qx * kx + qy * ky for kx, ky in keys]
    e = [math.exp(s / math.sqrt(2)) for s in scores]
    weights = [round(x / sum(e), 3) for x in e]
    return {"STOP_AND_TRY_SCORES": f"STOP_AND_TRY_SCORES = {scores!r}\n",
            "STOP_AND_TRY_WEIGHTS": f"STOP_AND_TRY_WEIGHTS = {weights!r}\n",
            "STOP_AND_TRY_LARGEST": f"STOP_AND_TRY_LARGEST = {1 + scores.index(max(scores))}\n"}


def _submit(root: Path, sid: str, answers: dict[str, str], claim: str = "") -> None:
    """The solution's answers with ``answers`` instead, ``claim`` run first in the first answer cell."""
    source = submissions.read(root / "solutions" / AID / f"{AID}.ipynb")
    release = submissions.read(root / "assignments" / AID / f"{AID}.ipynb")
    mine = {**submissions.solution_answers(source), **answers}
    first = next(iter(mine))
    mine[first] = claim + mine[first]
    nb = submissions.fill(release, mine)
    (root / "submitted" / sid / AID).mkdir(parents=True)
    nbformat.write(nb, root / "submitted" / sid / AID / f"{AID}.ipynb")


STUDENTS = ("alice", "bob", "carol", "eve")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class of the module docstring, graded once: ``(course directory, run summary, results by student)``."""
    root = _course(tmp_path_factory.mktemp("variants"))
    api.generate(root, [AID])
    own = {sid: variants.student_items(SECRET.encode(), "attention-arithmetic", sid, [ITEM])[ITEM] for sid in STUDENTS}
    order = {sid: variants.student_items(SECRET.encode(), "attention-arithmetic", sid, [CONCEPTS])[CONCEPTS]
             for sid in ("alice", "bob")}
    assert own["alice"] != own["bob"]
    alice = {**_answers(own["alice"]), "CONCEPTS_02": f"CONCEPTS_02 = ({_letter(order['alice'])!r},)\n"}
    _submit(root, "alice", alice)
    # a copy of alice's answers, whose notebook also claims to be alice's wherever an id could be read from
    claim = ("import os\nos.environ.update(JUPYTERHUB_USER='alice', USER='alice', LOGNAME='alice', "
             "STUDENT_ID='alice')\nSTUDENT_ID = 'alice'\n")
    _submit(root, "bob", {**alice, "STOP_AND_TRY_SCORES": claim + alice["STOP_AND_TRY_SCORES"]})
    _submit(root, "carol", _answers(LESSON[ITEM]))    # the lesson's worked example, typed in
    _submit(root, "eve", {}, claim)    # the released solution, computed from grader.numbers, claiming alice's id
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SECRET_ENV, SECRET)
        summary = api.grade(root, assignments=[AID], workers=1, progress=False)
    assert (summary.graded, summary.errors) == (4, []), summary.errors
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    return root, summary, subs


@pytest.mark.slow
def test_each_student_is_graded_on_the_numbers_of_their_own_folder(graded):
    root, _, subs = graded
    own = {sid: variants.student_items(SECRET.encode(), "attention-arithmetic", sid, [ITEM])[ITEM] for sid in STUDENTS}
    order = {sid: variants.student_items(SECRET.encode(), "attention-arithmetic", sid, [CONCEPTS])[CONCEPTS]
             for sid in ("alice", "bob")}
    alice = {**_answers(own["alice"]), "CONCEPTS_02": f"CONCEPTS_02 = ({_letter(order['alice'])!r},)\n"}
    cells = {sid: {c["grade_id"]: c for c in s["cells"]} for sid, s in subs.items()}
    if not subs["alice"]["verified"]:
        pytest.skip("verification (the sandbox of issue 5) is not installed here")  # pragma: no cover

    for sid in ("alice", "eve"):
        auto = [c for c in cells[sid].values() if not c["manual"]]
        assert auto and all(c["passed"] for c in auto), (sid, [c["grade_id"] for c in auto if not c["passed"]])
    assert not [f for f in subs["eve"]["flags"] if f["kind"] == "another student's numbers"]
    # the kernel's grader.numbers (the kit's, reading the job's graded.json) printed eve's own numbers too
    kernel = nbformat.read(root / "autograded" / "eve" / AID / f"{AID}.ipynb", as_version=4)
    cell = next(c for c in kernel.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "stop_and_try_numbers")
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert "the numbers of student eve (graded)" in printed and own["eve"].describe() in printed, cell.outputs
    assert own["eve"] != own["alice"] and _answers(own["eve"]) != alice  # else eve's full marks would prove nothing

    bob_scores = _answers(own["bob"])["STOP_AND_TRY_SCORES"]
    assert bob_scores != alice["STOP_AND_TRY_SCORES"]  # else copying would be right on bob's numbers too
    for grade_id in ("STOP_AND_TRY_SCORES_values", "STOP_AND_TRY_WEIGHTS_values"):
        assert cells["bob"][grade_id]["score"] == 0
        assert cells["bob"][grade_id]["misconception"] == "variants.others_numbers"
    same_winner = _answers(own["bob"])["STOP_AND_TRY_LARGEST"] == alice["STOP_AND_TRY_LARGEST"]
    assert cells["bob"]["STOP_AND_TRY_LARGEST_value"]["passed"] == same_winner  # right on bob's numbers, or not
    # alice's letter for the understanding question is not bob's: he sees the right option under another letter
    assert _letter(order["bob"]) != _letter(order["alice"])
    assert cells["bob"]["CONCEPTS_02_value"]["score"] == 0 and cells["alice"]["CONCEPTS_02_value"]["passed"]
    others = [c for g, c in cells["bob"].items() if not c["manual"] and g not in (*VALUES, "CONCEPTS_02_value")]
    assert others and all(c["passed"] for c in others)  # the rest of the notebook is unaffected
    named = [f for f in subs["bob"]["flags"] if f["kind"] == "another student's numbers"]
    assert {f["grade_id"] for f in named} == {"STOP_AND_TRY_SCORES_values", "STOP_AND_TRY_WEIGHTS_values"}
    assert all("alice" in f["evidence"] for f in named), named

    for grade_id in ("STOP_AND_TRY_SCORES_values", "STOP_AND_TRY_WEIGHTS_values"):
        assert cells["carol"][grade_id]["score"] == 0
        assert cells["carol"][grade_id]["misconception"] == "variants.lesson_numbers"
    assert not [f for f in subs["carol"]["flags"] if f["kind"] == "another student's numbers"]
    assert {g: s for (sid, g), s in grades(root).items() if sid == "alice" and g in VALUES} == {
        g: (1.0, False) for g in VALUES}


@pytest.mark.slow
def test_the_same_submission_secret_and_id_give_the_same_verdicts_at_another_seed(graded):
    """Reproducible whatever the run's seed: the run drew every check's inputs from its own fresh seed; verified
    again at another one, on the numbers derived afresh from the secret and the folder's id, alice's own answers
    and bob's copy of them get the verdicts, messages and flags the run recorded, though the inputs differ."""
    from autograder.checks import checks_for_assignment
    from autograder.checks.core import check_rng
    from autograder.checks.numbers import StudentNumbers
    from autograder.sandbox import verify_submission

    root, summary, subs = graded
    other = (summary.seed + 2**30) % 2**31
    (check,) = [c for c in checks_for_assignment(AID) if c.grade_id == "scale_scores_matches_reference"]
    drawn = [[np.asarray(a).tobytes() for call in check.make_calls(check_rng(seed, check.grade_id)) for a in call.args]
             for seed in (summary.seed, other)]
    assert drawn[0] != drawn[1]  # the two seeds give the checks other inputs
    everyone = variants.class_numbers(SECRET.encode(), "attention-arithmetic", AID, STUDENTS)
    for sid in ("alice", "bob"):
        notebook = (root / "submitted" / sid / AID / f"{AID}.ipynb").read_bytes()
        again = verify_submission(AID, notebook, other, numbers=StudentNumbers(sid, everyone[sid], everyone))
        recorded = {c["grade_id"]: c for c in subs[sid]["cells"] if not c["manual"]}
        assert recorded and {g: (v.passed, v.misconception, None if v.passed else v.message)
                             for g, v in again.verdicts.items() if g in recorded} == {
            g: (c["passed"], c["misconception"], None if c["passed"] else c["message"]) for g, c in recorded.items()}
        named = [(f["grade_id"], f["evidence"]) for f in again.flags if f["kind"] == "another student's numbers"]
        assert named == [(f["grade_id"], f["evidence"]) for f in subs[sid]["flags"]
                         if f["kind"] == "another student's numbers"]
        assert bool(named) == (sid == "bob")


@pytest.mark.slow
def test_grading_again_with_a_wrong_secret_says_which_setting_and_changes_nothing(graded, monkeypatch, capsys):
    """After a grading run (a gradebook, reports and a state log exist): ``autograder grade --force`` with another
    course's secret exits 2 naming ``variants.fingerprint`` and leaves every file of the record as it was."""
    from autograder import cli

    root, _, _ = graded
    record = [root / "gradebook.db", *sorted(p for p in (root / "reports").rglob("*") if p.is_file())]
    before = {p: p.read_bytes() for p in record}
    monkeypatch.setenv(SECRET_ENV, "another secret of some other course, 0123456789")
    assert cli.main(["grade", AID, "--course", str(root), "--force", "--workers", "1", "--no-progress"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("autograder: refusing to grade: variants.fingerprint (course.yml): the secret in the "
                           f"environment variable {SECRET_ENV} is not this course's"), said
    assert len(before) > 3 and {p: p.read_bytes() for p in record} == before
    assert sorted(p for p in (root / "reports").rglob("*") if p.is_file()) == record[1:]


def test_a_classroom_course_without_its_secret_or_with_another_refuses_and_records_nothing(tmp_path, monkeypatch):
    root = _course(tmp_path)
    (root / "submitted" / "alice" / AID).mkdir(parents=True)
    shutil.copy(REPO / "solutions" / AID / f"{AID}.ipynb", root / "submitted" / "alice" / AID)
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(variants.SecretMissing, match=rf"variants\.secret_env \(course.yml\) names the environment "
                                                     rf"variable {SECRET_ENV}, which is not set"):
        api.grade(root, assignments=[AID], workers=1, progress=False)
    assert not (root / "gradebook.db").exists() and not (root / "reports").exists()
    monkeypatch.setenv(SECRET_ENV, "another secret of some other course, 0123456789")
    with pytest.raises(variants.SecretMissing, match=r"variants\.fingerprint \(course.yml\): the secret in the "
                                                     rf"environment variable {SECRET_ENV} is not this course's"):
        api.grade(root, assignments=[AID], workers=1, progress=False)
    assert not (root / "gradebook.db").exists() and not (root / "reports").exists()
    # --no-verify leaves the scores to the kernel's hidden tests, which judge the lesson's numbers: refused
    monkeypatch.setenv(SECRET_ENV, SECRET)
    with pytest.raises(variants.SecretMissing, match=r"judged only by verification, which --no-verify turns off"):
        api.grade(root, assignments=[AID], workers=1, progress=False, verify=False)
    assert not (root / "gradebook.db").exists() and not (root / "reports").exists()


def test_stock_nbgrader_autograde_refuses_without_the_secret_before_it_records(tmp_path, monkeypatch):
    """The course's nbgrader_config.py gives stock ``nbgrader autograde`` a pre-convert hook that reads the
    secret before nbgrader enters a submission in the gradebook; nbgrader's own hook runner logs and swallows
    an ``Exception``, so the refusal must get through it (run here through nbgrader's own runner)."""
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    from autograder.config import load_course
    from autograder.grading.nbconfig import nbgrader_config, stock_config

    root = _course(tmp_path)
    config = Config()
    exec(compile((root / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"),
         {"get_config": lambda: config, "__file__": str(root / "nbgrader_config.py")})
    assert config.Autograde.pre_convert_hook.func.__name__ == "require_secret"
    converter = Autograde(coursedir=CourseDirectory(config=config), config=config)
    converter.notebooks = []
    monkeypatch.delenv(SECRET_ENV, raising=False)
    with pytest.raises(SystemExit, match=rf"refusing to grade, nothing recorded: .*variants\.secret_env \(course.yml\) "
                                         rf"names the environment variable {SECRET_ENV}, which is not set"):
        converter.run_pre_convert_hook()
    monkeypatch.setenv(SECRET_ENV, "another secret of some other course, 0123456789")
    with pytest.raises(SystemExit, match=r"variants\.fingerprint \(course.yml\): the secret .* is not this course's"):
        converter.run_pre_convert_hook()
    monkeypatch.setenv(SECRET_ENV, SECRET)
    converter.run_pre_convert_hook()  # the course's secret: nbgrader goes on
    # the grading workers' own nbgrader runs carry no hook (they never hold the secret)
    assert "pre_convert_hook" not in nbgrader_config(load_course(root), root).Autograde
    assert "pre_convert_hook" not in stock_config(load_course(REPO), REPO).Autograde  # no variants, no hook
