"""The course configuration: ``course.yml``'s schema and its loader.

The schema is declared with pydantic v2 (``extra="forbid"`` everywhere): it gives typed
objects to the rest of the package, and its validation errors carry the key path, which the
loader turns into ``assignments[2].points (course.yml line 31): ...`` using the line numbers
recorded while the YAML was parsed. A key repeated in one mapping, which YAML would resolve
silently to the last, is reported the same way.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

COURSE_FILE = "course.yml"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LatePolicy(_Model):
    """What a late submission costs (applied by nbgrader's late-penalty step)."""

    method: Literal["none", "zero", "per_day"] = "none"
    points_per_day: float = Field(0.0, ge=0)
    grace_minutes: float = Field(0.0, ge=0)


class Assignment(_Model):
    """One assignment: its notebooks (names without ``.ipynb``) and total points."""

    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    title: str
    notebooks: list[str] = Field(min_length=1)
    points: float = Field(ge=0)
    due: dt.datetime | None = Field(None, description="ISO 8601 with a timezone, e.g. 2027-02-01T23:59:00+01:00; "
                                                      "late penalties count from it")
    late_policy: LatePolicy = LatePolicy()
    bonus: bool = False

    @field_validator("due")
    @classmethod
    def _due_has_timezone(cls, value: dt.datetime | None) -> dt.datetime | None:
        # A due date without a zone means a different instant on every machine (nbgrader's
        # exchange stamps submissions in UTC): refuse it rather than guess.
        if value is not None and value.utcoffset() is None:
            raise ValueError("a due date needs a timezone (ISO 8601, e.g. 2027-02-01T23:59:00+01:00 or ...Z)")
        return value

    def is_due(self, now: dt.datetime) -> bool:
        """Whether the due date has passed at ``now`` (an assignment with no due date never is)."""
        return self.due is not None and self.due <= now


class SandboxLimits(_Model):
    """Limits of the sandboxes student code runs in: the nbgrader kernel's and verification's.

    The one definition: ``autograder.sandbox.launch.Limits`` is this model.
    """

    cpu_seconds: float = Field(20.0, gt=0)
    memory_mb: int = Field(1024, gt=0)
    output_bytes: int = Field(1_000_000, gt=0)
    pids: int = Field(64, gt=0, description="processes (and threads) of one sandbox, the kernel's or the runner's")
    kernel_output_bytes: int = Field(
        8_000_000, gt=0, description="cell output the student's nbgrader kernel may produce (the rest is dropped)")
    wall_seconds: float = Field(120.0, gt=0, description="the whole verification of one submission")
    cell_seconds: float = Field(30.0, gt=0, description="one notebook cell, or one call of a student function, "
                                                        "in verification")

    @classmethod
    def coerce(cls, value: "SandboxLimits | dict | None") -> "SandboxLimits":
        """The limits from None (defaults), an instance, or a mapping (validated: unknown keys are errors)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        return cls.model_validate(dict(value))


class Grading(_Model):
    """Grading settings shared by stock nbgrader and ``autograder grade``."""

    cell_timeout: int = Field(30, gt=0, description="seconds per cell (nbgrader's Execute.timeout)")
    submission_timeout: float = Field(300.0, gt=0, description="wall-clock seconds per submission")
    workers: int | None = Field(None, gt=0, description="default: one per core")
    db_url: str = "sqlite:///gradebook.db"
    sandbox: SandboxLimits = SandboxLimits()
    max_submission_mb: float = Field(
        20.0, gt=0, description="a submitted notebook larger than this is recorded as failed, never read (the "
                                "course's notebooks are 30-80 kB)")
    max_code_cells: int = Field(
        2000, gt=0, description="a submitted notebook with more code cells that are not empty is recorded as "
                                "failed (the course's have 20-60); empty cells are dropped before grading and "
                                "markdown is not counted: max_submission_mb bounds the rest")
    lock_wait_seconds: float = Field(
        30.0, gt=0, description="how long a gradebook write waits for a lock another session holds (formgrader "
                                "mid-edit, a stuck client); then the batch is reported as a grader error, "
                                "nothing of it recorded, and graded again by the next run")
    worker_memory_mb: int = Field(
        1024, ge=256, description="address space a grading worker process may add to what it holds when it starts "
                                 "(RLIMIT_AS; grading 01-07 adds at most 215 MB): beyond it the worker's job fails "
                                 "with MemoryError (or the worker dies), is retried and reported as a grader error; "
                                 "the kernels and verification sandboxes it starts set their own limits "
                                 "(sandbox.memory_mb)")
    unreadable_timestamp: Literal["on_time", "late"] = Field(
        "on_time", description="a submission whose timestamp.txt cannot be read is graded as on time, or as late "
                               "(submitted when it is graded); either way it is flagged 'timestamp unreadable'")

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, value):
        # max_cells counted every cell, empty ones too: an honest notebook padded by a stuck key was refused
        if isinstance(value, dict) and "max_cells" in value:
            raise ValueError("max_cells was renamed max_code_cells: it now counts the code cells that are not empty "
                             "(empty cells are dropped before grading, markdown is not counted); rename the key")
        return value


class Exchange(_Model):
    """nbgrader's exchange: where ``release_assignment`` puts assignments and students ``submit``."""

    root: str = Field("exchange", description="the exchange directory, relative to the course directory or "
                                              "absolute (JupyterHub: /srv/nbgrader/exchange, shared by all users)")
    timezone: str = Field("UTC", description="timezone nbgrader's exchange writes timestamps in")
    accounts: Literal["per-student", "shared"] = Field(
        "per-student", description="per-student: each student submits from their own Unix account, whose login is "
                                   "their student id (a JupyterHub with local users), and a submission collected "
                                   "from another account is refused; shared: every student's server runs as one "
                                   "account (a container hub's jovyan), so who submitted cannot be told")

    def path(self, course_dir: str | Path) -> Path:
        """The exchange directory as an absolute path."""
        return (Path(course_dir) / self.root).resolve()


class Lms(_Model):
    """How grades reach the learning platform (``nbgrader export --exporter autograder.grading.lms.CanvasExport``)."""

    ids: str | None = Field(None, description="CSV with the columns student_id (the hub login) and lms_id, relative "
                                              "to the course; without it the login is the LMS id")


class Variants(_Model):
    """Where the course secret of per-student numbers lives (issue 22, :mod:`autograder.variants`).

    The secret never lives in the repository or the student kit: the instructor keeps it in an
    environment variable of the grading account, or in a file outside the course directory, and
    ``course.yml`` names where. Either or both (the variable wins when it is set). Classroom grading
    refuses to start without the secret; self-study always uses the fixed public secret.
    """

    secret_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                                   description="name of the environment variable that holds the course secret")
    secret_file: str | None = Field(None, description="absolute path of a file outside the course directory whose "
                                                      "contents are the course secret")
    fingerprint: str | None = Field(None, pattern=r"^[0-9a-f]{16}$",
                                    description="16 hex digits that identify the secret without revealing it "
                                                "(autograder.variants.fingerprint); a classroom course needs it, "
                                                "so that grading with another secret is refused")

    @field_validator("secret_file")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        # A relative path would be read relative to wherever the grader was started, and one inside
        # the course directory travels with the repository and the kit: refuse both here.
        if value is not None and not Path(value).is_absolute():
            raise ValueError("the secret file must be an absolute path outside the course directory "
                             "(e.g. /etc/autograder/attention.secret)")
        return value

    @model_validator(mode="after")
    def _somewhere(self) -> "Variants":
        if self.secret_env is None and self.secret_file is None:
            raise ValueError("name where the course secret lives: secret_env (an environment variable) "
                             "and/or secret_file (an absolute path outside the course directory)")
        return self


class Course(_Model):
    """The whole of ``course.yml``."""

    course_id: str
    title: str
    assignments: list[Assignment] = Field(min_length=1)
    grading: Grading = Grading()
    exchange: Exchange = Exchange()
    lms: Lms = Lms()
    roster: str | None = Field(None, description="CSV with a student_id column, relative to the course")
    mode: Literal["classroom", "self-study"] = Field(
        "self-study", description="classroom: students get the student kit (no hidden checks, no answers; "
                                  "`autograder check` runs public checks only); self-study: the whole package "
                                  "(`autograder check` grades against the hidden checks, whose answers are readable)")
    variants: Variants | None = Field(
        None, description="per-student numbers (issue 22): where the course secret lives; without this section "
                          "every student gets the lesson's shared numbers")

    @model_validator(mode="after")
    def _unique_ids(self) -> "Course":
        ids = [a.id for a in self.assignments]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate assignment ids: {', '.join(dupes)}")
        return self

    def calendar_problems(self) -> list[tuple[tuple, str]]:
        """``(key path, message)`` of each assignment without a due date in a classroom course.

        A field validator cannot see ``mode``, and a model validator's error has no key path: the
        loader reports these like the schema's errors (:func:`parse_course`). Self-study courses
        need no calendar; a classroom course does, because an assignment without a due date is
        never due: the student kit withholds what it grades forever, and nothing is ever late.
        """
        if self.mode != "classroom":
            return []
        return [(("assignments", i, "due"), f"{a.id} has no due date: mode: classroom needs one for every assignment "
                                            f"(the student kit's releases and late penalties count from it)")
                for i, a in enumerate(self.assignments) if a.due is None]

    def assignment(self, assignment_id: str) -> Assignment:
        """Return the assignment called ``assignment_id`` (KeyError if unknown)."""
        for a in self.assignments:
            if a.id == assignment_id:
                return a
        raise KeyError(f"no assignment {assignment_id!r} in {COURSE_FILE}")

    @property
    def course_points(self) -> float:
        """Total points of the non-bonus assignments."""
        return sum(a.points for a in self.assignments if not a.bonus)


class CourseConfigError(ValueError):
    """``course.yml`` is invalid; the message lists every problem with its path and line."""


def _line_index(node: yaml.Node, path: tuple = (), index: dict | None = None,
                duplicates: list | None = None) -> dict:
    """Map every key path of a composed YAML document to its 1-based line.

    A key repeated in one mapping (YAML keeps the last silently) is appended to ``duplicates``
    as ``(path, line, line_before)``; the index holds the last line, whose value is the one kept.
    """
    index = {} if index is None else index
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (key.value if isinstance(key, yaml.ScalarNode) else f"<{key.tag}>",)
            if sub in index and duplicates is not None:
                duplicates.append((sub, key.start_mark.line + 1, index[sub]))
            index[sub] = key.start_mark.line + 1
            _line_index(value, sub, index, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            index[path + (i,)] = item.start_mark.line + 1
            _line_index(item, path + (i,), index, duplicates)
    return index


def _dotted(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _line_of(loc: tuple, lines: dict) -> int | None:
    # Pydantic may add a trailing part that is not a YAML key (a union member name):
    # fall back to the longest prefix that exists in the document.
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None


def _problem(loc: tuple, lines: dict, source: str, msg: str, line: int | None = None) -> str:
    """The one format of every ``course.yml`` problem: ``key.path (source line N): message``."""
    line = line or _line_of(loc, lines)
    return f"{_dotted(loc)} ({f'{source} line {line}' if line else source}): {msg}"


def _read_yaml(text: str, source: str) -> tuple[object, dict, list[str]]:
    """Parse ``text`` once: its data, the line of every key path, and one problem per repeated key."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise CourseConfigError(f"{source}: not valid YAML: {exc}") from None
    finally:
        loader.dispose()
    duplicates: list = []
    lines = _line_index(node, duplicates=duplicates) if node is not None else {}
    return data, lines, [_problem(loc, lines, source, f"duplicate key (also at line {before})", line)
                         for loc, line, before in duplicates]


def parse_course(text: str, source: str = COURSE_FILE) -> Course:
    """Validate the text of a ``course.yml``.

    Parameters
    ----------
    text : str
        YAML text.
    source : str
        Name used in error messages.

    Returns
    -------
    Course

    Raises
    ------
    CourseConfigError
        With one line per problem: ``key.path (source line N): message`` (a key repeated in one
        mapping is one, quoting the line of the repeat).
    """
    data, lines, problems = _read_yaml(text, source)
    try:
        course = Course.model_validate(data if data is not None else {})
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
            problems.append(_problem(loc, lines, source, "unknown key" if err["type"] == "extra_forbidden"
                                     else err["msg"]))
    else:
        problems += [_problem(loc, lines, source, msg) for loc, msg in course.calendar_problems()]
    if problems:
        raise CourseConfigError("\n".join(problems))
    return course


def load_course(course_dir: str | Path = ".") -> Course:
    """Read and validate ``<course_dir>/course.yml`` (see :func:`parse_course`)."""
    path = Path(course_dir) / COURSE_FILE
    return parse_course(path.read_text(encoding="utf-8"), source=path.name)


def points_in_notebooks(course_dir: str | Path = ".", source_directory: str = "solutions") -> dict[str, float]:
    """Sum the nbgrader points of every graded cell, per assignment, in the source notebooks.

    Parameters
    ----------
    course_dir : str or Path
        The course directory.
    source_directory : str
        Where the nbgrader source notebooks are (``solutions``).

    Returns
    -------
    dict
        ``{assignment_id: points}`` for every assignment folder that holds notebooks.
    """
    from .notebook import model

    totals: dict[str, float] = {}
    root = Path(course_dir) / source_directory
    for nb_path in sorted(root.glob("*/*.ipynb")):
        totals[nb_path.parent.name] = totals.get(nb_path.parent.name, 0.0) + model.read(nb_path).points
    return totals


def _point_problems(course: Course, course_dir, source_directory, assignments=None) -> list[tuple[int, str]]:
    found = points_in_notebooks(course_dir, source_directory)
    problems = []
    for i, a in enumerate(course.assignments):
        if assignments is not None and a.id not in assignments:
            continue
        missing = [p for p in (Path(course_dir) / source_directory / a.id / f"{nb}.ipynb" for nb in a.notebooks)
                   if not p.is_file()]
        if missing:
            problems.append((i, f"{COURSE_FILE} names {a.id}, but {', '.join(str(p) for p in missing)} "
                                f"does not exist"))
            continue
        got = found.get(a.id, 0.0)
        if abs(got - a.points) > 1e-9:
            problems.append((i, f"{COURSE_FILE} says {a.points:g} but the notebooks of {a.id} total {got:g}"))
    return problems


def check_points(course: Course, course_dir: str | Path = ".", source_directory: str = "solutions") -> list[str]:
    """List the disagreements between ``course.yml`` points and the notebooks' points.

    An assignment whose notebooks do not exist is a disagreement too.

    Returns
    -------
    list of str
        One ``assignments[i].points: ...`` message per assignment that disagrees.
    """
    return [f"assignments[{i}].points: {msg}" for i, msg in _point_problems(course, course_dir, source_directory)]


def validate_course(course_dir: str | Path = ".", source_directory: str = "solutions",
                    assignments: list[str] | None = None) -> Course:
    """Load ``course.yml`` and check its points against the notebooks (of ``assignments``, default all).

    A notebook that ``course.yml`` names and that does not exist is an error too.

    Raises
    ------
    CourseConfigError
        If the file is invalid or the points disagree (quoting the line of each ``points`` key).
    """
    course = load_course(course_dir)
    problems = _point_problems(course, course_dir, source_directory, assignments)
    if problems:
        path = Path(course_dir) / COURSE_FILE
        _, lines, _ = _read_yaml(path.read_text(encoding="utf-8"), path.name)
        raise CourseConfigError("\n".join(_problem(("assignments", i, "points"), lines, path.name, msg)
                                           for i, msg in problems))
    return course
