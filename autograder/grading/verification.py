"""The seam between nbgrader's in-kernel scores and verification outside the student's process.

Verification (issue 5) lives in ``autograder.sandbox`` and is imported lazily, so grading works
(unverified) before or without it. The contract::

    autograder.sandbox.verify_submission(assignment_id: str, notebook_bytes: bytes,
                                         seed: int, limits: dict) -> verification

``limits`` is ``course.yml``'s ``grading.sandbox`` as a dict (``cpu_seconds``, ``memory_mb``,
``output_bytes``). ``verification`` is a mapping or an object with

* ``verdicts``: a list of verdicts, or a mapping ``grade_id -> verdict``; a verdict is a mapping
  or an object (such as ``checks.core.Verdict``) with ``grade_id``, ``passed``, ``message``,
  ``misconception`` and optionally ``task``;
* ``flags`` (optional): a list of mappings ``{kind, grade_id, line, cell, evidence}``, e.g. the
  static scan's findings.

:func:`merge` is the pure function that combines the two; :func:`verify` calls the sandbox.
"""
from __future__ import annotations

import importlib
from typing import Any

from . import faults


#: Verdicts that are a grader's fault, not the student's: no "possible tampering" flag for them.
WITHHELD = {"grader.verification_failed", "grader.memory_unmeasured"}


def _get(obj: Any, name: str, default=None):
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def normalise(verification: Any) -> tuple[dict[str, dict], list[dict]]:
    """Turn whatever ``verify_submission`` returned into ``({grade_id: verdict}, flags)``."""
    raw = _get(verification, "verdicts", []) or []
    items = raw.values() if isinstance(raw, dict) else raw
    verdicts = {}
    for v in items:
        verdicts[_get(v, "grade_id")] = {
            "passed": bool(_get(v, "passed")), "message": _get(v, "message"),
            "misconception": _get(v, "misconception"), "task": _get(v, "task"),
            "withheld": _get(v, "misconception") in WITHHELD}
    flags = [dict(f) if isinstance(f, dict) else dict(vars(f)) for f in (_get(verification, "flags", []) or [])]
    return verdicts, flags


def _disagree(cell: dict, verdict: dict) -> bool:
    """Whether nbgrader's in-kernel outcome of an auto-graded cell (full marks or not) differs from the verified one."""
    return (cell["nbgrader_score"] == cell["max_score"]) != verdict["passed"]


def task_of(grade_id: str) -> str | None:
    """The task a grade_id belongs to, from the checks registry when it is installed."""
    try:
        from autograder.checks import CHECKS  # written by the course authors
    except ImportError:
        return None
    check = CHECKS.get(grade_id)
    return getattr(check, "task", None)


def merge(cells: list[dict], verdicts: dict[str, dict] | None, flags: list[dict] | None = None,
          kernel_judged: bool = True) -> tuple[list[dict], list[dict]]:
    """Combine nbgrader's per-cell results with a verification result.

    Parameters
    ----------
    cells : list of dict
        nbgrader's results, one per graded cell: ``grade_id``, ``max_score``, ``nbgrader_score``
        (None for a manually graded cell), ``manual``, ``message``.
    verdicts : dict or None
        ``{grade_id: {passed, message, misconception, task}}``; None when verification was
        skipped or unavailable.
    flags : list of dict, optional
        Flags reported by verification (kept as they are).
    kernel_judged : bool
        Whether the kernel's test cells judged (the whole grader in the kernel:
        ``--unsafe-no-sandbox``; or an assignment without registered checks, whose test cells are
        its own asserts). With the student kit in the kernel they do nothing (its visible line
        checks the public example only), so a difference from the verified result is no sign of
        tampering and is not flagged.

    Returns
    -------
    cells : list of dict
        The rows of results.json: ``grade_id, task, score, max_score, passed, message,
        misconception, nbgrader_score, verified_score, manual``. ``score`` is the verified score;
        nbgrader's only when ``verdicts`` is None (verification off, or no checks registered).
        An auto-graded cell without a verdict scores 0 (and is flagged).
    flags : list of dict
        The given flags plus, when ``kernel_judged``, a ``"possible tampering"`` flag for every
        cell whose nbgrader outcome (full marks or not) disagrees with the verified one.
    """
    out, flags = [], list(flags or [])
    for cell in cells:
        nb_score, max_score = cell["nbgrader_score"], cell["max_score"]
        verdict = (verdicts or {}).get(cell["grade_id"])
        row = {"grade_id": cell["grade_id"], "task": task_of(cell["grade_id"]), "score": nb_score or 0.0,
               "max_score": max_score, "passed": None if cell["manual"] else nb_score == max_score,
               "message": cell["message"], "misconception": None, "nbgrader_score": nb_score,
               "verified_score": None, "manual": cell["manual"]}
        if verdicts is not None and verdict is None and not cell["manual"]:
            # A graded cell no check covers cannot be verified: fail closed, and say so.
            row.update(score=0.0, verified_score=0.0, passed=False,
                       message="this test cell has no verified check, so its points are withheld")
            flags.append({"kind": "verification failed", "grade_id": cell["grade_id"], "line": None, "cell": None,
                          "evidence": f"test cell {cell['grade_id']} has no check in the grader's registry: its "
                                      f"{max_score:g} point(s) are withheld (add the check, or make the cell "
                                      f"manually graded)"})
        elif verdict is not None and not cell["manual"]:
            verified = max_score if verdict["passed"] else 0.0
            row.update(score=verified, verified_score=verified, passed=verdict["passed"],
                       message=None if verdict["passed"] else verdict["message"],
                       misconception=verdict["misconception"], task=verdict["task"] or row["task"])
            if kernel_judged and _disagree(cell, verdict) and not verdict.get("withheld"):
                flags.append({
                    "kind": "possible tampering", "grade_id": cell["grade_id"], "line": None, "cell": None,
                    "evidence": f"nbgrader scored {nb_score or 0:g}/{max_score:g} in the student's kernel, "
                                f"verification outside it {verified:g}/{max_score:g}"
                                + (f" ({verdict['message']})" if verdict["message"] else "")})
        out.append(row)
    return out, flags


def registered(assignment_id: str) -> bool:
    """Whether the checks registry knows ``assignment_id`` (verification then always decides its scores)."""
    try:
        from autograder.checks import TASKS
    except ImportError:
        return False
    return assignment_id in TASKS


def load_verifier():
    """Return ``autograder.sandbox.verify_submission``, or None if it is not installed yet."""
    try:
        module = importlib.import_module("autograder.sandbox")
    except ModuleNotFoundError as exc:
        if exc.name in ("autograder.sandbox",):
            return None
        raise
    return getattr(module, "verify_submission", None)


def verify(assignment_id: str, notebook: bytes, seed: int, limits: dict, cells: list[dict] | None = None,
           trusted: bool = False, kept: bytes | None = None, numbers=None) -> tuple[dict | None, list[dict]]:
    """Run verification on a submission: ``(verdicts, flags)``; ``(None, flags)`` when it has no checks.

    ``verify_submission`` raising KeyError for an assignment the registry does not know means it has no
    checks: nbgrader's in-kernel scores are recorded as they are, with an ``"unverified"`` flag
    (:func:`unverified_flags`).

    ``cells`` are nbgrader's results (as for :func:`merge`). ``kept``: the student kit's ``_memo.json``
    (``sandbox/memo.py``), the results of the notebook's own heavy given calls, for the sandbox's package.
    ``numbers``: the student's per-student items (``checks.numbers.StudentNumbers``), or None for the lesson's.

    Fails closed: when verification itself goes wrong (the static scan, the runner, decoding an
    answer: anything but the sandbox failing to start), every auto-graded cell gets a failed
    verdict and the submission a ``"verification failed"`` flag that says why and what to do;
    nbgrader's in-kernel scores, which the student's code may have decided, are never kept.

    Raises
    ------
    SandboxError
        When the sandbox cannot start (a fault of the grading host, not of the submission): the
        job fails, nothing is recorded, and the submission is graded again (:mod:`.faults`).
    GraderFault
        When the grading host ran out of memory, disk or descriptors during verification (the same).
    """
    from autograder.sandbox import SandboxError

    verifier = load_verifier()
    if verifier is None:
        return None, []
    try:
        return normalise(verifier(assignment_id, notebook, seed, limits, trusted=trusted,
                                  **({"kept": kept} if kept else {}), **({"numbers": numbers} if numbers else {})))
    except KeyError as exc:
        if not registered(assignment_id):  # nothing to verify: the kernel's scores stand, and say so
            return None, unverified_flags(assignment_id, cells)
        # Any other KeyError is verification going wrong: kept as "nothing to verify", it recorded the kernel's
        # scores, which the student's code may have decided (red team 3)
        return failed_verdicts(cells or [], f"KeyError: {exc}")
    except SandboxError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever went wrong, the points are withheld, not guessed
        host = faults.of_host(exc)
        if host is not None:  # the grading host ran out (memory, disk, descriptors): graded again, not withheld
            raise faults.GraderFault(host.cause, f"verification: {host.message}") from exc
        return failed_verdicts(cells or [], f"{type(exc).__name__}: {exc}")


def failed_verdicts(cells: list[dict], why: str) -> tuple[dict[str, dict], list[dict]]:
    """Fail-closed verdicts for every auto-graded cell, and the flag that tells the instructor why."""
    why = why.strip()[:500] or "no reason given"
    message = ("this answer could not be verified, so its points are withheld until the instructor "
               "regrades it")
    verdicts = {c["grade_id"]: {"passed": False, "message": message, "misconception": "grader.verification_failed",
                                "task": None, "withheld": True} for c in cells if not c["manual"]}
    flag = {"kind": "verification failed", "grade_id": None, "line": None, "cell": None,
            "evidence": f"verification failed: {why} — the auto-graded points of this submission are withheld; "
                        f"fix the cause (or report it as a grader bug) and regrade with "
                        f"`autograder grade --force`"}
    return verdicts, [flag]


def unverified_flags(assignment_id: str, cells: list[dict] | None) -> list[dict]:
    """The ``"unverified"`` flag of a submission whose assignment has no registered checks (none if it has no
    auto-graded cell, or ``cells`` says so): its in-kernel scores are recorded, and the instructor must know."""
    auto = [c for c in cells if not c["manual"]] if cells is not None else None
    if auto == []:
        return []
    points = f" ({sum(c['max_score'] for c in auto):g} point(s))" if auto else ""
    return [{"kind": "unverified", "grade_id": None, "line": None, "cell": None,
             "evidence": f"no checks are registered for {assignment_id} (no module in autograder/checks/), so "
                         f"nbgrader's in-kernel scores of its auto-graded cells{points} are recorded as they are, "
                         f"unverified: the notebook's own test cells decided them in the kernel, beside the "
                         f"student's code; review them, or register checks for {assignment_id}"}]
