"""Read a submitted notebook's bytes into the code cells verification runs and scans.

Rules (documented in the README):

* The bytes must be UTF-8 JSON of an nbformat-4 notebook (``cells`` a list); anything else is a
  recorded reason, not an exception. Full nbformat validation is not required: a notebook with
  odd metadata still runs, as it would in Jupyter.
* A cell is a *test cell* when its nbgrader metadata says ``grade: true`` and not ``solution``
  (nbgrader replaces those with the instructor's version, so a student's edit of one never runs),
  or when its source contains ``### BEGIN HIDDEN TESTS``. Test cells are not executed. A notebook
  whose nbgrader metadata was stripped therefore runs its (harmless, stubbed) ``check(...)`` cells:
  in the sandbox ``check`` and ``Grader`` do nothing.
* IPython syntax: a line whose first non-blank character is ``%`` or ``!`` becomes ``pass`` (same
  line numbers); a cell that starts with a cell magic runs its body for ``%%time``, ``%%timeit``,
  ``%%capture`` and ``%%prun`` and is skipped otherwise (``%%bash``, ``%%writefile``, ...).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

RUN_BODY_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
_MAGIC_LINE = re.compile(r"^([ \t]*)[%!].*$")


def parse_python(source: str):
    """``ast.parse`` of ``source``, retried past CPython 3.11's spurious "AST constructor recursion depth
    mismatch" (python/cpython#106905: a failed AST construction, in any thread of the process,
    can leave module-global state that fails the next parse with SystemError). Other errors
    propagate; a mismatch that persists propagates too (verification then fails closed).
    """
    for attempt in range(3):
        try:
            return ast.parse(source)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc) or attempt == 2:
                raise


class NotANotebook(ValueError):
    """The submitted bytes are not a readable notebook."""


@dataclass
class Cell:
    index: int  # position among all cells of the notebook
    cell_id: str | None
    source: str  # as submitted
    python: str | None  # what runs (IPython syntax neutralised); None: not executed
    is_test: bool
    grade_id: str | None

    @property
    def label(self) -> str:
        return self.cell_id or f"#{self.index}"


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        if not all(isinstance(s, str) for s in source):
            raise NotANotebook("a cell's source is not text")
        return "".join(source)
    if not isinstance(source, str):
        raise NotANotebook("a cell's source is not text")
    return source


def neutralise_ipython(source: str) -> str | None:
    """Plain Python for a cell's source (see the module doc); None when the cell is not Python."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(None, 1)[0] if lines[first].lstrip()[2:].strip() else ""
        if magic not in RUN_BODY_CELL_MAGICS:
            return None
        lines[first] = ""
    return "\n".join(_MAGIC_LINE.sub(lambda m: m.group(1) + "pass", line) for line in lines)


def read_cells(notebook_bytes: bytes) -> list[Cell]:
    """The code cells of a submitted notebook; raises :class:`NotANotebook` with a clear reason."""
    if not isinstance(notebook_bytes, (bytes, bytearray)):
        raise NotANotebook(f"expected the notebook's bytes, got {type(notebook_bytes).__name__}")
    if not notebook_bytes.strip():
        raise NotANotebook("the file is empty")
    try:
        text = bytes(notebook_bytes).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotANotebook("the file is not text (not UTF-8): it is not a Jupyter notebook") from None
    try:
        nb = json.loads(text)
    except RecursionError:
        raise NotANotebook("the file is not a notebook: its JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        if text.lstrip()[:1] not in ("{", "["):
            raise NotANotebook("the file is not a notebook: it is plain text, not JSON "
                               "(was a .py or .txt file renamed to .ipynb?)") from None
        if exc.pos >= len(text.rstrip()) - 1:
            raise NotANotebook(f"the notebook's JSON is truncated (it ends at character {exc.pos} "
                               f"before the notebook is complete)") from None
        raise NotANotebook(f"the notebook's JSON is invalid at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotANotebook("the file is JSON but not a Jupyter notebook (no list of cells)")
    if nb.get("nbformat") not in (4, None):
        raise NotANotebook(f"unsupported notebook format version {nb.get('nbformat')!r} (expected 4)")
    cells = []
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _source(cell)
        metadata = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        meta = metadata.get("nbgrader") if isinstance(metadata.get("nbgrader"), dict) else {}
        is_test = (bool(meta.get("grade")) and not meta.get("solution")) or "### BEGIN HIDDEN TESTS" in source
        grade_id = meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None
        cell_id = cell.get("id") if isinstance(cell.get("id"), str) else None
        cells.append(Cell(index, cell_id, source, None if is_test else neutralise_ipython(source), is_test, grade_id))
    return cells
