"""Checks of 03_masking: causal_mask, padding_mask, apply_mask, scaled_dot_product_attention with a mask."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import batching, expect, raised, signature
from .core import Call, CheckFailed, CheckList
from .attention import UNDERFLOW_MASK, judge_attention, judge_attentions, large_scores_qkv, scale_probe, underflow_probe

ASSIGNMENT = "03_masking"
TASKS = ["causal_mask", "padding_mask", "apply_mask", "scaled_dot_product_attention"]
GIVEN = ["attention_scores", "softmax", "weighted_average", "scale_scores"]  # built in 01 and 02
MISCONCEPTIONS = {
    "causal_mask.no_diagonal": "causal mask without the diagonal (a position may not attend to itself)",
    "causal_mask.sees_ahead": "the boundary moved above the diagonal: each query also sees the key(s) right after it",
    "causal_mask.inverted": "True marks the hidden (future) keys instead of the allowed ones",
    "causal_mask.bottom_right": "bottom-right aligned causal mask (the last query sees every key)",
    "causal_mask.not_bool": "returns numbers (0/1) instead of booleans",
    "causal_mask.square_only": "ignores n_k (always square)",
    "causal_mask.transposed": "one row per key instead of per query (the mask transposed, or its sizes swapped)",
    "padding_mask.width_from_lengths": "sizes the mask by the longest sequence instead of the padded length n_k",
    "mask.output_unmasked": "right weights, but the output is computed from the weights before masking",
    "padding_mask.wrong_axis": "hides padded queries instead of padded keys",
    "padding_mask.no_query_axis": "shape (batch, n_k) without the query axis: broadcasts the batch against the queries",
    "padding_mask.off_by_one": "off by one: keeps (or hides) the key at position `length`",
    "padding_mask.inverted": "True marks the padding instead of the real keys",
    "padding_mask.not_bool": "returns numbers (0/1) instead of booleans",
    "mask.fill_zero": "hidden scores set to 0 (not -inf): they still get weight after the softmax",
    "mask.inverted": "keeps the hidden scores and hides the allowed ones",
    "mask.float_as_bool": "reads an additive float mask as a boolean one",
    "mask.float_ignored": "ignores a floating (additive) mask",
    "mask.bool_as_bias": "adds a boolean mask to the scores as numbers (True = 1, False = 0) instead of hiding",
    "mask.transposed": "reads the mask transposed (row i of the mask taken as key i)",
    "mask.no_broadcast": "works only with a mask of the scores' full shape (indexing with it, a reshape): fails on a "
                         "mask that broadcasts",
    "causal_mask.square_triangle": "takes the triangle of a square n_q x n_q table: fails with fewer keys than queries",
    "causal_mask.not_an_array": "returns a list (of lists) instead of a boolean array",
    "padding_mask.hides_queries": "hides the padded queries too: one (n_k, n_k) table per sequence instead of one row "
                                  "of keys",
    "padding_mask.axis_in_front": "puts the axis of length 1 in front of the batch: (1, batch, n_k)",
    "padding_mask.at_the_start": "takes the padding to come first: the real keys at the end of each sequence",
    "mask.fill_nan": "hidden scores set to NaN instead of -inf",
    "mask.inf_times_zero": "builds the bias as -inf times the inverted mask: -inf x 0 is NaN at every allowed key",
    "mask.log_of_float_mask": "takes the logarithm of a floating mask, which is already an additive bias",
    "mask.float_as_keep_flags": "after the softmax, keeps the weights only where a floating mask is nonzero (its "
                                "entries read as keep flags)",
    "mask.query_axis_added": "adds a query axis to a mask that already has one",
    "mask.after_softmax": "mask applied after the softmax: the rows no longer sum to 1",
    "mask.after_softmax_renormalised": "mask applied after a softmax of the unmasked scores, then renormalised, "
                                       "without a guard for fully masked rows",
    "mask.ignored": "the mask argument is ignored",
    "mask.large_negative_fill": "hidden scores set to a large negative number: a fully masked row gets uniform "
                                "weights instead of zeros",
    "mask.fully_masked_nan": "a fully masked row gives NaN (0/0) instead of zeros",
    "mask.before_scaling": "additive mask added before the division by sqrt(d_k)",
    "mask.max_over_masked_keys": "subtracts the maximum over every key, hidden ones included: when a hidden key "
                                 "scores far above the allowed ones, every allowed exp underflows to 0",
}
checks = CheckList(composites={"scaled_dot_product_attention": ("apply_mask",)})
CHECKS = checks


# ---------------------------------------------------------------- causal_mask
CAUSAL_TRANSPOSED = ("your mask is the causal mask transposed: one row per key and one column per query. Rows are the "
                     "queries (n_q of them), columns the keys, and row i allows the keys up to i.")


def _judge_causal(call, outcome):
    n_q = call.args[0]
    n_k = call.args[1] if len(call.args) > 1 else n_q
    what = f"`{call.describe()}`"
    got = expect.array(outcome, call, what)
    if n_q != n_k and got.shape == (n_k, n_q) and set(np.unique(got)) <= {0, 1}:
        for layout, message in ((ref.causal_mask(n_q, n_k).T, CAUSAL_TRANSPOSED),
                                (ref.causal_mask(n_k, n_q), "your mask is a causal mask with its sizes swapped: n_k rows "
                                                            "and n_q columns. Rows are the queries, columns the keys.")):
            if np.array_equal(got.astype(bool), layout):
                raise CheckFailed(f"{what} has shape {got.shape}, expected ({n_q}, {n_k}) = (n_q, n_k): {message}",
                                  "causal_mask.transposed")
    expect.shape(got, (n_q, n_k), what, " = (n_q, n_k)", diagnoses=[
        ((n_q, n_q), "causal_mask.square_only", "you ignored n_k: there can be more or fewer keys than queries."),
    ])
    want = ref.causal_mask(n_q, n_k)
    if got.dtype.kind == "f" and np.isin(got, (0.0, -np.inf)).all() and np.array_equal(got == 0, want):
        raise CheckFailed(f"{what} is an additive mask (0 and -inf): right pattern, but this function returns "
                          "booleans (True = may attend); `apply_mask` turns them into -inf.", "causal_mask.not_bool")
    as_bool = got.astype(bool) if got.dtype.kind in "biu" or set(np.unique(got)) <= {0.0, 1.0} else None
    if as_bool is None or not np.array_equal(as_bool, want):
        matching = [(misconception, message) for candidate, misconception, message in (
            (np.tril(np.ones((n_q, n_k), bool), k=-1), "causal_mask.no_diagonal",
             "the diagonal is False: position i may attend to itself (key j = i), only later keys are hidden."),
            (~want, "causal_mask.inverted",
             "True marks the hidden keys: in this course (as in PyTorch's and JAX's boolean masks) True means "
             "*may attend*."),
            (want.T if n_q == n_k else None, "causal_mask.transposed", CAUSAL_TRANSPOSED),  # square: it is np.triu too
            (np.triu(np.ones((n_q, n_k), bool)), "causal_mask.inverted",
             "True marks the upper triangle (the later keys, and the diagonal): in this course True means *may "
             "attend*, so query i sees keys 0..i, itself included."),
            *[(np.tril(np.ones((n_q, n_k), bool), k=ahead), "causal_mask.sees_ahead",
               f"query i also sees {('key i + 1', 'keys i + 1 and i + 2')[ahead - 1]}: the boundary belongs on the "
               "diagonal, query i sees keys 0..i (an offset of the triangle moves the boundary off it).") for ahead in (1, 2) if ahead != n_k - n_q],
            (np.tril(np.ones((n_q, n_k), bool), k=n_k - n_q), "causal_mask.bottom_right",
             "your mask is aligned to the bottom-right corner; this course aligns it to the top-left: query i "
             "sees keys 0..i, whatever n_k is (the diagonal starts at entry (0, 0), not at the last query's corner)."),
        ) if as_bool is not None and candidate is not None and np.array_equal(as_bool, candidate)]
        if len({m for m, _ in matching}) == 1:  # a 1 x 1 mask without its diagonal is also the inverted one
            raise CheckFailed(matching[0][1], matching[0][0])
        raise CheckFailed(f"{what} is wrong: query i may attend key j exactly when j <= i.", "wrong_values")


@checks.add("causal_mask", "square", "square masks (n = 3, 6 and 1): j <= i, diagonal included",
            calls=lambda rng: [Call("causal_mask", (n,)) for n in (3, 6, 1)])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_causal)


def _square_triangle(n_q, n_k):
    mask = np.zeros((n_q, n_k), dtype=bool)
    mask[np.tril_indices(n_q)] = True  # the lower triangle of an n_q x n_q table
    return mask


@checks.add("causal_mask", "non_square", "more keys than queries and fewer (top-left aligned)",
            calls=lambda rng: [Call("causal_mask", (3, 5)), Call("causal_mask", (5, 2))])
def _(calls, outcomes):
    if any(outcome.error for outcome in outcomes):
        found = signature.identify(outcomes, [(
            "causal_mask.square_triangle",
            "your answer is right with at least as many keys as queries and fails with fewer keys than queries "
            "(n_q > n_k) exactly where the triangle of a square n_q x n_q table would: its positions lie outside an "
            "n_q x n_k mask. The mask has n_k columns; the triangle must be cut to them.",
            [signature.predict(_square_triangle, *c.args) for c in calls])],
            reference=[ref.causal_mask(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    expect.each(calls, outcomes, _judge_causal)


@checks.add("causal_mask", "bool", "returns booleans (True = may attend)",
            calls=lambda rng: [Call("causal_mask", (4,))])
def _(calls, outcomes):
    got = expect.array(outcomes[0], calls[0], "`causal_mask(4)`")
    if isinstance(outcomes[0].value, tuple):  # a list or tuple: the executor hands lists over as tuples
        raise CheckFailed("`causal_mask(4)` returned a list of rows, not an array: the task asks for a boolean array. "
                          "A list has no shape and no dtype, and the operations a mask meets fail on it or mean "
                          "something else (`~` raises on a list; `==` compares the lists as a whole).",
                          "causal_mask.not_an_array")
    if got.dtype != bool:
        raise CheckFailed(f"`causal_mask(4)` has dtype {got.dtype}; return booleans (`dtype=bool`). A float mask "
                          "means an additive bias in this course, so a 0/1 float mask would add 1 to allowed "
                          "scores instead of hiding the others.", "causal_mask.not_bool")


# ---------------------------------------------------------------- padding_mask
def _judge_padding(call, outcome):
    lengths, n_k = call.args
    batch = lengths.shape[0]
    what = f"`padding_mask` for lengths {lengths.tolist()} and n_k = {n_k}"
    got = expect.array(outcome, call, what)
    _padding_layout(got, ref.padding_mask(lengths, n_k), what)
    expect.shape(got, (batch, 1, n_k), what, " = (batch, 1, n_k)", diagnoses=[
        ((batch, n_k, 1), "padding_mask.wrong_axis",
         "the padding axis is the key axis: the mask must be (batch, 1, n_k) so that every query skips the padded "
         "keys."),
        *([((batch, 1, int(lengths.max())), "padding_mask.width_from_lengths",
             "your mask has one column per position of the longest sequence: it needs n_k columns, the padded length "
             "passed in, which may be longer than every sequence.")] if lengths.size and lengths.max() != n_k else []),
        ((batch, n_k), "padding_mask.no_query_axis",
         "keep a middle axis of length 1, (batch, 1, n_k): without it the batch axis would broadcast against the "
         "query axis of the scores (batch, n_q, n_k)."),
    ])
    want = ref.padding_mask(lengths, n_k)
    flat = got.astype(bool) if got.dtype.kind in "biuf" else got
    if not np.array_equal(flat, want):
        positions = np.arange(n_k)[None, None, :]
        matching = [(misconception, message) for candidate, misconception, message in (
            (positions <= lengths[:, None, None], "padding_mask.off_by_one",
             "off by one: a sequence of length L has keys 0 .. L-1; key L is already padding."),
            (positions < lengths[:, None, None] - 1, "padding_mask.off_by_one",
             "off by one: a sequence of length L has keys 0 .. L-1, all of them real."),
            (~want, "padding_mask.inverted", "True marks the padding: in this course True means *may attend*."),
            (positions >= n_k - lengths[:, None, None], "padding_mask.at_the_start",
             "your mask takes the padding to come first, the real keys at the end of each sequence: a sequence of "
             "length L is padded after its end, so its real keys are its first L positions."),
        ) if np.array_equal(flat, candidate)]
        if len({m for m, _ in matching}) == 1:
            raise CheckFailed(matching[0][1], matching[0][0])
        raise CheckFailed(f"{what} is wrong: key j is real (True) exactly when j < the sequence's length.",
                          "wrong_values")


def _padding_layout(got, want, what):
    """Fail naming it when the mask holds the right rows of real keys laid out in another shape: one table per
    sequence that also hides the padded queries, or the axis of length 1 in front of the batch."""
    batch, n_k = want.shape[0], want.shape[-1]
    flat = got.astype(bool) if got.dtype.kind in "biuf" else got
    real = want[:, 0, :]
    if got.shape == (batch, n_k, n_k) and np.array_equal(flat, real[:, :, None] & real[:, None, :]):
        raise CheckFailed(f"{what} has shape {got.shape}, expected {want.shape} = (batch, 1, n_k): your mask also hides "
                          "the padded queries (one n_k x n_k table per sequence). A padding mask says which keys are "
                          "real, one row per sequence that every query shares; what a padded query computes is simply "
                          "never used, and a query with no allowed key gets nothing to read.",
                          "padding_mask.hides_queries")
    if batch > 1 and got.shape == (1, batch, n_k) and np.array_equal(flat[0], real):
        raise CheckFailed(f"{what} has shape {got.shape}, expected {want.shape} = (batch, 1, n_k): the right rows, but "
                          "the axis of length 1 is in front of the batch. It belongs between the batch and the keys, "
                          "where the queries are, so that each sequence's row is shared by its queries.",
                          "padding_mask.axis_in_front")


@checks.add("padding_mask", "values", "a batch of three sequences padded to n_k = 6 (one unpadded)",
            calls=lambda rng: [Call("padding_mask", (np.array([2, 6, 4]), 6))])
def _(calls, outcomes):
    _judge_padding(calls[0], outcomes[0])
    got = expect.array(outcomes[0], calls[0], "your padding mask")
    if got.dtype != bool:
        raise CheckFailed(f"your padding mask has dtype {got.dtype}; return booleans (True = may attend): a float mask "
                          "is an additive bias in this course.", "padding_mask.not_bool")


@checks.add("padding_mask", "random_lengths", "random lengths and widths, including an empty sequence",
            calls=lambda rng: [Call("padding_mask", (np.array([0, 3, 1]), 4)),
                               Call("padding_mask", (rng.integers(1, 9, size=5), 9))])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_padding)


@checks.add("padding_mask", "broadcasts", "the mask broadcasts against scores of shape (batch, n_q, n_k)",
            calls=lambda rng: [Call("padding_mask", (np.array([1, 4]), 4))])
def _(calls, outcomes):
    got = expect.array(outcomes[0], calls[0], "your padding mask")
    try:
        np.broadcast_shapes(got.shape, (2, 3, 4))
        ok = got.shape == (2, 1, 4)
    except ValueError:
        ok = False
    if not ok:
        _judge_padding(calls[0], outcomes[0])  # names the shape mistake
        raise CheckFailed("your padding mask does not broadcast against scores of shape (batch, n_q, n_k).",
                          "wrong_shape")


# ---------------------------------------------------------------- apply_mask
def _judge_apply(call, outcome, what="your masked scores"):
    scores, mask = call.args
    got = expect.array(outcome, call, what)
    expect.shape(got, scores.shape, what, " (the shape of the scores)")
    want = ref.apply_mask(scores, mask)
    diagnoses = []
    if mask.dtype == bool:
        diagnoses += [
            (np.where(mask, scores, 0.0), "mask.fill_zero",
             "the hidden scores are 0, not -inf: exp(0) = 1, so hidden keys would still get weight. Use -np.inf."),
            (scores * mask, "mask.fill_zero",
             "multiplying by the mask sets hidden scores to 0, not -inf: exp(0) = 1, so hidden keys would still "
             "get weight."),
            (np.where(mask, -np.inf, scores), "mask.inverted",
             "you hid the allowed keys and kept the hidden ones: True means *may attend*."),
            (scores + mask.astype(scores.dtype), "mask.bool_as_bias", BOOL_AS_BIAS),
            (np.where(mask, scores, np.nan), "mask.fill_nan",
             "the hidden scores are NaN, not -inf: NaN spreads through the softmax (every weight of its row becomes "
             "NaN), where exp(-inf) = 0 gives a hidden key weight 0."),
            (np.where(mask, scores * np.nan, -np.inf), "mask.inf_times_zero",
             "every allowed score is NaN and every hidden one -inf: a bias made by multiplying -inf by the inverted "
             "mask is NaN where the mask allows, since -inf x 0 is NaN (IEEE 754), not 0. Choose 0 or -inf at each "
             "position instead of multiplying."),
        ]
        if mask.shape[-1] == mask.shape[-2] and mask.ndim >= 2:
            diagnoses.append((np.where(np.swapaxes(mask, -1, -2), scores, -np.inf), "mask.transposed", MASK_TRANSPOSED))
        hidden = got[np.broadcast_to(~mask, got.shape)] if got.shape == scores.shape else np.array([])
        if hidden.size and np.isfinite(hidden).all() and (hidden <= -1e3).all():  # any large finite fill
            diagnoses.append((np.where(mask, scores, got), "mask.large_negative_fill",
                              "the hidden scores are a large negative number, not -inf: a row whose keys are all "
                              "hidden then gets equal weights on every key instead of none (its scores are all "
                              "equal). Use -np.inf."))
    else:
        diagnoses += [
            (np.where(mask.astype(bool), scores, -np.inf), "mask.float_as_bool",
             "a floating mask is an additive bias (0 keeps a score, -inf removes it): add it to the scores instead "
             "of reading it as True/False."),
            (np.where(mask == 0, scores, -np.inf), "mask.float_as_bool",
             "a floating mask is an additive bias: you read it as keep (0) or hide (anything else), so a finite bias "
             "hid a key it should only have moved. Add the mask to the scores."),
            (scores, "mask.float_ignored", "you ignored the floating mask: add it to the scores."),
        ]
    expect.close(got, want, what, dtype=scores.dtype, diagnoses=diagnoses, generic=_apply_property(got, want, mask))


BOOL_AS_BIAS = ("your boolean mask was added to the scores as numbers (True = 1, False = 0): a hidden key keeps a "
                "finite score, so it still gets weight, and every allowed score moves by 1. A boolean mask says which "
                "keys may be read (False hides); only a floating mask is a bias that is added.")
MASK_TRANSPOSED = ("your answer reads the mask transposed: row i of the mask belongs to query i (row i of the scores) "
                   "and column j to key j, as in the scores.")


def _apply_property(got, want, mask) -> str:
    """Which positions of the masked scores are off, in words: the property that fails (no mistake named)."""
    with np.errstate(all="ignore"):
        hidden, kept = np.isneginf(want), ~np.isneginf(want)
        told = []
        if (hidden & ~np.isneginf(got)).any():
            told.append(f"{int((hidden & ~np.isneginf(got)).sum())} position(s) the mask hides keep a score other "
                        "than -inf")
        if (kept & np.isneginf(got)).any():
            told.append(f"{int((kept & np.isneginf(got)).sum())} position(s) the mask allows became -inf")
        rtol, atol = expect.tolerances(want.dtype)
        moved = kept & np.isfinite(got) & ~np.isclose(got, want, rtol=rtol, atol=atol)
        if moved.any():
            told.append(f"{int(moved.sum())} allowed score(s) changed"
                        + (" (a floating mask's finite values shift its scores by exactly that value)"
                           if np.asarray(mask).dtype != bool else " (a boolean mask leaves allowed scores as they are)"))
    return "do not match the masked scores: " + ("; ".join(told) if told else "the values differ") + "."


@checks.add("apply_mask", "bool", "a boolean mask: hidden scores become -inf, the others are unchanged",
            calls=lambda rng: [Call("apply_mask", (rng.standard_normal((4, 4)), ref.causal_mask(4))),
                               Call("apply_mask", (rng.standard_normal((3, 5)), rng.random((3, 5)) < 0.6))])
def _(calls, outcomes):
    _transposed(calls, outcomes)
    expect.each(calls, outcomes, _judge_apply)


def _apply_transposed(scores, mask):
    mask = np.swapaxes(np.asarray(mask), -1, -2)
    return np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask


def _transposed(calls, outcomes):
    """Name a mask read transposed where the answer raises: it gives values on a square mask and raises on the others
    exactly where the transposed mask does, on every input of the check (:mod:`.signature`)."""
    if any(outcome.error for outcome in outcomes):
        found = signature.identify(outcomes, [("mask.transposed", MASK_TRANSPOSED, [
            signature.predict(_apply_transposed, *c.args) for c in calls])],
            reference=[ref.apply_mask(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])


def _float_mask(rng, shape):
    mask = np.where(rng.random(shape) < 0.3, -np.inf, 0.0)
    mask[..., 0] = 0.0
    return mask


#: Ways of reading a floating (additive) mask as keep/hide, or of not reading it: named by their outcomes on every
#: input of the float check (0/-inf, then finite negative biases), where one of them alone fits.
FLOAT_READINGS = (
    ("mask.float_as_bool", "a floating mask is an additive bias (0 keeps a score, -inf removes it): add it to the "
                           "scores instead of reading it as True/False.",
     lambda scores, mask: np.where(np.asarray(mask).astype(bool), scores, -np.inf)),
    ("mask.float_as_bool", "your answer reads the floating mask as keep/hide (keep where it is 0): a floating mask is "
                           "an additive bias, so a finite value such as -0.5 shifts its score instead of hiding it.",
     lambda scores, mask: np.where(np.asarray(mask) == 0, scores, -np.inf)),
    ("mask.float_as_bool", "your answer hides the -inf entries of a floating mask but drops its other values: a "
                           "floating mask is an additive bias, so a finite value such as -0.5 shifts its score.",
     lambda scores, mask: np.where(np.isfinite(mask), scores, -np.inf)),
    ("mask.float_ignored", "you ignored the floating mask: add it to the scores.", lambda scores, mask: scores),
    ("mask.log_of_float_mask", "your answer adds the logarithm of the floating mask: its 0 (keep) became -inf and its "
                               "-inf and negative values NaN. A floating mask is already a bias in the scores' units "
                               "(0 keeps, -inf hides, other values shift): it is added as it is.",
     lambda scores, mask: scores + np.log(mask)),
)


@checks.add("apply_mask", "float_additive", "a floating mask is added (0 keeps, -inf hides, other values shift)",
            calls=lambda rng: [Call("apply_mask", (rng.standard_normal((3, 5)), _float_mask(rng, (3, 5)))),
                               Call("apply_mask", (rng.standard_normal((2, 4)), -np.abs(rng.standard_normal((2, 4)))))])
def _(calls, outcomes):
    if not all(signature.agrees(o, ref.apply_mask(*c.args)) for c, o in zip(calls, outcomes)):
        found = signature.identify(outcomes, [(m, message, [signature.predict(f, *c.args) for c in calls])
                                              for m, message, f in FLOAT_READINGS],
                                   reference=[ref.apply_mask(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    _transposed(calls, outcomes)
    expect.each(calls, outcomes, _judge_apply)


def _with_full_masks(calls):
    """``calls``, then each again with its mask broadcast to the scores' whole shape (probes, never graded)."""
    return list(calls) + [Call(c.name, (c.args[0], np.broadcast_to(c.args[1], c.args[0].shape).copy())) for c in calls]


@checks.add("apply_mask", "broadcast", "a padding mask (batch, 1, n_k) on batched scores; float32 scores",
            calls=lambda rng: _with_full_masks([
                Call("apply_mask", (rng.standard_normal((2, 3, 4)), ref.padding_mask([2, 4], 4))),
                Call("apply_mask", (rng.standard_normal((2, 3, 5)).astype(np.float32), ref.causal_mask(3, 5)))]))
def _(calls, outcomes):
    graded = len(calls) // 2
    failing = [(c, o) for c, o in zip(calls[:graded], outcomes[:graded]) if o.error is not None]
    right_in_full = all(signature.agrees(o, ref.apply_mask(*c.args)) for c, o in zip(calls[graded:], outcomes[graded:]))
    if failing and right_in_full:
        call, outcome = failing[0]
        kind, detail = raised.short(outcome.error)
        raise CheckFailed(f"your answer is right when the mask has the scores' whole shape, and fails on "
                          f"`{call.describe()}` with {kind} ({detail}): a mask only has to broadcast against the "
                          "scores (a padding mask (batch, 1, n_k) holds one row for every query, a causal mask "
                          "(n_q, n_k) no batch axis). Whatever needs the mask at the scores' full shape (indexing "
                          "with it, a reshape of it) fails on such a mask.", "mask.no_broadcast")
    expect.each(calls[:graded], outcomes[:graded], _judge_apply)


@checks.add("apply_mask", "inputs_unmodified", "leaves the scores and the mask unchanged",
            calls=lambda rng: [Call("apply_mask", (rng.standard_normal((3, 3)), ref.causal_mask(3))),
                               Call("apply_mask", (rng.standard_normal((3, 3)), _float_mask(rng, (3, 3))))])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        expect.value(outcome, call)
        expect.unmodified(outcome, call, {"0": "scores", "1": "mask"})


# ---------------------------------------------------------------- scaled_dot_product_attention with a mask
def _qkv(rng, n_q, n_k, d_k, d_v, batch=(), scale=1.0, dtype=np.float64):
    return tuple((rng.standard_normal(batch + s) * f).astype(dtype)
                 for s, f in (((n_q, d_k), scale), ((n_k, d_k), scale), ((n_k, d_v), 1.0)))


def _masked_candidates(Q, K, V, mask):
    """(weights, misconception, message) of the usual masking mistakes."""
    d_k = Q.shape[-1]
    scaled = (Q @ np.swapaxes(K, -1, -2)) / math.sqrt(d_k)
    plain = ref.softmax(scaled)
    if mask.dtype == bool:
        yield plain, "mask.ignored", "your weights ignore the mask: hidden keys must get weight 0."
        yield plain * mask, "mask.after_softmax", \
            "you masked after the softmax: the remaining weights no longer sum to 1. Mask the scores (-inf) before it."
        yield ref.softmax(np.where(mask, scaled, 0.0)), "mask.fill_zero", \
            "hidden keys still get weight: their scores were set to 0 instead of -inf (exp(0) = 1)."
        yield ref.softmax(ref.apply_mask(scaled, ~mask)), "mask.inverted", \
            "your weights go to the hidden keys: True means *may attend*."
        yield ref.softmax(scaled + mask), "mask.bool_as_bias", BOOL_AS_BIAS
        yield ref.softmax(np.where(mask, scaled, -1e9)), "mask.large_negative_fill", \
            "a row whose keys are all hidden got equal weights on every key: with a large negative fill instead of " \
            "-inf the softmax cannot tell that row is empty. Use -inf and guard the empty row (weights and output 0)."
    else:
        yield plain, "mask.ignored", "your weights ignore the floating (additive) mask: add it to the scaled scores."
        yield plain * mask, "mask.after_softmax", \
            "you applied the mask after the softmax: a floating mask is added to the scaled scores before it."
        yield plain * np.exp(mask), "mask.after_softmax", \
            "you applied the mask after the softmax (as a factor exp(mask)): the remaining weights no longer sum to " \
            "1. A floating mask is added to the scaled scores before the softmax."
        yield ref.softmax(np.where(mask.astype(bool), scaled, -np.inf)), "mask.float_as_bool", \
            "a floating mask is an additive bias (0 keeps a score, -inf removes it): add it to the scaled scores."
        yield np.where(mask, ref.softmax(ref.apply_mask(scaled, mask)), 0.0), "mask.float_as_keep_flags", \
            "after the softmax your weights are kept only where the floating mask is nonzero, as if its entries were " \
            "keep flags: a floating mask is a bias already added to the scores, and its 0 means keep. The softmax of " \
            "the masked scores is the answer as it is."
        yield ref.softmax(ref.apply_mask(scaled * math.sqrt(d_k), mask) / math.sqrt(d_k)), "mask.before_scaling", \
            "you added the floating mask before dividing by sqrt(d_k): the bias is added to the scaled scores " \
            "(as PyTorch's attn_mask is)."


def _judge_masked(call, outcome, what=""):
    Q, K, V = call.args
    mask = call.kwargs.get("mask")
    if mask is None:
        judge_attention(call, outcome, what=what)
        return
    if outcome.error and outcome.error.startswith("TypeError") and "mask" in outcome.error:
        raise CheckFailed(f"`{call.describe()}` raised {outcome.error}: add the `mask=None` argument.", "mask.ignored")
    out, weights = expect.pair(outcome, call)
    ref_out, ref_w = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    rtol, atol = expect.tolerances(np.result_type(Q, K, V))
    if weights.shape == ref_w.shape and out.shape == ref_out.shape and expect.allclose(weights, ref_w, rtol, atol) \
            and not expect.allclose(out, ref_out, rtol, atol) \
            and expect.allclose(out, ref.scaled_dot_product_attention(Q, K, V)[0], rtol, atol):
        raise CheckFailed("your weights are right, but your output is the values mixed with the weights before the "
                          "mask (every key counted): the output uses the masked weights you return.",
                          "mask.output_unmasked")
    if weights.shape == ref_w.shape and not expect.allclose(weights, ref_w, rtol, atol):
        empty = ~(np.broadcast_to(ref_w, ref_w.shape).sum(axis=-1) > 0)  # fully masked rows
        nan = np.isnan(weights).any(axis=-1)
        if (nan & empty).any() and not (nan & ~empty).any():  # NaN where no key is allowed, and only there
            raise CheckFailed("a query whose keys are all hidden got NaN weights (the rows with an allowed key have "
                              "none): such a row has no weight to share out, and whichever way it is computed (a "
                              "softmax of scores that are all -inf meets -inf - (-inf); weights masked afterwards and "
                              "divided by their total meet 0 / 0) it gives NaN unless it is guarded. Its weights and "
                              "its output are all zeros.", "mask.fully_masked_nan")
        with np.errstate(all="ignore"):  # named only where one mistake's weights are these (a row of hidden keys
            matching = []                  # is uniform both for a -1e9 fill and for a fill of 0)
            for c_w, misconception, message in _masked_candidates(Q, K, V, mask):
                c_w = np.broadcast_to(c_w, ref_w.shape)
                if expect.allclose(weights, c_w, rtol, atol) or (
                        misconception == "mask.large_negative_fill" and empty.any() and
                        expect.allclose(weights[~empty], ref_w[~empty], rtol, atol) and
                        expect.allclose(weights[empty], c_w[empty], rtol, atol)):
                    matching.append((misconception, message))
            if len({m for m, _ in matching}) == 1:
                raise CheckFailed(matching[0][1], matching[0][0])
            # right wherever a row has an allowed key: what the empty rows got is said, not a cause (the weights of
            # the unmasked scores come from a softmax taken before masking, renormalised with a fallback, as much as
            # from an explicit fallback to every key; the underflow probe of masked_large_scores tells the first)
            if empty.any() and expect.allclose(weights[~empty], ref_w[~empty], rtol, atol):
                unmasked = np.broadcast_to(ref.softmax(Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])),
                                           ref_w.shape)
                if expect.allclose(weights[empty], unmasked[empty], rtol, atol):
                    raise CheckFailed("rows with at least one allowed key are right, but a query whose keys are all "
                                      "hidden got the weights of its unmasked scores, as if it read every key: a query "
                                      "with no allowed key reads nothing, so its weights and output are zeros.",
                                      "wrong_values")
                raise CheckFailed("rows with at least one allowed key are right, but a query whose keys are all hidden "
                                  "must get weights and output of zeros (the guard for 0/0).", "wrong_values")
    judge_attention(call, outcome, mask=mask, what=what)


def _sdpa(args, mask=None):
    kwargs = {} if mask is None else {"mask": mask}
    return Call("scaled_dot_product_attention", args, kwargs)


#: The trailing axes of one sequence of Q, K and V, and of a mask (:mod:`.batching`).
CORE, MASK_CORE = (2, 2, 2), {"mask": 2}


def _probed(make):
    """A check's calls, then the first sequence of each batched one (:mod:`.batching`) and
    :func:`.attention.scale_probe`: never graded, they tell an answer written for one sequence from one that is
    wrong everywhere, and name a divisor only where it follows one size at every input
    (:func:`.attention.judge_divisor`)."""
    return lambda rng: [*batching.with_first_sequences(make(rng), CORE, MASK_CORE), scale_probe(rng)]


def _with_query_axis(call, outcome) -> str | None:
    """How the outcome of a masked call shows a mask given one more axis of length 1 before its keys: ``"said"`` where
    the given attention refuses the mask at that shape (its own words), ``"shape"`` where the weights and output have
    the shape that mask broadcasts the scores to (a helper that does not check the mask lets it through, as the
    instructor's apply_mask in the student kit does), ``"raised"`` where that mask cannot broadcast against the
    scores and the call raised a ValueError; None where the outcome shows no such mask."""
    Q, K, V = call.args[:3]
    passed = np.shape(call.kwargs["mask"])
    inserted = passed[:-1] + (1,) + passed[-1:]
    scores = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]) + (Q.shape[-2], K.shape[-2])
    if outcome.error is not None:
        if raised.mask_shape(outcome.error) == inserted:
            return "said"
        try:
            np.broadcast_shapes(inserted, scores)
        except ValueError:
            return "raised" if outcome.error.startswith("ValueError") else None
        return None
    try:
        spread = np.broadcast_shapes(inserted, scores)
        out, weights = expect.pair(outcome, call)
    except (ValueError, CheckFailed):
        return None
    batch = spread[:-1]
    return "shape" if spread != scores and weights.shape == spread and out.shape == batch + (V.shape[-1],) else None


def _query_axis_added(calls, outcomes):
    """Fail naming it when every call with a mask shows a mask of the passed mask's shape with an axis of length 1
    inserted before its keys (a query axis added to a mask that has one: :func:`_with_query_axis`), some call shows
    its shape (refused in the given attention's words, or broadcast into the output), and every call without a mask
    gets an answer."""
    masked = [(c, o) for c, o in zip(calls, outcomes) if c.kwargs.get("mask") is not None]
    if not masked or any(o.error is not None for c, o in zip(calls, outcomes) if c.kwargs.get("mask") is None):
        return
    shown = [_with_query_axis(c, o) for c, o in masked]
    if None not in shown and {"said", "shape"} & set(shown):
        passed = np.shape(masked[0][0].kwargs["mask"])
        got = passed[:-1] + (1,) + passed[-1:]
        raise CheckFailed(f"a mask of shape {passed} reaches the given attention as {got}: your code adds an axis of "
                          "length 1 in front of the keys, a query axis, to a mask that already has one (a causal mask "
                          "(n_q, n_k), a padding mask (batch, 1, n_k)). The mask passed in lines up with the scores as "
                          "it is.", "mask.query_axis_added")


def _judge_sdpas(calls, outcomes, graded):
    """:func:`_judge_masked` on the ``graded`` calls, with their first-sequence probes; a divisor named from all."""
    _query_axis_added(calls, outcomes)
    judge_attentions(calls, outcomes, graded, lambda calls, outcomes: batching.judge_with_first_sequences(
        calls[:-1], outcomes[:-1], graded, CORE, _judge_masked, "attention.fixed_axes",
        batched_mistakes=frozenset({"attention.batched_transpose"}), keywords=MASK_CORE))


@checks.add("scaled_dot_product_attention", "no_mask", "without a mask: non-square, batched (as in notebook 02)",
            calls=_probed(lambda rng: [_sdpa(_qkv(rng, 3, 5, 4, 6, scale=2)),
                                       _sdpa(_qkv(rng, 4, 6, 8, 5, batch=(2, 3), scale=2))]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 2)


@checks.add("scaled_dot_product_attention", "causal", "a causal mask: no weight on later keys, rows sum to 1",
            calls=_probed(lambda rng: [_sdpa(_qkv(rng, 5, 5, 4, 3, scale=2), ref.causal_mask(5)),
                                       _sdpa(_qkv(rng, 4, 6, 3, 2, batch=(2,), scale=2), ref.causal_mask(4, 6))]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 2)


@checks.add("scaled_dot_product_attention", "padding", "a padding mask (batch, 1, n_k) on a batch of sequences",
            calls=_probed(lambda rng: [_sdpa(_qkv(rng, 4, 5, 6, 3, batch=(3,), scale=2), ref.padding_mask([2, 5, 3], 5))]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 1)


@checks.add("scaled_dot_product_attention", "float_mask", "floating masks: 0/-inf and a finite additive bias",
            calls=_probed(lambda rng: [_sdpa(_qkv(rng, 3, 5, 4, 2, scale=2), _float_mask(rng, (3, 5))),
                                       _sdpa(_qkv(rng, 4, 4, 9, 3, scale=2),
                                             -0.5 * np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0))))]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 2)


def _fully_masked(rng):
    mask = ref.padding_mask([0, 3], 3)  # the first sequence has no real key at all
    causal = ref.causal_mask(3, 4)
    causal[1] = False  # query 1 may attend nothing
    return [_sdpa(_qkv(rng, 3, 4, 4, 2), causal), _sdpa(_qkv(rng, 2, 3, 4, 5, batch=(2,)), mask)]


@checks.add("scaled_dot_product_attention", "fully_masked_row",
            "a query with no allowed key gets zero weights and a zero output (no NaN)",
            calls=_probed(_fully_masked))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 2)


@checks.add("scaled_dot_product_attention", "masked_large_scores", "large scores (1e3 and beyond) under a mask",
            calls=_probed(lambda rng: [_sdpa(large_scores_qkv(rng, 4, 4, 4, 3, offset=800.0), ref.causal_mask(4)),
                                       _sdpa(large_scores_qkv(rng, 3, 5, 4, 2, offset=-600.0), ref.causal_mask(3, 5)),
                                       _sdpa(underflow_probe(rng), UNDERFLOW_MASK.copy())]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 3)


@checks.add("scaled_dot_product_attention", "mask_broadcast", "one (n_q, n_k) mask shared by every sequence and head",
            calls=_probed(lambda rng: [_sdpa(_qkv(rng, 4, 6, 5, 3, batch=(2, 3), scale=2), ref.causal_mask(4, 6))]))
def _(calls, outcomes):
    _judge_sdpas(calls, outcomes, 1)


# One check for both, as every task of 04 and 05 has it: the two properties are one point, not two. The float32
# call is judged on its values (a divisor named from every call); every call must leave Q, K, V and the mask as
# they were.
@checks.add("scaled_dot_product_attention", "float32_unmodified",
            "float32 inputs under a mask; Q, K, V and the mask left unchanged",
            calls=lambda rng: [*batching.with_first_sequences(
                [_sdpa(_qkv(rng, 5, 7, 16, 4, batch=(2,), scale=2, dtype=np.float32), ref.causal_mask(5, 7))],
                CORE, MASK_CORE),
                               _sdpa(_qkv(rng, 4, 4, 3, 2), ref.causal_mask(4)),
                               _sdpa(_qkv(rng, 3, 5, 3, 2), _float_mask(rng, (3, 5))), scale_probe(rng)])
def _(calls, outcomes):
    # calls: the float32 call and its first sequence, then two more calls that only must leave their inputs alone
    _query_axis_added(calls, outcomes)
    judge_attentions(calls, outcomes, 1, lambda calls, outcomes: batching.judge_with_first_sequences(
        calls[:2], outcomes[:2], 1, CORE, _judge_masked, "attention.fixed_axes",
        batched_mistakes=frozenset({"attention.batched_transpose"}), keywords=MASK_CORE))
    for call, outcome in zip(calls[:1] + calls[2:-1], outcomes[:1] + outcomes[2:-1]):
        expect.value(outcome, call)
        expect.unmodified(outcome, call, {"0": "Q", "1": "K", "2": "V", "mask": "mask"})


raised.explain(checks)  # a raw exception is said as the failure of one of the check's inputs
