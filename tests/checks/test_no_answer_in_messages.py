"""A message names the misconception or the property that fails; it does not hand over the answer (issue 24:
blind reviews found the code or the formula of the solution in messages and in misconception titles). Each answer
below gets the message that once held it, judged on the check itself; the message must still say what is wrong. And
as a property of every message at once: no string of a check module, no misconception title, holds a graded answer's
code or formula (:data:`ANSWER_FORMS`)."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import attention_ref as ref
import autograder.checks as checks_package
from autograder.checks import CHECKS, MISCONCEPTIONS, executor
from autograder.checks.core import evaluate


def causal_bottom_right(n_q, n_k):
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def mha_mask_as_is(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def jacobian_halved(p):
    return ref.softmax_jacobian(p) / 2   # no catalogued mistake: the generic message


def _verdict(grade_id, name, answer, seed=0):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, **{n: getattr(ref, n) for n in check.helpers}}
    return evaluate(check, executor(check, namespace), seed)


@pytest.mark.parametrize("grade_id, name, answer, said, not_said", [
    ("causal_mask_non_square", "causal_mask", causal_bottom_right, "bottom-right", ("np.tril", "array of ones")),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_mask_as_is, "head",
     ("expand_dims", "-3)", "[:, None]")),
    ("softmax_jacobian_matches_reference", "softmax_jacobian", jacobian_halved, "diagonal",
     ("diag(p) - p p", "p_i (1 - p_i)", "-p_i p_j")),
    ("TABLE_BYTES_value", "TABLE_BYTES", 123, "bytes", ("4 bytes each", "x n_q x n_k", "heads x")),
])
def test_the_message_names_the_property_not_the_answer(grade_id, name, answer, said, not_said):
    verdict = _verdict(grade_id, name, answer)
    assert not verdict.passed and said in verdict.message, verdict
    assert not [text for text in not_said if text in verdict.message], verdict.message


#: The answers of the graded tasks as a message would print them (issue 24's blind reviews found each of these, or
#: one of its kind, in a message or a misconception's title): the code of the fix, or the task's whole formula.
ANSWER_FORMS = {
    "dot_product": ("q_i * k_i", "sum of q_i k_i", "multiply matching entries", "then add the products"),
    "attention_scores": ("Q K^T", "Q @ K.T", "K^T", "np.swapaxes(K"),
    "weighted_average": ("weights @ V", "weights^T", "sum over keys j of"),
    "softmax_jacobian": ("diag(p) - p p", "p p^T", "-p_i p_j", "p_i (1 - p_i)", "delta_ij - p_j"),
    "scaled_dot_product_attention": ("softmax(Q K", "Q K^T / sqrt"),
    "causal_mask": ("np.tril", "np.triu", "causal_mask(n)"),
    "apply_mask": ("np.where(mask",),
    "project": ("X @ W", "X[i] @ W", "@ W.T"),
    "split_heads": ("swapaxes(-3, -2)", "reshape(*batch"),
    "merge_heads": ("swapaxes(-3, -2)",),
    "multi_head_attention": ("expand_dims(mask", "[:, None]"),
    "self_attention": ("pass it as it is", "causal_mask(n)"),
    "TABLE_BYTES": ("4 bytes each", "x n_q x n_k"),
    "additive_scores": ("tanh(q_i W_q + k_j W_k)", "v . tanh"),
    "scaled_dot_scores": ("(q_i W_q) . (k_j W_k)",),
    "bilinear_scores": ("q_i W k_j", "q^T W k", "Q W K^T"),
    "attention_param_count": ("(heads * d_v) x d_model",),
}


def _texts(path: Path):
    """Every string a check module can say: its string constants and the fixed parts of its f-strings, less the
    docstrings (never shown to a student)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


CHECK_MODULES = sorted(Path(checks_package.__file__).parent.glob("*.py"))


@pytest.mark.parametrize("path", CHECK_MODULES, ids=lambda p: p.name)
def test_no_message_or_title_holds_an_answer(path):
    """A property of every message and every misconception title at once, not of the ones a review met: no string a
    check module can show holds the code or the formula of a graded answer (:data:`ANSWER_FORMS`). Implicitly
    concatenated literals are one constant, so a form split over two source lines is still found."""
    found = [(line, task, form) for line, text in _texts(path) for task, forms in ANSWER_FORMS.items()
             for form in forms if form in text]
    assert not found, f"{path.name}: answers in messages or titles (line, task, form): {found}"


def test_the_misconception_titles_hold_no_answer():
    """The titles of the misconceptions (the report and the feedback show them) as they are registered, concepts and
    generated titles included."""
    found = [(m, form) for m, title in MISCONCEPTIONS.items() for forms in ANSWER_FORMS.values() for form in forms
             if form in title]
    assert not found, found


# ---------------------------------------------------------------- issue 24, blind set 6: more texts that held the fix
def dot_distance(q, k):
    return float(np.linalg.norm(np.asarray(q, float) - np.asarray(k, float)))


def average_transposed(weights, V):
    return np.swapaxes(weights, -1, -2) @ V


def additive_off(Q, K, W_q, W_k, v):
    return ref.additive_scores(Q, K, W_q, W_k, v) * 1.5  # no catalogued mistake: the generic text


def softmax_sharpened(x, axis=-1):
    return ref.softmax(np.asarray(x, float) * 1.1, axis=axis)


def scale_shifted(scores, d_k):
    return ref.scale_scores(scores, d_k) + 0.1


def leading_damped(width, scaled=True):
    return ref.leading_weight(width, scaled=scaled) * 0.99


def variance_squared(d_k, n_samples=100_000, rng=None):
    return float(d_k) ** 2


def asymmetry_halved(X, W_q, W_k):
    return ref.score_asymmetry(X, W_q, W_k) / 2


@pytest.mark.parametrize("grade_id, name, answer, said, not_said", [
    ("dot_product_seed_example", "dot_product", dot_distance, "distance",
     ("Multiply matching entries", "add the products")),
    ("weighted_average_non_square", "weighted_average", average_transposed, "columns",
     ("as they are", "not their transpose", ") by V")),
    ("additive_scores_matches_reference", "additive_scores", additive_off, "additive score",
     ("v . tanh", "q_i W_q + k_j W_k", "tanh(")),
    ("softmax_matches_reference", "softmax", softmax_sharpened, "sum to 1",
     ("exponentiate each score", "divide by the total")),
    ("scale_scores_matches_reference", "scale_scores", scale_shifted, "d_k", ("scores / sqrt(d_k)",)),
    ("leading_weight_scaled_flat", "leading_weight", leading_damped, "scaled curve",
     ("(2, 1, 0) times sqrt(width)", "return the largest softmax weight")),
    ("score_variance_matches_d_k", "score_variance", variance_squared, "d_k",
     ("draw the entries", "take the dot product of each pair")),
    ("score_asymmetry_values", "score_asymmetry", asymmetry_halved, "gap",
     ("for every pair, and return the largest gap",)),
])
def test_a_failing_property_is_said_without_its_formula(grade_id, name, answer, said, not_said):
    verdict = _verdict(grade_id, name, answer)
    assert not verdict.passed and said in verdict.message, verdict
    assert not [text for text in not_said if text in verdict.message], verdict.message
