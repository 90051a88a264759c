"""The notebooks' reviewable sources: ``sources/<assignment>/<notebook>.py`` in jupytext's percent format.

The percent file is what a course author edits and what a reviewer reads in a diff: one ``# %%``
line per cell (its nbgrader metadata and its id on that line), markdown as comments. The
nbgrader source notebook ``solutions/<assignment>/<notebook>.ipynb`` is generated from it
(:func:`build_solutions`, run by ``autograder generate`` before nbgrader's generate_assignment),
and ``tests/course/test_sources.py`` checks that the two agree byte for byte.

They live outside ``solutions/``: nbgrader copies every other file of an assignment's source
folder into the student version, and the percent file holds the solutions.

The build gives every test cell its visible line (:func:`add_visible_line`): a source test cell

    # Hidden test: softmax, each row of weights sums to 1 (2 points)
    ### BEGIN HIDDEN TESTS
    check("softmax_rows_sum_to_one", globals())
    ### END HIDDEN TESTS

becomes, in ``solutions/`` (and, without the hidden block, in the student version)

    # Test: softmax, each row of weights sums to 1 (2 points)
    # The visible line checks the public example; hidden tests decide the grade.
    grader.validate("softmax_rows_sum_to_one")
    ### BEGIN HIDDEN TESTS
    ...

so nbgrader's Validate checks something in every notebook course.yml lists, a new one included,
with no hand edits. The build also tags the cell ``raises-exception``, as the stubs that raise are
tagged: a failing visible line must not stop JupyterLab's Run All. :func:`to_percent` takes the
line and the tag out again, so the sources stay as written.
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
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
SOURCE_HEADER, BUILT_HEADER = "# Hidden test: ", "# Test: "
#: The comment above a test cell's visible line: for a check of the public example, and for an
#: answer key (a check with ``public=False``), whose visible line checks only the answer's form.
VISIBLE_NOTES = {True: "# The visible line checks the public example; hidden tests decide the grade.",
                 False: "# The visible line checks only the form of your answer; hidden tests decide the grade."}


def visible_line(grade_id: str) -> str:
    """The visible line of the test cell ``grade_id`` (see :meth:`autograder.notebook.Grader.validate`)."""
    return f'grader.validate("{grade_id}")'


def _is_public(grade_id: str) -> bool:
    from ..checks import CHECKS  # the build needs the registry only for this comment

    check = CHECKS.get(grade_id)
    return True if check is None else check.public


def _hidden_start(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if line.strip() == HIDDEN_BEGIN), None)


def add_visible_line(source: str, grade_id: str) -> str:
    """A source test cell with its visible line (and comment) above the hidden block (module doc).

    Raises
    ------
    ValueError
        When the source already has a visible line or a ``# Test:`` header: the build adds them.
    """
    lines = source.split("\n")
    start = _hidden_start(lines)
    if start is None:
        return source
    if any("grader.validate(" in line for line in lines[:start]) or (lines[0].startswith(BUILT_HEADER)):
        raise ValueError(f"test cell {grade_id!r}: its source already has the visible line or a {BUILT_HEADER!r} "
                         f"header; write it as `{SOURCE_HEADER}...` above the hidden block only "
                         f"(`autograder generate` adds the rest)")
    header = lines[:start]
    if header and header[0].startswith(SOURCE_HEADER):
        header[0] = BUILT_HEADER + header[0][len(SOURCE_HEADER):]
    return "\n".join(header + [VISIBLE_NOTES[_is_public(grade_id)], visible_line(grade_id)] + lines[start:])


def strip_visible_line(source: str, grade_id: str) -> str:
    """The inverse of :func:`add_visible_line`; a cell not in the built form is returned as it is."""
    lines = source.split("\n")
    start = _hidden_start(lines)
    if start is None or start < 2 or lines[start - 1] != visible_line(grade_id) \
            or lines[start - 2] not in VISIBLE_NOTES.values():
        return source
    header = lines[:start - 2]
    if header and header[0].startswith(BUILT_HEADER):
        header[0] = SOURCE_HEADER + header[0][len(BUILT_HEADER):]
    return "\n".join(header + lines[start:])


RAISES = "raises-exception"  # the tag that lets Run All go on past a cell that raises


def _tag_test_cell(cell, grade_id: str) -> None:
    tags = list(cell.metadata.get("tags", []))
    if RAISES in tags:
        raise ValueError(f"test cell {grade_id!r}: its source already has the tag {RAISES!r}; "
                         f"`autograder generate` adds it (remove it from the source)")
    cell.metadata["tags"] = tags + [RAISES]


def _untag_test_cell(cell) -> None:
    tags = [t for t in cell.metadata.get("tags", []) if t != RAISES]
    if tags:
        cell.metadata["tags"] = tags
    else:
        cell.metadata.pop("tags", None)


def _test_grade_id(cell) -> str | None:
    """The grade_id of an nbgrader test cell (code, ``grade`` and not ``solution``), else None."""
    meta = cell.metadata.get("nbgrader") or {}
    if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
        return None
    return meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None


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
        if _test_grade_id(cell) and cell.source != strip_visible_line(cell.source, _test_grade_id(cell)):
            cell.source = strip_visible_line(cell.source, _test_grade_id(cell))
            _untag_test_cell(cell)
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
        if _test_grade_id(new) and _hidden_start(new.source.split("\n")) is not None:
            new.source = add_visible_line(new.source, _test_grade_id(new))
            _tag_test_cell(new, _test_grade_id(new))
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
