"""Grading tooling for the attention course (built on nbgrader)."""
