"""The matplotlib stand-in of the verification sandbox never changes a verdict, only the time.

Verification first runs a notebook against ``autograder/sandbox/mpl_standin.py`` (no real
matplotlib import: about 0.8 s less per submission). These tests show

* the course's answers and every correct catalogue variant get the same verdicts with the
  stand-in as with the real matplotlib, and stay on the fast path (one sandbox run,
  ``matplotlib == "stand-in"``), untouched notebooks included; a wrong answer's stand-in verdicts
  never count: any failed verdict is verified again with the real matplotlib (below), so only a
  stand-in run that passes everything decides a grade;
* whatever the stand-in cannot imitate (a cell that fails after using it, a graded function that
  uses matplotlib, a failed ``matplotlib.__version__`` probe) is redone with the real matplotlib
  and passes as it would there;
* an answer that silently depends on matplotlib's real objects (the stand-in's blind spot) is
  caught one level up: the grading job re-verifies with the real matplotlib when a verdict
  disagrees with nbgrader's in-kernel result.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from autograder import submissions
from autograder.catalogue import all_variants
from autograder.checks import MODULES, checks_for_assignment
from autograder.checks.core import check_rng
from autograder.grading import verification
from autograder.sandbox import Limits, cgroup, verify_submission
from autograder.sandbox.measure import is_measured

from .conftest import ASSIGNMENT, ROOT, SEED, to_bytes

LIMITS = Limits(cpu_seconds=60, memory_mb=2048, wall_seconds=300, cell_seconds=60)
REAL = Limits(cpu_seconds=60, memory_mb=2048, wall_seconds=300, cell_seconds=60, matplotlib="real")
CORRECT_DOT = "    return float(np.sum(np.asarray(q) * np.asarray(k)))"



def _notebooks(assignment):
    source = submissions.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb")
    release = submissions.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb")
    return source, release


def _solved(assignment, **answers) -> bytes:
    source, release = _notebooks(assignment)
    return to_bytes(submissions.fill(release, {**submissions.solution_answers(source), **answers}))


def _verdicts(result) -> dict:
    return {g: (v.passed, v.message, v.misconception) for g, v in result.verdicts.items()}


def _packed(assignment) -> list[tuple[str, dict]]:
    """The assignment's correct catalogue variants packed into as few submissions as their cells allow."""
    packs: list[tuple[list[str], dict]] = []
    for variant in (v for v in all_variants() if v.assignment == assignment and v.correct):
        for names, answers in packs:
            if not set(answers) & set(variant.answers):
                names.append(variant.name)
                answers.update(variant.answers)
                break
        else:
            packs.append(([variant.name], dict(variant.answers)))
    return [("+".join(names), answers) for names, answers in packs]


ASSIGNMENTS = [m.ASSIGNMENT for m in MODULES if m.CHECKS]
PACKS = [(a, name, answers) for a in ASSIGNMENTS for name, answers in _packed(a)]


@pytest.fixture(scope="module")
def both_ways():
    """Every pack verified with the stand-in and with the real matplotlib, two sandboxes at a time."""
    jobs = {(assignment, name, kind): (assignment, _solved(assignment, **answers), limits)
            for assignment, name, answers in PACKS for kind, limits in (("fast", LIMITS), ("real", REAL))}
    with ThreadPoolExecutor(2) as pool:
        futures = {key: pool.submit(verify_submission, a, data, SEED, limits) for key, (a, data, limits) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("assignment, name, answers", PACKS, ids=[f"{a}:{n}" for a, n, _ in PACKS])
def test_catalogue_verdicts_are_the_same_with_the_standin(assignment, name, answers, both_ways):
    fast, real = both_ways[(assignment, name, "fast")], both_ways[(assignment, name, "real")]
    assert real.matplotlib == "real"
    if fast.matplotlib == "real":
        # a variant whose plot cell fails with the real matplotlib too (04's mha_one_head, mha_weights_mean
        # feed the heads' plot weights of the wrong shape): redone with the real one, as it must be
        assert real.cell_errors and "real matplotlib" in fast.notes[0]
    else:
        # no process more than the real run needed (a composite task's isolated runner is one in both)
        assert fast.matplotlib == "stand-in" and fast.runs == real.runs
    assert _verdicts(fast) == _verdicts(real)
    assert fast.cell_errors == real.cell_errors


def _runs_needed(assignment) -> int:
    """The sandbox processes one verification of ``assignment`` starts when nothing hangs or falls back.

    One for the plain tasks, one more for each group of composite tasks (task isolation: judged in a
    runner whose given package holds the reference helpers), and one for each measured call (06's
    memory check, bounded from outside in a runner of its own) where this host can measure memory.
    """
    checks = checks_for_assignment(assignment)
    measured = sum(is_measured(call) for c in checks for call in c.make_calls(check_rng(SEED, c.grade_id)))
    groups = len({c.helpers for c in checks})
    return groups + (measured if "memory" in cgroup.available() else 0)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_notebook_stays_on_the_fast_path(assignment):
    """The stubs raise NotImplementedError inside the plot cells' try blocks: no fallback, all failed."""
    _, release = _notebooks(assignment)
    result = verify_submission(assignment, to_bytes(release), SEED, LIMITS)
    assert (result.matplotlib, result.runs) == ("stand-in", _runs_needed(assignment))
    assert not any(v.passed for v in result.verdicts.values())


def _dot_product(*body: str) -> str:
    return "\n".join(("def dot_product(q, k):", *body))


@pytest.mark.parametrize("case, answer", [
    # The plot cell's unpacking fails on the stand-in before the def below it runs.
    ("cell fails after using it", "fig, ax = plt.subplots()\nlow, high = ax.get_xlim()\nplt.close(fig)\n"
                                  + _dot_product(CORRECT_DOT)),
    # The graded function itself draws: its answer must not come from a stand-in run.
    ("graded call uses it", _dot_product("    plt.close('all')", CORRECT_DOT)),
    # A probe that raises AttributeError on the stand-in (dunder names are not imitated).
    ("dunder probe", "import matplotlib\n" + _dot_product(
        "    assert matplotlib.__version__", CORRECT_DOT)),
])
def test_what_the_standin_cannot_imitate_is_redone_with_real_matplotlib(case, answer):
    result = verify_submission(ASSIGNMENT, _solved(ASSIGNMENT, dot_product=answer), SEED, LIMITS)
    assert result.matplotlib == "real" and result.runs == 2
    assert "real matplotlib" in result.notes[0]
    assert all(result.passed.values()), {g: v.message for g, v in result.verdicts.items() if not v.passed}


def test_a_composite_whose_graded_call_uses_it_is_redone_and_said_so():
    """Only the composite's isolated session (04's multi_head_attention) falls back: the result says "real"."""
    source, _ = _notebooks("04_heads")
    header, _, body = submissions.solution_answers(source)["multi_head_attention"].partition("\n")
    answer = f"{header}\n    import matplotlib.pyplot as plt\n    plt.close('all')\n{body}"
    result = verify_submission("04_heads", _solved("04_heads", multi_head_attention=answer), SEED, LIMITS)
    assert result.matplotlib == "real" and result.runs == 3  # the helpers' run, then the composite's twice
    assert all(result.passed.values()), {g: v.message for g, v in result.verdicts.items() if not v.passed}


def test_a_cell_error_that_does_not_touch_matplotlib_keeps_the_standin():
    answer = _dot_product(CORRECT_DOT) + "\nraise RuntimeError('a stray line at the end of the cell')"
    result = verify_submission(ASSIGNMENT, _solved(ASSIGNMENT, dot_product=answer), SEED, LIMITS)
    assert (result.matplotlib, result.runs) == ("stand-in", 1)
    assert any("stray line" in e for e in result.cell_errors.values())
    assert all(result.passed.values())


def test_real_matplotlib_can_be_chosen():
    result = verify_submission(ASSIGNMENT, _solved(ASSIGNMENT), SEED, REAL)
    assert (result.matplotlib, result.runs) == ("real", 1) and all(result.passed.values())


# An answer right with the real matplotlib and wrong with the stand-in, that neither fails a cell
# nor touches the stand-in in a graded call: only the comparison with nbgrader can catch it.
BLIND_SPOT = ("OFFSET = 0.0 if type(plt.figure).__name__ == 'function' else 1.0\n"
              + _dot_product("    return float(np.sum(np.asarray(q) * np.asarray(k))) + OFFSET"))


def _nbgrader_cells(assignment, full_marks: bool) -> list[dict]:
    return [{"grade_id": c.grade_id, "max_score": 1.0, "nbgrader_score": 1.0 if full_marks else 0.0,
             "manual": False, "message": None} for c in checks_for_assignment(assignment)]


def test_the_grading_job_reverifies_with_real_matplotlib_when_nbgrader_disagrees():
    data = _solved(ASSIGNMENT, dot_product=BLIND_SPOT)
    alone = verify_submission(ASSIGNMENT, data, SEED, LIMITS)
    dot_checks = {c.grade_id for c in checks_for_assignment(ASSIGNMENT) if c.task == "dot_product"}
    assert alone.matplotlib == "stand-in"
    assert {g for g, ok in alone.passed.items() if not ok} == dot_checks  # the blind spot is real

    verdicts, flags = verification.verify(ASSIGNMENT, data, SEED, LIMITS.model_dump(), _nbgrader_cells(ASSIGNMENT, True))
    assert all(v["passed"] for v in verdicts.values()) and flags == []


def test_a_wrong_answer_is_always_verified_again_with_real_matplotlib(monkeypatch):
    """Its stand-in verdicts never count, even where nbgrader's kernel agrees they fail: what the packs above
    leave out (wrong answers) is graded by the real matplotlib."""
    seen = []

    def verifier(assignment_id, notebook, seed, limits, **kwargs):
        seen.append(limits.get("matplotlib"))
        return verify_submission(assignment_id, notebook, seed, limits, **kwargs)

    monkeypatch.setattr(verification, "load_verifier", lambda: verifier)
    wrong = next(v for v in all_variants() if v.assignment == ASSIGNMENT and not v.correct)
    cells = _nbgrader_cells(ASSIGNMENT, True)
    failed = {c.grade_id for c in checks_for_assignment(ASSIGNMENT) if c.task == wrong.task}
    for cell in cells:
        cell["nbgrader_score"] = 0.0 if cell["grade_id"] in failed else 1.0
    verdicts, _ = verification.verify(ASSIGNMENT, _solved(ASSIGNMENT, **wrong.answers), SEED, LIMITS.model_dump(),
                                      cells)
    assert seen == ["stand-in", "real"]
    assert not all(v["passed"] for v in verdicts.values())


def test_no_second_verification_when_nbgrader_agrees(monkeypatch):
    seen = []

    def verifier(assignment_id, notebook, seed, limits, **kwargs):
        seen.append(limits.get("matplotlib"))
        return verify_submission(assignment_id, notebook, seed, limits, **kwargs)

    monkeypatch.setattr(verification, "load_verifier", lambda: verifier)
    data = _solved(ASSIGNMENT)
    verdicts, _ = verification.verify(ASSIGNMENT, data, SEED, LIMITS.model_dump(), _nbgrader_cells(ASSIGNMENT, True))
    assert seen == ["stand-in"] and all(v["passed"] for v in verdicts.values())
    # nbgrader's kernel said every cell failed (tampering, say): verified again, and still passed.
    verdicts, _ = verification.verify(ASSIGNMENT, data, SEED, LIMITS.model_dump(), _nbgrader_cells(ASSIGNMENT, False))
    assert seen == ["stand-in", "stand-in", "real"] and all(v["passed"] for v in verdicts.values())
