"""The student kit's visible checks: judged from public data computed when the kit was built.

This module is shipped in the student kit as it is (``autograder/kit/public.py``), next to the
check machinery that holds no expected value (``checks/core.py``, ``checks/expect.py``,
``checks/forms.py``) and one data file per released assignment (``kit/data/<assignment>.json``
and ``.npz``, written by :mod:`autograder.kit.publicdata`). A visible check runs the student's
functions on the check's public inputs (``PUBLIC_SEED``) and judges the outcomes with:

* the form judge of :mod:`autograder.checks.forms` where the check has one (the grader's own
  function: answers that are values, such as ``STOP_AND_TRY_*``, are never compared with a key);
* the verdicts the grader's judge gave, at build time, to the outcomes of the instructor's
  solution, the stub and every catalogue variant on these inputs (``known``): an answer whose
  outcomes match one of them within the tolerance gets that verdict, message included;
* otherwise what the data says of the check, measured from the grader's judge at build time
  (``kind``): ``values`` (the solution's results on these inputs, within ``tol``), ``free`` (any
  answer that is not an error passes: "leaves its input unchanged"), ``relational`` (the calls
  must agree with each other: "the same seed gives the same estimate"); plus the verdicts the
  judge gave to a modified input and the peak memory it allows.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..checks import expect, forms
from ..checks.core import Call, CheckFailed, Outcome, Verdict, run_calls

DATA = Path(__file__).resolve().parent / "data"


# ---------------------------------------------------------------- decoding the data files
def decode(obj, arrays):
    """A value of the data file: arrays live in the ``.npz`` (``{"npz": key}``), tuples as ``{"tuple": [...]}``."""
    if isinstance(obj, dict):
        if "npz" in obj:
            return arrays[obj["npz"]]
        if "tuple" in obj:
            return tuple(decode(x, arrays) for x in obj["tuple"])
        if "float" in obj:
            return float(obj["float"])
        return {k: decode(v, arrays) for k, v in obj.items()}
    return obj


def decode_outcome(obj, arrays) -> Outcome:
    return Outcome(value=decode(obj["value"], arrays), error=obj["error"], mutated=tuple(obj["mutated"]),
                   peak_bytes=obj.get("peak"), peak_resident_bytes=obj.get("resident"))


def decode_call(obj, arrays) -> Call:
    return Call(obj["name"], tuple(decode(a, arrays) for a in obj["args"]),
                {k: decode(v, arrays) for k, v in obj["kwargs"].items()},
                value_only=obj["value_only"], measure_peak=obj["measure_peak"], legacy_seed=obj.get("legacy_seed"))


@lru_cache(maxsize=None)
def load(assignment: str, directory: str | None = None) -> dict:
    """The public data of one assignment (``{"tasks", "hidden_value", "grade_ids", "checks"}``)."""
    base = Path(directory) if directory else DATA
    path = base / f"{assignment}.json"
    if not path.is_file():
        known = sorted(p.stem for p in base.glob("*.json"))
        raise ValueError(f"unknown assignment {assignment!r}: this kit releases {', '.join(known) or 'none'}")
    with np.load(base / f"{assignment}.npz", allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    data = json.loads(path.read_text())
    for spec in data["checks"]:
        spec["calls"] = [decode_call(c, arrays) for c in spec["calls"]]
        spec["expected"] = [decode(v, arrays) for v in spec["expected"]]
        spec["known"] = [([decode_outcome(o, arrays) for o in k["outcomes"]], k["verdict"]) for k in spec["known"]]
    return data


# ---------------------------------------------------------------- judging
def _close(got, want, tol: float | dict[str, float], int_exact: bool = False) -> bool:
    """Same structure; integers, booleans and strings equal; floats within ``tol * (|want| + 1)`` (``tol`` a number,
    or one per precision: ``{"float32": ..., "float64": ...}``, float32 for an expected float32 array)
    (an infinity only equals itself, NaN equals NaN). ``int_exact``: a float is not an int of the same value (the
    check's judge tells them apart, as for a count the task asks as an int)."""
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(_close(g, w, tol, int_exact)
                                                                        for g, w in zip(got, want))
    if int_exact and isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float):
        return False
    if want is None or got is None:
        return got is want
    if isinstance(want, str) or isinstance(got, (str, tuple)):
        return type(got) is type(want) and got == want
    try:
        g = np.asarray(got)
        w = np.asarray(want)
    except Exception:  # noqa: BLE001 - an odd answer is simply not close
        return False
    if g.shape != w.shape or g.dtype.kind not in "biuf" or (g.dtype.kind == "b") != (w.dtype.kind == "b"):
        return False  # booleans (a mask) are not numbers that happen to be 0 and 1
    if w.dtype.kind != "f" and g.dtype.kind != "f":
        return bool(np.array_equal(g, w))
    if isinstance(tol, dict):  # measured per precision (publicdata._tolerance): the expected value's decides
        tol = tol.get("float32" if w.dtype == np.float32 else "float64", 0.0)
    g, w = g.astype(np.float64), w.astype(np.float64)
    with np.errstate(all="ignore"):
        near = np.abs(g - w) <= tol * (np.abs(w) + 1)
        ok = np.where(np.isfinite(w), near, g == w) | (np.isnan(g) & np.isnan(w))  # an infinity only equals itself
    return bool(ok.all())


def _same(outcomes, known, tol: float, int_exact: bool = False) -> bool:
    return all(o.error == k.error and tuple(o.mutated) == tuple(k.mutated) and _close(o.value, k.value, tol, int_exact)
               for o, k in zip(outcomes, known))


def _answered(calls, outcomes, spec) -> None:
    """Errors, missing returns and modified inputs, as the grader's judge words them."""
    for i, (call, outcome) in enumerate(zip(calls, outcomes)):
        if expect.value(outcome, call) is None:
            raise CheckFailed(f"`{call.name}` returned None: did you forget the `return`?", "returns_none")
        for key in outcome.mutated:
            verdict = spec["mutation"].get(f"{i}:{key}")
            if verdict is not None:
                raise CheckFailed(verdict["message"], verdict["misconception"])


def _global_state(calls, outcomes, tol) -> bool:
    """Whether the calls that seed numpy's global generator alike agree with each other and with no other call, and
    the other calls disagree among themselves: the pattern of an answer that draws from that global state."""
    seeded = [o.value for c, o in zip(calls, outcomes) if c.legacy_seed is not None]
    plain = [o.value for c, o in zip(calls, outcomes) if c.legacy_seed is None]
    return (len(seeded) > 1 and len(plain) > 1 and all(_close(v, seeded[0], tol) for v in seeded[1:])
            and not any(_close(v, seeded[0], tol) for v in plain)
            and not all(_close(v, plain[0], tol) for v in plain[1:]))


def _values(calls, outcomes, spec) -> None:
    if spec["kind"] == "free":
        return
    if spec["kind"] == "relational":
        if not all(_close(o.value, outcomes[0].value, spec["tol"]) for o in outcomes[1:]):
            verdict = spec["relational"]
            if spec.get("seeded") and _global_state(calls, outcomes, spec["tol"]):
                verdict = spec["seeded"]
            raise CheckFailed(verdict["message"], verdict["misconception"])
        return
    for call, outcome, want in zip(calls, outcomes, spec["expected"]):
        if _close(outcome.value, want, spec["tol"], spec.get("int_exact", False)):
            continue
        got = outcome.value
        if isinstance(want, np.ndarray) and isinstance(got, np.ndarray) and got.shape != want.shape:
            raise CheckFailed(f"`{call.describe()}` returned an array of shape {got.shape}, expected {want.shape}",
                              "wrong_shape")
        if isinstance(got, np.ndarray) and got.dtype.kind == "f" and np.isnan(got).any():
            raise CheckFailed(f"`{call.describe()}` contains NaN where every value should be a number", "nan")
        raise CheckFailed(f"`{call.describe()}` does not give the expected result on this public example",
                          "wrong_values")


def _memory(outcomes, spec) -> None:
    for outcome, bound in zip(outcomes, spec["peak"]):
        if bound is None:
            continue
        for measured, limit in ((outcome.peak_bytes, bound["peak"]), (outcome.peak_resident_bytes, bound["resident"])):
            if measured is not None and limit is not None and measured > limit:
                message = bound["message"].replace(bound["shown"], f"{measured / 2**20:.1f} MiB")
                raise CheckFailed(message, bound["misconception"])


def judge(spec: dict, calls, outcomes) -> tuple[bool, str | None, str | None]:
    """``(passed, message, misconception)`` of one public check on the student's outcomes."""
    try:
        if spec["form"]:
            forms.JUDGES[spec["form"]](calls, outcomes)
            return True, None, None
        for known, verdict in spec["known"]:
            if _same(outcomes, known, spec["tol"], spec.get("int_exact", False)):
                if verdict["passed"]:
                    _memory(outcomes, spec)
                return verdict["passed"], verdict["message"], verdict["misconception"]
        _answered(calls, outcomes, spec)
        _values(calls, outcomes, spec)
        _memory(outcomes, spec)
    except CheckFailed as failure:
        return False, failure.message, failure.misconception
    except Exception as exc:  # noqa: BLE001 - as the grader's evaluate: an odd answer is a failure, not a crash
        return False, f"your answer could not be checked ({type(exc).__name__}: {exc})", "grader.unreadable_answer"
    return True, None, None


def verdict(spec: dict, namespace) -> Verdict:
    """Run the check's public calls against ``namespace`` and judge them (see :func:`judge`)."""
    calls = spec["calls"]
    outcomes = run_calls(namespace, calls)
    passed, message, misconception = judge(spec, calls, outcomes)
    return Verdict(spec["grade_id"], spec["task"], spec["title"], passed, message, misconception)
