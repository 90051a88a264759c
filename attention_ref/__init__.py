"""A numpy reference implementation of scaled dot-product attention.

Shape vocabulary, used everywhere::

    Q: (..., n_q, d_k)   K: (..., n_k, d_k)   V: (..., n_k, d_v)
    weights: (..., n_q, n_k)                  output: (..., n_q, d_v)

Leading axes are batch axes and broadcast like numpy's matmul. Masks are boolean
with True = may attend (PyTorch's and JAX's convention) or floating additive
biases. Inputs are never modified; float32 in gives float32 out.
"""
from .attention import scaled_dot_product_attention
from .blockwise import blockwise_attention
from .heads import (
    attention_param_count,
    cross_attention,
    merge_heads,
    multi_head_attention,
    project,
    self_attention,
    split_heads,
)
from .masking import apply_mask, causal_mask, padding_mask
from .scaling import leading_weight, scale_scores, score_variance, softmax_jacobian
from .scores import attention_scores, dot_product, softmax, weighted_average
from .scoring import (
    additive_scores,
    bilinear_scores,
    scaled_dot_scores,
    score_asymmetry,
    score_costs,
    width_for_budget,
)
from .scoring_experiment import compare_scorers

__all__ = [
    "dot_product", "attention_scores", "softmax", "weighted_average",
    "scale_scores", "score_variance", "leading_weight", "softmax_jacobian",
    "causal_mask", "padding_mask", "apply_mask", "scaled_dot_product_attention",
    "project", "attention_param_count", "split_heads", "merge_heads",
    "multi_head_attention", "self_attention", "cross_attention",
    "blockwise_attention",
    "additive_scores", "scaled_dot_scores", "bilinear_scores", "score_costs", "width_for_budget",
    "score_asymmetry", "compare_scorers",
]
