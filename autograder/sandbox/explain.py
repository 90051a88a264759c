"""Flags for what the verification sandbox refused or stopped (issue 25: every zero explained).

The static scan says what the code *contains*; this says what happened when it ran: a name or
module the notebook does not give was asked for (``"refused import"``, also when a ``try``
swallowed the refusal: the runner reports what the generated ``attention_ref`` and its last import
finder refused), the sandbox denied an operation (``"sandbox denial"``: files, processes), or a
call or cell was stopped at a limit (``"limit"``: time, memory, output). A plain wrong answer gets
no flag: its check's message says what is wrong.

Each flag: ``{kind, rule, grade_id, cell, cell_index, line, evidence, advice}``; ``evidence`` is for
the instructor, ``advice`` for the student (what to do, never a hidden input or expected value).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..checks.core import Outcome, Verdict
from ..notebook.model import Cell

#: Modules that are the grader's or the reference's: refused whether or not the cell went on.
GRADER_MODULES = ("autograder", "attention_ref", "grader", "nbgrader", "_autograder_core")
#: Errors of a cell that the sandbox caused by denying an operation.
DENIALS = ("PermissionError", "BlockingIOError", "OSError", "FileNotFoundError", "ConnectionError")
#: Outcome errors that are a limit of the grader's (the sandbox's or a check's measurement), by rule.
LIMITS = {"TimeoutError": "grading.sandbox.cell_seconds", "MemoryLimit": "memory room of the check",
          "MemoryHeld": "memory held before the check", "ProcessDied": "grading.sandbox.memory_mb",
          "Stopped": "the sandbox's protocol", "InvalidAnswer": "grading.sandbox.output_bytes",
          "MeasurementTampered": "memory measurement", "MemoryError": "grading.sandbox.memory_mb"}
_LIMIT_ADVICE = {
    "grading.sandbox.cell_seconds": "it did not finish within the grader's time limit: make it faster",
    "memory room of the check": "it used more memory than the check allows: compute it with less memory",
    "memory held before the check": "the notebook held much memory when the check ran: delete large results "
                                    "(`del name`) before the end of the notebook",
    "grading.sandbox.memory_mb": "the process running it was stopped (most often: more memory than the grader "
                                 "allows): make it use less memory",
    "the sandbox's protocol": "it interfered with the grader's own process: an answer only computes its result",
    "grading.sandbox.output_bytes": "its answer was larger than the grader accepts or not plain numbers: return "
                                    "only the array or numbers asked for",
    "memory measurement": "it switched off the memory measurement of its check: remove that code",
    "grading.sandbox.wall_seconds": "the whole notebook ran out of the grader's time: make the slow cells faster",
}


def runtime_flags(cells: Sequence[Cell], cell_errors: Mapping[int, str], refused: Mapping[int, Sequence[str]],
                  verdicts: Mapping[str, Verdict], outcomes: Mapping[str, Sequence[Outcome]], given: Sequence[str],
                  graded: Sequence[str], assignment: str) -> list[dict]:
    """The flags of one verification (see the module's docstring).

    Parameters
    ----------
    cells : sequence of Cell
        The notebook's code cells (their index, label and grade_id name the cell).
    cell_errors, refused : mapping
        What each cell raised, and the names it was refused (``"*"``: a star import of attention_ref).
    verdicts, outcomes : mapping
        Each check's verdict and the outcomes it was judged on, by grade_id.
    given, graded : sequence of str
        The names the notebook gives and grades.
    """
    by_index = {c.index: c for c in cells}
    flags = []
    for index in sorted(set(refused) | set(cell_errors)):
        cell = by_index.get(index)
        error = cell_errors.get(index)
        names = list(dict.fromkeys(refused.get(index, ())))
        for name in names:
            flag = _refusal(name, error, given, graded, assignment)
            if flag:
                flags.append(_at(cell, index, flag))
        if error and error.split(":", 1)[0] in DENIALS and not names:
            flags.append(_at(cell, index, _denial(error)))
        elif error and error.split(":", 1)[0] in ("TimeoutError", "ProcessDied", "Stopped", "MemoryError"):
            flags.append(_at(cell, index, _limit(error, "the cell")))
    seen = set()
    for grade_id, verdict in verdicts.items():
        if verdict.passed or verdict.task in seen:
            continue
        error = next((o.error for o in outcomes.get(grade_id, ()) if _is_limit(o.error)), None)
        if error:
            seen.add(verdict.task)
            flags.append(dict(_limit(error, f"`{verdict.task}`"), grade_id=grade_id, cell=None, cell_index=None))
    return flags


def _is_limit(error: str | None) -> bool:
    """Whether an outcome's error is a limit of the grader's (a call not run for the wall clock is one too)."""
    label = (error or "").split(":", 1)[0]
    return label in LIMITS or (label == "NotRun" and "wall-clock limit" in error)


def _at(cell: Cell | None, index: int, flag: dict) -> dict:
    label = cell.label if cell is not None else f"#{index}"
    flag["evidence"] = f"cell {label}: {flag['evidence']}"
    return {**flag, "grade_id": cell.grade_id if cell is not None else None, "cell": label, "cell_index": index,
            "line": None}


def _refusal(name: str, error: str | None, given, graded, assignment: str) -> dict | None:
    """The flag of one refused name (asked of attention_ref) or module (``"import X"``: no finder has it).

    None for a module outside the grader's that the cell did without (an optional import in a ``try``).
    """
    blocks = ", ".join(f"`{g}`" for g in given) or "none"
    if name == "*":
        wanted = ", ".join(f"`{g}`" for g in graded)
        return _refused("attention_ref: graded names",
                        f"`from attention_ref import *` gives only the building blocks {assignment} gives "
                        f"({blocks}), never the names it grades ({wanted})",
                        f"`from attention_ref import *` gives only this notebook's building blocks ({blocks}): "
                        f"the functions it grades are not given by this notebook; write them yourself")
    if name in graded:
        return _refused("attention_ref: graded names", f"asked attention_ref for `{name}`, which {assignment} grades",
                        f"`{name}` is not given by this notebook: it is what the notebook asks you to write, so "
                        f"the reference version cannot be imported; write your own")
    if not name.startswith("import "):
        return _refused("attention_ref: not given", f"asked attention_ref for `{name}`, not a building block "
                                                    f"{assignment} gives ({blocks})",
                        f"`{name}` is not given by this notebook: attention_ref holds only its building blocks "
                        f"({blocks})")
    module = name[len("import "):]
    if module.split(".")[0] in GRADER_MODULES:
        return _refused("grader internals", f"imports `{module}`, a module of the grader's that the notebook's "
                                            f"sandbox does not have",
                        f"`{module}` is not given by this notebook: it belongs to the grader; remove that import")
    if not (error or "").startswith(("ModuleNotFoundError", "ImportError")):
        return None
    return _refused("outside the student kit", f"imports `{module}`, which the sandbox does not have ({error[:200]})",
                    f"`{module}` is not given by this notebook: the grader runs your code with numpy, the standard "
                    f"library and the notebook's building blocks only; remove that import")


def _refused(rule: str, evidence: str, advice: str) -> dict:
    return {"kind": "refused import", "rule": rule, "evidence": evidence, "advice": advice}


def _denial(error: str) -> dict:
    kind = error.split(":", 1)[0]
    rule = "processes" if kind == "BlockingIOError" else "file system"
    return {"kind": "sandbox denial", "rule": rule, "evidence": f"the sandbox refused an operation ({error[:300]})",
            "advice": "your code reached outside the notebook (files, other processes or the network), which the "
                      "grader does not allow; an answer needs only its inputs, so remove that code"}


def _limit(error: str, what: str) -> dict:
    label = error.split(":", 1)[0]
    rule = LIMITS.get(label, "grading.sandbox.wall_seconds" if label == "NotRun" else "grading.sandbox.cell_seconds")
    if label == "ProcessDied" and "CPU" in error:
        rule = "grading.sandbox.cpu_seconds"
    advice = _LIMIT_ADVICE.get(rule, "it did not finish within the grader's time limit: make it faster")
    return {"kind": "limit", "rule": rule, "line": None, "evidence": f"{what} was stopped: {error[:300]}",
            "advice": f"{what} was stopped by a limit of the grader: {advice}"}
