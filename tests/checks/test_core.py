"""The check machinery: executors, plain-data conversion, verdicts, entry points."""
import sys
import warnings

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, TASKS, checks_for_assignment
from autograder.checks.core import (
    Call, Check, CheckFailed, Verdict, check_rng, evaluate, run_calls, to_plain,
)
from autograder.hidden import check
from autograder.notebook import Grader, wording


class AlwaysEqual:
    """nbgrader issue 1379: an answer that claims to equal anything."""

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class EqualArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(self), bool)


def test_to_plain_refuses_objects_that_fake_equality():
    with pytest.raises(TypeError, match="AlwaysEqual"):
        to_plain(AlwaysEqual())
    with pytest.raises(TypeError, match="object"):
        to_plain(np.array([AlwaysEqual()], dtype=object))
    plain = to_plain(np.zeros(3).view(EqualArray))
    assert type(plain) is np.ndarray and not (plain == 1).any()


def test_to_plain_keeps_numbers_and_pairs():
    class MyFloat(float):
        def __eq__(self, other):
            return True
    value = to_plain(MyFloat(0.25))
    assert type(value) is float and value == 0.25 and value != 0.5
    out = to_plain((np.ones((2, 3)), [1, 2]))
    assert isinstance(out, tuple) and out[0].shape == (2, 3) and out[1] == (1, 2)
    assert to_plain(np.float32(1.5)) == 1.5 and type(to_plain(np.float32(1.5))) is float


def test_run_calls_reports_errors_mutation_and_missing_names():
    def mutating(x):
        x -= x.max()
        return x

    def stub(x):
        raise NotImplementedError()

    x = np.arange(3.0)
    ns = {"mutating": mutating, "stub": stub, "CONST": 3}
    out = run_calls(ns, [Call("mutating", (x,)), Call("stub", (x,)), Call("absent"), Call("CONST", value_only=True)])
    assert out[0].mutated == ("0",) and np.array_equal(x, [0.0, 1.0, 2.0])  # the caller's array is untouched
    assert out[1].error.startswith("NotImplementedError")
    assert out[2].error == "NameError: name 'absent' is not defined"
    assert out[3].value == 3 and out[3].error is None


def test_run_calls_silences_student_noise(capfd):
    def noisy(x):
        print("debug", file=sys.stderr)
        warnings.warn("careful")
        with np.errstate(all="warn"):
            np.log(np.zeros(1))
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning escaping run_calls would fail here
        out = run_calls({"noisy": noisy}, [Call("noisy", (np.ones(2),))])
    assert out[0].error is None
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


def test_run_calls_measures_peak_memory():
    big = Call("alloc", (1_000_000,), measure_peak=True)
    small = Call("alloc", (10,), measure_peak=True)
    peaks = [o.peak_bytes for o in run_calls({"alloc": lambda n: float(np.ones(n).sum())}, [big, small])]
    assert peaks[0] >= 8_000_000 > 100_000 > peaks[1]


def test_check_rng_depends_on_seed_and_grade_id_only():
    a = check_rng(1, "softmax_x").standard_normal(3)
    assert np.array_equal(a, check_rng(1, "softmax_x").standard_normal(3))
    assert not np.array_equal(a, check_rng(2, "softmax_x").standard_normal(3))
    assert not np.array_equal(a, check_rng(1, "softmax_y").standard_normal(3))


def test_evaluate_turns_a_crashing_judge_into_a_failed_verdict():
    def judge(calls, outcomes):
        raise IndexError("odd answer")
    bad = Check("softmax_odd", "softmax", "odd", lambda rng: [], judge)
    verdict = evaluate(bad, lambda calls: [], seed=0)
    assert not verdict.passed and verdict.misconception == "grader.unreadable_answer"


def test_grade_id_must_begin_with_task():
    with pytest.raises(ValueError, match="must begin with its task"):
        Check("rows_sum", "softmax", "t", lambda rng: [], lambda c, o: None)


def test_registry_is_consistent():
    for assignment, tasks in TASKS.items():
        for c in checks_for_assignment(assignment):
            assert c.task in tasks and c.grade_id.startswith(c.task)
    assert "softmax_rows_sum_to_one" in CHECKS


def test_hidden_check_passes_silently_and_fails_with_the_students_message():
    assert check("softmax_rows_sum_to_one", {"softmax": ref.softmax}) is None

    def column_softmax(x, axis=-1):
        e = np.exp(x)
        return e / e.sum(axis=0, keepdims=True)

    with pytest.raises(CheckFailed, match="wrong axis") as info:
        check("softmax_rows_sum_to_one", {"softmax": column_softmax})
    assert info.value.misconception == "softmax.wrong_axis"
    assert info.value._render_traceback_() == [f"CheckFailed: {info.value.message}"]


def test_visible_check_output(capsys):
    def stub(x, axis=-1):
        raise NotImplementedError()

    Grader("01_scores_softmax", {"softmax": stub}).check("softmax")
    out = capsys.readouterr().out
    assert out.startswith("✘ softmax: not done yet") and "NotImplementedError" in out

    Grader("01_scores_softmax", {"softmax": ref.softmax}).check("softmax")
    out = capsys.readouterr().out
    assert out.startswith("✔ softmax: all") and "✘" not in out


def test_visible_check_counts_its_checks_in_words():
    """Singular for one check, failed or passed (issue 16: "all 1 checks passed"); plural otherwise."""
    def verdict(passed):
        return Verdict("t_1", "t", "a property", passed, "" if passed else "it is wrong", None if passed else "m")

    assert wording.render("t", [verdict(False)]).splitlines()[0] == "✘ t: 0 of 1 check passed."
    assert wording.render("t", [verdict(True), verdict(False)]).splitlines()[0] == "✘ t: 1 of 2 checks passed."
    assert wording.render("t", [verdict(True)]).splitlines()[0] == "✔ t: the check passed."
    assert wording.render("t", [verdict(True)], hidden_value=True).startswith("✔ t: answered in the expected form "
                                                                               "(1 check passed)")
    assert wording.render("t", [verdict(True)] * 2).splitlines()[0] == "✔ t: all 2 checks passed."


def test_visible_check_names_the_misconception(capsys):
    def unstable(x, axis=-1):
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)

    Grader("01_scores_softmax", {"softmax": unstable}).check("softmax")
    out = capsys.readouterr().out
    assert "exp(1000) overflows" in out and out.startswith("✘ softmax:")
    assert "  ✔ each row of weights is positive and sums to 1" in out


def test_unknown_task_is_a_clear_error():
    with pytest.raises(ValueError, match="not a task of 01_scores_softmax"):
        Grader("01_scores_softmax", {}).check("causal_mask")
    with pytest.raises(ValueError, match="unknown assignment"):
        Grader("07_nope", {})


def test_a_constant_never_assigned_reads_as_not_started(capsys):
    grader = Grader("02_scaling", {})
    grader.check("STOP_AND_TRY_LARGEST")
    out = capsys.readouterr().out
    assert out.startswith("✘ STOP_AND_TRY_LARGEST: not done yet.") and "STOP_AND_TRY_LARGEST" in out.split(".", 1)[1]
    grader.summary()
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("STOP_AND_TRY_LARGEST"))
    assert line.endswith("✘ not started")


def test_run_calls_substitutes_helpers_during_the_calls_only():
    """Task isolation: the composite reads its helper from the namespace; the student's own comes back after."""
    ns = {}
    exec("def helper(x):\n    return x * 0  # wrong\n\ndef composite(x):\n    return helper(x) + 1\n", ns)
    own = ns["helper"]
    out = run_calls(ns, [Call("composite", (np.ones(2),))], {"helper": lambda x: x * 2})
    assert np.array_equal(out[0].value, [3.0, 3.0])
    assert ns["helper"] is own
    ns.pop("helper")
    run_calls(ns, [Call("composite", (np.ones(2),))], {"helper": lambda x: x})
    assert "helper" not in ns  # a name the notebook did not define is removed again


def test_a_call_is_described_without_numpy_reprs():
    assert Call("f", (np.float64(0.5), np.int64(3)), {"k": np.bool_(True)}).describe() == "f(0.5, 3, k=True)"
