"""The class view as data: every submission of results.json aggregated per task, misconception and score."""
from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..checks import NOT_ATTEMPTED
from .items import ItemRow, item_analysis
from .similarity import course_pairs


DEFAULT_RESULTS = Path("reports") / "results.json"
DEFAULT_HTML = Path("reports") / "report.html"


# ---------------------------------------------------------------- the summary
@dataclass
class TaskRow:
    """One task of one assignment across the class."""

    assignment: str
    task: str
    submissions: int = 0  # submissions of the assignment (graded or failed)
    passed: int = 0  # submissions that passed every check of the task
    not_attempted: int = 0  # submissions whose answer is still the stub (or missing)
    points: float = 0.0  # the task's points (max over submissions)
    misconceptions: Counter = field(default_factory=Counter)  # id -> submissions

    @property
    def pass_rate(self) -> float:
        return self.passed / self.submissions if self.submissions else 0.0


@dataclass
class MisconceptionRow:
    id: str
    title: str
    count: int  # submissions showing it
    tasks: list[str]
    students: list[str]


@dataclass
class ScoreRow:
    assignment: str
    title: str
    max_score: float
    scores: list[float]  # one per graded or failed submission
    submitted: int
    bonus: bool = False
    not_submitted: int = 0  # students of the class (roster or results) with no submission of it
    needs_manual: int = 0  # cells still waiting for a hand grade (formgrader)
    hand_points: float = 0.0  # points given by hand so far
    hand_max: float = 0.0  # points of the manually graded cells of the submissions

    def stats(self) -> dict:
        s = self.scores
        if not s:
            return {"n": 0, "mean": None, "median": None, "min": None, "max": None}
        return {"n": len(s), "mean": statistics.fmean(s), "median": statistics.median(s), "min": min(s), "max": max(s)}


@dataclass
class ClassSummary:
    course_id: str
    generated_at: str | None
    students: list[str]
    assignments: list[str]
    tasks: list[TaskRow]
    misconceptions: list[MisconceptionRow]
    scores: list[ScoreRow]
    totals: dict[str, float]  # student -> total of the non-bonus assignments
    total_max: float
    bonus_totals: dict[str, float]
    flags: list[dict]  # each flag plus student_id, assignment_id, notebook_id
    failed: list[dict]  # {student_id, assignment_id, notebook_id, reason}
    n_submissions: int
    titles: dict[str, str] = field(default_factory=dict)  # assignment -> title
    items: list[ItemRow] = field(default_factory=list)  # every auto-graded cell's difficulty and discrimination
    similar: list = field(default_factory=list)  # similarity.Pair: likely copying, for a person to read

    @property
    def flag_groups(self) -> list[dict]:
        """Flags grouped by submission and kind: ``{student_id, assignment_id, notebook_id, kind,
        count, where: [grade_id or "line N"], evidence: [text], flags: [flag], rules: [rule]}``, in order."""
        groups: dict[tuple, dict] = {}
        for f in self.flags:
            key = (f["student_id"], f["assignment_id"], f.get("notebook_id"), f.get("kind") or "flag")
            g = groups.setdefault(key, {"student_id": key[0], "assignment_id": key[1], "notebook_id": key[2],
                                        "kind": key[3], "count": 0, "where": [], "tasks": [], "evidence": [], "flags": [],
                                        "rules": []})
            g["count"] += 1
            if f.get("rule") and f["rule"] not in g["rules"]:
                g["rules"].append(str(f["rule"]))
            g["flags"].append(f)
            where = " ".join(x for x in (f.get("grade_id") or "", f"line {f['line']}" if f.get("line") else "") if x)
            if where:
                g["where"].append(where)
            task = f.get("task") or (cell_task({"grade_id": f.get("grade_id")}, _registry()[0]) if f.get("grade_id") else None)
            if task and task not in g["tasks"]:
                g["tasks"].append(task)
            if f.get("evidence") and f["evidence"] not in g["evidence"]:
                g["evidence"].append(str(f["evidence"]))
        return list(groups.values())

    @property
    def flagged_submissions(self) -> int:
        return len({(f["student_id"], f["assignment_id"], f.get("notebook_id")) for f in self.flags})


def load_results(path: str | Path = DEFAULT_RESULTS) -> dict:
    """Read a ``results.json`` (see docs/ARCHITECTURE.md)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} not found: run `autograder grade` first") from None
    if not isinstance(data, dict) or not isinstance(data.get("submissions"), list):
        raise ValueError(f"{path} is not a results.json: no 'submissions' list")
    return data


def _registry():
    try:
        from autograder import checks
    except Exception:  # noqa: BLE001 - the report must work on a results file alone
        return {}, {}, {}
    return checks.CHECKS, checks.TASKS, checks.MISCONCEPTIONS


def misconception_title(mid: str, titles: dict | None = None) -> str:
    if titles is None:
        titles = _registry()[2]
    return titles.get(mid, mid.replace("_", " ").replace(".", ": ", 1))


def _course_info(course_dir) -> tuple[dict[str, str], set[str], list[str]]:
    """Assignment titles, bonus ids and order from course.yml, when there is a valid one."""
    if course_dir is None:
        return {}, set(), []
    try:
        from autograder.config import load_course
        course = load_course(course_dir)
    except Exception:  # noqa: BLE001 - optional: the report stands on results.json alone
        return {}, set(), []
    return ({a.id: a.title for a in course.assignments}, {a.id for a in course.assignments if a.bonus},
            [a.id for a in course.assignments])


def _roster(course_dir) -> list[str]:
    """The roster's students (course.yml ``roster``), when there is one: they count as not submitted."""
    if course_dir is None:
        return []
    try:
        from autograder.config import load_course
        from autograder.grading.reports import _roster as roster_of
        return roster_of(load_course(course_dir), Path(course_dir))
    except Exception:  # noqa: BLE001 - optional, like the rest of course.yml here
        return []


def cell_task(cell: dict, checks: dict) -> str | None:
    """The task of a results.json cell (its ``task`` field, else the checks registry)."""
    if cell.get("task"):
        return cell["task"]
    check = checks.get(cell.get("grade_id"))
    return getattr(check, "task", None)


def _is_auto(cell: dict) -> bool:
    return not cell.get("manual") and cell.get("passed") is not None


def summarise(results: dict, course_dir: str | Path | None = None, bonus: set[str] | None = None) -> ClassSummary:
    """Aggregate ``results`` (a loaded results.json) into the class view."""
    checks, registry_tasks, titles = _registry()
    course_titles, course_bonus, course_order = _course_info(course_dir)
    bonus = set(bonus if bonus is not None else course_bonus)
    subs = results.get("submissions", [])
    unrecorded = results.get("not_recorded") or []  # submitted, but a grader fault kept them from being graded
    assignments = _assignment_order([*subs, *unrecorded], course_order, registry_tasks)
    students = sorted({s.get("student_id") for s in [*subs, *unrecorded]} | set(_roster(course_dir)))
    tally = _Tally(_task_rows(subs, assignments, checks, registry_tasks))
    for sub in subs:
        tally.add(sub, checks)
    tally.flags += [{"student_id": u["student_id"], "assignment_id": u["assignment_id"], "notebook_id": u["notebook_id"],
                     "kind": "not graded (grader error)", "grade_id": None, "line": None,
                     "evidence": f"{u['cause']}: {u['message']} (after {u['attempts']} tries); nothing is recorded, "
                                 f"`autograder grade` grades it again"} for u in unrecorded]

    misconceptions = [
        MisconceptionRow(mid, misconception_title(mid, titles), len(who), sorted(tally.mis_tasks[mid]),
                         sorted({s for s, _ in who}))
        for mid, who in tally.mis_subs.items()]
    misconceptions.sort(key=lambda m: (-m.count, m.id))
    submitted = {a: len({s.get("student_id") for s in [*subs, *unrecorded] if s.get("assignment_id") == a})
                 for a in assignments}
    score_rows = [ScoreRow(a, course_titles.get(a, a), tally.max_scores.get(a, 0.0), tally.per_assignment[a],
                           submitted[a], a in bonus, len(students) - submitted[a], tally.needs_manual[a],
                           tally.hand_points[a], tally.hand_max[a]) for a in assignments]
    regular = [a for a in assignments if a not in bonus]
    totals = {s: sum(tally.student_scores.get((s, a), 0.0) for a in regular) for s in students}
    bonus_totals = {s: sum(tally.student_scores.get((s, a), 0.0) for a in bonus if a in assignments) for s in students}
    ordered_tasks = sorted(tally.task_rows.values(), key=lambda r: (assignments.index(r.assignment), 0))
    return ClassSummary(
        course_id=results.get("course_id") or "", generated_at=results.get("generated_at"),
        students=students, assignments=assignments, tasks=[r for r in ordered_tasks if r.submissions],
        misconceptions=misconceptions, scores=score_rows, totals=totals,
        total_max=sum(tally.max_scores.get(a, 0.0) for a in regular), bonus_totals=bonus_totals,
        flags=tally.flags, failed=tally.failed, n_submissions=len(subs), titles=course_titles,
        items=sorted(item_analysis(subs), key=lambda r: assignments.index(r.assignment)),
        similar=course_pairs(course_dir) if course_dir is not None else [])


def _assignment_order(subs, course_order, registry_tasks) -> list[str]:
    """course.yml's order, then the checks registry's, then order of appearance."""
    seen = list(dict.fromkeys(s.get("assignment_id") for s in subs))
    order = [a for a in course_order if a in seen] + [a for a in registry_tasks if a in seen and a not in course_order]
    return order + [a for a in seen if a not in order]


def _auto_cells_by_task(sub: dict, checks) -> dict[str, list[dict]]:
    by_task: dict[str, list[dict]] = defaultdict(list)
    for cell in sub.get("cells") or []:
        task = cell_task(cell, checks)
        if task is not None and _is_auto(cell):
            by_task[task].append(cell)
    return by_task


def _task_rows(subs, assignments, checks, registry_tasks) -> dict[tuple[str, str], TaskRow]:
    """The tasks of each assignment graded in some submission, in the registry's (notebook) order."""
    graded: dict[str, set] = defaultdict(set)
    for sub in subs:
        graded[sub.get("assignment_id")] |= set(_auto_cells_by_task(sub, checks))
    rows = {}
    for a in assignments:
        known = registry_tasks.get(a, [])
        for t in [t for t in known if t in graded[a]] + sorted(graded[a] - set(known)):
            rows[(a, t)] = TaskRow(a, t)
    return rows


class _Tally:
    """What :func:`summarise` counts, one submission at a time."""

    def __init__(self, task_rows: dict[tuple[str, str], TaskRow]):
        self.task_rows = task_rows
        self.mis_subs: dict[str, set] = defaultdict(set)
        self.mis_tasks: dict[str, set] = defaultdict(set)
        self.flags: list[dict] = []
        self.failed: list[dict] = []
        self.per_assignment: dict[str, list[float]] = defaultdict(list)
        self.max_scores: dict[str, float] = {}
        self.student_scores: dict[tuple[str, str], float] = defaultdict(float)
        self.needs_manual: Counter = Counter()
        self.hand_points: dict[str, float] = defaultdict(float)
        self.hand_max: dict[str, float] = defaultdict(float)

    def add(self, sub: dict, checks) -> None:
        a, sid = sub.get("assignment_id"), sub.get("student_id")
        where = {"student_id": sid, "assignment_id": a, "notebook_id": sub.get("notebook_id")}
        # What grades.csv and nbgrader export call the score: after the late penalty.
        score = max(0.0, float(sub.get("score") or 0.0) - float(sub.get("late_penalty") or 0.0))
        self.per_assignment[a].append(score)
        self.needs_manual[a] += int(sub.get("needs_manual_grading") or 0)
        for cell in sub.get("cells") or []:
            if cell.get("manual"):
                self.hand_max[a] += float(cell.get("max_score") or 0.0)
                self.hand_points[a] += float(cell.get("manual_score") or 0.0)
        self.student_scores[(sid, a)] += score
        if sub.get("max_score") is not None:
            self.max_scores[a] = max(self.max_scores.get(a, 0.0), float(sub["max_score"]))
        self.flags += [{**where, **flag} for flag in sub.get("flags") or []]
        if sub.get("status") == "failed":
            self.failed.append({**where, "reason": sub.get("reason") or "(no reason recorded)"})
        by_task = _auto_cells_by_task(sub, checks)
        for task in [t for (aa, t) in self.task_rows if aa == a]:
            self._add_task(self.task_rows[(a, task)], by_task.get(task, []), sid, a, task)

    def _add_task(self, row: TaskRow, cells: list[dict], sid, a, task) -> None:
        row.submissions += 1
        row.points = max(row.points, sum(float(c.get("max_score") or 0) for c in cells))
        if cells and all(c.get("passed") for c in cells):
            row.passed += 1
            return
        ids = {c.get("misconception") for c in cells if not c.get("passed") and c.get("misconception")}
        if not cells or (ids and ids <= set(NOT_ATTEMPTED)):
            row.not_attempted += 1
            return
        for mid in ids - set(NOT_ATTEMPTED):
            row.misconceptions[mid] += 1
            self.mis_subs[mid].add((sid, a))
            self.mis_tasks[mid].add(task)
