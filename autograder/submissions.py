"""Build student submissions from the course notebooks (for tests, the demo class and benchmarks).

The solution cell that defines a graded name carries that name as its nbgrader
``grade_id`` (``softmax``, ``STOP_AND_TRY_WEIGHTS``), so an answer is a mapping
``grade_id -> cell source``.
"""
from __future__ import annotations

import copy
import re

import nbformat

_SOLUTION_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION[^\n]*\n?", re.S | re.M)


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solution_answers(source_nb) -> dict[str, str]:
    """The instructor's answer of every solution cell, markers removed, by grade_id."""
    answers = {}
    for cell in source_nb.cells:
        meta = _nbgrader(cell)
        if meta.get("solution") and cell.cell_type == "code":
            answers[meta["grade_id"]] = _SOLUTION_REGION.sub(lambda m: m.group(1), cell.source)
    return answers


def fill(release_nb, answers: dict[str, str]):
    """A copy of a released notebook with the solution cells named in ``answers`` filled in."""
    nb = copy.deepcopy(release_nb)
    unknown = set(answers) - {_nbgrader(c).get("grade_id") for c in nb.cells if _nbgrader(c).get("solution")}
    if unknown:
        raise KeyError(f"no solution cell with grade_id {sorted(unknown)} in the notebook")
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if meta.get("solution") and meta.get("grade_id") in answers:
            cell.source = answers[meta["grade_id"]]
    return nb


def read(path):
    return nbformat.read(str(path), as_version=4)
