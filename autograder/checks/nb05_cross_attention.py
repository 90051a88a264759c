"""Checks of 05_cross_attention: self_attention (with causal) and cross_attention (with source padding)."""
from __future__ import annotations


import numpy as np

import attention_ref as ref

from . import expect, raised, signature
from .core import Call, CheckFailed, CheckList
from .nb04_heads import _mha_args, judge_mha, mha_variant, nan_where

ASSIGNMENT = "05_cross_attention"
TASKS = ["self_attention", "cross_attention"]
GIVEN = ["scaled_dot_product_attention", "multi_head_attention", "causal_mask", "padding_mask"]
MISCONCEPTIONS = {
    "self_attention.causal_ignored": "ignores causal=True (every position reads the future)",
    "self_attention.flag_as_mask": "passes the causal flag on as the mask: True hides nothing, False hides every key",
    "self_attention.causal_always": "applies the causal mask even when causal=False",
    "self_attention.causal_default": "masks when the flag is left out (its own default is causal=True), though "
                                     "an explicit causal=False is read",
    "self_attention.causal_wrong_direction": "causal mask points the wrong way (positions read the future, not the past)",
    "self_attention.causal_no_diagonal": "causal mask without the diagonal (a position cannot read itself)",
    "self_attention.causal_inverted": "negates the causal mask: position i reads only the later positions j > i",
    "self_attention.causal_not_bool": "builds the causal mask of numbers (0/1): added as a bias, it hides nothing",
    "self_attention.mask_size_from_width": "sizes the causal mask with X.shape[-1], the width, not the number of positions",
    "self_attention.mask_size_from_batch": "sizes the causal mask with len(X) (X.shape[0]), the batch size of a "
                                           "batched X, instead of the number of positions",
    "cross_attention.swapped": "swaps the sequences: queries from the input side, keys and values from the output side",
    "cross_attention.padding_ignored": "ignores enc_lengths (padded source positions get weight)",
    "cross_attention.padding_wrong_axis": "masks the padding along the query axis instead of the key axis",
    "cross_attention.padding_inverted": "inverted padding mask (hides the real source positions, keeps the padding)",
    "cross_attention.padding_off_by_one": "padding mask off by one: hides the last real source position (lengths read "
                                          "as last indices) or keeps the first padded one",
    "cross_attention.lengths_truth_test": "asks the array enc_lengths for its truth (`if enc_lengths:`): fails for "
                                          "several lengths",
    "cross_attention.head_axis_twice": "adds the head axis to the padding mask, which multi_head_attention adds itself",
    "cross_attention.reads_decoder": "takes the keys and values from X_dec (self-attention of the output side)",
    "cross_attention.queries_from_encoder": "takes the queries from X_enc (self-attention of the input side)",
    "cross_attention.causal_mask": "applies a causal mask to cross-attention (every output position may read every input position)",
    "self_attention.no_maps": "attends the sequence to itself as it is: no maps, no heads, no output projection",
    "cross_attention.lengths_as_padding": "reads enc_lengths as the number of padded positions instead of real ones",
    "cross_attention.padding_no_query_axis": "passes a (batch, n_enc) padding mask without its query axis",
    "cross_attention.padding_decoder_length": "builds the padding mask over n_dec positions (the decoder's length) "
                                              "instead of the n_enc source positions",
}
checks = CheckList()
CHECKS = checks

_W_NAMES = {"2": "W_q", "3": "W_k", "4": "W_v", "5": "W_o"}


# ---------------------------------------------------------------- self_attention
def _self_call(rng, batch, n, d_model, h, d_k, d_v, d_out, causal=None, dtype=np.float64):
    X_q, _, W_q, W_k, W_v, W_o, h = _mha_args(rng, batch, n, n, d_model, h, d_k, d_v, d_out, dtype=dtype, self_attn=True)
    kwargs = {} if causal is None else {"causal": causal}
    return Call("self_attention", (X_q, W_q, W_k, W_v, W_o, h), kwargs)


#: What an answer does with the other value of the flag, read from a never-graded probe (the same inputs with
#: causal=False beside each causal=True call): "same" when it gives the very same (output, weights), "hides_all"
#: when it hides every key (all weights 0: the flag itself passed on as the mask), "other" otherwise, None unknown.
FLAG_SAME, FLAG_HIDES_ALL, FLAG_OTHER = "same", "hides_all", "other"
#: Beside a call that leaves the flag out: the probe with causal=False written out is the right answer.
FLAG_RIGHT = "right"


def _flag_probe(outcome, probe) -> str | None:
    """How ``probe`` (the causal=False call) compares with ``outcome`` (the causal=True call on the same inputs)."""
    if outcome.error is not None or probe.error is not None:
        return None
    if signature.agrees(probe, outcome.value):
        return FLAG_SAME
    value = probe.value
    if isinstance(value, tuple) and len(value) == 2:
        try:
            weights = np.asarray(value[1], dtype=float)
        except (TypeError, ValueError):
            return FLAG_OTHER
        if weights.size and np.isfinite(weights).all() and not weights.any():
            return FLAG_HIDES_ALL
    return FLAG_OTHER


def _self_diagnoses(call, flag=None):
    X, W_q, W_k, W_v, W_o, h = call.args
    args = (X, X, W_q, W_k, W_v, W_o, h)
    n = X.shape[-2]
    if call.kwargs.get("causal", False):
        # Unmasked weights with causal=True: *ignored* only where causal=False gives the very same answer; passed on
        # as the mask where causal=False hides every key (True hides nothing, False everything).
        unmasked = ref.multi_head_attention(*args)
        if flag == FLAG_SAME:
            yield unmasked, "self_attention.causal_ignored", \
                "with causal=True position i must read only positions j <= i; your weights reach later positions, " \
                "and causal=False gives the very same answer (the causal flag is ignored)."
        elif flag == FLAG_HIDES_ALL:
            yield unmasked, "self_attention.flag_as_mask", \
                "with causal=True your weights reach later positions (nothing is hidden), and with causal=False every " \
                "weight is 0 (every key is hidden): the flag itself reaches attention as the mask, where True " \
                "hides nothing and False hides everything. The flag chooses whether there is a causal mask; it is " \
                "not one."
        elif flag == FLAG_OTHER:  # the flag read, in another way: no mistake named (judge_mha says the property)
            yield unmasked, "wrong_values", "with causal=True your weights reach later positions (j > i)."
        yield ref.multi_head_attention(*args, mask=ref.causal_mask(n).T), "self_attention.causal_wrong_direction", \
            "your causal mask points the wrong way: position i may read positions j <= i (the lower triangle), not the later ones."
        with np.errstate(all="ignore"):
            yield ref.multi_head_attention(*args, mask=np.tril(np.ones((n, n), bool), -1)), "self_attention.causal_no_diagonal", \
                "your causal mask leaves out the diagonal: a position may read itself (j <= i, not j < i)."
            yield ref.multi_head_attention(*args, mask=~ref.causal_mask(n)), "self_attention.causal_inverted", \
                "your causal mask is negated: position i reads only the later positions j > i (and the last one " \
                "reads nothing). In this course True means *may attend*, and a causal mask marks the keys a query may "\
                "read: negating it hides exactly those."
        yield ref.multi_head_attention(*args, mask=ref.causal_mask(n).astype(X.dtype)), "self_attention.causal_not_bool", \
            "your causal mask holds numbers (0 and 1), not booleans: a floating mask is an additive bias, so it adds 1 " \
            "to the allowed scores and hides nothing. A mask that hides keys is boolean (True = may attend)."
    elif "causal" in call.kwargs or flag == FLAG_SAME:
        # causal=False passed, or left out where passing it changes nothing: the mask whatever the flag says
        yield ref.multi_head_attention(*args, mask=ref.causal_mask(n)), "self_attention.causal_always", \
            "with causal=False (the default) every position reads every position; your answer applies the causal mask anyway."
    elif flag == FLAG_RIGHT:
        yield ref.multi_head_attention(*args, mask=ref.causal_mask(n)), "self_attention.causal_default", \
            ("called without the flag, your answer applies the causal mask, and the same call with causal=False "
             "written out is right: your function reads the flag, but its own default is causal=True. Left out, the "
             "flag is False (the signature the task gives): self-attention without it is not causal.")
    else:  # left out, with no probe to say what an explicit causal=False does: the property only
        yield ref.multi_head_attention(*args, mask=ref.causal_mask(n)), "wrong_values", \
            "called without the flag (causal=False), your answer hides the later positions (a causal mask)."
    for options, misconception, message in (
            (dict(shared=True), "multi_head_attention.shared_qk_map",
             "your keys come from the query map W_q: the keys need their own map W_k."),):
        yield mha_variant(*args, mask=ref.causal_mask(n) if call.kwargs.get("causal") else None, **options), misconception, message


def _judge_self(call, outcome, flag=None):
    X, W_q, W_k, W_v, W_o, h = call.args
    mask = ref.causal_mask(X.shape[-2]) if call.kwargs.get("causal") else None
    if outcome.error is None and signature.agrees(outcome, ref.scaled_dot_product_attention(X, X, X, mask=mask)):
        raise CheckFailed("your self-attention is the sequence X attended to itself as it is, X as its own queries, "
                          "keys and values: the maps W_q, W_k and W_v never make them, there are no heads, and W_o "
                          "never recombines them. Self-attention is multi-head attention with X on both sides.",
                          "self_attention.no_maps")
    judge_mha(call, outcome, (X, X, W_q, W_k, W_v, W_o, h), mask, what="your self-attention",
              extra_diagnoses=lambda: _self_diagnoses(call, flag))


def _default_probe(call, outcome, probe) -> str | None:
    """How ``probe`` (``call`` again with causal=False written out) compares with ``outcome`` (the flag left out)."""
    if outcome.error is not None or probe.error is not None:
        return None
    if signature.agrees(probe, outcome.value):
        return FLAG_SAME
    X, W_q, W_k, W_v, W_o, h = call.args
    return FLAG_RIGHT if signature.agrees(probe, ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, h)) else FLAG_OTHER


def _with_default_probes(calls):
    """``calls``, then each one that leaves the flag out again with causal=False written out (probes, never graded:
    :func:`_default_probe` tells a wrong default from a flag that is never read)."""
    return list(calls) + [Call(c.name, c.args, {**c.kwargs, "causal": False}) for c in calls if "causal" not in c.kwargs]


def _with_flag_probes(calls):
    """``calls``, then each causal=True one again with causal=False (probes, never graded: :func:`_flag_probe`)."""
    return list(calls) + [Call(c.name, c.args, {**c.kwargs, "causal": False}) for c in calls if c.kwargs.get("causal")]


def _judge_causal_calls(calls, outcomes, graded, judge):
    """``judge(call, outcome, flag)`` on the ``graded`` calls, each with what its causal=False probe shows."""
    probes = iter(zip(calls[graded:], outcomes[graded:]))
    for call, outcome in zip(calls[:graded], outcomes[:graded]):
        flag = _flag_probe(outcome, next(probes)[1]) if call.kwargs.get("causal") else None
        judge(call, outcome, flag)


# The unbatched case of the seeds' shapes is one more call of the same judge, not a point of its own.
@checks.add("self_attention", "matches_reference",
            "3 heads over 4 positions of width 6; batch axes, d_k != d_v, W_o to another width, causal=False",
            calls=lambda rng: _with_default_probes([_self_call(rng, (2,), 5, 12, 3, 4, 3, 7),
                                                    _self_call(rng, (2,), 6, 8, 2, 5, 4, 8, causal=False),
                                                    _self_call(rng, (), 4, 6, 3, 2, 2, 6)]))
def _(calls, outcomes):
    probes = iter(zip(calls[3:], outcomes[3:]))
    flags = [None if "causal" in call.kwargs else _default_probe(call, outcome, next(probes)[1])
             for call, outcome in zip(calls[:3], outcomes[:3])]
    failures = []
    for call, outcome, flag in zip(calls[:3], outcomes[:3], flags):
        try:
            _judge_self(call, outcome, flag)
        except CheckFailed as failure:
            failures.append((call, failure))
    if failures:
        raise expect.consistent(failures)


def _self_variant(X, W_q, W_k, W_v, W_o, h, causal=False, *, mask_size="positions"):
    """Self-attention with a mistake of the causal mask's size switched on (a signature: where it raises)."""
    n = np.shape(X)[{"first_axis": 0, "last_axis": -1}.get(mask_size, -2)]
    return ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, h, mask=ref.causal_mask(n) if causal else None)


#: Mistakes that raise on batched inputs only: named only when the answer raises, or is right, exactly where
#: the mistake does on every input of the check (:mod:`.signature`).
SELF_RAISING = (
    ("self_attention.mask_size_from_batch",
     "your answer fails exactly where a causal mask of len(X) x len(X) would (it is right on one unbatched "
     "sequence): for a batch, len(X) and X.shape[0] count the sequences, not the positions. The number of "
     "positions is the second-to-last axis.", dict(mask_size="first_axis")),
    ("self_attention.mask_size_from_width",
     "your answer fails exactly where a causal mask sized by the width of X would (it is right only when the width "
     "d_model equals the number of positions): the mask has one row and one column per position, and the "
     "positions are the second-to-last axis of X, not the last.", dict(mask_size="last_axis")),
)


@checks.add("self_attention", "causal", "causal=True: position i reads only positions j <= i",
            calls=lambda rng: _with_flag_probes([_self_call(rng, (2,), 6, 8, 2, 5, 3, 4, causal=True),
                                                 _self_call(rng, (), 5, 6, 3, 2, 4, 6, causal=True),
                                                 # as many positions as the width (and not as the batch): a mask
                                                 # sized by the width is right here only, one sized by the batch
                                                 # still raises
                                                 _self_call(rng, (3,), 6, 6, 2, 3, 3, 5, causal=True)]))
def _(calls, outcomes):
    calls, outcomes, probes = calls[:3], outcomes[:3], (calls, outcomes)
    if any(outcome.error for outcome in outcomes):
        found = signature.identify(outcomes, [
            (m, message, [signature.predict(_self_variant, *c.args, **c.kwargs, **options) for c in calls])
            for m, message, options in SELF_RAISING],
            reference=[signature.predict(_self_variant, *c.args, **c.kwargs) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    def judge(call, outcome, flag):
        _, weights = expect.pair(outcome, call)
        if weights.ndim >= 2 and weights.shape[-1] == weights.shape[-2] and np.isnan(weights).any():
            raise CheckFailed("your causal weights contain NaN: the first position has no earlier position "
                              "to read — the diagonal belongs to the allowed keys (j <= i).",
                              "self_attention.causal_no_diagonal")
        _judge_self(call, outcome, flag)
    _judge_causal_calls(*probes, 3, judge)


@checks.add("self_attention", "float32_unmodified", "float32 inputs, left unchanged",
            calls=lambda rng: _with_flag_probes([_self_call(rng, (2,), 4, 6, 2, 3, 2, 5, causal=True,
                                                            dtype=np.float32)]))
def _(calls, outcomes):
    _judge_causal_calls(calls, outcomes, 1, _judge_self)
    expect.unmodified(outcomes[0], calls[0], {"0": "X", **_W_NAMES})


# ---------------------------------------------------------------- cross_attention
def _cross_call(rng, batch, n_dec, n_enc, d_model, h, d_k, d_v, d_out, lengths=None, dtype=np.float64):
    X_dec, X_enc, W_q, W_k, W_v, W_o, h = _mha_args(rng, batch, n_dec, n_enc, d_model, h, d_k, d_v, d_out, dtype=dtype)
    kwargs = {} if lengths is None else {"enc_lengths": np.asarray(lengths)}
    return Call("cross_attention", (X_dec, X_enc, W_q, W_k, W_v, W_o, h), kwargs)


def _cross_diagnoses(call):
    X_dec, X_enc, W_q, W_k, W_v, W_o, h = call.args
    lengths = call.kwargs.get("enc_lengths")
    n_dec, n_enc = X_dec.shape[-2], X_enc.shape[-2]
    args = (X_dec, X_enc, W_q, W_k, W_v, W_o, h)
    if lengths is not None:
        right = ref.padding_mask(lengths, n_enc)  # (batch, 1, n_enc)
        yield ref.multi_head_attention(*args), "cross_attention.padding_ignored", \
            "the padded source positions (beyond enc_lengths) still get weight: hide them with a padding mask on the key axis."
        yield ref.multi_head_attention(*args, mask=~right), "cross_attention.padding_inverted", \
            "your padding mask is inverted: it hides the real source positions and keeps the padding (True = may attend)."
        if n_dec == n_enc:
            with np.errstate(all="ignore"):
                yield ref.multi_head_attention(*args, mask=np.swapaxes(right, -1, -2)), "cross_attention.padding_wrong_axis", \
                    "your padding mask hides output positions (rows) instead of source positions (columns): " \
                    "the padding belongs to the keys, so the mask must vary along the key axis, shape (batch, 1, n_enc)."
        for shift, message in ((-1, "your padding mask hides the last real source position of each sequence: "
                                    "enc_lengths counts the real positions (a length L keeps positions 0 .. L-1); it "
                                    "is not the index of the last one."),
                               (1, "your padding mask keeps one padded source position after each sequence: a "
                                   "length L keeps positions 0 .. L-1 only.")):
            shifted = np.arange(n_enc)[None, None, :] < (np.asarray(lengths) + shift)[:, None, None]
            with np.errstate(all="ignore"):
                yield ref.multi_head_attention(*args, mask=shifted), "cross_attention.padding_off_by_one", message
        with np.errstate(all="ignore"):
            yield ref.multi_head_attention(*args, mask=ref.padding_mask(n_enc - np.asarray(lengths), n_enc)), \
                "cross_attention.lengths_as_padding", \
                "your mask reads enc_lengths as the number of padded positions at the end of each source: it counts " \
                "the real ones (a source of length L keeps positions 0 .. L-1, and one of length n_enc is not padded)."
            try:  # the mask without its query axis broadcasts only where the batch lines up with the queries
                yield ref.multi_head_attention(*args, mask=right[..., 0, :]), "cross_attention.padding_no_query_axis", \
                    NO_QUERY_AXIS
            except ValueError:
                pass
        rows = np.arange(n_dec)[None, :, None] < np.asarray(lengths)[:, None, None]  # (batch, n_dec, 1)
        with np.errstate(all="ignore"):
            yield ref.multi_head_attention(*args, mask=rows), "cross_attention.padding_wrong_axis", \
                "your padding mask hides output positions (rows) instead of source positions (columns): " \
                "the padding belongs to the keys, so the mask must vary along the key axis, shape (batch, 1, n_enc)."
    if n_dec == n_enc:
        mask = None if lengths is None else ref.padding_mask(lengths, n_enc)
        yield ref.multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, h, mask=mask), "cross_attention.swapped", \
            "your queries come from the input side and your keys and values from the output side: the side that " \
            "writes (X_dec) asks, the input sentence (X_enc) is read."
        yield ref.multi_head_attention(X_dec, X_dec, W_q, W_k, W_v, W_o, h, mask=mask), "cross_attention.reads_decoder", \
            "your keys and values come from X_dec: they come from X_enc, the input sentence that is read; the " \
            "queries from X_dec."
        yield ref.multi_head_attention(X_enc, X_enc, W_q, W_k, W_v, W_o, h, mask=mask), \
            "cross_attention.queries_from_encoder", \
            "your queries come from X_enc: they come from X_dec, the side that writes; X_enc gives the keys and values."
        causal = ref.causal_mask(n_dec)
        if lengths is not None:
            causal = causal & ref.padding_mask(lengths, n_enc)
        yield ref.multi_head_attention(*args, mask=causal), "cross_attention.causal_mask", \
            "your cross-attention applies a causal mask: every output position may read every input position."


def _judge_cross(call, outcome):
    X_dec, X_enc, W_q, W_k, W_v, W_o, h = call.args
    lengths = call.kwargs.get("enc_lengths")
    mask = None if lengths is None else ref.padding_mask(lengths, X_enc.shape[-2])
    args = (X_dec, X_enc, W_q, W_k, W_v, W_o, h)
    out, weights = expect.pair(outcome, call)
    n_dec, n_enc = X_dec.shape[-2], X_enc.shape[-2]
    if n_dec != n_enc and weights.ndim >= 2 and weights.shape[-2:] == (n_dec, n_dec):
        raise CheckFailed("your weights have one column per output position (n_dec): the keys and values come from "
                          "X_dec. They come from X_enc, the input sentence that is read; the queries from X_dec.",
                          "cross_attention.reads_decoder")
    if n_dec != n_enc and weights.ndim >= 2 and weights.shape[-2:] == (n_enc, n_enc) and out.shape[-2] == n_enc:
        raise CheckFailed("your output and your weights have one row per input position (n_enc): "
                          "the queries come from X_enc. They come from X_dec, the side that writes (one output row "
                          "per decoder position); X_enc gives the keys and values.", "cross_attention.queries_from_encoder")
    if n_dec != n_enc and weights.ndim >= 2 and weights.shape[-2:] == (n_enc, n_dec) and out.shape[-2] == n_enc:
        raise CheckFailed("your weights have one row per input position and one column per output position: the "
                          "sequences are swapped. The side that writes (X_dec) asks the queries; the input "
                          "sentence (X_enc) gives the keys and values, so the weights are (..., heads, n_dec, n_enc).",
                          "cross_attention.swapped")
    if lengths is not None and not np.isnan(weights).any() and weights.shape[-1] == n_enc and weights.ndim == 4:
        padded = ~ref.padding_mask(lengths, n_enc)[:, None, :, :]  # (batch, 1, 1, n_enc)
        if (np.broadcast_to(padded, weights.shape) & (weights != 0)).any() and not \
                (np.broadcast_to(~padded, weights.shape) & (weights != 0)).any():
            raise CheckFailed("your padding mask is inverted: it hides the real source positions and keeps the "
                              "padding (True = may attend).", "cross_attention.padding_inverted")
    judge_mha(call, outcome, args, mask, what="your cross-attention", extra_diagnoses=lambda: _cross_diagnoses(call))


def _cross_variant(X_dec, X_enc, W_q, W_k, W_v, W_o, h, enc_lengths=None, *, mask_width="enc"):
    """Cross-attention with a mistake of the padding mask switched on (a signature: where it raises, where not)."""
    mask = None
    if enc_lengths is not None:
        mask = ref.padding_mask(enc_lengths, (X_enc if mask_width == "enc" else X_dec).shape[-2])
    return ref.multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, h, mask=mask)


#: Mistakes that raise on some inputs (sources and outputs of different lengths): named only when the answer
#: raises, or gives values, exactly where the mistake does on every input of the check (:mod:`.signature`).
CROSS_RAISING = (
    ("cross_attention.padding_decoder_length",
     "your answer fails exactly where a padding mask over the n_dec output positions would (it is right when both "
     "sequences have the same length): the padding belongs to the source, so the mask has one column per source "
     "position, n_enc of them.", dict(mask_width="dec")),
)


NO_QUERY_AXIS = ("a padding mask without its query axis lines the batch up with the queries of the scores "
                 "(batch, n_dec, n_enc), where one row of keys serves every query of a sequence: the mask is "
                 "(batch, 1, n_enc), as padding_mask gives it.")


def _padding_errors(calls, outcomes):
    """Name what the errors of the calls with ``enc_lengths`` say, where every such call raises it and every call
    without lengths gets an answer: the array of lengths asked for its truth (numpy's own words), or a padding mask
    that reaches attention with the head axis already added (the shape the given attention reports)."""
    with_lengths = [(c, o) for c, o in zip(calls, outcomes) if c.kwargs.get("enc_lengths") is not None]
    if not with_lengths or any(o.error is None for _, o in with_lengths) or any(
            o.error is not None for c, o in zip(calls, outcomes) if c.kwargs.get("enc_lengths") is None):
        return
    errors = [o.error for _, o in with_lengths]
    if all(e.startswith("ValueError") and "truth value of an array" in e for e in errors):
        raise CheckFailed("every call that passes enc_lengths fails with ValueError (the truth value of an array with "
                          "more than one element is ambiguous): your code asks whether the array of lengths is true "
                          "(an `if`, `and`, `or` or `not` on it), which an array of several numbers cannot answer. "
                          "What decides is whether enc_lengths was given at all.", "cross_attention.lengths_truth_test")
    shapes = [raised.mask_shape(error) for error in errors]
    if all(shape is not None and shape == (len(call.kwargs["enc_lengths"]), call.args[1].shape[-2])
           for (call, _), shape in zip(with_lengths, shapes)):
        raise CheckFailed(f"your padding mask reaches attention with shape {shapes[0]}, (batch, n_enc): " + NO_QUERY_AXIS,
                          "cross_attention.padding_no_query_axis")
    if all(shape is not None and shape == (len(call.kwargs["enc_lengths"]), 1, 1, call.args[1].shape[-2])
           for (call, _), shape in zip(with_lengths, shapes)):
        raise CheckFailed(f"your padding mask reaches attention with shape {shapes[0]}, (batch, 1, 1, n_enc): one axis of "
                          "length 1 too many. The given multi_head_attention adds the head axis to the mask itself, "
                          "so the mask it gets is (batch, 1, n_enc), as padding_mask gives it.",
                          "cross_attention.head_axis_twice")


def _judge_crosses(calls, outcomes):
    """Every input of a cross_attention check; an error is named by its signature over them all."""
    _padding_errors(calls, outcomes)
    if any(outcome.error for outcome in outcomes):
        found = signature.identify(outcomes, [
            (m, message, [signature.predict(_cross_variant, *c.args, **c.kwargs, **options) for c in calls])
            for m, message, options in CROSS_RAISING],
            reference=[signature.predict(_cross_variant, *c.args, **c.kwargs) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    expect.each(calls, outcomes, _judge_cross)


def _lengths(rng, batch, n_enc, empty=False):
    lengths = rng.integers(1, n_enc, size=batch)
    lengths[0] = n_enc  # one sequence without padding
    if empty:
        lengths[-1] = 0  # an empty source: every key of that sequence is padding
    return lengths


# The unbatched case (3 output positions read 5 input positions) is one more call of the same judge.
@checks.add("cross_attention", "matches_reference",
            "3 output positions read 5 input positions; batch axes, n_dec != n_enc, d_k != d_v, 4 heads, W_o to another width",
            calls=lambda rng: [_cross_call(rng, (2,), 4, 7, 12, 4, 5, 3, 9),
                               _cross_call(rng, (2,), 5, 5, 8, 2, 3, 4, 6),
                               _cross_call(rng, (), 3, 5, 8, 2, 4, 4, 8)])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_cross)


@checks.add("cross_attention", "self_special_case", "cross_attention(X, X, ...) is self-attention",
            calls=lambda rng: [Call("cross_attention", (lambda a: (a[0], a[0], *a[2:]))(_mha_args(rng, (2,), 5, 5, 8, 2, 3, 5, 6)))])
def _(calls, outcomes):
    call = calls[0]
    X, _, W_q, W_k, W_v, W_o, h = call.args
    out, weights = expect.pair(outcomes[0], call)
    reference = ref.self_attention(X, W_q, W_k, W_v, W_o, h)
    expect.close(weights, reference[1], "your weights with X_dec = X_enc", dtype=X.dtype,
                 diagnoses=[(ref.self_attention(X, W_q, W_k, W_v, W_o, h, causal=True)[1], "cross_attention.causal_mask",
                             "with X_dec = X_enc your weights are causal: cross-attention has no causal mask, "
                             "so with one sequence it must equal plain self-attention.")],
                 generic="with X_dec = X_enc differ from self-attention: self-attention is the special case where "
                         "both sequences are the same.")
    expect.close(out, reference[0], "your output with X_dec = X_enc", dtype=X.dtype,
                 generic="with X_dec = X_enc differs from self-attention: self-attention is the special case where "
                         "both sequences are the same.")


@checks.add("cross_attention", "padding", "enc_lengths: padded source positions get weight 0",
            calls=lambda rng: [_cross_call(rng, (2,), 5, 5, 6, 3, 2, 2, 6, lengths=np.array([5, 2])),
                               _cross_call(rng, (3,), 4, 6, 8, 2, 3, 4, 5, lengths=_lengths(rng, 3, 6))])
def _(calls, outcomes):
    _judge_crosses(calls, outcomes)


@checks.add("cross_attention", "empty_source", "a source of length 0: zeros for that sequence, no NaN",
            calls=lambda rng: [_cross_call(rng, (3,), 3, 4, 6, 2, 3, 2, 5, lengths=_lengths(rng, 3, 4, empty=True))])
def _(calls, outcomes):
    _padding_errors(calls, outcomes)
    call = calls[0]
    out, weights = expect.pair(outcomes[0], call)
    X_dec, X_enc, W_q, W_k, W_v, W_o, h = call.args
    mask = ref.padding_mask(call.kwargs["enc_lengths"], X_enc.shape[-2])
    nan_where(out, weights, ref.multi_head_attention(*call.args, mask=mask)[1],
              "a sequence whose source is all padding gave NaN (and only such a sequence): every key of its queries is "
              "masked, so its weights and output should be zeros (the 0/0 guard of a fully masked row).",
              "your cross-attention")
    _judge_cross(call, outcomes[0])


@checks.add("cross_attention", "float32_unmodified", "float32 inputs, left unchanged",
            calls=lambda rng: [_cross_call(rng, (2,), 3, 5, 6, 2, 3, 2, 4, lengths=np.array([5, 3]), dtype=np.float32)])
def _(calls, outcomes):
    _padding_errors(calls, outcomes)
    _judge_cross(calls[0], outcomes[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "X_dec", "1": "X_enc", **_W_NAMES, "enc_lengths": "enc_lengths"})


raised.explain(checks)  # a raw exception is said as the failure of one of the check's inputs
