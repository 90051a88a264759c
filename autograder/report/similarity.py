"""Likely copying: pairs of submissions whose answers are near-identical once names, literals and layout are set aside.

A list for a person to read, never a penalty: two honest students who both write the shortest
answer can look alike, and only the instructor, reading the two answers side by side, can judge.

For each assignment, a student's text is their answer cells (nbgrader's solution cells of the
autograded notebook) in the release's order. copydetect (Moss's winnowing, on pygments tokens:
every name becomes ``V``/``F``, every string ``S``, comments and whitespace go) fingerprints it;
the release's own answer cells (the stubs) are its boilerplate, and the given cells are never
read, so neither counts as similarity. The order of the cells does not matter: fingerprints are
compared as sets. A pair's similarity is the share of the *smaller* answer that the other holds
(so padding a copy with extra code does not hide it); pairs at or above :data:`THRESHOLD` are
listed, the most similar first.
"""
from __future__ import annotations

import io
import itertools
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..notebook import model

#: copydetect's noise threshold (k-gram length, in filtered characters) and window (its guarantee
#: threshold 30 minus the noise threshold, plus one): its command line's defaults.
K, WINDOW = 25, 6
#: Pairs at least this similar are listed.
THRESHOLD = 0.8
#: Answers shorter than this (filtered characters) are too short to tell copying from the one obvious answer.
MIN_LENGTH = 100


@dataclass
class Pair:
    """Two submissions of one assignment and what they share."""

    assignment: str
    students: tuple[str, str]
    similarity: float  # share of the smaller answer found in the other
    answers: tuple[str, str]  # each student's answer cells, as submitted, for the side-by-side view

    def record(self) -> dict:
        return {"assignment": self.assignment, "students": list(self.students),
                "similarity": round(self.similarity, 3)}


def answer_text(nb, stubs: dict[str, str]) -> str:
    """The student's answer cells (the solution cells that are not the release's stub), in order."""
    parts = []
    for cell in nb.cells:
        meta = model.nbgrader_meta(cell)
        if cell.cell_type == "code" and meta.get("solution") and cell.source.strip() != stubs.get(meta.get("grade_id"), ""):
            parts.append(cell.source.strip())
    return "\n\n".join(parts)


def _fingerprint(text: str, boilerplate):
    from copydetect import CodeFingerprint
    return CodeFingerprint("answers.py", K, WINDOW, boilerplate=boilerplate, language="python", fp=io.StringIO(text))


def similar_pairs(assignment: str, answers: dict[str, str], stubs: dict[str, str],
                  threshold: float = THRESHOLD) -> list[Pair]:
    """The pairs of ``answers`` (``{student: answer text}``) at least ``threshold`` similar, most similar first."""
    from copydetect import compare_files
    boilerplate = sorted(_fingerprint("\n\n".join(stubs.values()), []).hashes)  # copydetect wants a sequence
    prints = {s: _fingerprint(text, boilerplate) for s, text in sorted(answers.items())}
    prints = {s: fp for s, fp in prints.items() if len(fp.filtered_code) >= MIN_LENGTH and len(fp.hashes)}
    pairs = []
    for (a, fa), (b, fb) in itertools.combinations(prints.items(), 2):
        # Most pairs share few fingerprints: a set intersection (microseconds) rules them out before
        # copydetect's slice-by-slice comparison.
        if len(fa.hashes & fb.hashes) < threshold / 2 * min(len(fa.hashes), len(fb.hashes)):
            continue
        _, (sim_a, sim_b), _ = compare_files(fa, fb)
        similarity = float(max(sim_a, sim_b))  # the smaller answer's share is the larger of the two
        if similarity >= threshold:
            pairs.append(Pair(assignment, (a, b), similarity, (answers[a], answers[b])))
    return sorted(pairs, key=lambda p: (-p.similarity, p.students))


def course_pairs(course_dir: str | Path, threshold: float = THRESHOLD) -> list[Pair]:
    """:func:`similar_pairs` over the autograded notebooks of every assignment of a course directory."""
    course_dir = Path(course_dir)
    pairs: list[Pair] = []
    for release in sorted((course_dir / "assignments").glob("*/*.ipynb")):
        assignment, notebook = release.parent.name, release.stem
        stubs = {model.nbgrader_meta(c)["grade_id"]: c.source.strip() for c in nbformat.read(release, as_version=4).cells
                 if c.cell_type == "code" and model.nbgrader_meta(c).get("solution")}
        answers = {}
        for path in sorted((course_dir / "autograded").glob(f"*/{assignment}/{notebook}.ipynb")):
            try:
                answers[path.parents[1].name] = answer_text(nbformat.read(path, as_version=4), stubs)
            except (OSError, ValueError):  # an autograded notebook that cannot be read has nothing to compare
                continue
        pairs += similar_pairs(assignment, answers, stubs, threshold)
    return pairs
