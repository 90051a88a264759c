"""Self-study: grade one notebook on the spot against the hidden checks.

    autograder check my_notebook.ipynb [--assignment 02_scaling] [--timeout 60] [--seed N]

No course directory, gradebook or Jupyter kernel: the notebook's code cells run in a child
Python process (killed after ``--timeout`` seconds, so an endless loop cannot hang the command)
and every check of the assignment is evaluated there (:func:`autograder.inprocess.grade_notebook`).
Prints one row per task (pass/fail, points, the first message) and what to fix; exits 0 when
every auto-graded check passes, 1 otherwise, 2 when the notebook cannot be read.

The assignment comes from ``--assignment``, else the notebook's given cell
(``Grader("02_scaling", globals())``), else its file name. Points come from the nbgrader
metadata of the notebook's test cells (``grade_id -> points``).

Python API: :func:`selfcheck` (print and return the exit code), :func:`grade_file` (the data).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .checks import MISCONCEPTIONS, NOT_ATTEMPTED, TASKS, checks_for_assignment
from .checks.core import HIDDEN_DEFAULT_SEED
from .notebook import model
from .text import points as points_text

DEFAULT_TIMEOUT = 60.0
_GRADER_CALL = re.compile(r"""Grader\(\s*["']([A-Za-z0-9_\-]+)["']""")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # holds autograder/ and attention_ref/


class SelfCheckError(Exception):
    """The notebook cannot be checked (unreadable, unknown assignment); the message says why."""


def load_notebook(path: str | Path) -> model.Notebook:
    """Read a notebook (:func:`autograder.notebook.model.read`), as a :class:`SelfCheckError` when it cannot be."""
    try:
        return model.read(path)
    except model.NotANotebook as exc:
        raise SelfCheckError(f"{path} is not a readable notebook: {exc}") from None


def detect_assignment(nb, path: str | Path | None = None) -> str:
    """The assignment of a notebook: its given cell's ``Grader("...")``, else its file name."""
    for cell in nb.code_cells:
        match = _GRADER_CALL.search(cell.source)
        if match and match.group(1) in TASKS:
            return match.group(1)
    if path is not None:
        stem = Path(path).stem
        for assignment in sorted(TASKS, key=len, reverse=True):
            if stem == assignment or stem.startswith(assignment) or assignment in stem:
                return assignment
        number = re.match(r"(\d\d)", stem)
        if number:
            for assignment in TASKS:
                if assignment.startswith(number.group(1) + "_"):
                    return assignment
    raise SelfCheckError("cannot tell which assignment this notebook is: it has no `Grader(\"...\")` line and its "
                         f"file name names none; pass --assignment (one of {', '.join(TASKS)})")


def notebook_points(nb) -> tuple[dict[str, float], dict[str, float]]:
    """``(auto, manual)``: points of the notebook's auto-graded test cells and of its written answers."""
    auto, manual = {}, {}
    for cell in nb.cells:
        if not cell.meta.get("grade") or cell.grade_id is None:
            continue
        if cell.is_test and cell.cell_type == "code":
            auto[cell.grade_id] = cell.points
        elif cell.is_solution:
            manual[cell.grade_id] = cell.points
    return auto, manual


def released_points(assignment: str) -> tuple[dict[str, float], dict[str, float]]:
    """Points from the course's released (or source) notebook, when the package sits in the course."""
    for folder in ("assignments", "solutions"):
        path = PACKAGE_ROOT / folder / assignment / f"{assignment}.ipynb"
        if path.is_file():
            try:
                return notebook_points(load_notebook(path))
            except SelfCheckError:
                continue
    return {}, {}


@dataclass
class TaskResult:
    task: str
    verdicts: list[dict]
    points: float | None  # earned (None: unknown)
    max_points: float | None

    @property
    def passed(self) -> int:
        return sum(v["passed"] for v in self.verdicts)

    @property
    def ok(self) -> bool:
        return self.passed == len(self.verdicts)

    @property
    def not_started(self) -> bool:
        return not self.ok and all(v["passed"] or v["misconception"] in NOT_ATTEMPTED
                                   for v in self.verdicts)


@dataclass
class SelfCheckResult:
    assignment: str
    path: str
    seed: int
    tasks: list[TaskResult] = field(default_factory=list)
    manual: dict[str, float] = field(default_factory=dict)
    error: str | None = None  # the run did not finish (timeout, crash)

    @property
    def all_passed(self) -> bool:
        return self.error is None and bool(self.tasks) and all(t.ok for t in self.tasks)

    @property
    def score(self) -> tuple[float | None, float | None]:
        known = [t for t in self.tasks if t.max_points is not None]
        if not known:
            return None, None
        return sum(t.points for t in known), sum(t.max_points for t in known)


# The child reads the notebook with the project's own reader, not nbformat: importing nbformat
# costs seconds where rfc3987_syntax is installed (its grammar is built at import time).
_CHILD = """
import json, sys
from autograder.selfcheck import load_notebook
from autograder.inprocess import grade_notebook
from autograder.notebook import own_items
from autograder.variants import items_of
nb = load_notebook(sys.argv[1])
items, _ = own_items(items_of(sys.argv[2]))  # what grader.numbers gives this student here (issue 22)
verdicts = grade_notebook(nb, sys.argv[2], seed=int(sys.argv[3]), items=items)
with open(sys.argv[4], "w", encoding="utf-8") as f:
    json.dump([v.__dict__ for v in verdicts], f)
"""


def run_in_child(path: str | Path, assignment: str, seed: int, timeout: float) -> tuple[list[dict] | None, str | None]:
    """Grade ``path`` in a child Python process; ``(verdicts, None)`` or ``(None, why it failed)``."""
    path = Path(path).resolve()
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join(
        [str(PACKAGE_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    with tempfile.TemporaryDirectory(prefix="autograder-check-") as tmp:
        out = Path(tmp) / "verdicts.json"
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), assignment, str(seed), str(out)],
                                cwd=path.parent, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            proc.communicate()
            return None, (f"stopped after {timeout:g} s: some cell never finished (an endless loop?). "
                          "Fix it, or raise --timeout if your code is just slow.")
        if proc.returncode != 0 or not out.exists():
            tail = (stderr or b"").decode("utf-8", "replace").strip().splitlines()[-3:]
            return None, (f"the notebook's code ended the Python process (exit code {proc.returncode})"
                          + (": " + " ".join(tail) if tail else ""))
        return json.loads(out.read_text(encoding="utf-8")), None


def grade_file(path: str | Path, assignment: str | None = None, timeout: float = DEFAULT_TIMEOUT,
               seed: int | None = None) -> SelfCheckResult:
    """Grade one notebook file; raises :class:`SelfCheckError` when it cannot be read."""
    path = Path(path)
    if not path.is_file():
        raise SelfCheckError(f"{path}: no such file")
    nb = load_notebook(path)
    if assignment is None:
        assignment = detect_assignment(nb, path)
    elif assignment not in TASKS:
        raise SelfCheckError(f"unknown assignment {assignment!r}; one of {', '.join(TASKS)}")
    seed = HIDDEN_DEFAULT_SEED if seed is None else int(seed)
    auto, manual = notebook_points(nb)
    if not auto:
        auto, manual = released_points(assignment)
    result = SelfCheckResult(assignment, str(path), seed, manual=manual)
    verdicts, error = run_in_child(path, assignment, seed, timeout)
    checks = checks_for_assignment(assignment)
    if verdicts is None:
        result.error = error
        verdicts = [{"grade_id": c.grade_id, "task": c.task, "title": c.title, "passed": False,
                     "message": "not checked: the run did not finish", "misconception": None} for c in checks]
    for task in TASKS[assignment]:
        vs = [v for v in verdicts if v["task"] == task]
        if not vs:
            continue
        known = all(v["grade_id"] in auto for v in vs)
        result.tasks.append(TaskResult(
            task, vs,
            points=sum(auto[v["grade_id"]] for v in vs if v["passed"]) if known else None,
            max_points=sum(auto[v["grade_id"]] for v in vs) if known else None))
    return result


# ---------------------------------------------------------------- output
def _symbols(stream) -> tuple[str, str]:
    try:
        "✔✘…".encode(getattr(stream, "encoding", None) or "ascii")
        return "✔", "✘"
    except (UnicodeEncodeError, LookupError):
        return "ok", "X"


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: max(1, width - 3)] + "..."


def render(result: SelfCheckResult, stream=None, width: int | None = None) -> str:
    """The table and the list of things to fix, as text."""
    ok, bad = _symbols(stream or sys.stdout)
    if width is None:
        try:
            width = max(80, min(140, os.get_terminal_size().columns))
        except OSError:
            width = 100
    lines = [f"{Path(result.path).name}: assignment {result.assignment} (hidden checks, seed {result.seed})", ""]
    rows = []
    for t in result.tasks:
        pts = f"{points_text(t.points)}/{points_text(t.max_points)}" if t.max_points is not None else "-"
        if t.ok:
            status, msg = f"{ok} pass", ""
        elif t.not_started:
            status = f"{bad} fail"
            if any(v["misconception"] == "not_implemented" for v in t.verdicts):
                msg = "not started (the stub still raises NotImplementedError)"
            else:
                msg = "not defined: its cell is missing, was not run, or raised an error"
        else:
            status = f"{bad} fail"
            first = next(v for v in t.verdicts if not v["passed"])
            msg = first["message"] or first["title"]
        rows.append((t.task, f"{t.passed}/{len(t.verdicts)}", pts, status, msg))
    for gid, pts in result.manual.items():
        rows.append((gid, "-", f"-/{points_text(pts)}", "manual", "written answer, graded by your instructor"))
    tw = max([len(r[0]) for r in rows] + [4])
    pw = max([len(r[2]) for r in rows] + [6])
    head = f"{'task'.ljust(tw)}  checks  {'points'.rjust(pw)}  {'result'.ljust(6)}  message"
    lines += [head, "-" * min(width, len(head) + 30)]
    for task, checks, pts, status, msg in rows:
        prefix = f"{task.ljust(tw)}  {checks.rjust(6)}  {pts.rjust(pw)}  {status.ljust(6)}  "
        lines.append(prefix + _clip(msg, max(20, width - len(prefix))))
    got, total = result.score
    n_ok = sum(t.ok for t in result.tasks)
    lines.append("-" * min(width, len(head) + 30))
    score = f"{points_text(got)}/{points_text(total)} auto-graded points" if total is not None else "points unknown (no nbgrader metadata)"
    if total is not None and any(t.max_points is None for t in result.tasks):
        score += " (tasks without test cells in this notebook not counted)"
    lines.append(f"{n_ok} of {len(result.tasks)} tasks pass all their checks; {score}"
                 + (f" (+ {points_text(sum(result.manual.values()))} for written answers)" if result.manual else "") + ".")
    if result.error:
        lines += ["", f"{bad} {result.error}"]
    fixes = [t for t in result.tasks if not t.ok and not t.not_started]
    if fixes and not result.error:
        lines += ["", "What to fix:"]
        for t in fixes:
            lines.append(f"  {t.task}")
            for v in t.verdicts:
                if v["passed"]:
                    continue
                lines.append(f"    {bad} {v['title']}: {v['message']}")
                mid = v.get("misconception")
                if mid and mid != "wrong_values" and mid not in NOT_ATTEMPTED:
                    lines.append(f"      likely misconception: {MISCONCEPTIONS.get(mid, mid)}")
    return "\n".join(lines) + "\n"


def selfcheck(path: str | Path, assignment: str | None = None, timeout: float = DEFAULT_TIMEOUT,
              seed: int | None = None, out=None) -> int:
    """Grade ``path``, print the table to ``out``; returns the exit code (0 all pass, 1 not, 2 error)."""
    out = sys.stdout if out is None else out
    try:
        result = grade_file(path, assignment, timeout, seed)
    except SelfCheckError as exc:
        print(f"autograder check: {exc}", file=sys.stderr)
        return 2
    out.write(render(result, out))
    return 0 if result.all_passed else 1


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("notebook", help="the notebook to check (.ipynb)")
    parser.add_argument("--assignment", default=None, help=f"assignment id (default: from the notebook): {', '.join(TASKS)}")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds before the run is stopped (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the checks' random inputs")


def main(args: argparse.Namespace) -> int:
    """Run ``autograder check`` on the arguments :func:`autograder.cli.main` parsed with :func:`add_arguments`."""
    return selfcheck(args.notebook, args.assignment, args.timeout, args.seed)
