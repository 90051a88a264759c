"""Checks of 07_scoring_functions (bonus): three score functions, their costs, a matched parameter budget."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import batching, expect, raised, signature
from .core import Call, CheckFailed, CheckList

ASSIGNMENT = "07_scoring_functions"
TASKS = ["additive_scores", "scaled_dot_scores", "bilinear_scores", "score_costs", "width_for_budget"]
GIVEN = ["compare_scorers"]
MISCONCEPTIONS = {
    "additive_scores.separate_tanh": "tanh of each projection on its own: the score splits into a query term plus a key term",
    "additive_scores.no_tanh": "no tanh: a linear additive score is a query term plus a key term",
    "additive_scores.no_v": "sums the hidden units instead of weighting them with v",
    "additive_scores.tanh_after_v": "applies the tanh to the weighted sum (after v) instead of to each hidden unit",
    "additive_scores.wrong_nonlinearity": "another nonlinearity than tanh on the hidden units (ReLU, sigmoid)",
    "width_for_budget.strict_budget": "keeps the parameters strictly below the budget: a width that meets it exactly is refused",
    "additive_scores.pairs_not_broadcast": "adds query i to key i only, instead of every query to every key",
    "additive_scores.keys_by_queries": "pairs the new axes the other way round: one row per key instead of per query",
    "additive_scores.fixed_axes": "written for one (n, d) matrix per side: right on one sequence, fails with batch axes in front",
    "scaled_dot_scores.divides_by_input_width": "divides by the square root of the input width instead of the projected width",
    "scaled_dot_scores.no_scaling": "does not divide by the square root of the projected width",
    "scaled_dot_scores.divides_by_width": "divides by the projected width itself instead of its square root",
    "scaled_dot_scores.one_map": "projects the keys with the query map (one map: the scores become symmetric)",
    "scaled_dot_scores.fixed_axes": "written for one sequence (`.T` or fixed axes): raises with batch axes in front",
    "bilinear_scores.fixed_axes": "written for one sequence (`.T` or fixed axes): raises with batch axes in front",
    "scaled_dot_scores.keys_by_queries": "the table the other way round: one row per key instead of per query",
    "bilinear_scores.keys_by_queries": "the table the other way round: one row per key instead of per query",
    "bilinear_scores.transposed": "uses W transposed: reads the relation from the key to the query",
    "bilinear_scores.scaled": "divides the bilinear score by a square root (W learns its own scale)",
    "score_costs.additive_without_v": "leaves the h parameters of v out of the additive count",
    "score_costs.pairs_without_projections": "counts only the per-pair work, not the projections of the n items",
    "score_costs.pairs_at_input_width": "counts d multiply-adds per pair for the projected scores instead of h",
    "score_costs.swapped_pair": "returns (multiply_adds, parameters) instead of (parameters, multiply_adds)",
    "score_costs.bilinear_per_pair": "recomputes W k for every query-key pair",
    "score_costs.counts_tanh": "counts one more operation per hidden unit of every pair (the tanh, or the addition "
                               "of the two projections) as a multiply-add",
    "score_costs.counts_scaling": "counts the scaling of every dot score (one operation per pair) as a multiply-add",
    "width_for_budget.first_over_budget": "returns the first width past the budget, one more than the largest that fits",
    "width_for_budget.dot_charged_for_v": "sizes the dot width as if the dot score also had a scoring vector v",
    "additive_scores.one_map": "projects the queries and the keys with the same map (W_k or W_q for both)",
    "additive_scores.mean_over_units": "averages the weighted hidden units instead of adding them (divides by h)",
    "additive_scores.maps_transposed": "applies the maps transposed (a column-vector habit), as W q instead of q W",
    "scaled_dot_scores.divides_by_map_size": "divides by the square root of the number of entries of W_q instead of "
                                             "the projected width",
    "bilinear_scores.pairs_row_by_row": "pairs query i with key i only instead of every query with every key",
    "bilinear_scores.symmetrised": "uses the symmetric part of W, which reads both directions the same",
    "width_for_budget.rounds_up": "rounds the width up, past the budget",
    "width_for_budget.true_division": "divides with `/`: a fractional width, part of a hidden unit",
    "width_for_budget.additive_without_v": "sizes the additive width without the parameters of v",
    "width_for_budget.precedence": "writes a // b * c for a // (b c): the two operators group from the left",
}
checks = CheckList()
CHECKS = checks


def _rand(rng, shape, scale=1.0, dtype=np.float64):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _shape_of(call):
    Q, K = call.args[:2]
    return np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]) + (Q.shape[-2], K.shape[-2])


KEYS_BY_QUERIES = ("your table has one row per key and one column per query: rows must be queries and columns keys, "
                   "score (..., i, j) for query i and key j. Check which of the two gets the new axis in front.")


def _pairs_not_broadcast(Q, K, W_q, W_k, v):
    return np.tanh(Q @ W_q + K @ W_k) @ v


#: The score each task computes, by name: the message of values no catalogued mistake explains says which pairs
#: are off (and whether the table splits into a query term plus a key term), never the formula.
SCORE_NAMES = {"additive_scores": "the additive score", "scaled_dot_scores": "the scaled dot score",
               "bilinear_scores": "the bilinear score"}


def _off_pairs(scores, reference, name) -> str:
    """Which (query, key) pairs of the table are off, in words, and what the table's shape of dependence says."""
    rtol, atol = expect.tolerances(scores.dtype)
    with np.errstate(all="ignore"):
        off = ~np.isclose(scores, reference, rtol=rtol, atol=atol * 10, equal_nan=True)
    first = tuple(int(i) for i in np.argwhere(off)[0]) if off.any() else None
    where = (f"at {int(off.sum())} of the {off.size} query-key pairs (the first at index {first})"
             if first is not None else "")
    text = f"do not match {SCORE_NAMES[name]} {where}".rstrip() + "."
    table = np.asarray(scores, dtype=np.float64)
    if table.shape[-1] > 1 and table.shape[-2] > 1 and np.isfinite(table).all():
        # score(i, j) - score(i, 0) the same for every query i: a query term plus a key term, nothing of the pair
        gaps = table - table[..., :, :1]
        if np.allclose(gaps, gaps[..., :1, :], rtol=1e-6, atol=1e-9) and not np.allclose(
                reference - reference[..., :, :1], (reference - reference[..., :, :1])[..., :1, :], rtol=1e-6, atol=1e-9):
            text += (" Your table splits into a term of the query plus a term of the key (the gap between two keys is "
                     "the same for every query), so no score depends on how a query and a key go together.")
    return text


def _judge_scores(call, outcome, reference, diagnoses, what="your scores"):
    scores = expect.array(outcome, call, what)
    shape = _shape_of(call)
    # the additive table is built by broadcasting two new axes, where putting them the other way round is typical
    transposed = [(shape[:-2] + shape[-2:][::-1], "additive_scores.keys_by_queries", KEYS_BY_QUERIES)] \
        if call.name == "additive_scores" else []
    if call.name != "additive_scores" and scores.shape == shape[:-2] + shape[-2:][::-1] and shape[-1] != shape[-2] \
            and expect.allclose(scores, np.swapaxes(reference, -1, -2), *expect.tolerances(scores.dtype)):
        raise CheckFailed(f"{what} has shape {scores.shape}, expected {shape}: {KEYS_BY_QUERIES}",
                          f"{call.name}.keys_by_queries")
    expect.shape(scores, shape, what, " = (..., n_q, n_k): one score per query-key pair", diagnoses=transposed)
    dtype = np.result_type(*[a for a in call.args if isinstance(a, np.ndarray)])
    if scores.shape == np.shape(reference):
        generic = _off_pairs(scores, reference, call.name)
    else:
        generic = f"do not match {SCORE_NAMES[call.name]}."
    expect.close(scores, reference, what, dtype=dtype, diagnoses=diagnoses, generic=generic)


# ---------------------------------------------------------------- additive_scores
def _additive_candidates(Q, K, W_q, W_k, v):
    a, c = Q @ W_q, K @ W_k
    with np.errstate(all="ignore"):
        yield (np.tanh(a) @ v)[..., :, None] + (np.tanh(c) @ v)[..., None, :], "additive_scores.separate_tanh", \
            ("your score is a function of the query plus a function of the key: the tanh must act on the sum of "
             "the two projections, or the score cannot depend on how a query and a key go together.")
        yield (a @ v)[..., :, None] + (c @ v)[..., None, :], "additive_scores.no_tanh", \
            ("your score is linear in the query plus linear in the key: without the nonlinearity it splits into a "
             "query term and a key term, and the softmax over keys ignores the query term.")
        yield np.tanh(a[..., :, None, :] + c[..., None, :, :]).sum(axis=-1), "additive_scores.no_v", \
            "your score adds the hidden units up with equal weights: the learned vector v weights each one."
        hidden = a[..., :, None, :] + c[..., None, :, :]
        yield np.tanh(hidden @ v), "additive_scores.tanh_after_v", \
            ("your tanh acts once on each score, after v has weighed the hidden units: it belongs to every hidden "
             "unit, before v weighs them, so your scores are squeezed into (-1, 1) where the additive score is not.")
        other = ("your hidden units go through another nonlinearity than tanh ({}): the additive score's hidden "
                 "units are tanh of the summed projections, values between -1 and 1 of either sign.")
        yield np.maximum(hidden, 0) @ v, "additive_scores.wrong_nonlinearity", other.format("a ReLU, which cuts "
                                                                                             "negative values to 0")
        yield (1 / (1 + np.exp(-hidden))) @ v, "additive_scores.wrong_nonlinearity", other.format(
            "the logistic sigmoid, whose values lie between 0 and 1")
        yield np.tanh(hidden) @ v / hidden.shape[-1], "additive_scores.mean_over_units", \
            ("your score is the mean of the weighted hidden units, their sum divided by the number of units h: v "
             "weighs them, and the weighted units are added up.")
        if Q.shape[-1] == K.shape[-1]:  # one map serves both sides only where the two widths agree
            for name, W in (("key map W_k", W_k), ("query map W_q", W_q)):
                yield np.tanh((Q @ W)[..., :, None, :] + (K @ W)[..., None, :, :]) @ v, "additive_scores.one_map", \
                    (f"your queries and your keys both go through the {name}: each side has a map of its own, W_q for "
                     "the queries and W_k for the keys.")


def _judge_additive(call, outcome, what="your scores"):
    Q, K = call.args[:2]
    reference = ref.additive_scores(*call.args)
    diagnoses = list(_additive_candidates(*call.args))
    if Q.shape[-2] == K.shape[-2]:  # a square table: the transposed one has the right shape
        diagnoses.append((np.swapaxes(reference, -1, -2), "additive_scores.keys_by_queries", KEYS_BY_QUERIES))
    _judge_scores(call, outcome, reference, diagnoses, what)


def _additive_call(rng, batch, n_q, n_k, d_q, d_k, h, dtype=np.float64):
    # Weights of about 1.5 put the tanh in its curved range, where the typical mistakes differ.
    return Call("additive_scores", (_rand(rng, (*batch, n_q, d_q), 1, dtype), _rand(rng, (*batch, n_k, d_k), 1, dtype),
                                    _rand(rng, (d_q, h), 1.5 / math.sqrt(d_q), dtype),
                                    _rand(rng, (d_k, h), 1.5 / math.sqrt(d_k), dtype), _rand(rng, (h,), 1, dtype)))


def _maps_transposed(Q, K, W_q, W_k, v):
    return np.tanh((Q @ W_q.T)[..., :, None, :] + (K @ W_k.T)[..., None, :, :]) @ v


def _maps_transposed_einsum(Q, K, W_q, W_k, v):  # the same values; where a map is not square, another error
    q, k = np.einsum("hd,...nd->...nh", W_q, Q), np.einsum("hd,...nd->...nh", W_k, K)
    return np.tanh(q[..., :, None, :] + k[..., None, :, :]) @ v


MAPS_TRANSPOSED = ("your answer fails, or gives values, exactly where maps applied transposed would (W q for each "
                   "column vector q, written for rows as q W^T): it works only where a map is square. A row of Q has "
                   "the map's d rows of entries, so it is multiplied by the map as it is, (d, h).")


PAIRS_NOT_BROADCAST = ("your answer fails, or gives one score per row, exactly where adding the projected queries to "
                       "the projected keys row by row would: that pairs query i with key i only, where every query "
                       "must meet every key (each gets its own axis before they are added).")

#: Mistakes that raise on most inputs (a broadcasting or product error, as other mistakes raise too): named only by
#: their signature over the check's inputs and its probe, where they give values of their own.
ADDITIVE_RAISING = (("additive_scores.pairs_not_broadcast", PAIRS_NOT_BROADCAST, _pairs_not_broadcast),
                    ("additive_scores.maps_transposed", MAPS_TRANSPOSED, _maps_transposed),
                    ("additive_scores.maps_transposed", MAPS_TRANSPOSED, _maps_transposed_einsum))


@checks.add("additive_scores", "matches_reference", "every query against every key: n_q != n_k, d_q != d_k, h of its own",
            calls=lambda rng: [_additive_call(rng, (), 3, 5, 4, 4, 6), _additive_call(rng, (), 2, 4, 3, 5, 2),
                               # never graded: as many keys as queries and square maps (d = h), where a row-by-row
                               # sum and maps applied transposed give values of their own
                               _additive_call(rng, (), 4, 4, 4, 4, 4)])
def _(calls, outcomes):
    if any(outcome.error for outcome in outcomes[:2]):
        found = signature.identify(outcomes, [(m, message, [signature.predict(f, *c.args) for c in calls])
                                              for m, message, f in ADDITIVE_RAISING],
                                   reference=[ref.additive_scores(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    expect.each(calls[:2], outcomes[:2], _judge_additive)


@checks.add("additive_scores", "batched", "leading batch axes; float32 inputs",
            calls=lambda rng: batching.with_first_sequences([_additive_call(rng, (2, 3), 4, 5, 3, 3, 4),
                                                             _additive_call(rng, (2,), 3, 6, 4, 4, 5, np.float32)],
                                                            (2, 2, None, None, None)))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 2, (2, 2, None, None, None), _judge_additive,
                                        "additive_scores.fixed_axes")


@checks.add("additive_scores", "inputs_unmodified", "leaves Q, K, W_q, W_k and v unchanged",
            calls=lambda rng: [_additive_call(rng, (), 3, 4, 3, 3, 2)])
def _(calls, outcomes):
    expect.unmodified(outcomes[0], calls[0], {"0": "Q", "1": "K", "2": "W_q", "3": "W_k", "4": "v"})


# ---------------------------------------------------------------- scaled_dot_scores
def _dot_candidates(Q, K, W_q, W_k):
    raw = (Q @ W_q) @ np.swapaxes(K @ W_k, -1, -2)
    h, d_k = W_q.shape[1], K.shape[-1]
    yield raw, "scaled_dot_scores.no_scaling", \
        "your scores are not scaled: their spread grows with the projected width, which saturates the softmax."
    yield raw / h, "scaled_dot_scores.divides_by_width", \
        "you divided by the projected width itself; the spread of a dot product grows like the square root of its " \
        "length, so that is the divisor."
    if d_k != h:
        yield raw / math.sqrt(d_k), "scaled_dot_scores.divides_by_input_width", \
            ("your divisor uses the width of the keys before the projection: the dot product is taken between the "
             "projected vectors, and its variance grows with their length.")
    if W_q.shape[0] > 1:
        yield raw / math.sqrt(W_q.size), "scaled_dot_scores.divides_by_map_size", \
            ("your divisor is the square root of the number of entries of W_q (its rows times its columns): the "
             "divisor follows the length of the projected vectors, the map's number of columns.")
    if K.shape[-1] == W_q.shape[0]:
        yield (Q @ W_q) @ np.swapaxes(K @ W_q, -1, -2) / math.sqrt(h), "scaled_dot_scores.one_map", \
            "your keys go through the query map: with one map the score of i reading j equals that of j reading i."


def _judge_dot(call, outcome):
    _judge_scores(call, outcome, ref.scaled_dot_scores(*call.args), _dot_candidates(*call.args))


@checks.add("scaled_dot_scores", "matches_reference", "projected width different from the input width; n_q != n_k",
            calls=lambda rng: [Call("scaled_dot_scores", (_rand(rng, (3, 6)), _rand(rng, (5, 6)),
                                                          _rand(rng, (6, 3)), _rand(rng, (6, 3)))),
                               Call("scaled_dot_scores", (_rand(rng, (4, 3)), _rand(rng, (2, 3)),
                                                          _rand(rng, (3, 8)), _rand(rng, (3, 8))))])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_dot)


@checks.add("scaled_dot_scores", "batched", "leading batch axes; float32 inputs",
            calls=lambda rng: batching.with_first_sequences(
                [Call("scaled_dot_scores", (_rand(rng, (2, 3, 4, 5)), _rand(rng, (2, 3, 6, 5)),
                                            _rand(rng, (5, 2)), _rand(rng, (5, 2)))),
                 Call("scaled_dot_scores", tuple(_rand(rng, s, 1, np.float32)
                                                 for s in ((2, 3, 4), (2, 5, 4), (4, 6), (4, 6))))], 2))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 2, 2, _judge_dot, "scaled_dot_scores.fixed_axes")


# ---------------------------------------------------------------- bilinear_scores
def _bilinear_candidates(Q, K, W):
    if W.shape[0] == W.shape[1]:
        yield Q @ W.T @ np.swapaxes(K, -1, -2), "bilinear_scores.transposed", \
            ("your W acts the wrong way round: the score reads the relation from the query's side; with W transposed a "
             "non-symmetric relation is read from the key's side.")
    for width in {Q.shape[-1], K.shape[-1]}:
        yield Q @ W @ np.swapaxes(K, -1, -2) / math.sqrt(width), "bilinear_scores.scaled", \
            "your bilinear score is divided by a square root: here the learned matrix W carries the scale itself."
    if W.shape[0] == W.shape[1]:
        yield Q @ ((W + W.T) / 2) @ np.swapaxes(K, -1, -2), "bilinear_scores.symmetrised", \
            ("your W is replaced by its symmetric part: that reads the relation the same in both directions, where "
             "a bilinear score may weigh the query-to-key relation differently from the key-to-query one.")


def _row_by_row(Q, K, W):
    return np.sum((Q @ W) * K, axis=-1)  # query i with key i only


ROW_BY_ROW = ("your answer fails, or gives one score per row, exactly where pairing query i with key i only would: "
              "every query meets every key, so the scores are a table of n_q x n_k, one per pair.")


def _judge_bilinear(call, outcome):
    _judge_scores(call, outcome, ref.bilinear_scores(*call.args), _bilinear_candidates(*call.args))


@checks.add("bilinear_scores", "matches_reference", "a non-symmetric square W, and d_q != d_k",
            calls=lambda rng: [Call("bilinear_scores", (_rand(rng, (3, 4)), _rand(rng, (5, 4)), _rand(rng, (4, 4)))),
                               Call("bilinear_scores", (_rand(rng, (2, 3)), _rand(rng, (4, 5)), _rand(rng, (3, 5)))),
                               # never graded: as many keys as queries, where a row-by-row pairing gives values
                               Call("bilinear_scores", (_rand(rng, (3, 4)), _rand(rng, (3, 4)), _rand(rng, (4, 4))))])
def _(calls, outcomes):
    if any(outcome.error for outcome in outcomes[:2]):
        found = signature.identify(outcomes, [("bilinear_scores.pairs_row_by_row", ROW_BY_ROW,
                                               [signature.predict(_row_by_row, *c.args) for c in calls])],
                                   reference=[ref.bilinear_scores(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    # W transposed raises where d_q != d_k, as does K left untransposed: named by its values on the square W
    expect.each(calls[:2], outcomes[:2], _judge_bilinear)


@checks.add("bilinear_scores", "batched", "leading batch axes; float32 inputs",
            calls=lambda rng: batching.with_first_sequences(
                [Call("bilinear_scores", (_rand(rng, (2, 3, 4)), _rand(rng, (2, 5, 4)), _rand(rng, (4, 4)))),
                 Call("bilinear_scores", tuple(_rand(rng, s, 1, np.float32) for s in ((3, 2, 5), (3, 4, 5), (5, 5))))],
                2))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 2, 2, _judge_bilinear, "bilinear_scores.fixed_axes")


# ---------------------------------------------------------------- score_costs
def _cost_candidates(kind, n, d, h):
    right_params, right_macs = ref.score_costs(kind, n, d, h)
    yield (right_macs, right_params), "score_costs.swapped_pair", \
        "your two numbers are the wrong way round: the pair is (parameters, multiply_adds)."
    if kind == "additive":
        yield (2 * d * h, right_macs), "score_costs.additive_without_v", \
            "your additive parameter count leaves out the h entries of the scoring vector v, which are learned too."
        # one more operation per hidden unit of every pair: the tanh, or the addition of the two projections, give
        # the same n^2 h, so the message says both
        yield (right_params, right_macs + n * n * h), "score_costs.counts_tanh", \
            "your additive multiply-adds count one operation more for each hidden unit of every pair (n^2 h in " \
            "all): the tanh of a hidden unit, or the addition of its two projections, neither of which is a " \
            "multiply-add."
    if kind == "dot":
        yield (right_params, right_macs + n * n), "score_costs.counts_scaling", \
            "your dot multiply-adds count one operation more for every query-key pair (n^2 in all), such as the " \
            "scaling of each score by the square root of the width: an operation on a finished score is not a " \
            "multiply-add of the dot product."
    if kind != "bilinear":
        yield (right_params, n * n * h), "score_costs.pairs_without_projections", \
            "your multiply-adds leave out the projections of the n queries and the n keys."
        yield (right_params, 2 * n * d * h + n * n * d), "score_costs.pairs_at_input_width", \
            "your per-pair multiply-adds use the width of the items; a pair meets after the projection."
    else:
        yield (right_params, n * n * d), "score_costs.pairs_without_projections", \
            "your multiply-adds leave out the projections of the n queries (Q W is made once, n x d x d)."
        yield (right_params, n * n * (d * d + d)), "score_costs.bilinear_per_pair", \
            "your bilinear multiply-adds redo a matrix-vector product for every pair; Q W is made once."


#: The seeds' sizes, then sizes where d != 2 h (at d = 2 h, counting the tanh and counting d per pair give the
#: same additive number) and two drawn ones.
COST_SIZES = ((8, 16, 8), (6, 10, 4))


#: Probes, never graded: one d and h, three lengths n, so that the multiply-adds' error of a kind splits into a part
#: that grows as n^2 (the per-pair work), one that grows as n (the projections) and one that does not grow at all.
COST_PROBE_NS, COST_PROBE_DH = (5, 10, 20), (6, 3)


COST_PROBES = tuple(Call("score_costs", (kind, n, *COST_PROBE_DH)) for kind in ref.scoring.KINDS for n in COST_PROBE_NS)


def _cost_calls(rng):
    sizes = list(COST_SIZES) + [tuple(int(x) for x in rng.integers(2, 40, size=3)) for _ in range(2)]
    return [Call("score_costs", (kind, n, d, h)) for n, d, h in sizes for kind in ref.scoring.KINDS] + list(COST_PROBES)


def _cost_terms(kind, probes) -> str:
    """Which term of ``kind``'s count is off, from the probes at three lengths n (one d and h): "" when unknown."""
    if len(probes) != len(COST_PROBE_NS):
        return ""
    got = []
    for call, outcome in probes:
        try:
            pair = np.asarray(outcome.value, dtype=np.float64).reshape(2) if outcome.error is None else None
        except (TypeError, ValueError):
            pair = None
        if pair is None:
            return ""
        got.append(pair - np.asarray(ref.score_costs(*call.args), dtype=np.float64))
    params, macs = np.array(got).T
    told = []
    if np.any(params != 0):
        told.append("the parameter count is off" + ("" if np.all(params == params[0]) else
                                                       " and changes with n, which a count of learned numbers does not"))
    if np.any(macs != 0):
        ns = np.array(COST_PROBE_NS, dtype=np.float64)
        a, b, c = np.linalg.solve(np.stack([ns ** 2, ns, np.ones(3)], axis=1), macs)
        parts = [words for value, words in ((a, "the per-pair work (the part that grows as n^2)"),
                                            (b, "the projections of the n items (the part that grows as n)"),
                                            (c, "a part that does not grow with n at all, which no multiply-add of "
                                                "the table is")) if abs(value) > 1e-6]
        told.append("the multiply-adds are off in " + " and in ".join(parts) if parts else "the multiply-adds are off")
    return "; ".join(told)


@checks.add("score_costs", "values", "parameters and multiply-adds of each kind, for several n, d and h",
            calls=_cost_calls)
def _(calls, outcomes):
    probed = len(calls) > len(COST_PROBES) and tuple(calls[-len(COST_PROBES):]) == COST_PROBES
    graded = len(calls) - len(COST_PROBES) if probed else len(calls)
    probes = list(zip(calls[graded:], outcomes[graded:]))
    calls, outcomes = calls[:graded], outcomes[:graded]
    got, right, per_input, messages = [], [], [], {}
    for call, outcome in zip(calls, outcomes):
        pair = expect.array(outcome, call, f"`score_costs('{call.args[0]}', ...)`")
        if pair.shape != (2,):
            raise CheckFailed(f"`score_costs` should return a pair (parameters, multiply_adds), got shape {pair.shape}",
                              "wrong_return")
        got.append(tuple(float(x) for x in pair))
        right.append(tuple(float(x) for x in ref.score_costs(*call.args)))
        values = {}
        for candidate, misconception, message in _cost_candidates(*call.args):
            values.setdefault(misconception, set()).add(tuple(float(x) for x in candidate))
            messages.setdefault(misconception, message)
        per_input.append(values)
    if got == right:
        return
    found = signature.exact(got, right, per_input, [call.args[0] for call in calls])  # a mistake may be one kind's
    if found is not None:
        raise CheckFailed(messages[found], found)
    call = next(c for c, g, r in zip(calls, got, right) if g != r)
    terms = _cost_terms(call.args[0], [(c, o) for c, o in probes if c.args[0] == call.args[0]])
    raise CheckFailed(f"`score_costs` is off for {call.args[0]!r} scores at (n, d, h) = {call.args[1:]}"
                      + (f": {terms}." if terms else ": check the count of learned numbers and of multiply-adds."),
                      "wrong_values")


# ---------------------------------------------------------------- width_for_budget
#: Fixed budgets that tell the two mistakes apart for every seed: a dot width of 12.6 (rounding goes past the
#: budget, a count without v does not) and an additive width of exactly 4 (a count without v gives 6).
WIDTH_PROBES = (("dot", 10, 252), ("additive", 1, 12), ("dot", 10, 244))  # 12.2: rounding up and to the nearest differ


@checks.add("width_for_budget", "values", "the largest hidden width within the budget, additive and dot",
            calls=lambda rng: [Call("width_for_budget", (kind, 16, 256)) for kind in ("additive", "dot")]
            + [Call("width_for_budget", (kind, int(d), int(d * d + extra)))
               for d, extra in zip(rng.integers(3, 30, size=3), rng.integers(1, 20, size=3))
               for kind in ("additive", "dot")]
            + [Call("width_for_budget", args) for args in WIDTH_PROBES])
def _(calls, outcomes):
    got = [expect.number(outcome, call, f"`width_for_budget('{call.args[0]}', ...)`")
           for call, outcome in zip(calls, outcomes)]
    floor = [ref.width_for_budget(*call.args) for call in calls]
    if got == floor:
        return
    # A mistake is recognised only when it explains every answer, and the other one does not.
    per_unit = lambda kind, d: 2 * d + (1 if kind == "additive" else 0)  # noqa: E731
    exact = [budget / per_unit(kind, d) for kind, d, budget in (c.args for c in calls)]
    if any(g != math.floor(g) for g in got if math.isfinite(g)):
        if all(math.isclose(g, e, rel_tol=1e-12) for g, e in zip(got, exact)):
            raise CheckFailed("your width is not a whole number (for some budgets it has a fraction of a hidden "
                              "unit): it is the budget divided exactly by the parameters of one unit, as true "
                              "division `/` gives. A width counts whole hidden units: the largest number of them "
                              "that fits, the fraction dropped.", "width_for_budget.true_division")
        raise CheckFailed("your width is not a whole number for some budgets: a width counts whole hidden units.",
                          "wrong_values")
    rounds_up = [math.ceil(e) for e in exact]
    nearest = [math.floor(e + 0.5) for e in exact]
    without_v = [budget // (2 * d) for _, d, budget in (c.args for c in calls)]
    # always the width that fits or the one above it, and above it somewhere: rounding to the nearest, or up
    rounds = any(g > f for g, f in zip(got, floor)) and all(g in (f, c) for g, f, c in zip(got, floor, rounds_up))
    if rounds and got != without_v:
        how = ("it is rounded up: wherever the budget does not divide into whole units, your width is the next whole "
               "number above, whose parameters go past the budget" if got == rounds_up else
               "it is rounded to the nearest whole number: where the fraction of a unit is a half or more, your "
               "width is the whole number above, whose parameters go past the budget" if got == nearest else
               "for some budgets it is the whole number above the largest width that fits")
        raise CheckFailed(f"your width needs more parameters than the budget allows for some budgets: {how}. Take "
                          "the largest width that fits.", "width_for_budget.rounds_up")
    if got == without_v and not rounds:
        raise CheckFailed("your additive width leaves out the scoring vector v: each hidden unit also adds one entry "
                          "of v, which is learned too and counts against the budget.",
                          "width_for_budget.additive_without_v")
    # a // b * c groups from the left: the budget halved, then multiplied by the width (plus v's unit)
    left_to_right = [budget // 2 * d + (1 if kind == "additive" else 0) for kind, d, budget in (c.args for c in calls)]
    if got == left_to_right:
        raise CheckFailed("your width grows with the item width d where it should shrink: in Python `//` and `*` bind "
                          "equally and group from the left, so `a // b * c` divides a by b only and then multiplies "
                          "by c.", "width_for_budget.precedence")

    if got == [f + 1 for f in floor]:
        raise CheckFailed("your width is one more than the largest that fits, at every budget: the first width whose "
                          "parameters go past the budget (a loop that stops only once the budget is passed returns "
                          "the width it stopped at).", "width_for_budget.first_over_budget")
    as_additive = [budget // per_unit("additive", d) for _, d, budget in (c.args for c in calls)]
    if got == as_additive:
        raise CheckFailed("your dot width leaves room for a scoring vector v, one parameter per hidden unit: the dot "
                          "score has no v, each of its hidden units costs a row of the query map and one of the key "
                          "map only.", "width_for_budget.dot_charged_for_v")
    strict = [(budget - 1) // per_unit(kind, d) for kind, d, budget in (c.args for c in calls)]
    if got == strict:  # one below where the budget is met exactly, right everywhere else
        raise CheckFailed("where the largest width uses exactly the budget, your answer is one less: a width whose "
                          "parameters equal the budget fits in it.", "width_for_budget.strict_budget")
    raise CheckFailed("`width_for_budget` is off: count the parameters one hidden unit adds, and keep the total "
                      "within the budget.", "wrong_values")


raised.explain(checks)  # a raw exception is said as the failure of one of the check's inputs
