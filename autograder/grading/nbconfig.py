"""nbgrader settings derived from ``course.yml``.

One function builds the traitlets config that both the repo's ``nbgrader_config.py`` (stock
nbgrader commands) and the grading workers (temporary course directories) use, so the two can
never disagree about timeouts, stubs or late penalties.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from nbgrader.converters import GenerateAssignment
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Dict
from traitlets.config import Config

from ..config import Course
from ..notebook.rubrics import RemoveRubrics
from . import provenance

#: What a solution region becomes in the student version (ARCHITECTURE: "a stub
#: ``raise NotImplementedError()``"); nbgrader's default, stated so it cannot drift.
CODE_STUB = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}


def absolute_db_url(db_url: str, course_dir: str | Path) -> str:
    """Resolve a relative SQLite path against the course directory (other URLs unchanged)."""
    prefix = "sqlite:///"
    if db_url.startswith(prefix) and not db_url.startswith(prefix + "/") and db_url != "sqlite://":
        return prefix + str((Path(course_dir) / db_url[len(prefix):]).resolve())
    return db_url


def alembic_on_path() -> None:
    """Make the ``alembic`` beside this interpreter findable.

    nbgrader creates a new gradebook by running ``alembic`` as a subprocess from PATH, which
    fails with FileNotFoundError when the virtual environment is not activated
    (``.venv/bin/nbgrader ...``).
    """
    here = str(Path(sys.executable).parent)
    if here not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])


def nbgrader_config(course: Course, course_dir: str | Path, db_url: str | None = None) -> Config:
    """Return the nbgrader config of a course (and put nbgrader's ``alembic`` on PATH).

    Parameters
    ----------
    course : Course
        The validated ``course.yml``.
    course_dir : str or Path
        The nbgrader course root.
    db_url : str, optional
        Overrides ``grading.db_url`` (workers point it at their private gradebook copy).

    Returns
    -------
    traitlets.config.Config
    """
    alembic_on_path()
    c = Config()
    c.CourseDirectory.root = str(Path(course_dir).resolve())
    c.CourseDirectory.course_id = course.course_id
    c.CourseDirectory.source_directory = "solutions"
    c.CourseDirectory.release_directory = "assignments"
    c.CourseDirectory.db_url = db_url or absolute_db_url(course.grading.db_url, course_dir)
    # Execute.timeout wins over ExecutePreprocessor.timeout (field notes).
    c.Execute.timeout = course.grading.cell_timeout
    c.ClearSolutions.code_stub = dict(CODE_STUB)
    # Rubric cells are instructor-only: the student version never has them (notebook/rubrics.py).
    c.GenerateAssignment.preprocessors = [*GenerateAssignment.class_traits()["preprocessors"].default(),
                                          RemoveRubrics]
    c.AssignLatePenalties.plugin_class = CourseLatePenalty
    c.CourseLatePenalty.policies = {a.id: a.late_policy.model_dump() for a in course.assignments}
    c.Exchange.root = str(course.exchange.path(course_dir))
    c.Exchange.timezone = course.exchange.timezone
    # collect records who wrote each submission it copies (grading/provenance.py)
    c.ExchangeFactory.collect = "autograder.grading.nbconfig.RecordingCollect"
    # generate_feedback renders the course's feedback page, never the autograded notebook with
    # its hidden tests (autograder/feedback_exporter.py).
    c.GenerateFeedback.exporter_class = "autograder.feedback_exporter.FeedbackExporter"
    # Formgrader's page typesets math with the server's own MathJax, not only cdnjs's: its template
    # hard-codes the CDN, so offline $\\sqrt{d_k}$ stayed raw (templates/formgrader/formgrade_page.html.j2).
    c.HTMLExporter.extra_template_paths = [str(Path(__file__).resolve().parents[1] / "templates" / "formgrader")]
    c.HTMLExporter.template_file = "formgrade_page.html.j2"
    return c


class GradingRefused(SystemExit):
    """Stock ``nbgrader autograde`` stopped before it recorded anything (the message says why). A
    ``SystemExit``: nbgrader's pre-convert hook logs and swallows any ``Exception``, and the CLI prints this
    message and exits 1 (formgrader's API reports it as the run's error)."""


def stock_config(course: Course, course_dir: str | Path) -> Config:
    """What the course's own ``nbgrader_config.py`` adds for stock nbgrader commands, beyond :func:`nbgrader_config`.

    With ``variants`` in ``course.yml``: stock ``nbgrader autograde`` reads the course secret before each
    submission, ahead of anything it writes (nbgrader's ``pre_convert_hook`` runs before the submission
    enters the gradebook); without it, the run stops (:class:`GradingRefused`) naming the setting, so that
    no student is recorded on numbers the kernel could not derive. The grading workers never get this:
    they run nbgrader without the secret, on numbers the coordinator derived.
    """
    c = Config()
    if course.variants is not None:
        c.Autograde.pre_convert_hook = functools.partial(require_secret, course, Path(course_dir).resolve())
    return c


def require_secret(course: Course, course_dir: Path, **_) -> None:
    """nbgrader's pre-convert hook (:func:`stock_config`): raise :class:`GradingRefused` without the secret."""
    from ..variants import SecretMissing, course_secret

    try:
        course_secret(course, course_dir)
    except SecretMissing as exc:
        raise GradingRefused(f"refusing to grade, nothing recorded: {exc}") from None


def ensure_exchange(course: Course, course_dir: str | Path) -> Path:
    """Create the course's exchange directory if it is missing (world-writable, as nbgrader asks).

    nbgrader refuses every exchange command while the directory does not exist ("Unwritable
    directory"), and formgrader warns about it; on a shared server students write their
    submissions into it, hence mode 0777 (with the sticky bit: nobody deletes another's files).
    """
    path = course.exchange.path(course_dir)
    if not path.exists():
        path.mkdir(parents=True)
        path.chmod(0o1777)
    return path


class CourseLatePenalty(LateSubmissionPlugin):
    """nbgrader late-penalty plugin applying each assignment's ``late_policy`` from course.yml."""

    policies = Dict(help="assignment id -> LatePolicy fields").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        """Return the penalty in points (None for no penalty), as nbgrader's plugin API asks."""
        return self.penalty_for(getattr(self.parent, "assignment_id", None), score, total_seconds_late)

    def penalty_for(self, assignment_id, score, total_seconds_late):
        """The penalty of ``assignment_id``'s policy for a notebook scoring ``score``."""
        policy = self.policies.get(assignment_id, {})
        late = total_seconds_late - 60 * policy.get("grace_minutes", 0)
        if late <= 0 or policy.get("method", "none") == "none":
            return None
        if policy["method"] == "zero":
            return score
        days = -(-late // 86400)  # every started day counts
        return min(score, days * policy.get("points_per_day", 0))


class RecordingCollect(ExchangeCollect):
    """nbgrader's collect, which also records who wrote each submission it copies (:mod:`.provenance`)."""

    def do_copy(self, src, dest, log=None):
        super().do_copy(src, dest, log)
        student_id = os.path.basename(os.path.normpath(src)).split("+", 1)[0]
        provenance.append(self.coursedir.root,
                          provenance.record_of(Path(src), Path(dest), student_id, self.coursedir.assignment_id))
