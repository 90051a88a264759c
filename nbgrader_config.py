"""nbgrader configuration of this course: everything comes from course.yml.

Stock nbgrader commands (``nbgrader generate_assignment 01_scores_softmax``,
``nbgrader autograde 01_scores_softmax``) therefore agree with ``autograder``.
"""
from pathlib import Path

from autograder.config import load_course
from autograder.grading.nbconfig import ensure_exchange, nbgrader_config, stock_config

_here = Path(__file__).resolve().parent

c = get_config()  # noqa: F821 (provided by traitlets when it runs this file)
_course = load_course(_here)
ensure_exchange(_course, _here)
c.merge(nbgrader_config(_course, _here))
c.merge(stock_config(_course, _here))  # stock autograde with per-student numbers: the secret first
