"""The seam between nbgrader's in-kernel scores and verification (pure functions, no kernels)."""
from __future__ import annotations

from collections import namedtuple

from autograder.grading.verification import merge, normalise

CELLS = [
    {"grade_id": "softmax_rows", "max_score": 2.0, "nbgrader_score": 2.0, "manual": False, "message": None},
    {"grade_id": "softmax_axis", "max_score": 1.0, "nbgrader_score": 0.0, "manual": False,
     "message": "your weights sum to 1 down each column"},
    {"grade_id": "why", "max_score": 1.0, "nbgrader_score": None, "manual": True, "message": None},
]
Verdict = namedtuple("Verdict", "grade_id task passed message misconception")


def test_unverified_keeps_nbgrader_scores():
    rows, flags = merge(CELLS, None)
    assert [(r["score"], r["passed"], r["verified_score"]) for r in rows] == [
        (2.0, True, None), (0.0, False, None), (0.0, None, None)]
    assert rows[1]["message"] == "your weights sum to 1 down each column" and flags == []


def test_verified_score_wins_and_disagreement_is_flagged():
    verification = {"verdicts": [
        Verdict("softmax_rows", "softmax", False, "rows do not sum to 1", "softmax.wrong_axis"),
        Verdict("softmax_axis", "softmax", False, "still wrong", "softmax.wrong_axis")],
        "flags": [{"kind": "static scan", "grade_id": None, "line": 3, "cell": "c1", "evidence": "get_ipython"}]}
    verdicts, scan = normalise(verification)
    rows, flags = merge(CELLS, verdicts, scan)
    first = rows[0]
    assert (first["score"], first["nbgrader_score"], first["verified_score"], first["passed"]) == (0.0, 2.0, 0.0, False)
    assert (first["task"], first["misconception"], first["message"]) == ("softmax", "softmax.wrong_axis",
                                                                         "rows do not sum to 1")
    assert rows[2]["verified_score"] is None  # manual cells are never verified
    assert [f["kind"] for f in flags] == ["static scan", "possible tampering"]
    assert flags[1]["grade_id"] == "softmax_rows"
    assert "nbgrader scored 2/2" in flags[1]["evidence"] and "0/2" in flags[1]["evidence"]


def test_verified_pass_where_nbgrader_failed_is_flagged_too():
    verdicts, _ = normalise({"verdicts": {"softmax_axis": {"grade_id": "softmax_axis", "passed": True,
                                                           "message": None, "misconception": None},
                                          "softmax_rows": {"grade_id": "softmax_rows", "passed": True,
                                                           "message": None, "misconception": None}}})
    rows, flags = merge(CELLS, verdicts)
    assert rows[1]["score"] == 1.0 and rows[1]["message"] is None
    assert [(f["grade_id"], f["kind"]) for f in flags] == [("softmax_axis", "possible tampering")]


def test_an_auto_graded_cell_without_a_verdict_is_withheld():
    """Fail closed: verification ran but said nothing about a cell, so nbgrader's full marks are not kept."""
    verdicts, _ = normalise({"verdicts": {"softmax_axis": {"grade_id": "softmax_axis", "passed": True,
                                                           "message": None, "misconception": None}}})
    rows, flags = merge(CELLS, verdicts)
    assert (rows[0]["nbgrader_score"], rows[0]["score"], rows[0]["verified_score"]) == (2.0, 0.0, 0.0)
    assert rows[2]["score"] == 0.0 and rows[2]["verified_score"] is None  # manual: for the human grader
    assert [(f["grade_id"], f["kind"]) for f in flags] == [("softmax_rows", "verification failed"),
                                                          ("softmax_axis", "possible tampering")]
    assert "withheld" in flags[0]["evidence"]


def test_object_with_attributes_is_accepted():
    class Result:
        verdicts = {"softmax_rows": Verdict("softmax_rows", "softmax", True, None, None)}
        flags = []

    verdicts, flags = normalise(Result())
    assert verdicts["softmax_rows"]["passed"] is True and flags == []
    rows, flags = merge(CELLS[:1], verdicts)
    assert rows[0]["score"] == 2.0 and flags == []


def test_a_kernel_running_the_student_kit_raises_no_tampering_flag():
    """Issue 12: the kernel's hidden-test calls are the kit's stand-in (they do nothing), so a cell nbgrader
    scored full and verification failed is an ordinary wrong answer: the verified score, no flag."""
    verdicts, _ = normalise({"verdicts": [
        Verdict("softmax_rows", "softmax", False, "rows do not sum to 1", "softmax.wrong_axis"),
        Verdict("softmax_axis", "softmax", True, None, None)]})
    rows, flags = merge(CELLS, verdicts, kernel_judged=False)
    assert [(r["score"], r["verified_score"]) for r in rows[:2]] == [(0.0, 0.0), (1.0, 1.0)]
    assert flags == []


def test_a_submission_is_verified_once_whatever_its_verdicts(monkeypatch):
    """One verification per submission, with the real matplotlib (the runner sandbox imported it once): a
    failed verdict, or one that disagrees with nbgrader's in-kernel score, is the verdict, never a reason
    to run the notebook again."""
    from autograder.grading import verification

    seen = []

    def verifier(assignment_id, notebook, seed, limits, **kwargs):
        seen.append(dict(limits))
        return {"verdicts": [Verdict("softmax_rows", "softmax", True, None, None),
                             Verdict("softmax_axis", "softmax", False, "wrong", "softmax.wrong_axis")]}

    monkeypatch.setattr(verification, "load_verifier", lambda: verifier)
    cells = [dict(c, nbgrader_score=c["max_score"]) if not c["manual"] else c for c in CELLS]
    verdicts, _ = verification.verify("a", b"{}", 1, {"memory_mb": 512}, cells)
    assert seen == [{"memory_mb": 512}] and verdicts["softmax_axis"]["passed"] is False


def test_an_assignment_without_checks_keeps_nbgrader_s_scores_flagged_unverified():
    """The real verifier on an assignment the registry does not know: nothing verified, so the in-kernel scores
    are recorded with an "unverified" flag that says why; none for a notebook graded by hand only."""
    from autograder.grading.verification import verify

    verdicts, flags = verify("ps1", b"{}", 1, {}, CELLS)
    assert verdicts is None and [(f["kind"], f["grade_id"]) for f in flags] == [("unverified", None)]
    assert "no checks are registered for ps1" in flags[0]["evidence"] and "(3 point(s))" in flags[0]["evidence"]
    rows, flags = merge(CELLS, verdicts, flags)
    assert [r["score"] for r in rows] == [2.0, 0.0, 0.0] and [f["kind"] for f in flags] == ["unverified"]
    assert verify("ps1", b"{}", 1, {}, CELLS[2:]) == (None, [])
