"""A synthetic class: students who submit complete, blank, partly done and mistaken notebooks.

    python -m autograder.synthetic OUT_DIR [--students 30] [--seed 0] [--assignments 01_scores_softmax ...]

Each student has a *kind*, the same for every assignment:

``complete``
    every answer right (some written differently: the catalogue's correct variants);
``blank``
    the untouched release notebook;
``partial``
    the first few answers done, the rest left as stubs;
``misconception``
    an otherwise complete notebook with one typical mistake (a wrong catalogue
    :class:`~autograder.catalogue.Variant`) per assignment;
``two_misconceptions``
    the same with two mistakes on two different tasks.

The shares of the kinds are a *mix*: :data:`MIX` (every kind, the demo's) by default, or
:data:`REALISTIC` (two thirds right, the rest with one or two typical mistakes: the benchmark's
class). ``unsubmitted`` notebooks can be left out and ``broken`` ones written as files that are
not notebooks (the student's work on that assignment says so in ``Work.handed_in``).

Mistakes are dealt round-robin from a shuffled catalogue, so a class covers the whole catalogue
before any mistake repeats. Everything is drawn from one ``random.Random(seed)``: the same seed,
notebooks and catalogue give the same class, byte for byte. Notebooks are written in nbgrader's
submission layout ``OUT_DIR/<student_id>/<assignment_id>/<notebook>.ipynb``.

Python API: :func:`generate_class`.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .submissions import fill, solution_answers

KINDS = ("complete", "blank", "partial", "misconception", "two_misconceptions")
#: Share of each kind in a class (30 students: 8, 3, 6, 9, 4).
MIX = {"complete": 0.27, "blank": 0.10, "partial": 0.20, "misconception": 0.30, "two_misconceptions": 0.13}
#: A class as a course sees it (30 students: 20, 6, 4): what ``benchmarks/bench_grading.py`` grades.
REALISTIC = {"complete": 0.67, "blank": 0.0, "partial": 0.0, "misconception": 0.20, "two_misconceptions": 0.13}
#: What a broken file holds: a notebook cut off half-way (an editor that crashed while saving).
BROKEN_BYTES = b'{"cells": [{"cell_type": "code", "source": "def softmax(x):\\n'
WRITTEN_ANSWER = ("Dividing by the square root of d keeps the variance of the scores near 1 whatever the "
                  "dimension, so softmax does not saturate and its gradients do not vanish.")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Work:
    """What one student handed in for one assignment."""

    kind: str
    notebook: str
    tasks_done: list[str] = field(default_factory=list)  # solution cells filled in
    variants: list[str] = field(default_factory=list)  # catalogue variants used (right and wrong)
    misconceptions: list[str] = field(default_factory=list)  # expected misconception ids
    handed_in: str = "notebook"  # "notebook", "nothing" (no file) or "broken file" (not a notebook)


@dataclass
class Student:
    student_id: str
    kind: str
    work: dict[str, Work] = field(default_factory=dict)  # assignment -> Work


@dataclass
class SyntheticClass:
    out_dir: str
    seed: int
    assignments: list[str]
    students: list[Student]

    def kinds(self) -> Counter:
        return Counter(s.kind for s in self.students)

    def to_json(self) -> dict:
        return {"out_dir": self.out_dir, "seed": self.seed, "assignments": self.assignments,
                "students": [asdict(s) for s in self.students]}


def check_mix(mix: dict) -> dict[str, float]:
    """``mix`` as the shares of every kind; ValueError naming what is wrong (unknown kind, negative, not summing to 1)."""
    unknown = sorted(set(mix) - set(KINDS))
    if unknown:
        raise ValueError(f"mix: unknown kind(s) {unknown}; expected some of {list(KINDS)}")
    shares = {k: float(mix.get(k, 0.0)) for k in KINDS}
    if min(shares.values()) < 0 or abs(sum(shares.values()) - 1) > 1e-6:
        raise ValueError(f"mix: shares must be >= 0 and sum to 1, got {shares}")
    return shares


def kind_counts(n: int, mix: dict | None = None) -> dict[str, int]:
    """How many students of each kind a class of ``n`` gets (largest remainder; every kind of the mix
    once when n is at least the number of its kinds)."""
    mix = check_mix(MIX if mix is None else mix)
    raw = {k: mix[k] * n for k in KINDS}
    counts = {k: int(v) for k, v in raw.items()}
    for k in sorted(KINDS, key=lambda k: (-(raw[k] - counts[k]), KINDS.index(k)))[: n - sum(counts.values())]:
        counts[k] += 1
    present = [k for k in KINDS if mix[k] > 0]
    if n >= len(present):
        for k in present:
            while counts[k] == 0:
                donor = max(KINDS, key=lambda d: counts[d])
                counts[donor] -= 1
                counts[k] += 1
    return counts


# ---------------------------------------------------------------- notebooks
_SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*### END SOLUTION[^\n]*(\n?)", re.S | re.M)
_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[^\n]*\n.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?", re.S | re.M)


def release_from_source(source_nb):
    """A stand-in for ``nbgrader generate_assignment`` when ``assignments/`` is missing: stubs
    in solution cells, hidden tests removed (only the shape of the release matters here)."""
    nb = copy.deepcopy(source_nb)
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            if cell.cell_type == "code":
                cell.source = _SOLUTION.sub(lambda m: f"{m.group(1)}# YOUR CODE HERE\n{m.group(1)}raise NotImplementedError()"
                                            + m.group(2), cell.source)
            else:
                cell.source = "YOUR ANSWER HERE"
        cell.source = _HIDDEN.sub("", cell.source)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


@dataclass
class CourseNotebook:
    assignment: str
    name: str
    release: object  # NotebookNode
    answers: dict[str, str]  # code solution cells: grade_id -> instructor's answer
    order: list[str]  # code solution cells in notebook order
    written: list[str]  # markdown solution cells (manually graded answers)


def load_course_notebooks(course_dir: str | Path = PACKAGE_ROOT, assignments: list[str] | None = None) -> list[CourseNotebook]:
    """The course's notebooks that have a source in ``solutions/`` (the release from ``assignments/``)."""
    import nbformat

    course_dir = Path(course_dir)
    found = []
    wanted = assignments
    if not wanted:
        solutions = course_dir / "solutions"
        wanted = sorted(p.name for p in solutions.iterdir() if p.is_dir()) if solutions.is_dir() else []
    for aid in wanted:
        src_dir = course_dir / "solutions" / aid
        if not src_dir.is_dir():
            raise FileNotFoundError(f"no solutions/{aid}/ in {course_dir}")
        for src in sorted(src_dir.glob("*.ipynb")):
            source = nbformat.read(str(src), as_version=4)
            rel = course_dir / "assignments" / aid / src.name
            release = nbformat.read(str(rel), as_version=4) if rel.is_file() else release_from_source(source)
            answers = solution_answers(source)
            order = [_nbgrader(c)["grade_id"] for c in release.cells
                     if _nbgrader(c).get("solution") and c.cell_type == "code" and _nbgrader(c).get("grade_id") in answers]
            written = [_nbgrader(c)["grade_id"] for c in release.cells
                       if _nbgrader(c).get("solution") and c.cell_type == "markdown"]
            found.append(CourseNotebook(aid, src.stem, release, answers, order, written))
    return found


# ---------------------------------------------------------------- the class
def _student_ids(n: int) -> list[str]:
    width = max(2, len(str(n)))
    return [f"s{i:0{width}d}" for i in range(1, n + 1)]


def _pick_pair(wrong: list, rng: random.Random, first):
    """A second mistake on another task whose cells do not overlap the first's."""
    def touches(v) -> set:
        return {v.task, *getattr(v, "also_fails", ())}

    # Another task, other cells, and neither mistake hides the other (a wrong split_heads also
    # breaks multi_head_attention, so a second mistake there would not show).
    candidates = [v for v in wrong if not touches(v) & touches(first) and not set(v.answers) & set(first.answers)]
    return rng.choice(candidates) if candidates else None


class _Deck:
    """The wrong answers dealt to the students with a misconception, each once before any repeats."""

    def __init__(self, wrong: list, rng: random.Random):
        self.wrong, self.rng, self.cards = wrong, rng, []

    def deal(self):
        if not self.cards:
            self.cards = list(self.wrong)
            self.rng.shuffle(self.cards)
        return self.cards.pop()


def _answers_of(kind: str, nb, rng: random.Random, deck: _Deck, wrong: list, right: list, work) -> dict:
    """What a student of ``kind`` writes in ``nb`` (recorded in ``work``)."""
    answers = dict(nb.answers)
    if kind == "blank":
        answers = {}
    elif kind == "partial":
        done = rng.randint(1, max(1, len(nb.order) - 1)) if len(nb.order) > 1 else 0
        answers = {gid: nb.answers[gid] for gid in nb.order[:done]}
    elif kind in ("misconception", "two_misconceptions") and wrong:
        mistakes = [deck.deal()]
        if kind == "two_misconceptions":
            second = _pick_pair(wrong, rng, mistakes[0])
            if second is not None:
                mistakes.append(second)
        for v in mistakes:
            answers.update(v.answers)
            work.variants.append(v.name)
            work.misconceptions.append(v.misconception)
    if kind == "complete" and right:
        rewritten: set = set()
        for v in right:  # about half of the right alternatives, on cells not yet rewritten
            if rng.random() < 0.5 and not set(v.answers) & rewritten:
                answers.update(v.answers)
                rewritten |= set(v.answers)
                work.variants.append(v.name)
    if answers:
        answers.update({gid: WRITTEN_ANSWER for gid in nb.written})
    work.tasks_done = [gid for gid in nb.order if gid in answers]
    return answers


def generate_class(out_dir: str | Path, n_students: int = 30, seed: int = 0, assignments: list[str] | None = None,
                   course_dir: str | Path = PACKAGE_ROOT, variants: list | None = None, mix: dict | None = None,
                   unsubmitted: int = 0, broken: int = 0) -> SyntheticClass:
    """Write a synthetic class under ``out_dir`` and return what each student handed in.

    Parameters
    ----------
    out_dir : path
        Written as ``out_dir/<student_id>/<assignment_id>/<notebook>.ipynb``.
    n_students : int
        Class size (kinds in the proportions of ``mix``).
    seed : int
        Everything random comes from ``random.Random(seed)``.
    assignments : list of str, optional
        Default: every assignment with a source notebook in ``course_dir/solutions``.
    course_dir : path
        Holds ``solutions/`` and ``assignments/`` (default: the repository of this package).
    variants : list of Variant, optional
        Default: :func:`autograder.catalogue.all_variants`.
    mix : dict, optional
        Share of each kind (default :data:`MIX`; :data:`REALISTIC` for a benchmark's class).
    unsubmitted, broken : int
        How many (student, assignment) notebooks are not handed in at all, and how many are a file
        that is not a notebook (:data:`BROKEN_BYTES`); drawn at random among all of them.
    """
    import nbformat

    for name, value in (("n_students", n_students), ("unsubmitted", unsubmitted), ("broken", broken)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")

    if variants is None:
        from .catalogue import all_variants
        variants = all_variants()
    rng = random.Random(seed)
    notebooks = load_course_notebooks(course_dir, assignments)
    assignments = list(dict.fromkeys(nb.assignment for nb in notebooks))
    counts = kind_counts(n_students, mix)
    kinds = [k for k in KINDS for _ in range(counts[k])]
    rng.shuffle(kinds)
    students = [Student(sid, kind) for sid, kind in zip(_student_ids(n_students), kinds)]
    out_dir = Path(out_dir)

    for nb in notebooks:
        usable = [v for v in variants if v.assignment == nb.assignment and set(v.answers) <= set(nb.answers)]
        wrong = [v for v in usable if not v.correct]
        right = [v for v in usable if v.correct]
        deck = _Deck(wrong, rng)
        for student in students:
            work = Work(student.kind, nb.name)
            answers = _answers_of(student.kind, nb, rng, deck, wrong, right, work)
            path = out_dir / student.student_id / nb.assignment / f"{nb.name}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(fill(nb.release, answers), str(path))
            student.work[nb.assignment if nb.name == nb.assignment else f"{nb.assignment}/{nb.name}"] = work
    _hand_in_badly(out_dir, students, rng, unsubmitted, broken)
    return SyntheticClass(str(out_dir), seed, assignments, students)


def _hand_in_badly(out_dir: Path, students: list[Student], rng: random.Random, unsubmitted: int, broken: int) -> None:
    """Remove ``unsubmitted`` notebooks and overwrite ``broken`` others with a file that is not a notebook."""
    handed = [(s, key) for s in students for key in s.work]
    if unsubmitted + broken > len(handed):
        raise ValueError(f"unsubmitted + broken ({unsubmitted + broken}) is more than the {len(handed)} notebooks "
                         f"of the class")
    for i, (student, key) in enumerate(rng.sample(handed, unsubmitted + broken)):
        work = student.work[key]
        path = out_dir / student.student_id / key.split("/")[0] / f"{work.notebook}.ipynb"
        if i < unsubmitted:
            path.unlink()
            work.handed_in = "nothing"
        else:
            path.write_bytes(BROKEN_BYTES)
            work.handed_in = "broken file"


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", help="where to write OUT_DIR/<student>/<assignment>/<notebook>.ipynb")
    parser.add_argument("--students", type=int, default=30, help="class size (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--assignments", nargs="*", default=None, help="assignment ids (default: every one with a source)")
    parser.add_argument("--course", "--course-dir", dest="course_dir", default=str(PACKAGE_ROOT),
                        help="folder with solutions/ and assignments/ (default: this repository)")
    parser.add_argument("--realistic", action="store_true",
                        help="two thirds right, the rest with one or two mistakes (default: every kind, see MIX)")
    parser.add_argument("--unsubmitted", type=int, default=0, help="notebooks not handed in (default 0)")
    parser.add_argument("--broken", type=int, default=0, help="notebooks handed in as a broken file (default 0)")
    parser.add_argument("--manifest", default=None, help="also write what each student did as JSON here")


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.synthetic`` (not an ``autograder`` subcommand): ``argv`` default ``sys.argv[1:]``."""
    parser = argparse.ArgumentParser(prog="python -m autograder.synthetic", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    klass = generate_class(args.out_dir, args.students, args.seed, args.assignments, args.course_dir,
                           mix=REALISTIC if args.realistic else None, unsubmitted=args.unsubmitted, broken=args.broken)
    if args.manifest:
        Path(args.manifest).write_text(json.dumps(klass.to_json(), indent=1), encoding="utf-8")
    kinds = ", ".join(f"{n} {k}" for k, n in klass.kinds().items())
    print(f"wrote {len(klass.students)} students x {len(klass.assignments)} assignments under {args.out_dir} ({kinds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
