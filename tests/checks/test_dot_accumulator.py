"""Issue 24, blind set 11's one false diagnosis: an accumulator assigned where it should be added to (only the last
product is left) gives, on the seeds' two entries, the value of a sum that leaves out the first pair, and was told "a
range that starts one late". The seed check's never-graded probe of three entries tells the two apart: each is named
only where it is the answer at every call, probe included, whichever way it is written, at every seed."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from autograder.checks import CHECKS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 4242, 98765)


def _loop_assigns(q, k):
    total = 0.0
    for i in range(len(q)):
        total = q[i] * k[i]
    return float(total)


def _zip_assigns(q, k):
    acc = 0
    for a, b in zip(q, k):
        acc = a * b
    return float(acc)


def _reduce_keeps_last(q, k):
    return float(functools.reduce(lambda total, p: p, (a * b for a, b in zip(q, k)), 0.0))


def _starts_late(q, k):
    return float(sum(q[i] * k[i] for i in range(1, len(q))))


def _verdict(grade_id, answer, seed):
    check = CHECKS[grade_id]
    return evaluate(check, executor(check, {"np": np, "dot_product": answer}), seed)


@pytest.mark.parametrize("answer", (_loop_assigns, _zip_assigns, _reduce_keeps_last))
@pytest.mark.parametrize("seed", SEEDS)
def test_a_replaced_total_is_named_as_such_never_as_a_late_start(answer, seed):
    for grade_id in ("dot_product_seed_example", "dot_product_random_vectors"):
        verdict = _verdict(grade_id, answer, seed)
        assert not verdict.passed and verdict.misconception == "dot_product.last_product_only", (grade_id, verdict)
        assert "starts one late" not in verdict.message


@pytest.mark.parametrize("seed", SEEDS)
def test_a_late_start_is_still_named_and_never_called_a_replaced_total(seed):
    verdict = _verdict("dot_product_seed_example", _starts_late, seed)
    assert not verdict.passed and verdict.misconception == "dot_product.skips_entry", verdict
    assert "starts one late" in verdict.message


@pytest.mark.parametrize("seed", SEEDS)
def test_the_probe_is_never_graded(seed):
    """An answer right on two entries and wrong on three passes the seed check (the random vectors judge it)."""
    def two_entries_only(q, k):
        return float(q[0] * k[0] + q[1] * k[1])
    assert _verdict("dot_product_seed_example", two_entries_only, seed).passed
    assert not _verdict("dot_product_random_vectors", two_entries_only, seed).passed
