"""The check machinery of the student kit: no check, no reference, no answer.

``core`` (calls, outcomes, verdicts), ``expect`` (how an error or a missing return is worded)
and ``forms`` (the form of an answer that is a value) are the grader's own modules, copied as
they are; the visible checks' data is in ``autograder/kit/data``.
"""
