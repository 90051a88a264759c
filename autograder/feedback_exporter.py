"""``nbgrader generate_feedback`` writes the course's feedback page, not the autograded notebook.

Stock ``generate_feedback`` renders the autograded notebook with nbconvert's HTML exporter, and
that notebook holds the hidden tests nbgrader restored into it (nbgrader issues 917 and 1363),
so ``--force`` once published them. ``nbgrader_config.py`` sets
``GenerateFeedback.exporter_class`` to :class:`FeedbackExporter`: for each notebook it looks up
the submission in the grading log (``reports/.grading-state.jsonl``), overlays the gradebook
(hand grades, comments, penalties) and renders :func:`autograder.feedback.render_feedback`, the
page ``autograder feedback`` writes. A notebook that ``autograder grade`` never graded gets no
page (an error in nbgrader's log): nothing falls back to rendering the notebook itself.
"""
from __future__ import annotations

from pathlib import Path

from nbconvert.exporters import Exporter
from traitlets import Unicode


class FeedbackExporter(Exporter):
    """nbconvert exporter producing the course's feedback page for one autograded notebook."""

    file_extension = Unicode(".html")
    output_mimetype = "text/html"

    def from_notebook_node(self, nb, resources=None, **kw):
        """Render the page of the submission nbgrader is converting (``resources['nbgrader']``)."""
        nb_copy, resources = super().from_notebook_node(nb, resources, **kw)
        info = (resources or {}).get("nbgrader") or {}
        student, assignment, notebook = info.get("student"), info.get("assignment"), info.get("notebook")
        if not (student and assignment and notebook):
            raise ValueError("FeedbackExporter runs inside nbgrader generate_feedback (no nbgrader resources)")
        root = Path(self.config.CourseDirectory.get("root") or ".")
        record = graded_record(root, student, assignment, notebook)
        from .feedback import render_feedback
        from .report import _course_info

        title = _course_info(root)[0].get(assignment)
        return render_feedback(record, nb_copy, title), resources


def graded_record(course_dir: Path, student: str, assignment: str, notebook: str) -> dict:
    """The submission's results.json record as it is now (grading log + gradebook).

    Raises
    ------
    LookupError
        When ``autograder grade`` has not graded this submission.
    """
    from .config import load_course
    from .grading.handgrades import gradebook_rows, overlay
    from .grading.nbconfig import absolute_db_url
    from .grading.state import GradingState

    record = GradingState(course_dir / "reports").records.get((student, assignment, notebook))
    if record is None:
        raise LookupError(f"{student}/{assignment}/{notebook} was not graded by `autograder grade`: no feedback "
                          f"page is written for it (grade it with autograder, then run this again)")
    course = load_course(course_dir)
    rows = gradebook_rows(absolute_db_url(course.grading.db_url, course_dir), course.course_id)
    return overlay(record, rows.get((student, assignment, notebook)))
