"""Conceptual items of the core notebooks: the seeds' ideas that a function cannot test.

Each notebook's "Check your understanding" section asks multiple-choice questions whose wrong options
are the seeds' misconceptions. The answer is one constant per notebook, ``CONCEPTS_NN``: one letter per
question, in order (a tuple of strings, or a string such as ``"b, c, d"``). Like the Stop-and-try
constants it is an answer key: its visible check says only whether the answer has the expected form
(``format``, public); the letters are checked when the notebook is graded (``value``, hidden), and a
wrong letter is reported with the misconception it stands for. One ``format`` and one ``value`` cell
per notebook, 1 point each, however many questions: the five core notebooks total 100.
``score_asymmetry`` (04) is the numeric item on the symmetry of one map.

These items sit after each notebook's other tasks; :mod:`autograder.checks` appends them to the tasks
and checks of their notebook's module.
"""
from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

import attention_ref as ref

from . import expect, forms
from .core import Call, CheckFailed, CheckList

LETTERS = forms.LETTERS


@dataclass(frozen=True)
class Question:
    """One question: the right letter, and for each wrong letter (misconception suffix, title, message)."""

    name: str
    assignment: str
    title: str
    right: str
    wrong: dict
    #: The four options' texts, under the lesson's letters a to d (the order of ``right`` and ``wrong``). A student
    #: sees them in an order of their own (issue 22: ``checks/items.OptionOrder``), printed by their notebook.
    options: tuple[str, str, str, str] = ()


QUESTIONS = [
    Question("CONCEPT_BOTTLENECK", "01_scores_softmax", "the limit of recurrent networks that attention removes", "b", {
        "a": ("gates_block_gradients", "thinks gating stops recurrent networks from learning at all",
              "that option is about training recurrent networks; the gates help gradients travel. Reread what "
              "every step of a recurrent network has to pass its history through."),
        "c": ("no_comparison_parameters", "thinks recurrent networks lack parameters to compare words",
              "that option is about parameters; the limit is where the history of the sequence is kept."),
        "d": ("length_limit", "thinks a recurrent network cannot read sequences longer than its width",
              "a recurrent network reads any length; the question is how much of it one state can hold."),
    }, options=(
        'Its gates stop gradients from flowing, so it cannot learn from long sentences at all.',
        'Everything it has read must be compressed into one fixed-size hidden state, updated one step at a time; '
        'attention lets each output position read every input position directly.',
        'It has no learned parameters with which to compare two words.',
        'It cannot read a sequence longer than the width of its hidden state.',
    )),
    Question("CONCEPT_ARGMAX", "01_scores_softmax", "why softmax weights and not the single best item", "c", {
        "a": ("argmax_slower", "thinks argmax is avoided because it is slow",
              "speed is not the reason; think about what a small change of one score does to each choice."),
        "b": ("softmax_picks_best", "thinks softmax differs from argmax by always favouring the best item",
              "both favour the best item; think about what reaches the learned maps when a score moves a little."),
        "d": ("argmax_negative", "thinks argmax cannot handle negative scores",
              "argmax handles any scores; think about the slope of the output with respect to a score."),
    }, options=(
        'argmax is too slow to compute on long sequences.',
        'softmax always gives the best item the largest weight; argmax does not.',
        'a small change of a score leaves the argmax choice unchanged or makes it jump, so no usable gradient '
        'reaches the learned maps; softmax weights change smoothly with every score.',
        'argmax cannot handle negative scores.',
    )),
    Question("CONCEPT_SIMILARITY", "01_scores_softmax", "which comparison scaled dot-product attention uses", "d", {
        "a": ("sophisticated_similarity", "thinks attention replaces the dot product with a more sophisticated similarity",
              "the comparison in the formula is not a new similarity measure; reread the score you wrote in "
              "this notebook and what is added to it."),
        "b": ("cosine", "thinks the scores divide out the lengths (cosine similarity)",
              "the lengths of the query and the key are not divided out; the divisor does not depend on them."),
        "c": ("distance", "thinks the score is a distance between query and key",
              "a larger score means a better match here; reread how the score of two aligned vectors compares "
              "with that of two opposing ones."),
    }, options=(
        'a more sophisticated similarity measure than the dot product, designed for attention.',
        'the cosine of the angle between them (their lengths divided out).',
        'the distance between them: the closer the two vectors, the higher the weight.',
        'the plain dot product, divided by √d_k, before the softmax turns the scores into weights.',
    )),
    Question("CONCEPT_DIVISOR", "02_scaling", "when the divisor guarantees unit-variance scores", "a", {
        "b": ("divisor_always", "thinks the divisor keeps the scores at unit variance throughout training",
              "the variance argument assumes something about the entries of queries and keys; ask whether "
              "training keeps that assumption true."),
        "c": ("divisor_power_of_two", "thinks the argument needs d_k to be a power of two",
              "the width's value plays no such part; reread the assumptions of the variance argument."),
        "d": ("divisor_masks", "thinks the divisor is about masked positions",
              "masks come in notebook 03; the divisor is about the size of the scores."),
    }, options=(
        'when the entries of queries and keys are independent with mean 0 and variance 1, as at initialisation; '
        'trained maps can still produce large scores and saturate the softmax with the divisor in place.',
        'at every step of training, whatever values the learned weights take.',
        'only when d_k is a power of two.',
        'only at the positions that a mask hides.',
    )),
    Question("CONCEPT_ALIGNMENT", "04_heads", "what a large dot product of learned queries and keys means", "d", {
        "a": ("raw_alignment", "thinks a large score means the two input vectors are aligned",
              "the dot product is taken after the maps; ask in which space the two vectors are aligned."),
        "b": ("weight_is_importance", "thinks a large score marks the most important word in general",
              "the score is about this query and this key under maps trained for one task, not importance in "
              "general."),
        "c": ("labels_mean_something", "thinks keys carry meaning before training, like library labels",
              "this is where the library analogy breaks: ask who writes a key and when it gets its meaning."),
    }, options=(
        'The two input vectors x_i and x_j point in nearly the same direction.',
        'Word j is the most important word of the sentence, for any purpose.',
        'Key j carried that meaning before training, as a library label does.',
        'q_i and k_j are aligned in the space the learned maps produce, and training shaped that space so that '
        'alignment there tracks what is relevant for the task.',
    )),
    Question("CONCEPT_KEYS_VALUES", "04_heads", "how the key and the value of a position differ", "b", {
        "a": ("keys_are_values", "thinks keys and values are the same vector used twice",
              "count the maps of section 1: ask whether the key and the value come from the same one."),
        "c": ("same_width", "thinks keys and values must have the same width",
              "reread the shapes of section 1: which widths must agree, and which may differ?"),
        "d": ("value_is_scaled_key", "thinks the value is the key divided by sqrt(d_k)",
              "the divisor acts on the scores, not on the keys; ask where the values come from."),
    }, options=(
        'They are the same vector, used twice.',
        'They come from two separate learned maps of the same input: the key is shaped to be matched against '
        'queries, the value to be passed on, and the two can carry different information.',
        'They must have the same width.',
        'The value is the key divided by √d_k.',
    )),
    Question("CONCEPT_HEADS", "04_heads", "why a layer runs several heads", "a", {
        "b": ("heads_split_sentence", "thinks each head reads its own part of the sentence",
              "every head reads every position; ask what differs from one head to the next."),
        "c": ("heads_add_parameters", "thinks heads exist to multiply the parameters",
              "section 3 counted them: at a fixed total width the heads do not multiply the parameters."),
        "d": ("heads_for_divisor", "thinks heads exist to change the divisor",
              "each head divides by the square root of its own width, but that is a consequence, not the purpose."),
    }, options=(
        'Relevance is not one relation: each head has its own maps and can learn a different relation (which word a '
        'pronoun refers to, which word comes next, …), at about the cost of one full-width head.',
        'Each head reads its own part of the sentence, so that the work is shared out.',
        'More heads multiply the parameters, which makes the model larger.',
        'Each head needs a different divisor.',
    )),
    Question("CONCEPT_WEIGHT", "05_cross_attention", "what a high cross-attention weight says", "b", {
        "a": ("weight_is_importance", "thinks a higher weight means the value is more important in general",
              "the weight says how well a key matched this query under the maps learned for one task; ask "
              "whether that is the same as importance for any purpose."),
        "c": ("others_masked", "thinks the other input positions must have been masked",
              "a weight of 0.7 leaves 0.3 for the others; masked keys would get exactly 0."),
        "d": ("weight_scales_value", "thinks the weight says how large the value vector is",
              "the weight multiplies the value; it does not measure it."),
    }, options=(
        'That input word matters more than the others for getting the translation right, in general.',
        'Its key matched this query best under the maps learned for this task: a learned, task-specific '
        'relevance, not importance in general.',
        'The other input words were masked.',
        'The value vector of that word is 0.7 times as long as the others.',
    )),
]
#: The task of each notebook's questions: one answer, a tuple of letters in the order of its questions.
TASK_OF = {"01_scores_softmax": "CONCEPTS_01", "02_scaling": "CONCEPTS_02", "04_heads": "CONCEPTS_04",
           "05_cross_attention": "CONCEPTS_05"}



def item_of(assignment: str) -> str:
    """The per-student item of ``assignment``'s questions: the order its options are shown in (issue 22,
    ``checks/items.OptionOrder``), ``"02_scaling/concepts"``."""
    return f"{assignment}/concepts"


TASKS: dict[str, list[str]] = {}
CHECKS: dict[str, CheckList] = {}
MISCONCEPTIONS: dict[str, str] = {}


def questions(assignment: str) -> list[Question]:
    """The questions of one notebook, in the order of its answer tuple."""
    return [q for q in QUESTIONS if q.assignment == assignment]


def _register(assignment: str, task: str) -> None:
    asked = questions(assignment)
    checks = CHECKS.setdefault(assignment, CheckList())
    TASKS.setdefault(assignment, []).append(task)
    for question in asked:
        for suffix, title, _ in question.wrong.values():
            MISCONCEPTIONS[f"{task}.{suffix}"] = title

    # the number of questions travels as the call's argument, so the form judge is forms.py's own
    checks.add(task, "format", f"{len(asked)} letters, each one of a to d",
               calls=lambda rng: [Call(task, (len(asked),), value_only=True)])(forms.concepts_format)

    @checks.add(task, "value", "; ".join(q.title for q in asked), public=False,
                calls=lambda rng: [Call(task, (len(asked),), value_only=True)], item=item_of(assignment))
    def _(calls, outcomes, order):
        # each letter as the student saw it, mapped back through their own order of the options
        chosen = [order.lesson_letter(i, c) for i, c in enumerate(forms.letters(outcomes[0], calls[0]))]
        wrong = [(i, q, q.wrong[c]) for i, (q, c) in enumerate(zip(asked, chosen), 1) if c != q.right]
        if wrong:
            message = " ".join(f"Question {i}: {text}" for i, _, (_, _, text) in wrong)
            raise CheckFailed(message, f"{task}.{wrong[0][2][0]}")


for _assignment, _task in TASK_OF.items():
    _register(_assignment, _task)


# ---------------------------------------------------------------- score_asymmetry (04)
TASKS["04_heads"].insert(0, "score_asymmetry")
MISCONCEPTIONS["score_asymmetry.one_map"] = "one map (or the raw vectors X X^T) for both sides, so every gap is 0"
MISCONCEPTIONS["score_asymmetry.maps_not_scores"] = "measures the asymmetry of the product of the maps, not of the scores"
MISCONCEPTIONS["score_asymmetry.total_not_largest"] = "adds up (or averages) the gaps of every pair instead of taking the largest"
MISCONCEPTIONS["score_asymmetry.scaled_scores"] = "measures the gap of the scaled scores (divided by a square root) " \
                                                  "instead of the raw ones"
MISCONCEPTIONS["score_asymmetry.weights_not_scores"] = "measures the gap of the softmax weights instead of the scores"
_asymmetry = CheckList()


def _asymmetry_call(rng, n, d, h, same=False):
    X, W_q = rng.standard_normal((n, d)), rng.standard_normal((d, h))
    return Call("score_asymmetry", (X, W_q, W_q.copy() if same else rng.standard_normal((d, h))))


def _scores(X, W_q, W_k):
    return (X @ W_q) @ (X @ W_k).T


MISCONCEPTIONS["score_asymmetry.norm_not_largest"] = "measures the size of the whole difference of the two " \
                                                     "directions (a matrix norm) instead of its largest entry"

ONE_MAP = ("your gap is 0 for two different maps, and stays 0 when {map} holds NaN: your scores never read {map}. "
           "The scores must use the query map for the queries and the key map for the keys; with one map (or the raw "
           "vectors) on both sides, item i reading item j scores what j reading i does.")
NORM = ("your gap is the size of the whole difference between the scores and their transpose (a norm that gathers "
        "every pair's gap into one number), not the gap of the pair whose two directions differ most.")


def _asymmetry_candidates(X, W_q, W_k):
    """``(value, misconception, message)`` of the usual mistakes of the gap on one call."""
    S = _scores(X, W_q, W_k)
    D = S - S.T
    gaps = np.abs(D)
    total = ("your answer adds up (or averages) the gaps of every pair: the asymmetry of the scores is the largest "
             "gap, the pair whose two directions differ most.")
    for value in (gaps.sum(), gaps.sum() / 2, gaps.mean(), gaps[np.triu_indices(len(gaps), 1)].mean()):
        yield float(value), "score_asymmetry.total_not_largest", total
    for value in (np.linalg.norm(D), np.linalg.norm(D) / 2, np.linalg.norm(D) / math.sqrt(2), np.sqrt(np.mean(D ** 2)),
                  np.linalg.norm(D, 2), np.linalg.norm(D, 1), np.abs(np.linalg.eigvals(D)).max()):
        yield float(value), "score_asymmetry.norm_not_largest", NORM
    maps = W_q @ W_k.T  # d x d: how far the product of the maps is from symmetric, not the scores of X
    yield float(np.abs(maps - maps.T).max()), "score_asymmetry.maps_not_scores", \
        ("your gap is measured on the product of the maps, W_q W_k^T, one entry per pair of features: the asymmetry "
         "asked for is that of the scores of the positions of X, one entry per pair of positions.")
    yield float(gaps.max()) / math.sqrt(W_q.shape[1]), "score_asymmetry.scaled_scores", \
        ("your gap is that of the scaled scores, divided by the square root of the projected width: the question asks "
         "how far the raw scores of the two directions differ.")
    weights = ref.softmax(S)
    yield float(np.abs(weights - weights.T).max()), "score_asymmetry.weights_not_scores", \
        ("your gap is that of the softmax weights, not of the scores: each row of weights is normalised on its own, "
         "so their gaps mix the asymmetry of the scores with how each row shares its weight out.")


def _zero_gap(probes) -> CheckFailed:
    """A gap of 0 for two different maps, said by what the probes show (the first call again with NaN in W_k, then
    in W_q): a map whose NaN never reaches the answer is never read (one map, or the raw vectors, on both sides);
    where both reach it, the answer reads both maps and what it measures is blind to the transpose, for more than
    one reason (the largest entries or totals of the two tables compared, a table symmetrised first), so no cause
    is named."""
    reads = []
    for outcome in probes:
        try:
            value = float(np.asarray(outcome.value, dtype=float).reshape(())) if outcome.error is None else None
        except (TypeError, ValueError):
            value = None
        reads.append(None if value is None else (not np.isfinite(value), abs(value) < 1e-9))
    if None not in reads:
        (k_read, k_zero), (q_read, q_zero) = reads
        if k_zero and not q_read:
            return CheckFailed(ONE_MAP.format(map="either map"), "score_asymmetry.one_map")
        if k_zero and q_read:
            return CheckFailed(ONE_MAP.format(map="W_k"), "score_asymmetry.one_map")
        if q_zero and k_read:
            return CheckFailed(ONE_MAP.format(map="W_q"), "score_asymmetry.one_map")
        if k_read and q_read:
            return CheckFailed("your gap is 0 for two different maps, although your answer reads both (a NaN in either "
                               "reaches it): what it measures comes out the same for the table of scores and for its "
                               "transpose, where the gap asked for compares, for each pair of items, i reading j with "
                               "j reading i.", "wrong_values")
    return CheckFailed("your gap is 0 for two different maps, where the scores of some pair differ between its two "
                       "directions (i reading j, j reading i).", "wrong_values")


def _judge_asymmetry(call, outcome, probes):
    X, W_q, W_k = call.args
    got = expect.number(outcome, call, "`score_asymmetry`")
    right = ref.score_asymmetry(X, W_q, W_k)
    if expect.allclose(got, right, 1e-7, 1e-9 * max(1.0, float(np.abs(X).max()) ** 2)):
        return  # one map: exactly symmetric in exact arithmetic, a rounding error of the products here
    if abs(got) < 1e-9 and right > 1e-6:
        raise _zero_gap(probes)
    if right > 1e-6:
        matching = {(m, message) for value, m, message in _asymmetry_candidates(X, W_q, W_k)
                    if expect.allclose(got, value, 1e-7, 1e-9) and not expect.allclose(value, right, 1e-7, 1e-9)}
        if len({m for m, _ in matching}) == 1:
            raise CheckFailed(*min(matching)[::-1])
    n = X.shape[0]
    if got > right:  # no pair's two directions differ that much
        raise CheckFailed(f"`score_asymmetry` on {n} items is {got:.4g}, more than the gap between the two directions "
                          "(i reading j, j reading i) of any one pair of items.", "wrong_values")
    raise CheckFailed(f"`score_asymmetry` on {n} items is {got:.4g}, less than the gap between the two directions "
                      "(i reading j, j reading i) of some pair of items: that pair's scores differ by more.",
                      "wrong_values")


def _nan_probes(call):
    """The call again with NaN in one entry of W_k, then of W_q (probes, never graded: :func:`_zero_gap`)."""
    X, W_q, W_k = call.args
    with_nan = [W.copy() for W in (W_k, W_q)]
    for W in with_nan:
        W[0, 0] = np.nan
    return [Call("score_asymmetry", (X, W_q, with_nan[0])), Call("score_asymmetry", (X, with_nan[1], W_k))]


@_asymmetry.add("score_asymmetry", "values", "two maps: the largest gap between the two directions; one map: 0",
                calls=lambda rng: (lambda calls: calls + _nan_probes(calls[0]))(
                    [_asymmetry_call(rng, 4, 3, 2), _asymmetry_call(rng, 6, 5, 5),
                     _asymmetry_call(rng, 5, 4, 3, same=True)]))
def _(calls, outcomes):
    expect.each(calls[:3], outcomes[:3], _judge_asymmetry, outcomes[3:])


CHECKS["04_heads"][:0] = _asymmetry  # notebook order: the numeric item comes before the letters
