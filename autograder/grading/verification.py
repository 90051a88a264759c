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
            "misconception": _get(v, "misconception"), "task": _get(v, "task")}
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


def merge(cells: list[dict], verdicts: dict[str, dict] | None, flags: list[dict] | None = None
          ) -> tuple[list[dict], list[dict]]:
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

    Returns
    -------
    cells : list of dict
        The rows of results.json: ``grade_id, task, score, max_score, passed, message,
        misconception, nbgrader_score, verified_score, manual``. ``score`` is the verified score
        when the cell was verified, nbgrader's otherwise.
    flags : list of dict
        The given flags plus a ``"possible tampering"`` flag for every cell whose nbgrader
        outcome (full marks or not) disagrees with the verified one.
    """
    out, flags = [], list(flags or [])
    for cell in cells:
        nb_score, max_score = cell["nbgrader_score"], cell["max_score"]
        verdict = (verdicts or {}).get(cell["grade_id"])
        row = {"grade_id": cell["grade_id"], "task": task_of(cell["grade_id"]), "score": nb_score or 0.0,
               "max_score": max_score, "passed": None if cell["manual"] else nb_score == max_score,
               "message": cell["message"], "misconception": None, "nbgrader_score": nb_score,
               "verified_score": None, "manual": cell["manual"]}
        if verdict is not None and not cell["manual"]:
            verified = max_score if verdict["passed"] else 0.0
            row.update(score=verified, verified_score=verified, passed=verdict["passed"],
                       message=None if verdict["passed"] else verdict["message"],
                       misconception=verdict["misconception"], task=verdict["task"] or row["task"])
            if _disagree(cell, verdict):
                flags.append({
                    "kind": "possible tampering", "grade_id": cell["grade_id"], "line": None, "cell": None,
                    "evidence": f"nbgrader scored {nb_score or 0:g}/{max_score:g} in the student's kernel, "
                                f"verification outside it {verified:g}/{max_score:g}"
                                + (f" ({verdict['message']})" if verdict["message"] else "")})
        out.append(row)
    return out, flags


def load_verifier():
    """Return ``autograder.sandbox.verify_submission``, or None if it is not installed yet."""
    try:
        module = importlib.import_module("autograder.sandbox")
    except ModuleNotFoundError as exc:
        if exc.name in ("autograder.sandbox",):
            return None
        raise
    return getattr(module, "verify_submission", None)


def verify(assignment_id: str, notebook: bytes, seed: int, limits: dict, cells: list[dict] | None = None
           ) -> tuple[dict | None, list[dict]]:
    """Run verification on a submission: ``(verdicts, flags)``, or ``(None, [])`` when unavailable.

    ``verify_submission`` raising KeyError means the assignment has no registered checks.

    ``cells`` are nbgrader's results (as for :func:`merge`). When the answers were computed with
    the sandbox's matplotlib stand-in and some verdict disagrees with nbgrader's, the submission is
    verified again, same seed, with the real matplotlib, so that a difference is never the
    stand-in's doing: only the second verification counts.

    A crash of the verifier itself is recorded as a flag and leaves nbgrader's scores in place
    (verdicts None), rather than failing the submission.
    """
    verifier = load_verifier()
    if verifier is None:
        return None, []
    try:
        result = verifier(assignment_id, notebook, seed, limits)
        verdicts, flags = normalise(result)
        if _get(result, "matplotlib") == "stand-in" and any(
                not cell["manual"] and cell["grade_id"] in verdicts and _disagree(cell, verdicts[cell["grade_id"]])
                for cell in cells or []):
            verdicts, flags = normalise(verifier(assignment_id, notebook, seed, dict(limits, matplotlib="real")))
        return verdicts, flags
    except KeyError:
        return None, []  # an assignment with no registered checks: nothing to verify
    except Exception as exc:  # the verifier's own bug must not lose the student's grade
        return None, [{"kind": "verification error", "grade_id": None, "line": None, "cell": None,
                       "evidence": f"{type(exc).__name__}: {exc}"}]
