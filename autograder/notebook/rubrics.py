"""Rubrics of hand-graded answers: instructor-only cells of the source notebook.

Convention (docs/NOTEBOOK_CONVENTIONS.md): the model answer is the content of the manually
graded markdown cell in the source; its rubric is the markdown cell right after it, with cell
metadata ``autograder={"rubric_for": "<grade_id>"}`` and text starting
``**Rubric (instructor only)**``. Where they go:

* never into the student version: :class:`RemoveRubrics` is the last step of nbgrader's
  ``generate_assignment`` (``nbgrader_config.py``), and ``autograder generate`` refuses a student version that still holds one;
* into the autograded notebook, right after the student's answer, as one markdown cell with the
  rubric and the model answer (:func:`insert_rubrics`, by the coordinator), so formgrader shows
  them to the grader; a submission's own cell that claims to be a rubric is dropped first;
* never into feedback: the feedback page shows only the student's answer cells and refuses any
  text that says "instructor only".
"""
from __future__ import annotations

import json
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

RUBRIC_KEY = "rubric_for"
RUBRIC_HEADING = "**Rubric (instructor only)**"
MODEL_HEADING = "**Model answer (instructor only)**"


def rubric_for(cell: dict) -> str | None:
    """The grade_id a cell is the rubric of, or None (``cell``: a cell as parsed JSON or a node)."""
    meta = (cell.get("metadata") or {}).get("autograder") or {}
    value = meta.get(RUBRIC_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def without_rubrics(nb: dict) -> dict:
    """``nb`` (parsed JSON or a node) with every rubric cell removed, in place; returns it."""
    nb["cells"] = [c for c in nb.get("cells", []) if rubric_for(c) is None]
    return nb


class RemoveRubrics(Preprocessor):
    """nbgrader/nbconvert preprocessor: drop rubric cells (the student version never has them)."""

    # nbconvert's preprocessors are off unless enabled (nbgrader's own set this too): without it
    # stock `nbgrader generate_assignment` silently kept every rubric in the student version
    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        """Remove every cell whose ``autograder.rubric_for`` metadata is set."""
        return without_rubrics(nb), resources


def check_no_rubrics(path: str | Path) -> None:
    """Raise if the student version at ``path`` holds a rubric cell (:class:`RemoveRubrics` should have
    dropped it): a release that would hand students the rubric is refused, never written quietly."""
    path = Path(path)
    left = [rubric_for(c) for c in json.loads(path.read_text(encoding="utf-8")).get("cells", []) if rubric_for(c)]
    if left:
        raise RuntimeError(f"{path} holds the rubric of {', '.join(left)}: nbgrader's generate_assignment must run "
                           f"with autograder.notebook.rubrics.RemoveRubrics (nbgrader_config.py)")


def rubrics_of(source_nb: dict) -> dict[str, str]:
    """``{grade_id: markdown for the grader}`` from a source notebook: the rubric, then the model answer.

    The model answer is the source of the graded cell the rubric names (the cell carrying that
    ``grade_id``); a rubric whose grade_id names no cell is an error (a typo would hide it).
    """
    cells = source_nb.get("cells", [])
    answers = {((c.get("metadata") or {}).get("nbgrader") or {}).get("grade_id"): _text(c.get("source"))
               for c in cells}
    out = {}
    for cell in cells:
        gid = rubric_for(cell)
        if gid is None:
            continue
        if gid not in answers:
            raise ValueError(f"a rubric cell names {RUBRIC_KEY}={gid!r}, but no cell has that grade_id")
        out[gid] = f"{_text(cell.get('source')).strip()}\n\n{MODEL_HEADING}\n\n{answers[gid].strip()}"
    return out


def insert_rubrics(autograded: bytes, source_path: str | Path) -> bytes:
    """The autograded notebook with each rubric (and model answer) right after its graded cell.

    Cells of the submission that claim to be rubrics are removed first: only the source
    notebook's rubrics reach the grader. Returns ``autograded`` unchanged when the source has no
    rubric.
    """
    source_path = Path(source_path)
    if not source_path.is_file():
        return autograded
    rubrics = rubrics_of(json.loads(source_path.read_text(encoding="utf-8")))
    nb = without_rubrics(json.loads(autograded))
    if not rubrics:
        return json.dumps(nb, indent=1, ensure_ascii=False).encode()
    cells = []
    for cell in nb.get("cells", []):
        cells.append(cell)
        gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
        if gid in rubrics:
            rubric = {"cell_type": "markdown", "metadata": {"autograder": {RUBRIC_KEY: gid}, "editable": False,
                                                            "deletable": False}, "source": rubrics[gid]}
            if "id" in cell:  # nbformat 4.5+ notebooks give every cell an id
                rubric["id"] = f"rubric-{gid}"[:64]
            cells.append(rubric)
    nb["cells"] = cells
    return json.dumps(nb, indent=1, ensure_ascii=False).encode()
