"""The probing inputs of issue 24 keep their extremes for every seed: the underflow probe's gaps exceed
1,000 whatever the rng draws, so a shifted softmax empties exactly the rows its mistake empties."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks.attention import UNDERFLOW_MASK, shifted_softmax_candidates, underflow_probe

SEEDS = range(40)


def _scores(seed):
    Q, K, _ = underflow_probe(np.random.default_rng(seed))
    return Q @ K.T / math.sqrt(Q.shape[-1])


@pytest.mark.parametrize("seed", SEEDS)
def test_the_gaps_exceed_1000_for_every_seed(seed):
    s = _scores(seed)
    allowed = np.where(UNDERFLOW_MASK, s, -np.inf)
    # query 0: every allowed key more than 1,000 below the key the mask hides from it
    assert s[0, ~UNDERFLOW_MASK[0]].min() - allowed[0].max() > 1000
    # query 1: every score more than 1,000 below every other query's allowed maximum
    assert np.delete(allowed, 1, axis=0).max(axis=-1).min() - s[1].max() > 1000
    # elsewhere the keys stay within a few units of each other: the weights are not one-hot
    assert np.ptp(s[2:]) < 6 and np.ptp(s[0, UNDERFLOW_MASK[0]]) < 6


@pytest.mark.parametrize("seed", SEEDS)
def test_each_shift_empties_its_own_rows(seed):
    s = _scores(seed)
    want = ref.softmax(ref.apply_mask(s, UNDERFLOW_MASK))
    emptied = {}
    for weights, misconception, message in shifted_softmax_candidates(s, UNDERFLOW_MASK):
        if "NaN" in message:  # the unguarded form of each shift
            rows = tuple(int(i) for i in np.flatnonzero(np.isnan(weights).any(axis=-1)))
            emptied.setdefault(misconception, set()).add(rows)
            right = [i for i in range(len(s)) if i not in rows]
            np.testing.assert_allclose(weights[right], want[right], rtol=1e-12, atol=1e-15)
    assert emptied == {"mask.max_over_masked_keys": {(0,)}, "softmax.global_max": {(0, 1, 2, 3), (1,)}}
