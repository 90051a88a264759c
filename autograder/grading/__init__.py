"""Parallel grading on top of nbgrader (issue 4).

``pipeline.grade`` coordinates; ``job.grade_job`` is the pure per-submission function that runs
nbgrader's Autograde in a private temporary course directory; ``verification`` is the seam to
the sandbox of issue 5; ``gradebook``, ``state`` and ``reports`` are what the coordinator writes.
"""
