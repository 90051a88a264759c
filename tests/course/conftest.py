"""Shared infrastructure of the course tests (tests/course/test_nbNN_*.py).

Fixtures (all generic: pass an assignment id such as ``"01_scores_softmax"``):

``course``
    A :class:`Course` helper with
    ``source(a)`` / ``release(a)`` (the committed notebooks, read with nbformat),
    ``answers(a)`` (the instructor's answers, ``grade_id -> source``: code without the solution
    markers, and the model answers of manually graded markdown cells),
    ``answers_only(nb)`` (only the given and nbgrader cells: fast to execute),
    ``source_path(a)`` / ``release_path(a)``, ``meta(cell)``, ``is_test_cell(cell)``, ``cell_summary(nb)``,
    ``solved(a)`` (the released notebook with every answer filled in),
    ``fill(a, answers)`` (the released notebook with some answers replaced),
    ``grade(nb, a, seed=..., fast=False)`` (in-process verdicts; ``fast`` runs only the given and
    nbgrader cells, skipping visible checks and plots) and
    ``failed(nb, a)`` (``{grade_id: Verdict}`` of the failing checks, fast by default).

``nbgrader_course``
    A factory ``nbgrader_course(a) -> NbgraderCourse``: a temporary nbgrader course directory
    (``source/ release/ submitted/ autograded/ gradebook.db``) in which ``generate_assignment``
    has already run on a copy of ``solutions/<a>``. ``course.autograde({student: nb})`` runs
    **one** real ``nbgrader autograde`` over all the given submissions (one process, one kernel
    per submission) and returns ``{student: Result}``; ``Result.cells`` maps each graded cell's
    grade_id to ``(score, max_score)``, ``Result.messages`` maps failing test cells to the text
    the student sees. Cached per session and assignment, so several test modules can share it.

Batch submissions: a kernel start costs about a second, an nbgrader process a few (much more when
the machine is busy). The nbgrader runs set ``AUTOGRADER_SEED=TEST_SEED``, the seed ``course.grade``
uses by default, so a real run and the in-process grader judge the same inputs.
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from autograder import submissions
from autograder.checks.core import Verdict
from autograder.inprocess import grade_notebook
from autograder.notebook import model

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
ASSIGNMENTS = ROOT / "assignments"

#: The seed of the hidden tests in these tests (a grader sets a fresh one per run).
TEST_SEED = 12345


def notebook_path(directory: Path, assignment: str) -> Path:
    return directory / assignment / f"{assignment}.ipynb"


def nbgrader_meta(cell) -> dict:
    return model.nbgrader_meta(cell)


def is_test_cell(cell) -> bool:
    return model.is_test_cell(cell)


class Course:
    """Readers of the committed notebooks and in-process grading (see the module docstring)."""

    def source_path(self, assignment: str) -> Path:
        return notebook_path(SOLUTIONS, assignment)

    def release_path(self, assignment: str) -> Path:
        return notebook_path(ASSIGNMENTS, assignment)

    def source(self, assignment: str):
        return submissions.read(notebook_path(SOLUTIONS, assignment))

    def release(self, assignment: str):
        return submissions.read(notebook_path(ASSIGNMENTS, assignment))

    def answers(self, assignment: str) -> dict[str, str]:
        """The instructor's answers: code cells without the markers, and the model written answers."""
        source = self.source(assignment)
        answers = submissions.solution_answers(source)
        answers.update({nbgrader_meta(c)["grade_id"]: c.source for c in source.cells
                        if c.cell_type == "markdown" and nbgrader_meta(c).get("solution")})
        return answers

    def solved(self, assignment: str):
        return submissions.fill(self.release(assignment), self.answers(assignment))

    def fill(self, assignment: str, answers: dict[str, str], *, on_solution: bool = True):
        """The released notebook with ``answers`` filled in (over the instructor's answers by default)."""
        base = self.solved(assignment) if on_solution else self.release(assignment)
        return submissions.fill(base, answers)

    @staticmethod
    def answers_only(nb):
        """A copy of ``nb`` without the plain code cells (visible checks, examples, plots): fast to execute.

        The checks read only what the given cell and the solution cells define.
        """
        nb = copy.deepcopy(nb)
        nb.cells = [c for c in nb.cells if c.cell_type == "code" and nbgrader_meta(c)]
        return nb

    def grade(self, nb, assignment: str, seed: int = TEST_SEED, *, fast: bool = False, items=None) -> list[Verdict]:
        """In-process verdicts of every check; ``fast`` skips the plain cells (see ``answers_only``); ``items``: a
        student's per-student items (the lesson's without them)."""
        return grade_notebook(self.answers_only(nb) if fast else nb, assignment, seed=seed, items=items)

    def failed(self, nb, assignment: str, seed: int = TEST_SEED, *, fast: bool = True) -> dict[str, Verdict]:
        return {v.grade_id: v for v in self.grade(nb, assignment, seed, fast=fast) if not v.passed}

    # helpers for structural tests
    meta = staticmethod(lambda cell: nbgrader_meta(cell))
    is_test_cell = staticmethod(lambda cell: is_test_cell(cell))

    @staticmethod
    def cell_summary(nb) -> list[dict]:
        """Type, source and nbgrader metadata of every cell (what a regeneration test compares)."""
        return [{"cell_type": c.cell_type, "source": c.source,
                 "nbgrader": json.dumps(nbgrader_meta(c), sort_keys=True)} for c in nb.cells]


@pytest.fixture(scope="session")
def course() -> Course:
    return Course()


# ---------------------------------------------------------------- real nbgrader runs
@dataclass
class Result:
    """One autograded submission, read back from the gradebook and the autograded notebook."""

    student: str
    cells: dict[str, tuple[float | None, float]] = field(default_factory=dict)  # grade_id -> (score, max)
    needs_manual: set[str] = field(default_factory=set)
    messages: dict[str, str] = field(default_factory=dict)  # grade_id -> text of the failing cell's error
    stderr_cells: set[str] = field(default_factory=set)

    @property
    def score(self) -> float:
        return sum(s or 0.0 for s, _ in self.cells.values())

    @property
    def max_score(self) -> float:
        return sum(m for _, m in self.cells.values())

    def auto_max_score(self) -> float:
        return sum(m for g, (_, m) in self.cells.items() if g not in self.needs_manual)

    def lost(self) -> dict[str, float]:
        """grade_id -> points lost, for auto-graded cells that did not get full marks."""
        return {g: m - (s or 0.0) for g, (s, m) in self.cells.items()
                if g not in self.needs_manual and (s or 0.0) < m}


def _nbgrader(root: Path, *args: str, seed: int = TEST_SEED, timeout: int = 600,
              env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, AUTOGRADER_SEED=str(seed), MPLBACKEND="Agg", PYTHONWARNINGS="ignore",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),  # nbgrader runs `alembic`
               **(env or {}))
    cmd = [sys.executable, "-m", "nbgrader", *args,
           f"--CourseDirectory.root={root}", "--CourseDirectory.course_id=course-tests",
           f"--CourseDirectory.db_url=sqlite:///{root / 'gradebook.db'}",
           "--Execute.timeout=60", "--ExecutePreprocessor.kernel_name=python3"]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


class NbgraderCourse:
    """A temporary nbgrader course directory for one assignment (see the module docstring)."""

    def __init__(self, root: Path, assignment: str):
        self.root = root
        self.assignment = assignment
        shutil.copytree(SOLUTIONS / assignment, root / "source" / assignment,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        # The one course setting stock generation needs (autograder/grading/nbconfig.py): rubric
        # cells are instructor-only, so nbgrader's own generate_assignment drops them too.
        (root / "nbgrader_config.py").write_text(
            "from nbgrader.converters import GenerateAssignment\n"
            "from autograder.notebook.rubrics import RemoveRubrics\n"
            "c = get_config()\n"
            "c.GenerateAssignment.preprocessors = [*GenerateAssignment.class_traits()['preprocessors'].default(), "
            "RemoveRubrics]\n")
        self.generate_log = _nbgrader(root, "generate_assignment", assignment, "--force")
        self._results: dict[str, Result] = {}
        self._runs = 0
        self.env: dict[str, str] = {}

    def with_variants(self, secret_env: str, secret: str) -> None:
        """From now on, grade with the course's per-student items (issue 22): the repository's ``course.yml``
        with a ``variants`` section in the course root, and the secret in nbgrader's environment, which its
        kernels inherit (they derive each student's items from the folder nbgrader grades)."""
        from autograder import variants

        (self.root / "course.yml").write_text((ROOT / "course.yml").read_text() + (
            f"variants:\n  secret_env: {secret_env}\n  fingerprint: {variants.fingerprint(secret.encode())}\n"))
        self.env = {secret_env: secret}

    @property
    def release_path(self) -> Path:
        return notebook_path(self.root / "release", self.assignment)

    def release(self):
        return submissions.read(self.release_path)

    def autograde(self, subs: dict, seed: int = TEST_SEED) -> dict[str, Result]:
        """Autograde ``{student: notebook}`` in one nbgrader run (already graded students are reused)."""
        new = {s: nb for s, nb in subs.items() if s not in self._results}
        if new:
            for student, nb in new.items():
                path = notebook_path(self.root / "submitted" / student, self.assignment)
                path.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, str(path))
            self._runs += 1
            _nbgrader(self.root, "autograde", self.assignment, "--create", seed=seed, env=self.env)  # skips graded students
            for student in new:
                self._results[student] = self._read(student)
        return {s: self._results[s] for s in subs}

    def _read(self, student: str) -> Result:
        result = Result(student)
        db = sqlite3.connect(self.root / "gradebook.db")
        try:
            rows = db.execute(
                """
                SELECT bc.name, g.auto_score, g.manual_score, gc.max_score, g.needs_manual_grade
                FROM grade g
                JOIN grade_cells gc ON g.cell_id = gc.id
                JOIN base_cell bc ON bc.id = gc.id
                JOIN submitted_notebook sn ON g.notebook_id = sn.id
                JOIN submitted_assignment sa ON sn.assignment_id = sa.id
                JOIN assignment a ON sa.assignment_id = a.id
                WHERE sa.student_id = ? AND a.name = ?
                """, (student, self.assignment)).fetchall()
        finally:
            db.close()
        if not rows:
            raise RuntimeError(f"no grades for {student} in the gradebook")
        for name, auto, manual, max_score, needs_manual in rows:
            score = manual if manual is not None else auto
            result.cells[name] = (score, max_score)
            if needs_manual:
                result.needs_manual.add(name)
        graded = submissions.read(notebook_path(self.root / "autograded" / student, self.assignment))
        for cell in graded.cells:
            meta = nbgrader_meta(cell)
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    result.messages[meta["grade_id"]] = "\n".join(output.get("traceback", [])) or output.get("evalue", "")
                if output.get("output_type") == "stream" and output.get("name") == "stderr":
                    result.stderr_cells.add(meta["grade_id"])
        return result


@pytest.fixture(scope="session")
def nbgrader_course(tmp_path_factory):
    """Factory: ``nbgrader_course("01_scores_softmax") -> NbgraderCourse`` (one per assignment per session)."""
    cache: dict[str, NbgraderCourse] = {}
    lock = threading.Lock()  # test_nbgrader.py makes them two at a time

    def make(assignment: str) -> NbgraderCourse:
        with lock:
            if assignment in cache:
                return cache[assignment]
            root = tmp_path_factory.mktemp(f"nbgrader-{assignment}")
        made = NbgraderCourse(root, assignment)
        with lock:
            return cache.setdefault(assignment, made)

    return make

