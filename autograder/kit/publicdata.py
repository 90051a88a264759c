"""The public data of the student kit's visible checks, computed from the grader when the kit is built.

For every public check of a released assignment (see :mod:`autograder.kit.public` for how the
kit uses it): its calls on the public inputs (``PUBLIC_SEED``); for a check whose answer is a
value, the name of its form judge in :mod:`autograder.checks.forms` and nothing else (no
expected value of an answer key is ever written); for the others, the instructor's solution's
results on those inputs, and what the grader's judge says, probed here:

* ``known``: the judge's verdict (passed, message, misconception) on the outcomes of the
  solution, of the stub, of functions that return None and of every catalogue variant;
* ``kind`` and ``tol``: whether the judge accepts answers far from the solution's (``free``:
  it judges something else, such as a modified input), only answers whose calls agree with
  each other (``relational``), or answers close to the solution's (``values``, within the
  largest relative perturbation it accepted);
* ``mutation``: its verdict on the solution's results with each array argument modified;
* ``peak``: the largest peak memory it accepts, with the message it gives above it.
"""
from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np

from ..catalogue import all_variants
from ..catalogue.sweep import Sweep
from ..checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, checks_for_assignment, checks_for_task, forms
from ..checks.core import PUBLIC_SEED, Check, Outcome, check_rng, evaluate, run_calls
from ..inprocess import execute_answers
from ..notebook import model
from ..submissions import fill, read, solution_answers


class KitBuildError(ValueError):
    """The kit cannot be built as asked (the message names what and why)."""


# ---------------------------------------------------------------- the answers the data is computed from
def _answers_only(nb):
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and model.nbgrader_meta(c)]
    return nb


def namespaces(root: Path, assignment: str) -> list[tuple[str, dict]]:
    """``[(name, notebook globals)]``: the solution first, then the stub, None-returning functions and the catalogue."""
    path = f"{assignment}/{assignment}.ipynb"
    source, release = read(root / "solutions" / path), read(root / "assignments" / path)
    answers = {k: v for k, v in solution_answers(source).items()}
    solved = fill(release, answers)
    functions = [t for t in answers if not t.isupper()]
    nones = fill(solved, {t: f"def {t}(*args, **kwargs):\n    return None" for t in functions})
    found = [("solution", solved), ("stub", release), ("returns None", nones)]
    found += [(v.name, fill(solved, {k: s.strip("\n") for k, s in v.answers.items()}))
              for v in all_variants() if v.assignment == assignment]
    return [(name, execute_answers(_answers_only(nb))[0]) for name, nb in found]


# ---------------------------------------------------------------- probing the grader's judge
def _verdict(check: Check, outcomes) -> dict:
    result = evaluate(check, lambda calls: copy.deepcopy(list(outcomes)), PUBLIC_SEED)
    return {"passed": result.passed, "message": result.message, "misconception": result.misconception}


def _precision(value) -> str:
    """The precision a float is judged at (its tolerance's key): float32 arrays apart from every other float."""
    return "float32" if isinstance(value, np.ndarray) and value.dtype == np.float32 else "float64"


def _perturb(value, eps: float, rng, ints: bool, precision: str | None = None):
    """``value`` moved by ``eps`` relative (signs from ``rng``); integers and booleans too when ``ints``; only the
    floats of ``precision`` (``_precision``) where it is given."""
    if isinstance(value, tuple):
        return tuple(_perturb(v, eps, rng, ints, precision) for v in value)
    if isinstance(value, bool):
        return (not value) if ints else value
    if isinstance(value, float):
        if precision not in (None, "float64"):
            return value
        return value + eps * rng.choice((-1.0, 1.0)) * (abs(value) + 1)
    if isinstance(value, int):
        return value + 1 if ints else value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and precision not in (None, _precision(value)):
            return value
        if value.dtype.kind == "f":
            signs = rng.choice((-1.0, 1.0), size=value.shape)
            with np.errstate(all="ignore"):  # infinities (a masked score) and NaN stay as they are
                moved = value + eps * signs * (np.abs(value) + 1)
            return np.where(np.isfinite(value), moved, value).astype(value.dtype)
        if ints and value.dtype.kind == "b":
            return ~value
        if ints and value.dtype.kind in "iu":
            return value + 1
    return value


def _moved(outcomes, eps: float, *, ints: bool = False, only_first: bool = False,
           precision: str | None = None) -> list[Outcome]:
    moved = []
    for i, outcome in enumerate(outcomes):
        rng = np.random.default_rng(12)  # the same pattern for every call: a relation between calls survives
        new = copy.deepcopy(outcome)
        if not only_first or i == 0:
            new.value = _perturb(outcome.value, eps, rng, ints, precision)
        moved.append(new)
    return moved


EPSILONS = [10 ** (-k / 2) for k in range(26, 0, -1)]  # 1e-13 ... 0.3


def _precisions(value) -> set[str]:
    if isinstance(value, tuple):
        return set().union(*(_precisions(v) for v in value))
    if isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        return {_precision(value)}
    return set()


def _tolerance(check: Check, outcomes, only_first: bool = False) -> float | dict[str, float]:
    """How far the judge lets the solution's floats move, measured apart for float32 results and for the rest, as
    the grader judges each precision with its own tolerance (``core.tolerances``). One number for both would be the
    float64 one (1e-9 where a float64 result is near 0), tighter than the last bits by which a float32 product
    differs between BLAS kernels: the solution then failed its own public example on a machine whose OpenBLAS
    picked another kernel than the kit builder's. Whole numbers only: 0 (nothing was moved, so a width of 7.76
    is not 7)."""
    found = set().union(*(_precisions(o.value) for o in (outcomes[:1] if only_first else outcomes)))
    tols = {}
    for precision in sorted(found):
        tols[precision] = 0.0
        for eps in EPSILONS:
            if not _verdict(check, _moved(outcomes, eps, only_first=only_first, precision=precision))["passed"]:
                break
            tols[precision] = eps
    if "float32" not in tols:
        return tols.get("float64", 0.0)
    return tols


def _seeded_verdict(check: Check, calls, outcomes) -> dict:
    """The judge's verdict where the calls that seed numpy's global generator (``legacy_seed``) agree with each
    other and with no other call, and the other calls all disagree (an answer that draws from that global state):
    :func:`autograder.kit.public._values` gives it to outcomes of that pattern, the relational verdict to others."""
    moved = copy.deepcopy(list(outcomes))
    for i, (call, outcome) in enumerate(zip(calls, moved)):
        eps = 0.5 if call.legacy_seed is not None else 0.1 * (i + 1)
        outcome.value = _perturb(outcome.value, eps, np.random.default_rng(12), False)
    return _verdict(check, moved)


def _kind(check: Check, outcomes) -> tuple[str, float, dict | None]:
    if _verdict(check, _moved(outcomes, 1.0, ints=True))["passed"]:
        if len(outcomes) > 1:
            apart = _verdict(check, _moved(outcomes, 1.0, ints=True, only_first=True))
            if not apart["passed"]:
                return "relational", _tolerance(check, outcomes, only_first=True), apart
        return "free", 0.0, None
    return "values", _tolerance(check, outcomes), None


def _as_floats(value):
    """``value`` with every Python int (not bool) made a float of the same value, tuples item by item."""
    if isinstance(value, tuple):
        return tuple(_as_floats(v) for v in value)
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _int_exact(check: Check, outcomes) -> bool:
    """Whether the judge refuses the solution's ints given back as floats of the same value (a count the task asks
    as an int): the kit must then tell the two apart too."""
    probe = copy.deepcopy(list(outcomes))
    for outcome in probe:
        outcome.value = _as_floats(outcome.value)
    changed = any(repr(a.value) != repr(b.value) for a, b in zip(probe, outcomes))  # 8 and 8.0: equal, not the same
    return changed and not _verdict(check, probe)["passed"]


def _mutations(check: Check, calls, outcomes) -> dict:
    found = {}
    for i, call in enumerate(calls):
        keys = [str(j) for j, a in enumerate(call.args) if isinstance(a, np.ndarray)]
        keys += [k for k, v in call.kwargs.items() if isinstance(v, np.ndarray)]
        for key in keys:
            probe = copy.deepcopy(list(outcomes))
            probe[i].mutated = (key,)
            verdict = _verdict(check, probe)
            if not verdict["passed"]:
                found[f"{i}:{key}"] = verdict
    return found


def _largest_accepted(check: Check, outcomes, i: int, field: str) -> int | None:
    def passes(x):
        probe = copy.deepcopy(list(outcomes))
        setattr(probe[i], field, x)
        return _verdict(check, probe)["passed"]
    low, high = 0, 1 << 40
    if passes(high):
        return None
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if passes(mid) else (low, mid)
    return low


def _peaks(check: Check, calls, outcomes) -> list[dict | None]:
    peaks = []
    for i, call in enumerate(calls):
        if not call.measure_peak:
            peaks.append(None)
            continue
        peak = _largest_accepted(check, outcomes, i, "peak_bytes")
        resident = _largest_accepted(check, outcomes, i, "peak_resident_bytes")
        over = copy.deepcopy(list(outcomes))
        over[i].peak_bytes = (peak or 0) + 1
        verdict = _verdict(check, over)
        peaks.append({"peak": peak, "resident": resident, "message": verdict["message"],
                      "misconception": verdict["misconception"], "shown": f"{((peak or 0) + 1) / 2**20:.1f} MiB"})
    return peaks


# ---------------------------------------------------------------- one check, one assignment
def check_data(check: Check, spaces: list[tuple[str, dict]]) -> dict:
    """The data of one public check (see the module docstring); raises :class:`KitBuildError`."""
    calls = list(check.make_calls(check_rng(PUBLIC_SEED, check.grade_id)))
    base = {"grade_id": check.grade_id, "task": check.task, "title": check.title, "calls": calls,
            "form": None, "expected": [], "known": [], "kind": "free", "tol": 0.0, "relational": None,
            "mutation": {}, "peak": [None] * len(calls), "int_exact": False}
    forms_by_judge = {judge: name for name, judge in forms.JUDGES.items()}
    if check.judge in forms_by_judge:
        return dict(base, form=forms_by_judge[check.judge])
    if any(c.value_only for c in calls):
        raise KitBuildError(f"public check {check.grade_id} reads a value ({calls[0].name}) but its judge is not a "
                            f"form judge of autograder/checks/forms.py: its expected value would be an answer key")
    solution = run_calls(spaces[0][1], calls)
    if not _verdict(check, solution)["passed"]:
        raise KitBuildError(f"the instructor's solution fails the public check {check.grade_id}")
    kind, tol, relational = _kind(check, solution)
    int_exact = _int_exact(check, solution)
    data = dict(base, expected=[o.value for o in solution], kind=kind, tol=tol, relational=relational,
                mutation=_mutations(check, calls, solution), peak=_peaks(check, calls, solution), int_exact=int_exact)
    if kind == "relational" and any(c.legacy_seed is not None for c in calls):
        data["seeded"] = _seeded_verdict(check, calls, solution)
    from .public import _same  # one rule for "the same outcome" at build time and in the kit
    for _, namespace in spaces:
        outcomes = run_calls(namespace, calls)
        if not any(_same(outcomes, known, tol, int_exact) for known, _ in data["known"]):
            data["known"].append((outcomes, _verdict(check, outcomes)))
    return data


def assignment_data(root: Path, assignment: str, tasks: list[str]) -> dict:
    """Every public check of ``assignment`` (``tasks`` in notebook order), as :func:`check_data`."""
    spaces = namespaces(root, assignment)
    checks = checks_for_assignment(assignment)
    # Each check's calls drawn once, and the reference's answers about them (and the judges' pure diagnosis
    # candidates) computed once: the probes above judge the same calls a hundred times or more (06's peak
    # search alone: 82 verdicts on 32,768 keys).
    sweep = Sweep(assignment)
    with sweep.reference():
        data = [check_data(dataclasses.replace(c, make_calls=lambda rng, calls=sweep.calls(c, PUBLIC_SEED): calls),
                           spaces) for c in checks if c.public]
    named = set(forms.MISCONCEPTIONS_NAMED) if any(d["form"] for d in data) else set()
    for d in data:
        verdicts = [v for _, v in d["known"]] + list(d["mutation"].values()) + [d["relational"] or {}, d.get("seeded") or {}]
        verdicts += [p for p in d["peak"] if p]
        named |= {v.get("misconception") for v in verdicts}
    return {"assignment": assignment, "tasks": tasks,
            "hidden_value": [t for t in tasks if any(not c.public for c in checks_for_task(t, assignment))],
            "grade_ids": {c.grade_id: c.task for c in checks},
            "helpers": {c.task: list(c.helpers) for c in checks if c.helpers},
            "public": {c.grade_id: c.public for c in checks},
            "titles": {m: MISCONCEPTIONS[m] for m in sorted(named - {None})
                       if m in MISCONCEPTIONS and m not in GENERIC_MISCONCEPTIONS},
            "checks": data}
