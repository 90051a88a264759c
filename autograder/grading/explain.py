"""Flags that explain what a rule of the grader did to a submission (issue 25: every zero explained).

A submission the grader refused, stopped or changed carries a flag that names the rule, the cell
where one is known and what the student can do, beside the recorded reason. Each flag is a dict
like the static scan's (``kind``, ``rule``, ``grade_id``, ``cell``, ``line``, ``evidence`` for the
instructor) plus ``advice``, the words the student's feedback page shows (never a hidden test's
detail: the reasons here are written for the student already).
"""
from __future__ import annotations

import json
import re
from typing import Mapping

from . import faults, provenance
from .admission import drop_empty_cells

#: What the student can do, by the cause a failure was classified as (:mod:`.faults`), when the reason
#: itself does not say (nbgrader's own messages, e.g. "Notebook failed to validate", do not).
_ADVICE = {
    "notebook invalid": "download the released notebook again, copy your answers into its answer cells, save it in "
                        "Jupyter and submit that",
    "invalid notebook": "download the released notebook again, copy your answers into its answer cells, save it in "
                        "Jupyter and submit that",
    "refused": "submit the notebook file itself (not a link), below the size limit",
}
_SETTING = re.compile(r"\(?(grading\.[a-z_.]+)\)?")
_CELL = re.compile(r"\bcell (\d+)")
_SAYS_WHAT_TO_DO = re.compile(r"\b(submit|download|delete|fix|clear|set|run)\b", re.I)
#: Marker of the kernel's output cap (timing.TimedExecute writes it in the autograded notebook).
OUTPUT_DROPPED = "[the grader dropped the rest of this notebook's output"


def _rule(fault: faults.Fault) -> str:
    """The rule a failure broke: the setting its reason names, else what kind of failure it is."""
    message = fault.message
    setting = _SETTING.search(message)
    if setting:
        return setting.group(1)
    if "nbgrader metadata" in message or "nbgrader cannot grade" in message:
        return "nbgrader metadata"
    if "symbolic link" in message:
        return "not a regular file"
    if message.startswith(provenance.REASON):
        return provenance.RULE
    return {"timeout": "grading.submission_timeout"}.get(fault.cause, fault.cause)


def failure_flag(fault: faults.Fault) -> dict:
    """The ``"not graded"`` flag of a submission recorded as failed by ``fault`` (a student's fault)."""
    message = fault.message
    cell = _CELL.search(message)
    advice = message
    if fault.cause in _ADVICE and not _SAYS_WHAT_TO_DO.search(message):
        advice = f"{message.rstrip('. ')}: {_ADVICE[fault.cause]}"
    if message.startswith(provenance.REASON):
        advice = provenance.ADVICE  # the account it came from is for the instructor only
    return {"kind": "not graded", "rule": _rule(fault), "grade_id": None, "line": None,
            "cell": f"#{cell.group(1)}" if cell else None, "evidence": message, "advice": advice}


def restored_flag(submitted: bytes, admitted: bytes) -> dict | None:
    """A ``"restored metadata"`` flag when admission put the release's nbgrader metadata back on some cells.

    The release decides which cell is an answer, a test and worth how many points; a student whose file lost
    or changed that metadata is graded on the release's, and the instructor should know it happened.
    """
    if submitted == admitted:
        return None
    before, after = _metadata(drop_empty_cells(submitted)), _metadata(admitted)  # as admission dropped them
    if before is None or after is None:
        return None
    changed = [key for key, meta in after.items() if meta is not None and before.get(key) != meta]
    if not changed:
        return None
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return {"kind": "restored metadata", "rule": "nbgrader metadata", "grade_id": None, "line": None,
            "cell": None,
            "evidence": f"the nbgrader metadata of {len(changed)} cell(s) was missing or changed ({shown}); the "
                        f"released notebook's was put back, so the release decided which cells are answers and tests "
                        f"and their points",
            "advice": "some cells of your notebook had lost or changed their grading information (which cell is an "
                      "answer, which a test); the grader used the released notebook's. Next time, edit the "
                      "released notebook in Jupyter and keep its cells"}


def _metadata(data: bytes) -> dict[str, object] | None:
    """``{cell id or #index: nbgrader metadata or None}`` of a notebook's bytes (None if it is not JSON)."""
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return None
    out = {}
    for index, cell in enumerate(cells):
        if not isinstance(cell, Mapping):
            continue
        key = cell.get("id") if isinstance(cell.get("id"), str) else f"#{index}"
        metadata = cell.get("metadata")
        out[key] = metadata.get("nbgrader") if isinstance(metadata, Mapping) else None
    return out


def output_flag(autograded, limit: int) -> dict | None:
    """A ``"limit"`` flag when the kernel's output was cut at ``grading.sandbox.kernel_output_bytes``."""
    for index, cell in enumerate(getattr(autograded, "cells", None) or []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if OUTPUT_DROPPED in str(out.get("text", "")):
                return {"kind": "limit", "rule": "grading.sandbox.kernel_output_bytes", "grade_id": None,
                        "line": None, "cell": cell.get("id") or f"#{index}",
                        "evidence": f"the notebook's output passed {limit:,} bytes at cell {cell.get('id') or index}: "
                                    f"the rest was dropped (grading.sandbox.kernel_output_bytes); no score reads it",
                        "advice": f"your notebook printed more than {limit:,} bytes; the grader kept the first "
                                  f"{limit:,} and dropped the rest. Print less (no score depends on printed output)"}
    return None
