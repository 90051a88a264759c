"""The class view as text for the terminal (student-derived text made safe to print)."""
from __future__ import annotations

import math
import re
import statistics

from ..text import points as points_text
from ..text import terminal_safe
from .items import LOOK_AT, look_at
from .summary import ClassSummary


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
    """The terminal report: the class, its tasks, misconceptions, scores, flags and failures."""
    head = f"Class report: {summary.course_id}" if summary.course_id else "Class report"
    out = [head, "=" * len(head),
           f"{len(summary.students)} students, {summary.n_submissions} submissions "
           f"({len(summary.failed)} could not be graded, {summary.flagged_submissions} flagged)"
           + (f"; graded {summary.generated_at}" if summary.generated_at else ""), ""]
    out += _tasks(summary) + _look_at(summary) + _copying(summary) + _misconceptions(summary, top, width) + _scores(summary)
    out += _flags(summary, width, max_flags) + _failed(summary, width)
    # Student ids, flag evidence and failure reasons come from submissions: no escape sequence of
    # theirs reaches the instructor's terminal.
    return terminal_safe("\n".join(out)) + "\n"


def _tasks(summary: ClassSummary) -> list[str]:
    out: list[str] = []
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
    return out


def passing(row) -> str:
    """How many passed a check: a share, or for a per-student item's check the count right on their own item."""
    if row.own_numbers:
        return f"{row.passed} of {row.submissions} right on their own numbers"
    return f"passing {row.difficulty:.0%}"


def _look_at(summary: ClassSummary) -> list[str]:
    rows = look_at(summary.items)
    if not rows:
        return []
    out = [f"Checks to look at (discrimination below {LOOK_AT}: they do not separate strong from weak students)"]
    for r in rows:
        top_m = f"  {r.misconceptions[0][0]} ({r.misconceptions[0][1]})" if r.misconceptions else ""
        out.append(f"  {r.assignment}  {r.grade_id}  {passing(r)}  discrimination {r.discrimination:+.2f}{top_m}")
    return out + [""]


def _copying(summary: ClassSummary) -> list[str]:
    if not summary.similar:
        return []
    out = ["Likely copying (near-identical answers: a list to read, never a penalty; the HTML page shows them side by side)"]
    out += [f"  {p.assignment}  {p.students[0]} ~ {p.students[1]}  {p.similarity:.0%}" for p in summary.similar[:10]]
    if len(summary.similar) > 10:
        out.append(f"  ... and {len(summary.similar) - 10} more pairs")
    return out + [""]


def _misconceptions(summary: ClassSummary, top: int, width: int) -> list[str]:
    out: list[str] = []
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
    return out


def _scores(summary: ClassSummary) -> list[str]:
    out: list[str] = []
    out.append("Scores per assignment (after late penalties; hand grades from the gradebook)")
    aw = max([len(s.assignment) for s in summary.scores] + [10])
    out.append(f"  {'assignment'.ljust(aw)}  subm.  missing  mean  median  min  max   of  distribution (0% → 100%)")
    for s in summary.scores:
        st = s.stats()
        counts = [c for _, _, c in histogram(s.scores, s.max_score)]
        spark = "".join(" ▁▂▃▄▅▆▇█"[0 if not c else 1 + round(7 * c / max(counts))] for c in counts)
        out.append(f"  {(s.assignment + (' *' if s.bonus else '')).ljust(aw)}  {s.submitted:>5}  {s.not_submitted:>7}  "
                   f"{points_text(st['mean']):>4}  {points_text(st['median']):>6}  {points_text(st['min']):>3}  "
                   f"{points_text(st['max']):>3}  {points_text(s.max_score):>3}  |{spark}|")
    if any(s.bonus for s in summary.scores):
        out.append("  * bonus: not part of the total")
    out.append("  mean/median/min/max are over the submissions; a missing submission is not a 0 there")
    out.append("")
    out += _hand_grading(summary)
    totals = list(summary.totals.values())
    if totals:
        out.append(f"Total per student (of {points_text(summary.total_max)}; an assignment not submitted counts 0): "
                   f"mean {points_text(statistics.fmean(totals))}, median {points_text(statistics.median(totals))}")
        hist = histogram(totals, summary.total_max)
        biggest = max(c for _, _, c in hist)
        for i, (lo, hi, c) in enumerate(hist):
            label = f"{10 * i}–{10 * i + 10}%"
            out.append(f"  {label:>8}  {str(c).rjust(3)}  {_bar(c, biggest)}")
        out.append("")
    return out


def _hand_grading(summary: ClassSummary) -> list[str]:
    rows = [s for s in summary.scores if s.hand_max]
    if not rows:
        return []
    out = ["Hand grading (formgrader): points given by hand, and cells still to grade"]
    aw = max(len(s.assignment) for s in rows)
    for s in rows:
        out.append(f"  {s.assignment.ljust(aw)}  hand-graded {points_text(s.hand_points)} of "
                   f"{points_text(s.hand_max)} points  needs manual grading: {s.needs_manual}")
    out.append("")
    return out


def _flags(summary: ClassSummary, width: int, max_flags: int) -> list[str]:
    out: list[str] = []
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
            rules = f": {', '.join(g['rules'][:3])}" if g.get("rules") else ""
            out.append(_shorten(f"  {g['student_id']}/{g['assignment_id']}  [{g['kind']}{count}{rules}] {what}", width))
            if g["evidence"]:
                more = f" (+{len(g['evidence']) - 1} more)" if len(g["evidence"]) > 1 else ""
                out.append(_shorten(f"      {g['evidence'][0]}{more}", width))
        if len(groups) > max_flags:
            out.append(f"  … and {len(groups) - max_flags} more flagged submissions (see the HTML report)")
    else:
        out.append("  none")
    out.append("")
    return out


def _failed(summary: ClassSummary, width: int) -> list[str]:
    out: list[str] = []
    out.append(f"Submissions that could not be graded ({len(summary.failed)})")
    if summary.failed:
        for f in summary.failed:
            out.append(_shorten(f"  {f['student_id']}/{f['assignment_id']}/{f['notebook_id']}: {f['reason']}", width))
    else:
        out.append("  none")
    return out
