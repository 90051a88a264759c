"""The one reader of notebooks: bytes, files or nbformat nodes in, classified cells out.

Every part reads notebooks through this module: verification and the static scan (which cells
run, as what Python), the in-process grader and ``autograder check`` (the student kit's too: the
kit ships this file as it is, so it must import nothing of the package), the grading job's
admission check, the points of ``course.yml``'s consistency check, and feedback (the student's
own answer cells). Rules (documented in the README):

* The bytes must be UTF-8 JSON of an nbformat-4 notebook (``cells`` a list); anything else is a
  :class:`NotANotebook` whose message says what is wrong. Full nbformat validation is not
  required here: a notebook with odd metadata still runs, as it would in Jupyter.
* A cell is a *test cell* when its nbgrader metadata says ``grade: true`` and not ``solution``
  (nbgrader replaces those with the instructor's version, so a student's edit of one never runs),
  or when it is a code cell whose source contains ``### BEGIN HIDDEN TESTS``, or a code cell whose
  only code is a test cell's visible line ``grader.validate("<grade_id>")`` (the student version
  of a test cell whose metadata was stripped: grader code, not the student's). Test cells are not
  executed by the graders. A notebook whose nbgrader metadata was stripped therefore runs its
  (harmless) ``check(...)`` cells, unless the grading job first puts the release's metadata back
  (:func:`restore_metadata`: matched by cell id, or one for one by order and type).
* IPython syntax: a line whose first non-blank character is ``%`` or ``!`` becomes ``pass`` at
  the same indentation (same line numbers, and an indented magic still parses); a cell that
  starts with a cell magic runs its body for ``%%time``, ``%%timeit``, ``%%capture`` and
  ``%%prun`` and is not Python otherwise (``%%bash``, ``%%writefile``, ...).
* Points: the ``points`` of every cell nbgrader grades (``grade: true`` or a ``task`` cell).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

RUN_BODY_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"
_MAGIC_LINE = re.compile(r"^([ \t]*)[%!].*$")
_VISIBLE_LINE = re.compile(r"""grader\.validate\(["'][A-Za-z0-9_\-]+["']\)""")


class NotANotebook(ValueError):
    """The submitted bytes are not a readable notebook."""


def parse_python(source: str) -> ast.Module:
    """``ast.parse`` of ``source``, retried past CPython 3.11's spurious "AST constructor recursion depth
    mismatch" (python/cpython#106905: the module-global state of ``ast`` is shared by the threads
    of a process, so a parse in another thread can fail this one with SystemError). Other errors
    propagate; a mismatch that persists propagates too (verification then fails closed).
    """
    for attempt in range(3):
        try:
            return ast.parse(source)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc) or attempt == 2:
                raise
    raise AssertionError("unreachable")


def neutralise_ipython(source: str) -> str | None:
    """Plain Python for a code cell's source (see the module doc); None when the cell is not Python."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(None, 1)[0] if lines[first].lstrip()[2:].strip() else ""
        if magic not in RUN_BODY_CELL_MAGICS:
            return None
        lines[first] = ""
    return "\n".join(_MAGIC_LINE.sub(lambda m: m.group(1) + "pass", line) for line in lines)


def nbgrader_meta(cell: Mapping) -> dict:
    """A cell's ``metadata.nbgrader`` (an empty dict when absent or not a mapping)."""
    metadata = cell.get("metadata") if isinstance(cell.get("metadata"), Mapping) else {}
    meta = metadata.get("nbgrader")
    return dict(meta) if isinstance(meta, Mapping) else {}


def _source(cell: Mapping) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        if not all(isinstance(s, str) for s in source):
            raise NotANotebook("a cell's source is not text")
        return "".join(source)
    if not isinstance(source, str):
        raise NotANotebook("a cell's source is not text")
    return source


def _only_visible_line(source: str) -> bool:
    """Whether a cell's only code (comments and blank lines aside) is one test cell's visible line."""
    code = [line.strip() for line in source.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    return len(code) == 1 and _VISIBLE_LINE.fullmatch(code[0]) is not None


def is_test_cell(cell: Mapping) -> bool:
    """Whether a notebook cell (a mapping, as in the JSON) is a test cell (see the module doc)."""
    meta = nbgrader_meta(cell)
    if meta.get("grade") and not meta.get("solution"):
        return True
    if cell.get("cell_type") != "code":
        return False
    source = _source(cell)
    return HIDDEN_TESTS in source or _only_visible_line(source)


@dataclass(frozen=True)
class Cell:
    """One cell, classified."""

    index: int  # position among all cells of the notebook
    cell_id: str | None
    cell_type: str  # "code", "markdown", "raw"
    source: str  # as submitted
    meta: dict = field(default_factory=dict, repr=False)  # its nbgrader metadata

    @property
    def label(self) -> str:
        return self.cell_id or f"#{self.index}"

    @property
    def grade_id(self) -> str | None:
        value = self.meta.get("grade_id")
        return value if isinstance(value, str) else None

    @property
    def is_test(self) -> bool:
        return is_test_cell({"cell_type": self.cell_type, "source": self.source, "metadata": {"nbgrader": self.meta}})

    @property
    def is_solution(self) -> bool:
        return bool(self.meta.get("solution"))

    @property
    def locked(self) -> bool:
        return bool(self.meta.get("locked"))

    @property
    def points(self) -> float:
        """The points nbgrader gives this cell (0 for a cell it does not grade)."""
        if not (self.meta.get("grade") or self.meta.get("task")):
            return 0.0
        try:
            return float(self.meta.get("points", 0) or 0)
        except (TypeError, ValueError):
            return 0.0

    @property
    def python(self) -> str | None:
        """What the graders execute for this cell; None for a test cell or a cell that is not Python."""
        if self.cell_type != "code" or self.is_test:
            return None
        return neutralise_ipython(self.source)


@dataclass(frozen=True)
class Notebook:
    """A notebook's cells (and its JSON, for what the graders do not model)."""

    cells: list[Cell]
    raw: dict = field(repr=False)

    @property
    def code_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.cell_type == "code"]

    @property
    def points(self) -> float:
        return sum(c.points for c in self.cells)


def from_json(nb: Any) -> Notebook:
    """A :class:`Notebook` from parsed JSON (a dict, or an ``nbformat.NotebookNode``)."""
    if not isinstance(nb, Mapping) or not isinstance(nb.get("cells"), list):
        raise NotANotebook("the file is JSON but not a Jupyter notebook (no list of cells)")
    if nb.get("nbformat") not in (4, None):
        raise NotANotebook(f"unsupported notebook format version {nb.get('nbformat')!r} (expected 4)")
    cells = []
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, Mapping):
            continue
        kind = cell.get("cell_type") if isinstance(cell.get("cell_type"), str) else "code"
        cell_id = cell.get("id") if isinstance(cell.get("id"), str) else None
        cells.append(Cell(index, cell_id, kind, _source(cell), nbgrader_meta(cell)))
    return Notebook(cells, dict(nb))


def loads(data: bytes | bytearray | str) -> Notebook:
    """Parse a notebook's bytes; raises :class:`NotANotebook` with a reason a student can act on."""
    if isinstance(data, (bytes, bytearray)):
        if not bytes(data).strip():
            raise NotANotebook("the file is empty")
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise NotANotebook("the file is not text (not UTF-8): it is not a Jupyter notebook") from None
    elif isinstance(data, str):
        text = data
    else:
        raise NotANotebook(f"expected the notebook's bytes, got {type(data).__name__}")
    if not text.strip():
        raise NotANotebook("the file is empty")
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
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise NotANotebook(f"the notebook's JSON cannot be read: {exc}") from None
    return from_json(nb)


def last_definition_wins(data: bytes) -> bytes:
    """The notebook with each nbgrader ``grade_id`` kept on its last cell only (the bytes unchanged if none repeats).

    A student who copies a solution cell to try again has two cells with one grade_id, and nbgrader
    refuses the whole notebook ("nbgrader update ."). Run All lets the last definition win, so the
    earlier copies lose their nbgrader metadata and run as ordinary cells.
    """
    nb = json.loads(data.decode("utf-8-sig"))
    last = {}
    for index, cell in enumerate(nb.get("cells", [])):
        grade_id = nbgrader_meta(cell).get("grade_id") if isinstance(cell, Mapping) else None
        if isinstance(grade_id, str):
            last[grade_id] = index
    changed = False
    for index, cell in enumerate(nb.get("cells", [])):
        grade_id = nbgrader_meta(cell).get("grade_id") if isinstance(cell, Mapping) else None
        if isinstance(grade_id, str) and last[grade_id] != index:
            cell["metadata"].pop("nbgrader")
            changed = True
    return json.dumps(nb, ensure_ascii=False, indent=1).encode() if changed else data


def restore_test_cells(data: bytes, tests: list[tuple[str, float]]) -> bytes:
    """The notebook with an empty test cell appended for each of ``tests`` (``(grade_id, points)``) it lacks.

    A student may delete the test cells' placeholders; nbgrader then has no cell to put the
    hidden test in (and no score for it). The appended cells carry only the nbgrader metadata:
    nbgrader's autograde puts the instructor's source in, and they run after every answer cell.
    """
    nb = json.loads(data.decode("utf-8-sig"))
    cells = nb.get("cells", [])
    present = {nbgrader_meta(c).get("grade_id") for c in cells if isinstance(c, Mapping)}
    missing = [(grade_id, points) for grade_id, points in tests if grade_id not in present]
    if not missing:
        return data
    for grade_id, points in missing:
        cells.append({"cell_type": "code", "execution_count": None, "outputs": [], "source": "",
                      "id": "restored-" + re.sub(r"[^A-Za-z0-9_-]", "-", grade_id)[:50],
                      "metadata": {"nbgrader": {"grade": True, "grade_id": grade_id, "locked": True, "points": points,
                                                "schema_version": 3, "solution": False, "task": False}}})
    return json.dumps(nb, ensure_ascii=False, indent=1).encode()


class Unmatched(NotANotebook):
    """A notebook whose nbgrader metadata was stripped and whose cells no longer match the released notebook."""


def layout(nb: Any) -> list[dict]:
    """The released notebook's skeleton: ``{"cell_type", "id", "nbgrader"}`` per cell, in order.

    What :func:`restore_metadata` needs of the release (the ``nbgrader`` metadata is None for a
    cell nbgrader does not track); plain data, so it travels with a grading job.
    """
    return [{"cell_type": c.cell_type, "id": c.cell_id, "nbgrader": dict(c.meta) or None}
            for c in as_notebook(nb).cells]


def _matches_by_id(cells: list, release: list[dict]) -> dict[int, dict] | None:
    """Submitted cell index -> release cell, matched by cell id; None unless every answer cell is found.

    Cell ids survive most editors that drop unknown metadata, and this course's ids carry the
    grade_id (``c03-dot-product``). A solution cell must keep its type: a code answer in a markdown
    cell is not the answer. Test and locked cells may be missing or changed (nbgrader restores them).
    """
    ids = [c.get("id") for c in cells]
    found = {}
    for spec in release:
        if not spec["nbgrader"]:
            continue
        hits = [i for i, cell_id in enumerate(ids) if spec["id"] is not None and cell_id == spec["id"]]
        if len(hits) > 1:
            return None
        if not hits:
            if spec["nbgrader"].get("solution"):
                return None
            continue
        if spec["nbgrader"].get("solution") and cells[hits[0]].get("cell_type") != spec["cell_type"]:
            return None
        found[hits[0]] = spec
    return found or None


def _decides(meta: Mapping) -> tuple:
    """What a cell's nbgrader metadata decides (the release's always wins): its kind, lock and points."""
    flags = tuple(bool(meta.get(k)) for k in ("grade", "solution", "locked", "task"))
    try:
        points = float(meta.get("points") or 0) if flags[0] or flags[3] else None
    except (TypeError, ValueError):
        points = float("nan")  # never equal: the release's points come back
    return flags + (points,)


def restore_metadata(data: bytes, release: list[dict]) -> bytes:
    """The notebook with the released notebook's nbgrader metadata put back where it was stripped or changed.

    A notebook saved by another editor may lose every cell's ``metadata.nbgrader``; nbgrader then
    cannot find a single answer. Its cells are matched to the release (``release``, from
    :func:`layout`) by cell id, or else one for one by position and cell type, and each matched
    cell gets the release's metadata, whole: the release decides which cell is a test, which an
    answer, and the points (a student's cell where a test cell is expected becomes that test cell,
    whose source nbgrader restores). In a notebook that kept its metadata, a cell whose grade_id the
    release knows gets the release's metadata back when the student changed what it decides (a test
    made an answer, unlocked, or given other points; stock nbgrader then fails the notebook on
    "Inconsistent checksums"). The bytes come back unchanged when nothing differs.

    Raises
    ------
    Unmatched
        When a stripped notebook's cells can be matched neither way (the message says what the
        student can do).
    """
    nb = json.loads(data.decode("utf-8-sig"))
    cells = [c for c in nb.get("cells", []) if isinstance(c, Mapping)]
    if not any(spec["nbgrader"] for spec in release):
        return data
    if any(nbgrader_meta(c) for c in cells):
        found = _changed_by_grade_id(cells, release)
    else:
        found = _matches_by_id(cells, release)
        if found is None and [c.get("cell_type") for c in cells] == [spec["cell_type"] for spec in release]:
            found = {i: spec for i, spec in enumerate(release) if spec["nbgrader"]}
        if found is None:
            raise Unmatched(
                f"the notebook's nbgrader metadata was removed (it was probably saved by an editor other than "
                f"Jupyter), and its cells no longer match the released notebook's, neither by cell id nor one for "
                f"one in order ({len(cells)} cells submitted, {len(release)} released): download the released "
                f"notebook again, copy your answers into its answer cells, save it in Jupyter and submit that")
    if not found:
        return data
    for index, spec in found.items():
        cell = cells[index]
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = {}
        cell["metadata"]["nbgrader"] = json.loads(json.dumps(spec["nbgrader"]))
    return json.dumps(nb, ensure_ascii=False, indent=1).encode()


def _changed_by_grade_id(cells: list, release: list[dict]) -> dict[int, dict]:
    """Submitted cell index -> release cell, for the cells whose grade_id the release knows and whose deciding
    nbgrader metadata the student changed."""
    by_grade_id = {spec["nbgrader"].get("grade_id"): spec for spec in release if spec["nbgrader"]}
    found = {}
    for index, cell in enumerate(cells):
        meta = nbgrader_meta(cell)
        spec = by_grade_id.get(meta.get("grade_id")) if isinstance(meta.get("grade_id"), str) else None
        if spec is not None and _decides(meta) != _decides(spec["nbgrader"]):
            found[index] = spec
    return found


def read(path: str | Path) -> Notebook:
    """Read a notebook file (see :func:`loads`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise NotANotebook(f"{path} cannot be read: {exc.strerror or exc}") from None
    return loads(data)


def as_notebook(nb: Any) -> Notebook:
    """``nb`` as a :class:`Notebook`: a Notebook, bytes, a path, or parsed JSON / an nbformat node."""
    if isinstance(nb, Notebook):
        return nb
    if isinstance(nb, (bytes, bytearray, str)):
        return loads(nb)
    if isinstance(nb, Path):
        return read(nb)
    return from_json(nb)


def read_cells(notebook_bytes: bytes) -> list[Cell]:
    """The code cells of a submitted notebook; raises :class:`NotANotebook` with a clear reason."""
    if not isinstance(notebook_bytes, (bytes, bytearray)):
        raise NotANotebook(f"expected the notebook's bytes, got {type(notebook_bytes).__name__}")
    return loads(notebook_bytes).code_cells
