"""Checks of 04_heads: project, attention_param_count, split_heads, merge_heads, multi_head_attention."""
from __future__ import annotations


import numpy as np

import attention_ref as ref

from . import batching, expect, raised, signature
from .core import Call, CheckFailed, CheckList
from .heads_attention import KEYS_FROM_QUERIES, KV_MAPS_SWAPPED, _mha_args, _mha_call, headless, judge_mha, mha_variant, nan_where  # noqa: F401 (05 imports them from here)

ASSIGNMENT = "04_heads"
TASKS = ["project", "attention_param_count", "split_heads", "merge_heads", "multi_head_attention"]
GIVEN = ["softmax", "scaled_dot_product_attention", "causal_mask"]
MISCONCEPTIONS = {
    "project.transposed_map": "applies the transpose of the map (each output entry reads a row of W, not a column)",
    "project.fixed_axes": "written for one (n, d) matrix: right on one sequence, fails with batch axes in front",
    "attention_param_count.times_heads": "multiplies the parameter count by the number of heads",
    "attention_param_count.no_output_projection": "leaves out the output projection W_o",
    "attention_param_count.ignores_flag": "ignores output_projection=False",
    "attention_param_count.map_miscounted": "leaves out one of the maps, or counts one twice",
    "attention_param_count.no_value_map": "leaves out the value map W_v",
    "attention_param_count.paper_head_width": "takes the paper's head width, 64, whatever d_model and the heads are",
    "attention_param_count.not_an_int": "returns the count as a float (a true division `/` in it) instead of an int",
    "attention_param_count.widths_swapped": "uses d_v for the query/key maps and d_k for the value map",
    "attention_param_count.square_maps": "counts every map as d_model x d_model, ignoring the per-head widths",
    "attention_param_count.square_output_map": "counts W_o as a square d_model x d_model map, ignoring the width of the merged heads",
    "attention_param_count.three_equal_maps": "gives the value map the key width d_k",
    "attention_param_count.one_head": "counts the maps of one head only, not one set of maps per head",
    "attention_param_count.precedence": "a sum of widths left without parentheses: `*` binds tighter than `+`, so the "
                                        "value width is added once instead of multiplied",
    "split_heads.reshape_without_transpose": "reshapes straight to (heads, n, d) without moving the head axis (mixes positions)",
    "split_heads.no_transpose": "reshapes to (n, heads, d) and never moves the head axis in front",
    "split_heads.interleaved": "gives head h every h-th column instead of one contiguous slice",
    "merge_heads.reshape_without_transpose": "reshapes (heads, n, d) straight to (n, heads*d) without moving the head axis back",
    "merge_heads.wrong_order": "concatenates the heads in the wrong order or interleaves their columns",
    "merge_heads.stacked_positions": "stacks the heads along the positions (heads * n rows) instead of the width",
    "merge_heads.moves_batch_axis": "moves axis 0 as if it were the head axis, which mixes batch entries",
    "split_heads.heads_before_batch": "puts the head axis in front of the batch axes instead of before the positions",
    "split_heads.fixed_axes": "written for one (n, d_model) matrix: right on one sequence, fails with batch axes in front",
    "merge_heads.fixed_axes": "written for one (heads, n, d) array: right on one sequence, fails with batch axes in front",
    "multi_head_attention.weights_transposed": "returns each head's weights transposed (one row per key)",
    "multi_head_attention.divisor_d_model": "divides the scores by sqrt(d_model) or sqrt(heads*d_k) instead of the head width",
    "multi_head_attention.no_scaling": "does not divide the scores at all",
    "multi_head_attention.no_output_projection": "leaves out the output projection W_o",
    "multi_head_attention.shared_qk_map": "uses one shared map for queries and keys",
    "multi_head_attention.split_without_transpose": "splits the heads with a reshape and no transpose",
    "multi_head_attention.merge_without_transpose": "merges the heads with a reshape and no transpose",
    "multi_head_attention.single_head": "ignores num_heads (one head over the full width)",
    "multi_head_attention.mask_ignored": "ignores the mask",
    "multi_head_attention.mask_inverted": "reads the mask the other way round (True = hidden) inside the heads",
    "multi_head_attention.merge_interleaved": "merges the heads by interleaving their columns instead of joining them end to end",
    "multi_head_attention.mask_no_head_axis": "passes a (batch, n_q, n_k) mask to the heads without a head axis",
    "multi_head_attention.head_axis_in_front": "adds the mask's head axis in front of its batch axis: a (batch, n_q, "
                                               "n_k) mask lines its batch up with the heads",
    "multi_head_attention.key_value_maps_swapped": "makes the keys with W_v and the values with W_k",
    "project.output_transposed": "the projection with its last two axes swapped: one row per output entry, one column "
                                 "per position",
    "project.activation": "applies a nonlinearity (an activation) after the linear map",
    "split_heads.cut_positions": "cuts the heads along the positions instead of along the width",
    "split_heads.count_as_width": "reads num_heads as the width of each head",
    "merge_heads.heads_not_joined": "moves the head axis back but never joins the heads into one row",
    "merge_heads.n_and_d_swapped": "reads the positions and the head width in the wrong order from the input's shape",
    "multi_head_attention.values_from_queries": "projects the values from X_q instead of X_kv",
    "multi_head_attention.keys_from_queries": "projects the keys from X_q instead of X_kv",
    "multi_head_attention.queries_from_kv": "projects the queries from X_kv instead of X_q",
    "multi_head_attention.sequences_swapped": "swaps the sequences: queries from X_kv, keys and values from X_q",
    "multi_head_attention.weights_averaged": "returns the weights averaged over the heads instead of one table per head",
}
checks = CheckList(composites={"multi_head_attention": ("project", "split_heads", "merge_heads")})
CHECKS = checks


def _f32(x):
    return x.astype(np.float32)


# ---------------------------------------------------------------- project
def _judge_project(call, outcome):
    X, W = call.args
    result = expect.array(outcome, call, "your projection")
    expected_shape = X.shape[:-1] + W.shape[1:]
    right = ref.project(X, W)
    expect.transposed(result, right, "your projection", "project.output_transposed", "position", "output entry")
    expect.shape(result, expected_shape, "your projection", " (..., n, d_out): one output entry per column of W")
    diagnoses = [(X @ W.T, "project.transposed_map",
                  "you applied the transpose of the map: each output entry of a row comes from a column of W "
                  "(one output entry per column), and yours come from its rows.")] if W.shape[0] == W.shape[1] else []
    with np.errstate(all="ignore"):
        for name, f in ACTIVATIONS:
            diagnoses.append((f(right), "project.activation",
                              f"your projection is the linear map followed by {name}: a projection is the map alone "
                              "(a layer's activation, where it has one, is a step of its own; attention's maps have "
                              "none)."))
    expect.close(result, right, "your projection", dtype=X.dtype, diagnoses=diagnoses,
                 generic="does not match the projection: each output row is its input row mapped by W.")


#: The activations a dense layer applies after its map (Keras' Dense(activation=...), say), in words.
ACTIVATIONS = (("tanh", np.tanh), ("a ReLU (negative entries set to 0)", lambda y: np.maximum(y, 0.0)),
               ("a sigmoid", lambda y: 1 / (1 + np.exp(-y))))


@checks.add("project", "seed_example", "the docstring's example and a square map",
            calls=lambda rng: [Call("project", (np.array([[1.0, 2.0]]), np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))),
                               Call("project", (rng.standard_normal((3, 4)), rng.standard_normal((4, 4))))])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_project)


@checks.add("project", "batched", "rows with leading batch axes and a non-square map",
            calls=lambda rng: batching.with_first_sequences(
                [Call("project", (rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((4, 7))))], 2))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 1, 2, _judge_project, "project.fixed_axes",
                                        failures=frozenset({"raises", "wrong_shape"}))  # no batch-mixing mistake


@checks.add("project", "float32_unmodified", "float32 inputs, left unchanged",
            calls=lambda rng: [Call("project", (_f32(rng.standard_normal((2, 6, 5))), _f32(rng.standard_normal((5, 3)))))])
def _(calls, outcomes):
    _judge_project(calls[0], outcomes[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "X", "1": "W"})


# ---------------------------------------------------------------- attention_param_count
PAPER_HEAD_WIDTH = 64  # Vaswani et al. 2017: d_model = 512 shared by 8 heads


def _count_candidates(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None and d_v is None and d_model // num_heads != PAPER_HEAD_WIDTH:
        yield ref.attention_param_count(d_model, num_heads, PAPER_HEAD_WIDTH, PAPER_HEAD_WIDTH, output_projection), \
            "attention_param_count.paper_head_width", \
            f"your count takes heads of width {PAPER_HEAD_WIDTH}, the paper's, wherever the widths are not given: the " \
            "default head width is set by the layer at hand, its width shared out among its heads (the paper's " \
            f"{PAPER_HEAD_WIDTH} is 512 shared by 8)."
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    right = ref.attention_param_count(d_model, num_heads, d_k, d_v, output_projection)
    wo = num_heads * d_v * d_model
    yield right * num_heads, "attention_param_count.times_heads", \
        "your count grows with the number of heads. At a fixed total width the heads share it: " \
        "h heads of width d_model/h hold as many parameters as one head of width d_model."
    # W_v and W_o always hold as many entries: with output_projection=True a count one W_v short is one W_o short,
    # and only an input with output_projection=False (where W_o is not counted) tells which map is missing. Each
    # mistake below is named only where the check's inputs (probes with the other flag included) tell it apart.
    wv = d_model * num_heads * d_v
    yield right - wv, "attention_param_count.no_value_map", \
        "your count leaves out the value map W_v: it is short by W_v's entries with output_projection=False too, " \
        "where W_o is not counted (with W_o counted, a count one W_v short is also one W_o short: that input alone " \
        "could not tell them apart). Each head has a map of its own for its values."
    if output_projection:
        yield right - wo, "attention_param_count.no_output_projection", \
            "your count leaves out the output projection W_o, the map that recombines the heads: it is short by " \
            "W_o's entries with output_projection=True, and right with output_projection=False, where W_o is not " \
            "counted."
    else:
        yield right + wo, "attention_param_count.ignores_flag", \
            "with output_projection=False your count still holds W_o's entries, and with output_projection=True it " \
            "is right: read the flag, and leave W_o out of the count when it is False."
    qk = d_model * num_heads * d_k
    # one map left out or counted twice (a query or key map, or one of W_v's size counted twice); at d_k = d_v
    # every map is as large, and the mistakes above are among these: no one of them is named there
    for extra in (-qk, qk, wv):
        yield right + extra, "attention_param_count.map_miscounted", \
            "your count is off by exactly the entries of one map (one left out, or one counted twice): check that " \
            "each of W_q, W_k and W_v is counted once, and W_o once when output_projection is True."
    if num_heads > 1:  # one head's maps: right at one head only
        one_head = ("your count is that of one head: each of W_q, W_k and W_v has a slice of d_model rows per head "
                    "(d_k or d_v columns each), and your count holds one slice of each, where the layer has one per "
                    "head.")
        yield d_model * (2 * d_k + d_v) + (d_v * d_model if output_projection else 0), \
            "attention_param_count.one_head", one_head
        if output_projection:  # one head's maps, with the whole W_o
            yield d_model * (2 * d_k + d_v) + wo, "attention_param_count.one_head", one_head
    # the widths' sum written without its parentheses: the product stops at the `+`, the value width added once
    yield num_heads * d_model * 2 * d_k + d_v + (wo if output_projection else 0), "attention_param_count.precedence", \
        ("your count holds the query and key maps, but of the value map only its width, added once: in Python `*` "
         "binds tighter than `+`, so in a product such as `a * b + c` the multiplication stops at the `+` and c is "
         "added on its own. Where a sum of widths is multiplied, it needs parentheses.")
    if d_k != d_v:
        swapped = d_model * num_heads * (2 * d_v + d_k) + (num_heads * d_k * d_model if output_projection else 0)
        yield swapped, "attention_param_count.widths_swapped", \
            "your count swaps the widths: the query and key maps have d_k columns per head, the value map d_v."
        three = 3 * d_model * num_heads * d_k + (wo if output_projection else 0)
        yield three, "attention_param_count.three_equal_maps", \
            "your count gives the value map the width d_k; it has d_v columns per head (3 x d_model x d_k holds only when the widths agree)."
    yield 3 * d_model ** 2 + (d_model ** 2 if output_projection else 0), "attention_param_count.square_maps", \
        "your count treats every map as d_model x d_model: each of W_q, W_k, W_v has one column per head and per " \
        "entry of that head (heads x d_k or heads x d_v columns), which is d_model only when the widths are the defaults."
    square_output = ("your count takes W_o as d_model x d_model: W_o maps the merged heads, heads x d_v entries wide, "
                     "back to d_model, so it has heads x d_v rows.")
    if output_projection:
        yield right - wo + d_model ** 2, "attention_param_count.square_output_map", square_output
    else:  # the full count less d_model x d_model: the W_o it leaves out is taken as square
        yield right + wo - d_model ** 2, "attention_param_count.square_output_map", \
            "with output_projection=False your count leaves out d_model x d_model entries, which is not the size of " \
            "W_o: " + square_output.partition(": ")[2]


def _judge_counts(calls, outcomes, graded=None):
    """Every input of a count check. A mistake is named when its count is the answer at every input (where it is
    not yielded, the mistake gives the right count): one input may give two mistakes' counts (at d_model = 128 a
    count with the widths swapped is the one with a square W_o), the inputs of a check together do not. The calls
    past ``graded`` are probes, never graded: the same inputs with the other ``output_projection``."""
    graded = len(calls) if graded is None else graded
    got, right, counts, messages = [], [], [], {}
    for call, outcome in zip(calls, outcomes):
        got.append(expect.number(outcome, call, "your count"))
        right.append(ref.attention_param_count(*call.args, **call.kwargs))
        at = {}
        for candidate, misconception, message in _count_candidates(*call.args, **call.kwargs):
            at.setdefault(misconception, set()).add(candidate)
            messages.setdefault(misconception, message)
        counts.append(at)
    # A count is an integer (below 2**53, so exact as a float too): compared exactly, no tolerance.
    off = [i for i in range(graded) if got[i] != right[i]]
    if not off:
        return
    found = signature.fitting(got[:graded], right[:graded], counts[:graded])
    if len(found) > 1 and graded < len(calls):  # the probes decide between the mistakes the graded inputs leave
        found = [m for m in found if m in signature.fitting(got, right, counts)]
    if len(found) == 1:
        raise CheckFailed(messages[found[0]], found[0])
    call = calls[off[0]]
    counted = "and of W_o" if call.kwargs.get("output_projection", True) else \
        "only: with output_projection=False, W_o is not part of the count"
    raise CheckFailed(f"`{call.describe()}` is off (by {int(got[off[0]] - right[off[0]]):+d}){_off_term(calls, got, right, off)}: "
                      f"count the entries of W_q, W_k, W_v (d_model rows each) {counted}.", "wrong_values")


#: The parts of the count a difference may be a whole number of, by name: the maps of each part hold the same
#: number of entries (W_v and W_o always do).
COUNT_PARTS = (("the query and key maps (W_q, W_k)", lambda d_model, h, d_k, d_v: d_model * h * d_k),
               ("the value map W_v (or W_o, which holds as many)", lambda d_model, h, d_k, d_v: d_model * h * d_v))


def _off_term(calls, got, right, off) -> str:
    """Where every wrong count is off by the same whole number of one part's maps, and of no other part's: that part,
    in words (which part the student should recount); else nothing."""
    fitting = None
    for i in off:
        d_model, h = calls[i].args[:2]
        d_k = calls[i].kwargs.get("d_k") or d_model // h
        d_v = calls[i].kwargs.get("d_v") or d_model // h
        here = {(name, k) for name, size in COUNT_PARTS for k in (-2, -1, 1, 2)
                if got[i] - right[i] == k * size(d_model, h, d_k, d_v)}
        fitting = here if fitting is None else fitting & here
    if fitting is None or len(fitting) != 1:
        return ""
    name, k = fitting.pop()
    return (f", at every input where it is off, by {abs(k)} {'map' if abs(k) == 1 else 'maps'} the size of one of "
            f"{name}: {'one too many' if k == 1 else 'too many' if k > 0 else 'missing'}")


@checks.add("attention_param_count", "seed_example", "the seeds' layer: width 512, 8 heads of 64, and one head of 512",
            calls=lambda rng: [Call("attention_param_count", (512, 8)), Call("attention_param_count", (512, 1))])
def _(calls, outcomes):
    _judge_counts(calls, outcomes)
    for call, outcome in zip(calls, outcomes):  # the right number, of another type: one property, judged here only
        if isinstance(outcome.value, float):
            raise CheckFailed(f"`{call.describe()}` returned {outcome.value!r}, a float: a count of entries is a whole "
                              "number, an int. A true division `/` gives a float even where it divides exactly (the "
                              "task's default head width is the floor division of d_model by the heads), and a float "
                              "count cannot size an array or a range.", "attention_param_count.not_an_int")


@checks.add("attention_param_count", "heads_fixed_width", "the count does not change with the heads at a fixed total width",
            calls=lambda rng: [Call("attention_param_count", (d, h)) for d in (96, int(rng.choice([120, 240])))
                               for h in (1, 2, 3, 4, 8) if d % h == 0])
def _(calls, outcomes):
    _judge_counts(calls, outcomes)


def _other_flag(calls):
    """``calls``, then each again with the other ``output_projection`` (probes, never graded): with W_o counted a
    count one W_v short is one W_o short; the other flag tells which map is missing."""
    return list(calls) + [Call(c.name, c.args, {**c.kwargs, "output_projection": not c.kwargs.get("output_projection", True)})
                          for c in calls]


@checks.add("attention_param_count", "explicit_widths", "per-head widths d_k != d_v given explicitly",
            calls=lambda rng: _other_flag([
                Call("attention_param_count", (int(rng.integers(50, 200)), 4), {"d_k": 16, "d_v": 24}),
                Call("attention_param_count", (64, 3), {"d_k": 7, "d_v": 5})]))
def _(calls, outcomes):
    _judge_counts(calls, outcomes, len(calls) // 2)


@checks.add("attention_param_count", "output_projection", "output_projection=False leaves out W_o (d_model**2 fewer)",
            calls=lambda rng: _other_flag([
                Call("attention_param_count", (512, 8), {"output_projection": False}),
                Call("attention_param_count", (60, 5), {"d_k": 9, "d_v": 11, "output_projection": False})]))
def _(calls, outcomes):
    _judge_counts(calls, outcomes, len(calls) // 2)


# ---------------------------------------------------------------- split_heads
def _split_candidates(X, h):
    *batch, n, d_model = X.shape
    d = d_model // h
    yield X.reshape(*batch, h, n, d), "split_heads.reshape_without_transpose", \
        "your heads mix positions: a reshape straight to (heads, n, d) cuts the rows in the wrong order. " \
        "The columns of one position must stay together: cut each row into heads first, then move the head axis."
    yield np.swapaxes(X.reshape(*batch, n, d, h), -1, -2).swapaxes(-3, -2), "split_heads.interleaved", \
        "head h got every h-th column; it should get one contiguous slice, columns h*d to (h+1)*d."


def _judge_split(call, outcome):
    X, h = call.args
    *batch, n, d_model = X.shape
    result = expect.array(outcome, call, "your heads")
    width = d_model // h
    if width != h and width > 0 and d_model % width == 0 and result.shape == (*batch, width, n, h) \
            and expect.allclose(result, ref.split_heads(X, width), *expect.tolerances(X.dtype)):
        raise CheckFailed(f"your heads has shape {result.shape}, expected {(*batch, h, n, width)}: you made {width} heads of "
                          f"width {h}, num_heads ({h}) read as the width of each head. num_heads is the number of heads; "
                          "each head's width is what the row's width leaves to it.", "split_heads.count_as_width")
    expect.shape(result, (*batch, h, n, d_model // h), "your heads", " (..., heads, n, d_model // heads)",
                 diagnoses=[((*batch, n, h, d_model // h), "split_heads.no_transpose",
                             "the head axis is still after the positions: each head must be one (n, d) matrix, so the head "
                             "axis comes before the positions."),
                            ((h, *batch, n, d_model // h), "split_heads.heads_before_batch",
                             "the head axis went in front of the batch axes: it belongs just before the positions, "
                             "(..., heads, n, d). Count the axes from the end so that batch axes stay in front.")]
                 if batch else
                 [((n, h, d_model // h), "split_heads.no_transpose",
                   "the head axis is still after the positions: each head must be one (n, d) matrix, so the head "
                   "axis comes before the positions.")])
    expect.close(result, ref.split_heads(X, h), "your heads", dtype=X.dtype, diagnoses=_split_candidates(X, h),
                 generic="do not hold the right slices: head h should hold columns h*d to (h+1)*d of every row.")


def _cut_positions(X, h):
    return np.stack(np.split(X, h, axis=-2), axis=-3)  # each head a stretch of the rows


def _cut_positions_by_reshape(X, h):
    *batch, n, d_model = X.shape
    return X.reshape(*batch, h, n // h, d_model)  # the same stretches; where n is no multiple of h, another error


#: Never graded: as many positions as a multiple of the heads, where heads cut along the positions give values of
#: their own (on the seed's 2 x 6 array into 3 heads such a cut raises, as many other mistakes do).
SPLIT_PROBE = Call("split_heads", (np.arange(24.0).reshape(6, 4), 2))


@checks.add("split_heads", "seed_example", "a 2 x 6 array cut into 3 heads of width 2",
            calls=lambda rng: [Call("split_heads", (np.arange(12.0).reshape(2, 6), 3)), SPLIT_PROBE])
def _(calls, outcomes):
    if outcomes[0].error is not None:
        found = signature.identify(outcomes, [(
            "split_heads.cut_positions",
            "your answer fails, or gives values, exactly where heads cut along the positions would (each head a "
            "stretch of the rows): a head is a slice of the width, the same columns of every position, so every "
            "head sees the whole sequence.", [signature.predict(cut, *c.args) for c in calls])
            for cut in (_cut_positions, _cut_positions_by_reshape)],
            reference=[ref.split_heads(*c.args) for c in calls])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    _judge_split(calls[0], outcomes[0])


@checks.add("split_heads", "batched", "leading batch axes, 4 heads",
            calls=lambda rng: batching.with_first_sequences(
                [Call("split_heads", (rng.standard_normal((2, 3, 5, 12)), 4)),
                 Call("split_heads", (rng.standard_normal((7, 10)), 2))], 2))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 2, 2, _judge_split, "split_heads.fixed_axes")


@checks.add("split_heads", "float32_unmodified", "float32 input, left unchanged",
            calls=lambda rng: [Call("split_heads", (_f32(rng.standard_normal((2, 5, 6))), 3))])
def _(calls, outcomes):
    _judge_split(calls[0], outcomes[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "X"})


# ---------------------------------------------------------------- merge_heads
def _merge_candidates(X):
    *batch, h, n, d = X.shape
    yield X.reshape(*batch, n, h * d), "merge_heads.reshape_without_transpose", \
        "your merged rows mix positions: a reshape straight from (heads, n, d) to (n, heads*d) is not the inverse " \
        "of the split: the head axis must be next to the width before the two are joined."
    yield np.swapaxes(X, -3, -2).swapaxes(-1, -2).reshape(*batch, n, h * d), "merge_heads.wrong_order", \
        "your merged rows interleave the heads' columns: concatenate the heads end to end, head 0 first."
    if h > 1:
        yield ref.merge_heads(X[..., ::-1, :, :]), "merge_heads.wrong_order", \
            "your merged rows hold the heads in reverse order: head 0 comes first, in columns 0 to d."
    if batch:
        yield np.moveaxis(X, 0, -2).reshape(*batch, n, h * d), "merge_heads.moves_batch_axis", \
            "your merged rows mix the batch entries: with batch axes in front, axis 0 is not the head axis. Count " \
            "the axes from the end: the head axis is the third from the end."


def _judge_merge(call, outcome):
    X = call.args[0]
    *batch, h, n, d = X.shape
    result = expect.array(outcome, call, "your merged rows")
    tol = expect.tolerances(X.dtype)
    if result.shape == (*batch, n, h, d) and h > 1 and expect.allclose(result, np.swapaxes(X, -3, -2), *tol):
        raise CheckFailed(f"your merged rows has shape {result.shape}, expected {(*batch, n, h * d)}: the head axis was "
                          "moved back behind the positions, but the heads were never joined: each row still holds "
                          f"{h} heads of width {d} as two axes, where it is one row of width heads x d.",
                          "merge_heads.heads_not_joined")
    if n != d and result.shape == (*batch, d, h * n) \
            and expect.allclose(result, np.swapaxes(X, -3, -2).reshape(*batch, d, h * n), *tol):
        raise CheckFailed(f"your merged rows has shape {result.shape}, expected {(*batch, n, h * d)}: the last two axes "
                          "of the input were read in the wrong order, the head width as the number of positions and "
                          "the positions as the width. merge_heads gets (..., heads, n, d): positions, then each head's "
                          "width.", "merge_heads.n_and_d_swapped")
    axis0_as_heads = [((*X.shape[1:-1], X.shape[0] * d), "merge_heads.moves_batch_axis",
                       "you joined the arrays along axis 0, which is a batch axis here, not the head axis: with batch "
                       "axes in front, count the axes from the end (the head axis is -3).")] if batch else []
    expect.shape(result, (*batch, n, h * d), "your merged rows", " (..., n, heads * d)", diagnoses=[
        ((*batch, h * n, d), "merge_heads.stacked_positions",
         "your heads are stacked one under the other (heads * n rows of width d): join them side by side, along the "
         "width, so that row i is head 0's row i, then head 1's row i, ..."), *axis0_as_heads])
    expect.close(result, ref.merge_heads(X), "your merged rows", dtype=X.dtype, diagnoses=_merge_candidates(X),
                 generic="do not undo split_heads: row i should be head 0's row i, then head 1's row i, ... end to end.")


@checks.add("merge_heads", "seed_example", "3 heads of a 2 x 6 array joined back",
            calls=lambda rng: [Call("merge_heads", (ref.split_heads(np.arange(12.0).reshape(2, 6), 3),))])
def _(calls, outcomes):
    _judge_merge(calls[0], outcomes[0])


@checks.add("merge_heads", "batched", "leading batch axes, 4 heads, n != d",
            calls=lambda rng: batching.with_first_sequences(
                [Call("merge_heads", (rng.standard_normal((2, 4, 5, 3)),)),
                 Call("merge_heads", (rng.standard_normal((3, 2, 6, 5)),))], 3))
def _(calls, outcomes):
    batching.judge_with_first_sequences(calls, outcomes, 2, 3, _judge_merge, "merge_heads.fixed_axes")


@checks.add("merge_heads", "float32_unmodified", "float32 input, left unchanged",
            calls=lambda rng: [Call("merge_heads", (_f32(rng.standard_normal((3, 4, 2))),))])
def _(calls, outcomes):
    _judge_merge(calls[0], outcomes[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "X"})


# ---------------------------------------------------------------- multi_head_attention
#: Mistakes that raise on some inputs (X_q and X_kv of different lengths, a mask with batch axes): a raise
#: names one only when the answer raises, or not, exactly where it does on every input of the check.
MHA_RAISING = (
    ("multi_head_attention.values_from_queries",
     "your answer fails exactly where values taken from X_q would: the keys and the values both come from X_kv "
     "(one value per key), only the queries come from X_q.", dict(values_from="q")),
    ("multi_head_attention.keys_from_queries", KEYS_FROM_QUERIES, dict(keys_from="q")),
    ("multi_head_attention.mask_no_head_axis",
     "a mask of shape (batch, n_q, n_k) raised an error: the scores of the heads have shape "
     "(batch, heads, n_q, n_k): the mask has no axis for the heads, so it does not line up with them; one mask "
     "serves every head of a sequence.",
     dict(mask_head_axis=False)),
    ("multi_head_attention.key_value_maps_swapped", KV_MAPS_SWAPPED, dict(kv_maps_swapped=True)),
)

#: Where the given attention reports the mask it got (raised.mask_shape), what was done to a (batch, n_q, n_k)
#: mask: passed as it is, or given its axis of length 1 in front of the batch. Both raise where batch and heads
#: differ, and give the same answers elsewhere: only the shape tells them apart.
MASK_AS_RECEIVED = {
    "multi_head_attention.mask_no_head_axis": lambda shape: shape,
    "multi_head_attention.head_axis_in_front": lambda shape: (1, *shape),
}
HEAD_AXIS_IN_FRONT = ("a mask of shape (batch, n_q, n_k) reached the heads as (1, batch, n_q, n_k): the axis of length 1 "
                      "for the heads went in front of the batch axis, so the mask's batch lines up with the heads. The "
                      "scores of the heads are (batch, heads, n_q, n_k): the head axis sits between the batch and the "
                      "queries.")


def _raised_mistake(calls, outcomes):
    """Fail naming the mistake of :data:`MHA_RAISING` whose errors the answer's are, if it is only one."""
    if any(outcome.error for outcome in outcomes):
        found = signature.identify(outcomes, [
            (m, message, [signature.predict(mha_variant, *c.args, mask=c.kwargs.get("mask"), **options) for c in calls])
            for m, message, options in MHA_RAISING],
            reference=[signature.predict(mha_variant, *c.args, mask=c.kwargs.get("mask")) for c in calls])
        if found is not None and found[0] in MASK_AS_RECEIVED:
            found = _mask_as_received(calls, outcomes)
        if found is not None:
            raise CheckFailed(found[1], found[0])


def _mask_as_received(calls, outcomes):
    """``(misconception, message)`` of what was done to the batched masks, from the shapes the given attention
    reports for every call that raised (:data:`MASK_AS_RECEIVED`); None where they fit neither, or not all alike."""
    received = [(np.shape(c.kwargs["mask"]), raised.mask_shape(o.error)) for c, o in zip(calls, outcomes)
                if o.error is not None and c.kwargs.get("mask") is not None]
    fits = [m for m, made in MASK_AS_RECEIVED.items() if received and all(got == made(passed) for passed, got in received)]
    if len(fits) != 1:
        return None
    return fits[0], (HEAD_AXIS_IN_FRONT if fits[0] == "multi_head_attention.head_axis_in_front" else
                     dict((m, message) for m, message, _ in MHA_RAISING)[fits[0]])


def _judge_mha_all(calls, outcomes):
    """Every input of a multi_head_attention check; an error is named by its signature over them all."""
    _raised_mistake(calls, outcomes)
    expect.each(calls, outcomes, lambda call, outcome: judge_mha(call, outcome, call.args, call.kwargs.get("mask")))


@checks.add("multi_head_attention", "shapes", "shapes: 2 heads over 5 positions of width 8, W_o to width 6",
            calls=lambda rng: [_mha_call(_mha_args(rng, (), 5, 5, 8, 2, 4, 4, 6, self_attn=True))])
def _(calls, outcomes):
    call = calls[0]
    out, weights = expect.pair(outcomes[0], call)
    expect.shape(out, (5, 6), "your attention's output", " (n_q, d_out): W_o's number of columns",
                 diagnoses=[((5, 8), "multi_head_attention.no_output_projection",
                             "the merged heads were not sent through the output projection W_o, which "
                             "recombines the heads and brings the width to W_o's number of columns.")])
    headless(weights, ref.multi_head_attention(*call.args)[1], "your attention's weights")
    expect.shape(weights, (2, 5, 5), "your attention's weights", " (heads, n_q, n_k): one table per head")
    judge_mha(call, outcomes[0], call.args, None)


@checks.add("multi_head_attention", "matches_reference", "non-square: batch axes, n_q != n_k, d_k != d_v, 4 heads, W_o to another width",
            calls=lambda rng: [_mha_call(_mha_args(rng, (2,), 3, 7, 12, 4, 5, 6, 10))])
def _(calls, outcomes):
    _judge_mha_all(calls, outcomes)


@checks.add("multi_head_attention", "head_divisor", "the seeds' layer: width 512, 8 heads of 64 (divisor sqrt(64) = 8)",
            calls=lambda rng: [_mha_call(_mha_args(rng, (), 4, 6, 512, 8, 64, 64, 512))])
def _(calls, outcomes):
    _judge_mha_all(calls, outcomes)


def _mask_with_empty_row(rng, n_q, n_k):
    mask = ref.causal_mask(n_q, n_k) | (rng.random((n_q, n_k)) < 0.3)
    mask[n_q // 2] = False  # a query with no allowed key: its weights and output are zeros
    return mask


@checks.add("multi_head_attention", "mask", "a boolean (n_q, n_k) mask with a fully masked row, applied to every head",
            calls=lambda rng: [_mha_call(_mha_args(rng, (2,), 5, 6, 9, 3, 4, 2, 7), _mask_with_empty_row(rng, 5, 6))])
def _(calls, outcomes):
    call = calls[0]
    args, mask = call.args, call.kwargs["mask"]
    _raised_mistake(calls, outcomes)
    out, weights = expect.pair(outcomes[0], call)
    nan_where(out, weights, ref.multi_head_attention(*args, mask=mask)[1],
              "a query whose keys are all masked gave NaN (and only such a query): its weights and output should be "
              "zeros (the given scaled_dot_product_attention guards that row).")
    judge_mha(call, outcomes[0], args, mask)


@checks.add("multi_head_attention", "batch_mask", "a (batch, n_q, n_k) mask: the same mask for every head",
            calls=lambda rng: [_mha_call(_mha_args(rng, (3,), 4, 5, 8, 2, 3, 4, 6), rng.random((3, 4, 5)) < 0.7),
                               # as many keys as queries, from another sequence: a mask without a head axis
                               # still raises here, and values taken from X_q give values of their own (in
                               # self-attention they would be right, so any mistake that raises where they do
                               # when n_q != n_k, keys from X_q say, would be named as they are)
                               _mha_call(_mha_args(rng, (3,), 4, 4, 8, 2, 3, 4, 6),
                                         rng.random((3, 4, 4)) < 0.7),
                               # one (n_q, n_k) mask for the whole batch: a mask without a head axis is right here
                               _mha_call(_mha_args(rng, (3,), 4, 4, 8, 2, 3, 4, 6), rng.random((4, 4)) < 0.7)])
def _(calls, outcomes):
    _judge_mha_all(calls, outcomes)


@checks.add("multi_head_attention", "float32_unmodified", "float32 inputs, left unchanged",
            calls=lambda rng: [_mha_call(_mha_args(rng, (2,), 4, 3, 6, 3, 2, 3, 5, dtype=np.float32),
                                         ref.causal_mask(4, 3))])
def _(calls, outcomes):
    call = calls[0]
    _raised_mistake(calls, outcomes)
    judge_mha(call, outcomes[0], call.args, call.kwargs["mask"])
    expect.unmodified(outcomes[0], call, {"0": "X_q", "1": "X_kv", "2": "W_q", "3": "W_k", "4": "W_v", "5": "W_o",
                                          "mask": "mask"})
