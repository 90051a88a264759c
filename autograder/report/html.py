"""The class view as one HTML page, with its plots inlined as SVG (no external assets)."""
from __future__ import annotations

import datetime as dt
import io
import math
import re
import statistics

from ..text import points as points_text
from .items import LOOK_AT, look_at
from .summary import ClassSummary
from .terminal import histogram


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


def plot_items(summary: ClassSummary) -> str | None:
    """Per assignment, each check's difficulty (share passing) against its discrimination; the checks
    to look at (below the dashed line) in red and named, so the plot reads without the table."""
    panels = [(a, [r for r in summary.items if r.assignment == a and r.discrimination is not None])
              for a in summary.assignments]
    panels = [(a, rows) for a, rows in panels if rows]
    if not panels:
        return None
    cols = min(4, len(panels))
    nrows = math.ceil(len(panels) / cols)
    # At least 4.4 inches wide: one panel alone is otherwise narrower than its axis labels.
    fig = _figure(max(4.4, 2.4 * cols), 2.2 * nrows + 0.6)
    fig.set_layout_engine("constrained")  # places the shared labels clear of the tick labels
    # Shared axes: one set of ticks to lay out, not one per panel (the plot's cost is mostly its axes).
    axes = fig.subplots(nrows, cols, sharex=True, sharey=True, squeeze=False).ravel()
    flagged = {(r.assignment, r.grade_id) for r in look_at(summary.items)}
    low = min(-0.3, min(r.discrimination for _, rows in panels for r in rows) - 0.1)
    for ax, (assignment, rows) in zip(axes, panels):
        bad = [(assignment, r.grade_id) in flagged for r in rows]
        ax.scatter([r.difficulty for r in rows], [r.discrimination for r in rows], s=14,
                   c=["#C44E52" if b else "#4C72B0" for b in bad])
        for r, b in zip(rows, bad):
            if b:
                ax.annotate(r.grade_id, (r.difficulty, r.discrimination), fontsize=6, xytext=(3, -3),
                            textcoords="offset points", color="#C44E52")
        ax.axhline(LOOK_AT, color="#8C8C8C", linestyle="--", linewidth=0.8)
        ax.set_title(assignment, fontsize=8)
        ax.spines[["top", "right"]].set_visible(False)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    axes[0].set_xlim(-0.02, 1.02)
    axes[0].set_ylim(low, 1.0)
    fig.supxlabel("share of submissions passing (easier →)", fontsize=8)
    fig.supylabel("discrimination ↑\n(look at those below the dashes)", fontsize=8)
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
                "scores": plot_scores(summary), "item_plot": plot_items(summary)}
    totals = list(summary.totals.values())
    return template.render(
        s=summary, figs={k: v for k, v in figs.items() if v}, top=top, look_at=look_at(summary.items), look_at_below=LOOK_AT,
        total_mean=statistics.fmean(totals) if totals else None,
        total_median=statistics.median(totals) if totals else None,
        created=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
