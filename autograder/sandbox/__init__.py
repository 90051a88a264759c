"""Verification of scores outside the student's process, the sandbox, and the static scan (issue 5).

Entry points for the grading pipeline::

    from autograder.sandbox import Limits, verify_submission
    result = verify_submission("01_scores_softmax", notebook_bytes, seed, Limits(cpu_seconds=20))
    result.verdicts    # grade_id -> checks.core.Verdict, every check of the assignment
    result.flags       # static-scan flags (kind "static scan", rule, grade_id, cell, line, evidence)
    result.error       # why the submission could not be verified (every verdict failed), or None
    result.sandbox     # "bubblewrap" | "subprocess" | "none"

How: the checks' calls are drawn here from the seed and written as plain data (JSON + .npz) into
a fresh job directory; a fresh, sandboxed Python process (``runner.py``) runs the notebook's
non-test code cells and the calls and sends the answers back as plain data; they are validated
strictly and judged here with the checks' own judges. See ``command.py`` for what the sandbox
guarantees.
"""
from ..notebook.model import NotANotebook, read_cells
from .command import Limits, SandboxError, sandbox_kind
from .scan import scan_cells
from .verify import VerificationResult, verify_submission

__all__ = ["Limits", "NotANotebook", "SandboxError", "VerificationResult",
           "read_cells", "sandbox_kind", "scan_cells", "verify_submission"]
