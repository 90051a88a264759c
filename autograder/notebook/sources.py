"""The notebooks' reviewable sources: ``sources/<assignment>/<notebook>.py`` in jupytext's percent format.

The percent file is what a course author edits and what a reviewer reads in a diff: one ``# %%``
line per cell (its nbgrader metadata and its id on that line), markdown as comments. The
nbgrader source notebook ``solutions/<assignment>/<notebook>.ipynb`` is generated from it
(:func:`build_solutions`, run by ``autograder generate`` before nbgrader's generate_assignment),
and ``tests/course/test_sources.py`` checks that the two agree byte for byte.

They live outside ``solutions/``: nbgrader copies every other file of an assignment's source
folder into the student version, and the percent file holds the solutions.
"""
from __future__ import annotations

import copy
from pathlib import Path

import jupytext
import nbformat

SOURCES = "sources"
FORMAT = "py:percent"
#: What every course notebook's metadata is (the kernel nbgrader runs it with).
METADATA = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}}
_ID = "cell_id"  # the cell's id, carried in the percent file's metadata (the format has no place for it)


def source_path(course_dir: str | Path, assignment: str, notebook: str) -> Path:
    """Where the percent source of ``notebook`` of ``assignment`` lives."""
    return Path(course_dir) / SOURCES / assignment / f"{notebook}.py"


def to_percent(nb) -> str:
    """The percent text of an nbgrader source notebook (ids and metadata kept, outputs dropped)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.get("id"):
            cell.metadata[_ID] = cell.pop("id")
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    nb.metadata = {"kernelspec": METADATA["kernelspec"],
                   "jupytext": {"notebook_metadata_filter": "kernelspec", "cell_metadata_filter": "all"}}
    return jupytext.writes(nb, fmt=FORMAT)


def from_percent(text: str) -> nbformat.NotebookNode:
    """The nbgrader source notebook of a percent text (see :func:`to_percent`)."""
    nb = jupytext.reads(text, fmt=FORMAT)
    out = nbformat.v4.new_notebook(metadata=copy.deepcopy(METADATA))
    for cell in nb.cells:
        metadata = dict(cell.metadata)
        cell_id = metadata.pop(_ID, None)
        make = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
                "raw": nbformat.v4.new_raw_cell}[cell.cell_type]
        new = make(cell.source, metadata=metadata)
        if cell_id:
            new.id = cell_id
        out.cells.append(new)
    nbformat.validate(out)
    return out


def build_solutions(course_dir: str | Path, notebooks: list[tuple[str, str]]) -> list[Path]:
    """Write ``solutions/<a>/<n>.ipynb`` from ``sources/<a>/<n>.py`` for each ``(a, n)`` that has a source."""
    written = []
    for assignment, notebook in notebooks:
        source = source_path(course_dir, assignment, notebook)
        if not source.is_file():
            continue
        target = Path(course_dir) / "solutions" / assignment / f"{notebook}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = nbformat.writes(from_percent(source.read_text(encoding="utf-8"))) + "\n"  # as nbformat.write
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(target)
    return written
