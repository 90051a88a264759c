"""The student kit's stand-in for the hidden-test call: ``check("softmax_rows_sum_to_one", globals())``.

The hidden tests are not in this kit: they run when your notebook is graded, on inputs drawn
for that grading run, outside your notebook. Here the call does nothing, so the test cells of a
notebook run without error; the visible line above it (``grader.validate(...)``) checks the
public example.
"""
from __future__ import annotations


def check(grade_id: str, namespace: dict) -> None:
    """Do nothing: the hidden test ``grade_id`` runs when the notebook is graded."""
    return None
