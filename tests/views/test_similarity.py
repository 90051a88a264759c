"""Likely copying (issue 23): a copied pair ranks first, an honest pair that is equally correct does not appear."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from autograder import report, submissions
from autograder.catalogue import all_variants
from autograder.notebook import model
from autograder.report.similarity import THRESHOLD, course_pairs

ROOT = Path(__file__).resolve().parents[2]
RENAMES = {"scores": "s", "weights": "w", "d_k": "width", "q": "query", "k": "key", "v": "value", "x": "inp"}


def _rename(source: str) -> str:
    for old, new in RENAMES.items():
        source = re.sub(rf"\b{old}\b", new, source)
    return "# my own work\n" + source.replace("    ", "  ") + "\n\n\n"


def _class(tmp_path: Path, assignment: str) -> Path:
    """alice answers as the instructor; carol copies alice (names, comments, indentation changed, her
    cells in reverse order); bob answers every task correctly in his own way (the catalogue's correct
    rewrites); dan and erin hand in the untouched release (the stubs must not make them alike)."""
    release = submissions.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb")
    alice = submissions.solution_answers(submissions.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb"))
    solution_cells = {model.nbgrader_meta(c)["grade_id"] for c in release.cells if model.nbgrader_meta(c).get("solution")}
    alice = {g: s for g, s in alice.items() if g in solution_cells}
    bob = dict(alice)
    for v in all_variants():
        if v.assignment == assignment and v.correct:
            bob.update({g: s for g, s in v.answers.items() if g in solution_cells})
    carol_nb = submissions.fill(release, {g: _rename(s) for g, s in alice.items()})
    answers_at = [i for i, c in enumerate(carol_nb.cells) if model.nbgrader_meta(c).get("solution")]
    moved = [carol_nb.cells[i] for i in answers_at][::-1]
    for i, cell in zip(answers_at, moved):
        carol_nb.cells[i] = cell
    course = tmp_path / "course"
    (course / "assignments" / assignment).mkdir(parents=True)
    nbformat.write(release, course / "assignments" / assignment / f"{assignment}.ipynb")
    for sid, nb in {"alice": submissions.fill(release, alice), "bob": submissions.fill(release, bob),
                    "carol": carol_nb, "dan": release, "erin": release}.items():
        path = course / "autograded" / sid / assignment / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    return course


@pytest.mark.parametrize("assignment", ["01_scores_softmax", "02_scaling", "04_heads"])
def test_the_copied_pair_ranks_first_and_the_honest_pair_is_not_listed(tmp_path, assignment):
    pairs = course_pairs(_class(tmp_path, assignment))
    assert [p.students for p in pairs] == [("alice", "carol")]
    assert pairs[0].similarity >= THRESHOLD
    low = course_pairs(_class(tmp_path / "all", assignment), threshold=0.0)
    honest = next(p for p in low if p.students == ("alice", "bob"))
    assert honest.similarity < THRESHOLD / 2  # equally correct, written independently
    assert not any("dan" in p.students or "erin" in p.students for p in low)  # stubs are never similarity


def test_the_report_shows_the_pair_side_by_side(tmp_path):
    course = _class(tmp_path, "02_scaling")
    s = report.summarise({"course_id": "c", "submissions": []}, course_dir=course)
    section = report.render_html(s).split('id="copying"')[1].split("</section>")[0]
    assert "<strong>alice</strong> and" in section and "<strong>carol</strong>" in section
    assert section.count("<pre") == 2 and "# my own work" in section  # both answers, as handed in
    assert "never a" in section and "penalty" in section
    assert "alice ~ carol" in report.render_text(s)
