"""The reviewable sources (``sources/<a>/<n>.py``, jupytext percent) and the nbgrader notebooks agree.

Both directions, for every notebook course.yml names: building the notebook from its source gives
the committed ``solutions/`` file byte for byte (so an edit of the source was regenerated), and
writing the committed notebook as percent text gives the committed source (so an edit of the
notebook alone is caught too).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.config import load_course
from autograder.notebook import sources

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [(a.id, n) for a in load_course(ROOT).assignments for n in a.notebooks]


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_the_notebook_is_built_from_its_source(assignment, notebook):
    source = sources.source_path(ROOT, assignment, notebook)
    assert source.is_file(), f"{source} is missing: every course notebook has a percent source"
    built = nbformat.writes(sources.from_percent(source.read_text(encoding="utf-8"))) + "\n"
    committed = ROOT / "solutions" / assignment / f"{notebook}.ipynb"
    assert built == committed.read_text(encoding="utf-8"), \
        f"{committed} is not what {source} builds: run `autograder generate {assignment}` and commit"


@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_the_source_is_the_notebook(assignment, notebook):
    committed = nbformat.read(ROOT / "solutions" / assignment / f"{notebook}.ipynb", as_version=4)
    source = sources.source_path(ROOT, assignment, notebook).read_text(encoding="utf-8")
    assert sources.to_percent(committed) == source, \
        f"solutions/{assignment}/{notebook}.ipynb was edited without its source: edit the source instead"


def test_build_solutions_rewrites_a_stale_notebook(tmp_path):
    assignment, notebook = NOTEBOOKS[0]
    src = sources.source_path(tmp_path, assignment, notebook)
    src.parent.mkdir(parents=True)
    text = sources.source_path(ROOT, assignment, notebook).read_text(encoding="utf-8")
    src.write_text(text.replace("# # 01 ·", "# # 01 (edited) ·", 1), encoding="utf-8")
    assert sources.build_solutions(tmp_path, [(assignment, notebook)]) == \
        [tmp_path / "solutions" / assignment / f"{notebook}.ipynb"]
    assert "01 (edited)" in (tmp_path / "solutions" / assignment / f"{notebook}.ipynb").read_text()
    assert sources.build_solutions(tmp_path, [(assignment, notebook)]) == []  # up to date: nothing written
