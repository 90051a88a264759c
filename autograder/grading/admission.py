"""Whether a submitted file can be autograded at all: read before any of it runs.

A file that cannot is the student's to fix (:mod:`.faults`): the reason says what to do.
"""
from __future__ import annotations

import json

import nbformat

from ..notebook import model


def check_notebook(data: bytes, grade_ids: set[str], max_cells: int = 2000) -> str | None:
    """Return why ``data`` cannot be autograded (None when it can).

    Parameters
    ----------
    data : bytes
        The submitted file.
    grade_ids : set of str
        grade_ids of the notebook's graded and solution cells (from the gradebook): a notebook in
        which none of them can be found has had its nbgrader metadata stripped.
    """
    try:
        nb = model.loads(data)
    except model.NotANotebook as exc:
        return str(exc)
    if len(nb.cells) > max_cells:  # 40,000 empty cells (4 MB) cost a worker 50 s, outside the kernel's clock
        return (f"the notebook has {len(nb.cells):,} cells, more than the {max_cells:,} a submission may have "
                f"(grading.max_cells): delete the cells you added in bulk and submit it again")
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
