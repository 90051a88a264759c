"""The class view: what a class got right and wrong, from ``reports/results.json``.

    autograder report [--results reports/results.json] [--html reports/report.html]

prints, per task, how many submissions passed every check of the task, the most frequent
misconceptions (with their titles from :data:`autograder.checks.MISCONCEPTIONS`), the score
distribution per assignment and in total, the submissions flagged ("possible tampering", the
static scan) and the submissions that could not be graded; and writes the same as an HTML page
with plots (matplotlib, inlined as SVG: the page has no external assets).

Python API: :func:`load_results`, :func:`summarise`, :func:`render_text`, :func:`render_html`,
:func:`write_report`.
"""
from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import math
import re
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .checks import NOT_ATTEMPTED
from .text import points as points_text

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

    @property
    def flag_groups(self) -> list[dict]:
        """Flags grouped by submission and kind: ``{student_id, assignment_id, notebook_id, kind,
        count, where: [grade_id or "line N"], evidence: [text], flags: [flag]}``, in order."""
        groups: dict[tuple, dict] = {}
        for f in self.flags:
            key = (f["student_id"], f["assignment_id"], f.get("notebook_id"), f.get("kind") or "flag")
            g = groups.setdefault(key, {"student_id": key[0], "assignment_id": key[1], "notebook_id": key[2],
                                        "kind": key[3], "count": 0, "where": [], "tasks": [], "evidence": [], "flags": []})
            g["count"] += 1
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

    # Order: course.yml, then the checks registry, then order of appearance.
    seen = list(dict.fromkeys(s.get("assignment_id") for s in subs))
    order = [a for a in course_order if a in seen] + [a for a in registry_tasks if a in seen and a not in course_order]
    assignments = order + [a for a in seen if a not in order]
    students = sorted({s.get("student_id") for s in subs})

    # Tasks of each assignment: those graded in some submission, in the registry's (notebook) order.
    graded_tasks: dict[str, set] = defaultdict(set)
    for sub in subs:
        for cell in sub.get("cells") or []:
            task = cell_task(cell, checks)
            if task is not None and _is_auto(cell):
                graded_tasks[sub.get("assignment_id")].add(task)
    task_rows: dict[tuple[str, str], TaskRow] = {}
    for a in assignments:
        known = registry_tasks.get(a, [])
        for t in [t for t in known if t in graded_tasks[a]] + sorted(graded_tasks[a] - set(known)):
            task_rows[(a, t)] = TaskRow(a, t)
    mis_subs: dict[str, set] = defaultdict(set)
    mis_tasks: dict[str, set] = defaultdict(set)
    flags, failed = [], []
    per_assignment: dict[str, list[float]] = defaultdict(list)
    max_scores: dict[str, float] = {}
    student_scores: dict[tuple[str, str], float] = defaultdict(float)

    for sub in subs:
        a, sid = sub.get("assignment_id"), sub.get("student_id")
        where = {"student_id": sid, "assignment_id": a, "notebook_id": sub.get("notebook_id")}
        score = float(sub.get("score") or 0.0)
        per_assignment[a].append(score)
        student_scores[(sid, a)] += score
        if sub.get("max_score") is not None:
            max_scores[a] = max(max_scores.get(a, 0.0), float(sub["max_score"]))
        for flag in sub.get("flags") or []:
            flags.append({**where, **flag})
        if sub.get("status") == "failed":
            failed.append({**where, "reason": sub.get("reason") or "(no reason recorded)"})

        by_task: dict[str, list[dict]] = defaultdict(list)
        for cell in sub.get("cells") or []:
            task = cell_task(cell, checks)
            if task is not None and _is_auto(cell):
                by_task[task].append(cell)
        for task in [t for (aa, t) in task_rows if aa == a]:
            row = task_rows[(a, task)]
            row.submissions += 1
            cells = by_task.get(task, [])
            row.points = max(row.points, sum(float(c.get("max_score") or 0) for c in cells))
            if cells and all(c.get("passed") for c in cells):
                row.passed += 1
                continue
            ids = {c.get("misconception") for c in cells if not c.get("passed") and c.get("misconception")}
            if not cells or (ids and ids <= set(NOT_ATTEMPTED)):
                row.not_attempted += 1
                continue
            for mid in ids - set(NOT_ATTEMPTED):
                row.misconceptions[mid] += 1
                mis_subs[mid].add((sid, a))
                mis_tasks[mid].add(task)

    misconceptions = [
        MisconceptionRow(mid, misconception_title(mid, titles), len(who), sorted(mis_tasks[mid]),
                         sorted({s for s, _ in who}))
        for mid, who in mis_subs.items()]
    misconceptions.sort(key=lambda m: (-m.count, m.id))

    submitted = Counter(s.get("assignment_id") for s in subs)
    score_rows = [ScoreRow(a, course_titles.get(a, a), max_scores.get(a, 0.0), per_assignment[a], submitted[a], a in bonus)
                  for a in assignments]
    regular = [a for a in assignments if a not in bonus]
    totals = {s: sum(student_scores.get((s, a), 0.0) for a in regular) for s in students}
    bonus_totals = {s: sum(student_scores.get((s, a), 0.0) for a in bonus if a in assignments) for s in students}
    ordered_tasks = sorted(task_rows.values(), key=lambda r: (assignments.index(r.assignment), 0))
    return ClassSummary(
        course_id=results.get("course_id") or "", generated_at=results.get("generated_at"),
        students=students, assignments=assignments, tasks=[r for r in ordered_tasks if r.submissions],
        misconceptions=misconceptions, scores=score_rows, totals=totals,
        total_max=sum(max_scores.get(a, 0.0) for a in regular), bonus_totals=bonus_totals,
        flags=flags, failed=failed, n_submissions=len(subs), titles=course_titles)


# ---------------------------------------------------------------- text
def _bar(count: int, biggest: int, width: int = 30) -> str:
    if not count:
        return ""
    return "█" * max(1, round(width * count / biggest)) if biggest else ""


def histogram(values: list[float], maximum: float, bins: int = 10) -> list[tuple[float, float, int]]:
    """Counts of ``values`` in ``bins`` equal bins of ``[0, maximum]`` (the last bin closed)."""
    if maximum <= 0:
        return [(0.0, 0.0, len(values))]
    edges = [maximum * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for v in values:
        i = min(bins - 1, max(0, int(math.floor(v / maximum * bins + 1e-9))))
        counts[i] += 1
    return [(edges[i], edges[i + 1], counts[i]) for i in range(bins)]


def _shorten(text: str, width: int) -> str:
    text = re.sub(r"\s*\n\s*", " ", str(text).rstrip())
    return text if len(text) <= width else text[: width - 1] + "…"


def render_text(summary: ClassSummary, top: int = 10, width: int = 100, max_flags: int = 20) -> str:
    """The terminal report."""
    out: list[str] = []
    head = f"Class report: {summary.course_id}" if summary.course_id else "Class report"
    out += [head, "=" * len(head),
            f"{len(summary.students)} students, {summary.n_submissions} submissions "
            f"({len(summary.failed)} could not be graded, {summary.flagged_submissions} flagged)"
            + (f"; graded {summary.generated_at}" if summary.generated_at else ""), ""]

    # Tasks
    out.append("Tasks: submissions that pass every check of the task")
    if summary.tasks:
        tw = max(len(r.task) for r in summary.tasks)
        aw = max(len(r.assignment) for r in summary.tasks)
        out.append(f"  {'assignment'.ljust(aw)}  {'task'.ljust(tw)}  passed   rate  not tried  top misconception")
        for r in summary.tasks:
            top_m = r.misconceptions.most_common(1)
            tm = f"{top_m[0][0]} ({top_m[0][1]})" if top_m else ""
            out.append(f"  {r.assignment.ljust(aw)}  {r.task.ljust(tw)}  {r.passed:>3}/{r.submissions:<3} "
                       f"{r.pass_rate:>5.0%}  {r.not_attempted:>9}  {tm}")
    else:
        out.append("  (no auto-graded cells)")
    out.append("")

    # Misconceptions
    out.append(f"Most frequent misconceptions (submissions showing each; top {top})")
    if summary.misconceptions:
        cw = max(len(str(m.count)) for m in summary.misconceptions)
        iw = min(34, max(len(m.id) for m in summary.misconceptions[:top]))
        for m in summary.misconceptions[:top]:
            line = f"  {str(m.count).rjust(cw)}  {m.id.ljust(iw)}  {m.title}"
            out.append(_shorten(line, width))
        if len(summary.misconceptions) > top:
            out.append(f"  … and {len(summary.misconceptions) - top} more (see the HTML report)")
    else:
        out.append("  none recognised")
    out.append("")

    # Scores
    out.append("Scores per assignment (graded and failed submissions)")
    aw = max([len(s.assignment) for s in summary.scores] + [10])
    out.append(f"  {'assignment'.ljust(aw)}  subm.  mean  median  min  max   of  distribution (0% → 100%)")
    for s in summary.scores:
        st = s.stats()
        counts = [c for _, _, c in histogram(s.scores, s.max_score)]
        spark = "".join(" ▁▂▃▄▅▆▇█"[0 if not c else 1 + round(7 * c / max(counts))] for c in counts)
        out.append(f"  {(s.assignment + (' *' if s.bonus else '')).ljust(aw)}  {s.submitted:>5}  {points_text(st['mean']):>4}  "
                   f"{points_text(st['median']):>6}  {points_text(st['min']):>3}  {points_text(st['max']):>3}  {points_text(s.max_score):>3}  |{spark}|")
    if any(s.bonus for s in summary.scores):
        out.append("  * bonus: not part of the total")
    out.append("")
    totals = list(summary.totals.values())
    if totals:
        out.append(f"Total per student (of {points_text(summary.total_max)}): mean {points_text(statistics.fmean(totals))}, "
                   f"median {points_text(statistics.median(totals))}")
        hist = histogram(totals, summary.total_max)
        biggest = max(c for _, _, c in hist)
        for i, (lo, hi, c) in enumerate(hist):
            label = f"{10 * i}–{10 * i + 10}%"
            out.append(f"  {label:>8}  {str(c).rjust(3)}  {_bar(c, biggest)}")
        out.append("")

    # Flags
    groups = summary.flag_groups
    out.append(f"Flagged submissions ({summary.flagged_submissions} submissions, {len(summary.flags)} flags)")
    if groups:
        for g in groups[:max_flags]:
            if len(g["where"]) > 2:
                tasks = g["tasks"]
                what = (f"{len(g['where'])} cells of {len(tasks)} task{'s' if len(tasks) != 1 else ''}: "
                        + ", ".join(tasks[:3]) + (", …" if len(tasks) > 3 else ""))
            else:
                what = ", ".join(g["where"])
            count = f" ×{g['count']}" if g["count"] > 1 else ""
            out.append(_shorten(f"  {g['student_id']}/{g['assignment_id']}  [{g['kind']}{count}] {what}", width))
            if g["evidence"]:
                more = f" (+{len(g['evidence']) - 1} more)" if len(g["evidence"]) > 1 else ""
                out.append(_shorten(f"      {g['evidence'][0]}{more}", width))
        if len(groups) > max_flags:
            out.append(f"  … and {len(groups) - max_flags} more flagged submissions (see the HTML report)")
    else:
        out.append("  none")
    out.append("")
    out.append(f"Submissions that could not be graded ({len(summary.failed)})")
    if summary.failed:
        for f in summary.failed:
            out.append(_shorten(f"  {f['student_id']}/{f['assignment_id']}/{f['notebook_id']}: {f['reason']}", width))
    else:
        out.append("  none")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- HTML
_PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and doctype: inline SVG
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return text


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # the OO API: no pyplot, no global backend state
    import matplotlib
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "autograder"  # deterministic ids
    fig = Figure(figsize=(width, height), dpi=100)
    return fig


def plot_pass_rates(summary: ClassSummary) -> str | None:
    rows = summary.tasks
    if not rows:
        return None
    fig = _figure(7.5, 0.32 * len(rows) + 1.1)
    ax = fig.add_subplot()
    colours = {a: _PALETTE[i % len(_PALETTE)] for i, a in enumerate(summary.assignments)}
    y = list(range(len(rows)))[::-1]
    ax.barh(y, [100 * r.pass_rate for r in rows], color=[colours[r.assignment] for r in rows], height=0.7)
    ax.barh(y, [100 * r.not_attempted / r.submissions if r.submissions else 0 for r in rows],
            left=[100 * r.pass_rate for r in rows], color="#dddddd", height=0.7)
    ax.set_yticks(y, [f"{r.task}" for r in rows], fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of submissions passing every check (grey: not attempted)")
    ax.set_title("Pass rate per task")
    for yy, r in zip(y, rows):
        ax.text(min(100 * r.pass_rate + 1, 97), yy, f"{r.passed}/{r.submissions}", va="center", fontsize=7)
    from matplotlib.patches import Patch
    handles = [Patch(color=colours[a], label=a) for a in summary.assignments if any(r.assignment == a for r in rows)]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def plot_misconceptions(summary: ClassSummary, top: int = 15) -> str | None:
    rows = summary.misconceptions[:top]
    if not rows:
        return None
    import textwrap
    fig = _figure(7.5, 0.36 * len(rows) + 1.0)
    ax = fig.add_subplot()
    y = list(range(len(rows)))[::-1]
    ax.barh(y, [m.count for m in rows], color="#C44E52", height=0.7)
    ax.set_yticks(y, [textwrap.shorten(m.title, 60, placeholder="…") for m in rows], fontsize=8)
    ax.set_xlabel("submissions")
    ax.set_title("Most frequent misconceptions")
    ax.xaxis.get_major_locator().set_params(integer=True)
    for yy, m in zip(y, rows):
        ax.text(m.count, yy, f" {m.count}", va="center", fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def plot_scores(summary: ClassSummary) -> str | None:
    panels = [(s.assignment + (" (bonus)" if s.bonus else ""), s.scores, s.max_score) for s in summary.scores if s.scores]
    if summary.totals:
        panels.append(("total", list(summary.totals.values()), summary.total_max))
    if not panels:
        return None
    cols = min(4, len(panels))
    nrows = math.ceil(len(panels) / cols)
    fig = _figure(2.3 * cols, 2.0 * nrows + 0.3)
    for i, (name, values, maximum) in enumerate(panels):
        ax = fig.add_subplot(nrows, cols, i + 1)
        hist = histogram(values, maximum)
        width = (maximum / 10) if maximum else 1
        ax.bar([lo for lo, _, _ in hist], [c for _, _, c in hist], width=width * 0.9, align="edge",
               color="#55A868" if name == "total" else "#4C72B0")
        ax.set_title(name, fontsize=9)
        ax.set_xlim(0, maximum or 1)
        ax.set_xlabel(f"score (of {points_text(maximum)})", fontsize=8)
        if i % cols == 0:
            ax.set_ylabel("students", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return _svg(fig)


def render_html(summary: ClassSummary, top: int = 15, plots: bool = True) -> str:
    """The HTML report: one self-contained page (inline CSS and SVG plots)."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.PackageLoader("autograder", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    env.filters["num"] = points_text
    template = env.get_template("report.html.j2")
    figs = {}
    if plots:
        figs = {"pass_rates": plot_pass_rates(summary), "misconceptions": plot_misconceptions(summary, top),
                "scores": plot_scores(summary)}
    totals = list(summary.totals.values())
    return template.render(
        s=summary, figs={k: v for k, v in figs.items() if v}, top=top,
        total_mean=statistics.fmean(totals) if totals else None,
        total_median=statistics.median(totals) if totals else None,
        created=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def write_report(results_path: str | Path = DEFAULT_RESULTS, html_path: str | Path | None = DEFAULT_HTML,
                 course_dir: str | Path | None = ".", top: int = 10, out=None) -> ClassSummary:
    """Print the text report to ``out`` (stdout) and write the HTML page; returns the summary."""
    summary = summarise(load_results(results_path), course_dir=course_dir)
    out = sys.stdout if out is None else out
    out.write(render_text(summary, top=top))
    if html_path:
        html_path = Path(html_path)
        html_path.parent.mkdir(parents=True, exist_ok=True)
        html_path.write_text(render_html(summary, top=max(top, 15)), encoding="utf-8")
        out.write(f"\nHTML report: {html_path}\n")
    return summary


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", "--course-dir", dest="course_dir", default=".", help="course directory (course.yml, reports/); default: .")
    parser.add_argument("--results", default=None, help="results.json to read (default: COURSE_DIR/reports/results.json)")
    parser.add_argument("--html", default=None, help="HTML page to write (default: COURSE_DIR/reports/report.html)")
    parser.add_argument("--no-html", action="store_true", help="print the text report only")
    parser.add_argument("--top", type=int, default=10, help="misconceptions to list in the terminal (default 10)")


def main(args: argparse.Namespace | list[str] | None = None) -> int:
    if not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="autograder report", description=__doc__.split("\n\n")[0])
        add_arguments(parser)
        args = parser.parse_args(args)
    course_dir = Path(getattr(args, "course_dir", None) or ".")
    results = Path(args.results) if getattr(args, "results", None) else course_dir / DEFAULT_RESULTS
    html_path = None if getattr(args, "no_html", False) else (
        Path(args.html) if getattr(args, "html", None) else course_dir / DEFAULT_HTML)
    try:
        write_report(results, html_path, course_dir=course_dir, top=getattr(args, "top", 10))
    except (FileNotFoundError, ValueError) as exc:
        print(f"autograder report: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
