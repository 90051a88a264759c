"""Whether a submitted file can be autograded at all: read before any of it runs.

A file that cannot is the student's to fix (:mod:`.faults`): the reason says what to do.
Limits count what costs the grader: the file's bytes (``grading.max_submission_mb``, read by the
coordinator) and its non-empty code cells (``grading.max_code_cells``). Empty cells cost nothing once
:func:`drop_empty_cells` has removed them, before nbgrader's preprocessors or the kernel see them.
"""
from __future__ import annotations

import json
from typing import Mapping

import nbformat

from ..notebook import model

#: The setting that bounds the code cells (named in the reason of a refusal).
CODE_CELLS_SETTING = "grading.max_code_cells"


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source if isinstance(source, str) else "x"


def _empty(cell) -> bool:
    """A cell that nothing grades and nothing runs: no nbgrader metadata, only whitespace (a stuck key, a paste loop)."""
    if not isinstance(cell, Mapping) or cell.get("cell_type") not in ("code", "markdown", "raw"):
        return False
    metadata = cell.get("metadata")
    return isinstance(metadata, Mapping) and "nbgrader" not in metadata and not _text(cell.get("source")).strip()


def drop_empty_cells(data: bytes) -> bytes:
    """The notebook without its empty cells (the bytes unchanged when it has none, or is not a notebook's JSON).

    An empty cell without nbgrader metadata runs nothing and grades nothing, but each one costs every
    preprocessor of nbgrader's a pass (40,000 cost a worker 50 s outside the kernel's clock). A cell with
    nbgrader metadata is always kept (an answer or a test cell the student blanked is graded as such), so an
    honest notebook without empty cells reaches nbgrader byte for byte as submitted.
    """
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return data  # check_notebook gives the reason
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list) or not any(_empty(c) for c in cells):
        return data
    nb["cells"] = [c for c in cells if not _empty(c)]
    return json.dumps(nb, ensure_ascii=False, indent=1).encode()


def check_notebook(data: bytes, grade_ids: set[str], max_code_cells: int = 2000) -> str | None:
    """Return why ``data`` cannot be autograded (None when it can).

    Parameters
    ----------
    data : bytes
        The submitted file (after :func:`drop_empty_cells`).
    grade_ids : set of str
        grade_ids of the notebook's graded and solution cells (from the gradebook): a notebook in
        which none of them can be found has had its nbgrader metadata stripped.
    max_code_cells : int
        The most non-empty code cells a submission may have (``grading.max_code_cells``).
    """
    try:
        nb = model.loads(data)
    except model.NotANotebook as exc:
        return str(exc)
    code = sum(c.cell_type == "code" and bool(c.source.strip()) for c in nb.cells)
    if code > max_code_cells:
        return (f"the notebook has {code:,} code cells that are not empty, more than the {max_code_cells:,} a "
                f"submission may have ({CODE_CELLS_SETTING}): delete the cells you added in bulk (a paste loop, "
                f"a cell copied many times) and submit it again")
    try:
        nbformat.validate(nbformat.reads(data.decode("utf-8-sig"), as_version=4))
    except Exception as exc:  # nbformat raises several exception types
        return f"not a valid notebook: {str(exc).splitlines()[0]}"
    malformed = _malformed_nbgrader(data)
    if malformed:
        return malformed
    present = {c.grade_id for c in nb.cells}
    if grade_ids and not grade_ids & present:
        return ("nbgrader metadata stripped: none of the graded cells can be identified (the notebook was "
                "probably saved by an editor other than Jupyter): download the released notebook again, copy "
                "your answers into its answer cells, save it in Jupyter and submit that")
    return None


def _malformed_nbgrader(data: bytes) -> str | None:
    """Why a cell's nbgrader metadata cannot be read (None when every cell's can): not a mapping, or a grade_id
    that is not text raised inside nbgrader or the grader and passed for a grader fault (red team 3)."""
    cells = json.loads(data.decode("utf-8-sig")).get("cells", [])
    for index, cell in enumerate(cells if isinstance(cells, list) else []):
        metadata = cell.get("metadata") if isinstance(cell, dict) else None
        if not isinstance(metadata, dict) or "nbgrader" not in metadata:
            continue  # nbformat's validation speaks for the cell itself
        meta = metadata["nbgrader"]
        if not isinstance(meta, dict) or not isinstance(meta.get("grade_id", ""), str):
            return (f"nbgrader cannot grade this notebook: cell {index}'s nbgrader metadata is malformed (it must be "
                    f"a mapping whose grade_id is text): download the released notebook again, copy your answers "
                    f"into its answer cells, save it in Jupyter and submit that")
    return None
