"""Checks of 06_long_sequences (bonus): TABLE_BYTES and blockwise_attention with the online softmax."""
from __future__ import annotations

import numpy as np

import attention_ref as ref

from . import expect, forms, items, raised, signature
from .attention import UNDERFLOW_MASK, large_scores_qkv, shifted_softmax_candidates, underflow_probe
from .core import Call, CheckFailed, CheckList

ASSIGNMENT = "06_long_sequences"
TASKS = ["TABLE_BYTES", "blockwise_attention"]
GIVEN = ["softmax", "scaled_dot_product_attention", "causal_mask", "padding_mask"]
MISCONCEPTIONS = {
    "TABLE_BYTES.one_head": "counts the table of one head instead of all 8",
    "TABLE_BYTES.wrong_itemsize": "counts the bytes per weight of another dtype than the table's (numpy's default "
                                  "float64, say)",
    "TABLE_BYTES.linear_in_n": "counts a number of weights per head that grows like n, not a whole table",
    "TABLE_BYTES.megabytes": "gives the count in megabytes (or MiB) instead of bytes",
    "TABLE_BYTES.bits": "counts bits instead of bytes",
    "TABLE_BYTES.numbers_not_bytes": "counts the weights instead of their bytes",
    "TABLE_BYTES.causal_half": "counts only the lower triangle of each table (the weights a causal mask leaves nonzero)",
    "blockwise_attention.scale_from_value_width": "divides the scores by the square root of the value width d_v by "
                                                  "default instead of the key width d_k",
    "blockwise_attention.large_negative_fill": "fills masked scores with a large negative number: a query with no "
                                               "allowed key gets the plain average of the values instead of zeros",
    "blockwise_attention.no_rescale": "does not rescale the running total and sum when the running maximum grows",
    "blockwise_attention.per_block_softmax": "normalises each block on its own and adds (or averages) the blocks",
    "blockwise_attention.no_scaling": "does not divide the scores by sqrt(d_k)",
    "blockwise_attention.ignores_scale": "ignores the scale argument (always divides by sqrt(d_k))",
    "blockwise_attention.masked_nan": "a block (or row) whose keys are all masked gives NaN (-inf - -inf)",
    "blockwise_attention.no_max_subtraction": "no running maximum: exp overflows at large scores",
    "blockwise_attention.max_starts_at_zero": "the running maximum starts at 0 (never below it): a query whose "
                                              "every score is far below 0 underflows to no weight",
    "blockwise_attention.rescale_inverted": "rescales the running total and sum by a factor above 1 when the maximum "
                                            "grows (the factor upside down)",
    "blockwise_attention.scale_as_divisor": "divides the scores by the `scale` argument instead of multiplying",
    "blockwise_attention.blocks_on_first_axis": "cuts the blocks from the first axis of K and V (right on one "
                                                "sequence, wrong with batch axes in front)",
    "blockwise_attention.mask_ignored": "ignores the mask",
    "blockwise_attention.full_matrix": "builds the full n_q x n_k table of scores or weights",
    "blockwise_attention.no_normalisation": "never divides the running weighted sum by the running total",
    "blockwise_attention.skips_keys": "its loop over the blocks misses keys: it stops a block early or starts a block late",
    "blockwise_attention.memory_held": "the notebook holds much memory when the memory check calls blockwise_attention",
}
#: Misconceptions that only the grader's own measurement decides (the control group of verification,
#: autograder/sandbox/measure.py, fails the call with ``MemoryHeld`` before it runs): no answer graded
#: in-process can produce them, so the catalogue cannot write them. Each names the tests that prove it.
GRADER_MEASURED = {"blockwise_attention.memory_held": "tests/sandbox/test_hostile_memory.py"}
checks = CheckList()
CHECKS = checks

# The seeds' setting and the field notes' measurement (the lesson's example, worked in the prose): 8 heads at
# n = 4096 in float32. Each student is asked about their own n and dtype (issue 22: items.TableSize).
TABLE_HEADS, TABLE_N, TABLE_ITEMSIZE = items.TABLE_HEADS, items.LESSON_TABLE.n, items.LESSON_TABLE.itemsize


# ---------------------------------------------------------------- TABLE_BYTES
checks.add("TABLE_BYTES", "format", "a positive whole number of bytes",
           calls=lambda rng: [Call("TABLE_BYTES", value_only=True)])(forms.table_bytes_format)


@checks.add("TABLE_BYTES", "value", "bytes of the weights of 8 heads at your n and dtype", public=False,
            calls=lambda rng: [Call("TABLE_BYTES", value_only=True)], item=items.TABLE_ITEM)
def _(calls, outcomes, table):
    n, size, dtype = table.n, table.itemsize, table.dtype
    right = table.bytes()
    if outcomes[0].error is None and isinstance(outcomes[0].value, (int, float)) and any(
            abs(outcomes[0].value - right / unit) < 1 for unit in (1e6, 2**20)):  # 536.9 MB or 512 MiB
        raise CheckFailed("your count is in megabytes (or mebibytes): TABLE_BYTES asks for the number of bytes.",
                          "TABLE_BYTES.megabytes")
    got = forms.whole_number(outcomes[0], calls[0], "`TABLE_BYTES`")
    candidates = [
        (n * n * size, "TABLE_BYTES.one_head",
         "your count is the table of one head; every one of the 8 heads has its own n x n table."),
        (TABLE_HEADS * n * size, "TABLE_BYTES.linear_in_n",
         "your count grows like n; every query has a weight for every key, so the table has n x n entries per head."),
        (right * 8, "TABLE_BYTES.bits", f"your count is in bits; TABLE_BYTES asks for bytes ({size} per {dtype} weight)."),
        (right // size, "TABLE_BYTES.numbers_not_bytes",
         f"your count is the number of weights, not of bytes: each {dtype} weight takes more than one byte."),
    ]
    candidates += [
        # Twice the table is two tables, and as much 8 bytes a float32 weight (4 a float16 one): it is said alone
        # only for a float64 table (no dtype takes 16 bytes), under a generic id, since the lesson's float32 table
        # can never tell it apart (and the catalogue, judged there, could not name it). Every number that two
        # candidates give is said with both (one head's table is a float64 table's count of weights, too).
        (2 * right, "wrong_values",
         "your count is two tables: the question asks for the weights the 8 heads hold at once, one n x n table per "
         "head (the scores they come from are another table, not asked for)."),
        (TABLE_HEADS * (n * (n + 1) // 2) * size, "TABLE_BYTES.causal_half",
         "your count holds only the lower triangle of each head's table, the weights a causal mask leaves nonzero: "
         "the table stores every weight, the zeros of the hidden keys too."),
    ]
    for other, other_size in items.DTYPES.items():  # numpy's default float64, or any other float's size
        if other != dtype:
            candidates.append((right // size * other_size, "TABLE_BYTES.wrong_itemsize",
                               f"your count uses {other_size} bytes per weight ({other}); a {dtype} weight takes "
                               f"{size} bytes."))
    # A byte count is an integer (exact as a float too): compared exactly, no tolerance.
    if got == right:
        return
    matching = [(misconception, message) for candidate, misconception, message in candidates if got == candidate]
    if len(matching) == 1:
        raise CheckFailed(matching[0][1], matching[0][0])
    if matching:  # one number, two mistakes (twice a float32 table is 8 bytes a weight, or two tables): both said
        readings = " ".join(f"{'One' if i == 0 else 'Another'} reading: {message}" for i, (_, message) in enumerate(matching))
        raise CheckFailed(f"your count is {got / right:g} times the bytes of the weights, which more than one mistake "
                          f"gives (this number alone cannot tell which). {readings}", "mistakes_coincide")
    raise CheckFailed("`TABLE_BYTES` is off: it is the memory, in bytes, of every attention weight that the 8 heads "
                      f"hold at once at your n = {n} in {dtype}; count what each head's table holds.", "wrong_values")


# ---------------------------------------------------------------- blockwise_attention
def _blockwise_mistake(Q, K, V, block_size, mask=None, scale=None, *, kind, guard=True):
    """Blockwise attention with a typical mistake (a candidate for diagnoses). ``guard``: a query whose running
    total is 0 at the end gets zeros (the course's guard) rather than 0/0."""
    d_k = Q.shape[-1]
    factor = 1 / np.sqrt(d_k) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), 0.0 if kind == "zero_start" else -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    outs = []
    with np.errstate(all="ignore"):
        for start in range(0, n_k, block_size):
            stop = min(start + block_size, n_k)
            s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
            if mask is not None:
                s = np.where(np.broadcast_to(mask, (*batch, n_q, n_k))[..., start:stop], s, -np.inf)
            if kind == "per_block":
                outs.append(ref.softmax(s) @ V[..., start:stop, :])
                continue
            if kind == "own_max":  # each block shifted by its own maximum, never brought to a common one
                own = s.max(axis=-1, keepdims=True)
                e = np.exp(s - np.where(np.isfinite(own), own, 0))
                total, acc = total + e.sum(axis=-1, keepdims=True), acc + e @ V[..., start:stop, :]
                continue
            if kind == "no_max":  # no shift at all: exp of the raw scores
                total, acc = total + np.exp(s).sum(axis=-1, keepdims=True), acc + np.exp(s) @ V[..., start:stop, :]
                continue
            new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
            e = np.exp(s - new_m)
            rescale = np.exp(m - new_m)
            if kind == "inverted":  # the factor upside down; from -inf on the first block it is inf (times 0: NaN)
                rescale = np.exp(new_m - m)
            elif kind == "inverted_guarded":
                rescale = np.where(np.isfinite(m), np.exp(new_m - m), 0.0)
            if kind in ("none", "acc_only"):
                total = total + e.sum(axis=-1, keepdims=True)
            else:
                total = total * rescale + e.sum(axis=-1, keepdims=True)
            if kind in ("none", "total_only"):
                acc = acc + e @ V[..., start:stop, :]
            else:
                acc = acc * rescale + e @ V[..., start:stop, :]
            m = new_m
    if kind == "per_block":
        return sum(outs), sum(outs) / len(outs)
    with np.errstate(all="ignore"):
        return acc / np.where(total == 0, 1, total) if guard else acc / total


#: Mistakes of the running maximum that give NaN or inf on some inputs of the large-scores check: each is named
#: only where the answer is that mistake's on every input of the check, NaN and inf where it has them
#: (:func:`_fits_everywhere`), with the final 0/0 guarded or not.
RUNNING_MAX_MISTAKES = (
    ("blockwise_attention.no_max_subtraction", "no_max",
     "your output contains NaN or inf where scores reach about 1e3, and is right on the small float32 scores of "
     "this check: exp "
     "overflows. Subtract the running maximum before exponentiating."),
    ("blockwise_attention.max_starts_at_zero", "zero_start",
     "a query whose every score lies far below 0 (near -1000) gets no weight on any key (NaN or zeros), while "
     "your answer is right wherever some score reaches above 0: your running maximum never goes below 0 (it "
     "starts at 0, say), so every exponential of that query underflows to 0. The running maximum starts below "
     "every score, as if no key had been seen."),
    ("blockwise_attention.rescale_inverted", "inverted",
     "when a later block raises a query's running maximum, your running total and weighted sum are multiplied "
     "by a factor above 1: they were built with the smaller, older maximum, so they must shrink to the new one, "
     "not grow (here the factor also overflows)."),
    ("blockwise_attention.rescale_inverted", "inverted_guarded",
     "when a later block raises a query's running maximum, your running total and weighted sum are multiplied "
     "by a factor above 1: they were built with the smaller, older maximum, so they must shrink to the new one, "
     "not grow."),
)


def _same_with_nonfinite(got, predicted, dtype) -> bool:
    """Whether ``got`` is ``predicted``: non-finite (NaN or inf, either) exactly where it is, close elsewhere."""
    got, predicted = np.asarray(got, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    if got.shape != predicted.shape:
        return False
    finite = np.isfinite(predicted)
    return bool((np.isfinite(got) == finite).all()) and expect.allclose(got[finite], predicted[finite],
                                                                       *expect.tolerances(dtype))


def _running_max_mistake(calls, results) -> tuple[str, str] | None:
    """``(misconception, message)`` of the one running-maximum mistake the answer follows on every call."""
    fitting = []
    for misconception, kind, message in RUNNING_MAX_MISTAKES:
        if all(any(_same_with_nonfinite(result, _blockwise_mistake(*call.args, call.kwargs["block_size"],
                                                                   kind=kind, guard=guard), np.result_type(*call.args))
                   for guard in (True, False)) for call, result in zip(calls, results)):
            fitting.append((misconception, message))
    return fitting[0] if len({m for m, _ in fitting}) == 1 else None


def _blockwise_keys(Q, K, V, block_size, mask=None, scale=None, *, start=0, stop=None, keys=None):
    """Attention over the keys ``start:stop`` only, or over the positions ``keys`` (the queries' other keys never
    read), as a loop over the blocks that starts or stops a block off gives it."""
    chosen = slice(start, stop) if keys is None else np.asarray(keys)
    if mask is not None and np.shape(mask)[-1] > 1:
        mask = np.asarray(mask)[..., chosen]
    factor = 1 / np.sqrt(Q.shape[-1]) if scale is None else scale
    return ref.blockwise_attention(Q, K[..., chosen, :], V[..., chosen, :], block_size, mask, scale=factor)


#: Functions of a call's inputs only (the catalogue's seed sweep may answer them from a cache, as it
#: does attention_ref's: autograder/catalogue/sweep.py); each walks every block of the memory check.
#: The candidates as a whole too: every wrong variant of 06 asks for them about the same calls.
PURE_OF_CALLS = ("_blockwise_mistake", "_blockwise_keys", "_blockwise_diagnoses")


def _blockwise_candidates(call):
    """The diagnoses of one call, computed only when a judge reads them (a right answer never does)."""
    Q, K, V = call.args[:3]
    block_size = call.kwargs.get("block_size", call.args[3] if len(call.args) > 3 else 128)
    yield from _blockwise_diagnoses(Q, K, V, block_size, call.kwargs.get("mask"), call.kwargs.get("scale"))


def _blockwise_diagnoses(Q, K, V, block_size, mask, scale) -> list:
    """``[(candidate output, misconception, message)]``: blockwise attention with each typical mistake."""
    return list(_each_blockwise_diagnosis(Q, K, V, block_size, mask, scale))


def _each_blockwise_diagnosis(Q, K, V, block_size, mask, scale):
    message = ("your blocks are combined wrongly: when a later block raises a query's running maximum m, the "
               "running total and the running weighted sum built with the old maximum must be multiplied by "
               "exp(m_old - m_new) before the new block is added.")
    summed, averaged = _blockwise_mistake(Q, K, V, block_size, mask, scale, kind="per_block")
    own = _blockwise_mistake(Q, K, V, block_size, mask, scale, kind="own_max")
    # With blocks of one key, or saturated scores (one-hot blocks), per-block maxima and a per-block softmax
    # give the same answer: it names neither, and the check's other inputs tell them apart.
    ambiguous = expect.allclose(own, averaged, 1e-7, 1e-10)
    for kind in ("none", "total_only", "acc_only"):
        yield _blockwise_mistake(Q, K, V, block_size, mask, scale, kind=kind), "blockwise_attention.no_rescale", message
    if not ambiguous:
        yield own, "blockwise_attention.no_rescale", message
    for candidate in () if ambiguous else (summed, averaged):
        yield candidate, "blockwise_attention.per_block_softmax", \
            ("your answer normalises each block on its own: the softmax runs over all keys, so keep a running "
             "maximum, a running total of exponentials and a running weighted sum, and divide once at the end.")
    with np.errstate(all="ignore"):
        scores = Q @ np.swapaxes(K, -1, -2) * (1 / np.sqrt(Q.shape[-1]) if scale is None else scale)
        if mask is not None:
            scores = ref.apply_mask(scores, mask)
        top = np.max(scores, axis=-1, keepdims=True)
        total = np.exp(scores - np.where(np.isfinite(top), top, 0)).sum(axis=-1, keepdims=True)
    yield ref.blockwise_attention(Q, K, V, block_size, mask, scale=scale) * total, \
        "blockwise_attention.no_normalisation", \
        ("your output is the running weighted sum of the values, never divided by the running total of the "
         "exponentials: after the last block, divide it once (a query with no allowed key stays at zeros).")
    starts = list(range(0, K.shape[-2], block_size))
    skipped = ("your output is attention over {which} only: the {what} your loop over the blocks. Check "
               "the range of your loop: the blocks start at 0, 0 + block_size, ... and the last one may be shorter.")
    n_k = K.shape[-2]
    for stop in starts[1:][-2:]:  # the last block (or the last two) left out: a loop that stops early
        what = f"last {n_k - stop} keys never reach" if n_k - stop > 1 else "last key never reaches"
        yield _blockwise_keys(Q, K, V, block_size, mask, scale, start=0, stop=stop), "blockwise_attention.skips_keys", \
            skipped.format(which=f"the first {stop} keys", what=what)
    if len(starts) > 1:  # the first block left out: a loop that starts at block_size
        what = f"first {block_size} keys never reach" if block_size > 1 else "first key never reaches"
        yield _blockwise_keys(Q, K, V, block_size, mask, scale, start=block_size, stop=n_k), \
            "blockwise_attention.skips_keys", skipped.format(which=f"keys {block_size} to {n_k - 1}", what=what)
    if block_size > 1:  # each block one key short (a slice's end taken as its last key); blocks of 1 key raise
        keys = [j for b in starts for j in range(b, min(b + block_size - 1, n_k))]
        if len(keys) < n_k:
            yield _blockwise_keys(Q, K, V, block_size, mask, scale, keys=keys), "blockwise_attention.skips_keys", \
                ("your output is attention over every key but the last of each full block: each block stops one key "
                 "early. A slice's end is not part of it: start:stop holds stop - start keys.")
    d_k, d_v = Q.shape[-1], V.shape[-1]
    if scale is None and d_v not in (1, d_k):
        yield ref.blockwise_attention(Q, K, V, block_size, mask, scale=1 / np.sqrt(d_v)), \
            "blockwise_attention.scale_from_value_width", \
            ("your scores are divided by the square root of the value width d_v: without a `scale`, the divisor is "
             "the square root of the key width d_k, the length of the vectors whose dot products the scores are.")
    if mask is not None:
        empty = ~np.broadcast_to(ref.apply_mask(np.zeros(Q.shape[:-1] + (n_k,)), mask) == 0, np.broadcast_shapes(
            Q.shape[:-1] + (n_k,), np.shape(mask))).any(axis=-1)
        if empty.any():  # a finite fill: a row with no allowed key is all one number, so its weights are even
            right = ref.blockwise_attention(Q, K, V, block_size, mask, scale=scale)
            mean = np.broadcast_to(V.mean(axis=-2, keepdims=True), right.shape)
            yield np.where(empty[..., None], mean, right), "blockwise_attention.large_negative_fill", \
                ("a query whose keys are all masked got the plain average of the values: masked scores set to a large "
                 "finite negative number are all equal in such a row, so the softmax spreads its weight evenly "
                 "instead of giving none. Masked scores are -inf, and a query with no allowed key stays at zeros.")
    if scale is not None and scale != 0:
        yield ref.blockwise_attention(Q, K, V, block_size, mask, scale=1 / scale), "blockwise_attention.scale_as_divisor", \
            "your scores are divided by `scale`: the `scale` a call gives is the factor the scores are multiplied by " \
            "(it already stands for 1 / sqrt(d_k) or whatever the caller chose)."
    for kind, misconception, message in (
            ("inverted_guarded", "blockwise_attention.rescale_inverted", RUNNING_MAX_MISTAKES[3][2]),
            ("zero_start", "blockwise_attention.max_starts_at_zero", RUNNING_MAX_MISTAKES[1][2])):
        yield _blockwise_mistake(Q, K, V, block_size, mask, scale, kind=kind), misconception, message
    if scale is not None:
        yield ref.blockwise_attention(Q, K, V, block_size, mask), "blockwise_attention.ignores_scale", \
            "your scores are divided by sqrt(d_k) although the call gives its own `scale`: when scale is given, it " \
            "is the factor the scores are multiplied by."
    if scale is None:
        yield ref.blockwise_attention(Q, K, V, block_size, mask, scale=1.0), "blockwise_attention.no_scaling", \
            "your scores are not divided by sqrt(d_k)."
    if mask is not None:
        yield ref.blockwise_attention(Q, K, V, block_size, scale=scale), "blockwise_attention.mask_ignored", \
            "your answer ignores the mask: masked keys must get weight 0 (a score of -inf before the exponential)."


def _blocks_on_first_axis(Q, K, V, block_size=128, mask=None, scale=None, *, count="keys"):
    """Blockwise attention whose blocks are slices of the *first* axis of K and V (``K[start:stop]``), as it is
    written for one unbatched sequence; ``count``: the loop runs over the keys (``K.shape[-2]``) or ``len(K)``."""
    factor = 1 / np.sqrt(Q.shape[-1]) if scale is None else scale
    n = K.shape[-2] if count == "keys" else len(K)
    m, total, acc = -np.inf, 0.0, 0.0
    for start in range(0, n, block_size):
        s = Q @ np.swapaxes(K[start:start + block_size], -1, -2) * factor
        if mask is not None:
            block = np.asarray(mask)[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block, s, -np.inf)
        new = np.maximum(m, s.max(axis=-1, keepdims=True))
        safe = np.where(np.isfinite(new), new, 0)
        rescale = np.where(np.isfinite(m), np.exp(m - safe), 0)
        p = np.exp(s - safe)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[start:start + block_size]
        m = new
    return acc / np.where(total == 0, 1, total)


BLOCKS_ON_FIRST_AXIS = ("your answer is right on one unbatched sequence and fails with batch axes in front exactly "
                        "where blocks cut from the first axis of K and V would: with batch axes in front, the first "
                        "axis counts sequences, not keys. A block of keys is a slice of the second-to-last axis.")


def _first_axis_blocks(calls, outcomes):
    """Name blocks cut along the first axis where the answer raises: it raises (or gives values) exactly where
    that mistake does, on every input of the check, and is right where it is (:mod:`.signature`)."""
    if not any(outcome.error for outcome in outcomes):
        return
    def args(call):
        kwargs = dict(call.kwargs)
        return call.args[:3], kwargs.pop("block_size", 128), kwargs
    found = signature.identify(outcomes, [
        ("blockwise_attention.blocks_on_first_axis", BLOCKS_ON_FIRST_AXIS,
         [signature.predict(lambda a, b, k, count=count: _blocks_on_first_axis(*a, b, count=count, **k), *args(c))
          for c in calls]) for count in ("keys", "len")],
        reference=[signature.predict(lambda a, b, k: ref.blockwise_attention(*a, b, **k), *args(c)) for c in calls])
    if found is not None:
        raise CheckFailed(found[1], found[0])


def _nan_where_masked(result, mask, block_size) -> bool:
    """Whether every query with NaN in ``result`` has a block of keys (or all its keys) masked: where the
    running maximum is -inf, -inf - (-inf) gives NaN; NaN elsewhere has another cause (an overflow)."""
    mask = np.asarray(mask)
    mask = np.broadcast_to(mask if mask.dtype == bool else np.isfinite(mask), result.shape[:-1] + (mask.shape[-1],))
    n_k = mask.shape[-1]
    blocked = np.zeros(mask.shape[:-1], dtype=bool)
    for start in range(0, n_k, block_size):
        blocked |= ~mask[..., start:start + block_size].any(axis=-1)
    return bool((~np.isnan(result).any(axis=-1) | blocked).all())


def _judge_shifted(call, result, mask, scale):
    """Name a running maximum that is not each row's own over its allowed keys (the hidden keys' scores taken
    in, or one maximum for every query): :func:`attention.shifted_softmax_candidates` on the whole table."""
    Q, K, V = call.args[:3]
    factor = 1 / np.sqrt(Q.shape[-1]) if scale is None else scale
    rtol, atol = expect.tolerances(np.result_type(Q, K, V))
    with np.errstate(all="ignore"):
        scores = Q @ np.swapaxes(K, -1, -2) * factor
        for weights, misconception, message in shifted_softmax_candidates(scores, mask):
            if expect.allclose(result, weights @ V, rtol, atol):
                raise CheckFailed(message.replace("got NaN weights", "got a NaN output")
                                  .replace("got zero weights", "got a zero output"), misconception)


def _judge_blockwise(call, outcome, what="your output"):
    Q, K, V = call.args[:3]
    kwargs = dict(call.kwargs)
    block_size = kwargs.pop("block_size", 128)
    result = expect.array(outcome, call, what)
    reference = ref.blockwise_attention(Q, K, V, block_size, **kwargs)
    expect.shape(result, reference.shape, what, " (..., n_q, d_v): one row per query, the values' width")
    if kwargs.get("mask") is not None and result.shape == reference.shape and \
            not expect.allclose(result, reference, *expect.tolerances(np.result_type(Q, K, V))):
        _judge_shifted(call, result, kwargs.get("mask"), kwargs.get("scale"))
    if np.isnan(result).any() and not np.isnan(reference).any():
        if kwargs.get("mask") is not None and _nan_where_masked(result, kwargs["mask"], block_size):
            raise CheckFailed(f"NaN in {what} where a block or a whole row of keys is masked: the running "
                              f"maximum stays -inf there and -inf - (-inf) is NaN. Shift by 0 while the maximum is "
                              f"-inf, and leave a query with no allowed key at zeros.", "blockwise_attention.masked_nan")
    expect.close(result, reference, what, dtype=np.result_type(Q, K, V),
                 diagnoses=_blockwise_candidates(call),
                 generic="does not match attention over all keys.")


def _bw_call(Q, K, V, block_size, **kwargs):
    return Call("blockwise_attention", (Q, K, V), {"block_size": block_size, **kwargs})


def _qkv(rng, batch, n_q, n_k, d_k, d_v, spread=2.0, dtype=np.float64):
    # Scores of a few units and keys whose size grows along the sequence, so that later blocks
    # raise the running maximum (without rescaling the answer is then far outside the tolerance).
    Q = rng.standard_normal((*batch, n_q, d_k)) * spread
    K = rng.standard_normal((*batch, n_k, d_k)) * np.linspace(0.5, 1.5, n_k)[:, None]
    V = rng.standard_normal((*batch, n_k, d_v))
    return tuple(np.asarray(a, dtype=dtype) for a in (Q, K, V))


@checks.add("blockwise_attention", "matches_reference", "equals attention over all keys: n_q != n_k, blocks that do not divide n_k, batch axes",
            calls=lambda rng: [_bw_call(*_qkv(rng, (), 5, 11, 6, 3), 4),
                               _bw_call(*_qkv(rng, (2, 3), 7, 13, 4, 5), 5)])
def _(calls, outcomes):
    _first_axis_blocks(calls, outcomes)
    expect.each(calls, outcomes, _judge_blockwise)


@checks.add("blockwise_attention", "block_sizes", "any block size (1, n_k, larger than n_k) gives the same answer; inputs unchanged",
            calls=lambda rng: (lambda qkv: [_bw_call(*qkv, b) for b in (1, 3, 9, 20)])(_qkv(rng, (2,), 4, 9, 5, 2))
            + [_bw_call(*_qkv(rng, (), 3, 8, 4, 3), 3, scale=0.3)])
def _(calls, outcomes):
    _first_axis_blocks(calls, outcomes)
    for call, outcome in zip(calls, outcomes):
        _judge_blockwise(call, outcome, f"your output with block_size={call.kwargs['block_size']}")
        expect.unmodified(outcome, call, {"0": "Q", "1": "K", "2": "V"})


def _padding_and_causal(rng):
    Q, K, V = _qkv(rng, (3,), 6, 10, 4, 3)
    lengths = np.array([10, 4, 0])  # the last sequence is all padding: its queries have no allowed key
    return [_bw_call(*_qkv(rng, (), 6, 9, 5, 2), 4, mask=ref.causal_mask(6, 9)),
            _bw_call(Q, K, V, 3, mask=ref.padding_mask(lengths, 10)),
            _bw_call(*underflow_probe(rng), 2, mask=UNDERFLOW_MASK.copy())]


@checks.add("blockwise_attention", "masks", "a causal mask and a padding mask with an empty sequence (zeros, no NaN)",
            calls=_padding_and_causal)
def _(calls, outcomes):
    _first_axis_blocks(calls, outcomes)
    for call, outcome in zip(calls, outcomes):
        _judge_blockwise(call, outcome, "your masked output")


LARGE_INPUTS = ("scores of about +-1e3", "float32 inputs", "scores all near -1000")


@checks.add("blockwise_attention", "large_scores_float32",
            "no overflow at scores near 1e3, nor underflow where every score of a query is near -1000; float32 inputs",
            calls=lambda rng: [_bw_call(*_qkv(rng, (), 4, 10, 8, 3, spread=1000.0), 3),
                               _bw_call(*_qkv(rng, (2,), 5, 12, 6, 4, dtype=np.float32), 5),
                               # every query's scores far below 0, an O(1) spread between keys, for every seed
                               _bw_call(*large_scores_qkv(rng, 3, 10, 6, 3, offset=-1000.0), 4)])
def _(calls, outcomes):
    _first_axis_blocks(calls, outcomes)
    results = [expect.array(outcome, call, "your output") for call, outcome in zip(calls, outcomes)]
    if all(r.shape == ref.blockwise_attention(*c.args, c.kwargs["block_size"]).shape for c, r in zip(calls, results)):
        found = _running_max_mistake(calls, results)
        if found is not None:
            raise CheckFailed(found[1], found[0])
    for call, result, where in zip(calls, results, LARGE_INPUTS):
        if not np.isfinite(result).all():
            raise CheckFailed(f"your output contains NaN or inf on {where}: an exponential overflowed, or every "
                              "exponential of a query underflowed to 0 before a division, and no one known mistake "
                              "explains your answers on all three inputs of this check.", "nan")
    for call, outcome, where in zip(calls, outcomes, LARGE_INPUTS):
        _judge_blockwise(call, outcome, f"your output on {where}")


# The memory test. Verification (the grade) bounds the call from outside the notebook's process
# (autograder/sandbox/measure.py): the call runs in a control group of its own, where the notebook
# may hold MEMORY_HELD bytes more than the bare runner when the call starts and the call may then
# use MEMORY_ROOM more. The table of float64 weights, MEMORY_TABLE = 64 MiB, is far beyond both
# together (40 MiB); the inputs and their copies take 6 MiB of the room and a blockwise answer
# with blocks of 64 keys a few (n_q x 64) arrays of 0.125 MiB more. A call that goes beyond the
# room is killed by the kernel: the check fails.
# In the student's kernel (nbgrader's in-process check, replaced by the verified verdict) the peak
# is taken with tracemalloc, which may see at most MEMORY_ALLOWED, and the growth of the resident
# high-water mark (VmHWM) at most half the table.
MEMORY_N_Q, MEMORY_N_K, MEMORY_BLOCK, MEMORY_D_K, MEMORY_D_V = 256, 32768, 64, 8, 4
MEMORY_TABLE = MEMORY_N_Q * MEMORY_N_K * 8  # 64 MiB of float64 weights
MEMORY_HELD = 16 << 20
MEMORY_ROOM = 24 << 20
MEMORY_ALLOWED = 2 << 20  # what tracemalloc may see at the peak (the kernel's check only)
RESIDENT_ALLOWED = MEMORY_TABLE // 2


#: The memory check draws the same inputs at every seed. What it decides is the memory; the values of
#: blockwise_attention are judged on inputs drawn afresh per seed by the four checks above. A run over
#: its 32,768 keys is the costliest call of the course: the catalogue's sweep over 20 seeds made it 20
#: times per 06 variant (about 100 s of the suite's CPU), and now makes it once. The inputs are no
#: easier to hard-code than a seed's: the checks are not in the student kit.
MEMORY_SEED = 6


def _memory_call(rng):
    fixed = np.random.default_rng(MEMORY_SEED)  # not ``rng``: see MEMORY_SEED
    return [Call("blockwise_attention", _qkv(fixed, (), MEMORY_N_Q, MEMORY_N_K, MEMORY_D_K, MEMORY_D_V),
                 {"block_size": MEMORY_BLOCK}, measure_peak=True, memory_held=MEMORY_HELD, memory_room=MEMORY_ROOM)]


def _table_message(what: str) -> str:
    return (f"{what} for {MEMORY_N_Q} queries and {MEMORY_N_K} keys, while the full table of weights is "
            f"{MEMORY_TABLE / 2**20:.0f} MiB and blocks of {MEMORY_BLOCK} keys need about "
            f"{MEMORY_N_Q * MEMORY_BLOCK * 8 / 2**20:.1f} MiB each: it builds the n_q x n_k table (of scores, "
            f"weights or mask). Compute the scores of one block of keys at a time.")


def _judge_grader_measurement(outcome) -> None:
    """The verdicts of the grader's own measurement (verification), before the answer's value is judged."""
    error = outcome.error or ""
    if error.startswith("MeasurementUnavailable"):
        raise CheckFailed("the memory of your answer could not be measured on the grading machine, so this "
                          "check's points are withheld until the instructor regrades it.", "grader.memory_unmeasured")
    if error.startswith("MemoryHeld"):
        raise CheckFailed(f"{error.split(': ', 1)[1]}: the memory check runs your function after the notebook, "
                          f"and memory the notebook keeps (large arrays in global variables, processes it "
                          f"started) could be freed inside the call to hide the table. Delete large arrays "
                          f"(`del name`) before the end of the notebook.", "blockwise_attention.memory_held")
    if error.startswith("MemoryLimit"):
        raise CheckFailed(_table_message(f"your answer went beyond the {MEMORY_ROOM / 2**20:.0f} MiB it may "
                                         f"use"), "blockwise_attention.full_matrix")


@checks.add("blockwise_attention", "memory", "never builds the n_q x n_k table (memory bounded far below it)",
            calls=_memory_call)
def _(calls, outcomes):
    call, outcome = calls[0], outcomes[0]
    _judge_grader_measurement(outcome)
    _judge_blockwise(call, outcome)
    if outcome.memory_limit_bytes is not None:
        return  # it ran to the end under the grader's limit: it did not build the table
    if outcome.peak_bytes is None:
        raise CheckFailed("the peak memory of your answer could not be measured.", "grader.incomplete")
    peak = outcome.peak_bytes
    if outcome.peak_resident_bytes is not None and outcome.peak_resident_bytes > RESIDENT_ALLOWED:
        peak = max(peak, outcome.peak_resident_bytes)
    if peak > MEMORY_ALLOWED:
        raise CheckFailed(_table_message(f"your answer allocated {peak / 2**20:.1f} MiB at its peak"),
                          "blockwise_attention.full_matrix")


raised.explain(checks)  # a raw exception is said as the failure of one of the check's inputs
