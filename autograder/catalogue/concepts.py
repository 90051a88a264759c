"""Answer variants of the conceptual items (:mod:`autograder.checks.concepts`): each seed misconception
chosen as an answer, and correct answers written differently."""
from . import Variant

SEED2 = "seed 002, misconceptions"

# ---------------------------------------------------------------- wrong answers: the seeds' misconceptions
_MISTAKES = [
    ("concepts_01_sophisticated_similarity", "01_scores_softmax", "CONCEPTS_01", 'CONCEPTS_01 = ("b", "c", "a")',
     "CONCEPTS_01.sophisticated_similarity",
     f"{SEED2}: 'Attention replaces the dot product with some more sophisticated similarity measure.'"),
    ("concepts_01_argmax_slower", "01_scores_softmax", "CONCEPTS_01", 'CONCEPTS_01 = ("b", "a", "d")',
     "CONCEPTS_01.argmax_slower",
     "seed 000, L1: a discrete selection is not differentiable (the reason is the slope, not the speed)"),
    ("concepts_01_gates", "01_scores_softmax", "CONCEPTS_01", 'CONCEPTS_01 = ("a", "c", "d")',
     "CONCEPTS_01.gates_block_gradients",
     "seed 002, first objective: gating improves how far gradients travel; the limit is the one hidden state"),
    ("concepts_02_divisor_always", "02_scaling", "CONCEPTS_02", 'CONCEPTS_02 = ("b",)', "CONCEPTS_02.divisor_always",
     "seed 000, L2 edge case: 'The divisor fixes the scale at initialisation. It does not enforce the scale "
     "afterwards.'"),
    ("concepts_04_raw_alignment", "04_heads", "CONCEPTS_04", 'CONCEPTS_04 = ("a", "b", "a")', "CONCEPTS_04.raw_alignment",
     "seed 000: 'nothing in the formula guarantees that alignment means relevance'"),
    ("concepts_04_keys_are_values", "04_heads", "CONCEPTS_04", 'CONCEPTS_04 = ("d", "a", "a")',
     "CONCEPTS_04.keys_are_values", f"{SEED2}: 'Keys and values are the same thing, just used differently.'"),
    ("concepts_04_heads_split_sentence", "04_heads", "CONCEPTS_04", 'CONCEPTS_04 = ("d", "b", "b")',
     "CONCEPTS_04.heads_split_sentence",
     "seed 000, L3: 'The design assumes that relevance is not one relation, so one set of maps cannot serve'"),
    ("concepts_05_weight_is_importance", "05_cross_attention", "CONCEPTS_05", 'CONCEPTS_05 = ("a",)',
     "CONCEPTS_05.weight_is_importance",
     f"{SEED2}: 'A higher attention weight always means the corresponding value is more important.'"),
]

SCORE_ASYMMETRY_ONE_MAP = '''
def score_asymmetry(X, W_q, W_k):
    S = (X @ W_q) @ (X @ W_q).T      # the query map on both sides
    return float(np.abs(S - S.T).max())
'''

SCORE_ASYMMETRY_SIGNED_LOOP = '''
def score_asymmetry(X, W_q, W_k):
    Q, K = X @ W_q, X @ W_k
    n = len(X)
    # S - S^T is antisymmetric: its largest entry is its largest absolute entry
    return max(float(Q[i] @ K[j] - Q[j] @ K[i]) for i in range(n) for j in range(n))
'''

VARIANTS = [Variant(name, a, task, {task: src}, misconception=m, source=source)
            for name, a, task, src, m, source in _MISTAKES]


def _every_wrong_option() -> list[Variant]:
    """One wrong answer for every wrong option the hand-written ones above leave out: every other question
    answered right, that one question with that letter (each wrong option is a misconception of its own)."""
    from ..checks.concepts import TASK_OF, questions

    covered = {m for *_, m, _ in _MISTAKES}
    found = []
    for assignment, task in TASK_OF.items():
        asked = questions(assignment)
        for i, question in enumerate(asked):
            for letter, (suffix, _title, _message) in sorted(question.wrong.items()):
                if f"{task}.{suffix}" in covered:
                    continue
                answer = tuple(letter if j == i else q.right for j, q in enumerate(asked))
                found.append(Variant(f"{task.lower()}_{suffix}", assignment, task, {task: f"{task} = {answer!r}"},
                                     misconception=f"{task}.{suffix}",
                                     source=f"option {letter!r} of {question.name} (autograder/checks/concepts.py)"))
    return found


VARIANTS += _every_wrong_option()
VARIANTS += [
    Variant("score_asymmetry_one_map", "04_heads", "score_asymmetry", {"score_asymmetry": SCORE_ASYMMETRY_ONE_MAP},
            misconception="score_asymmetry.one_map",
            source="seed 000: 'With one map, the score for item i reading item j would equal the score for item j "
                   "reading item i'"),
    Variant("score_asymmetry_signed_loop", "04_heads", "score_asymmetry",
            {"score_asymmetry": SCORE_ASYMMETRY_SIGNED_LOOP}, correct=True),
    Variant("concepts_01_as_a_string", "01_scores_softmax", "CONCEPTS_01", {"CONCEPTS_01": 'CONCEPTS_01 = "B, c, d"'},
            correct=True),
    Variant("concepts_02_list", "02_scaling", "CONCEPTS_02", {"CONCEPTS_02": 'CONCEPTS_02 = ["a"]'}, correct=True),
]

# Issue 24 (held-out class): the asymmetry of the maps' product instead of the scores'.
VARIANTS += [
    Variant("score_asymmetry_of_the_maps", "04_heads", "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    A = np.asarray(W_q) @ np.asarray(W_k).T      # "the learned relation between features"
    return float(np.max(np.abs(A - A.T)))
'''}, misconception="score_asymmetry.maps_not_scores",
            source="seed 000: the scores are q_i . k_j = x_i W_q (x_j W_k)^T; the question is about the scores of the "
                   "positions, not about the d x d product of the maps"),
]

# Issue 24, blind set 7 (spent): the gap of other tables than the raw scores, each written anew here.
VARIANTS += [
    Variant("score_asymmetry_of_scaled_scores", "04_heads", "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    S = np.einsum("id,jd->ij", X @ W_q, X @ W_k) / np.sqrt(W_q.shape[1])   # as attention scales them
    return float(np.max(np.abs(S - S.T)))
'''}, misconception="score_asymmetry.scaled_scores",
            source="the scaled scores QK^T / sqrt(d_k) are what attention uses (Vaswani et al. 2017, eq. 1); the "
                   "question asks about the raw scores q_i . k_j"),
    Variant("score_asymmetry_of_weights", "04_heads", "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    S = (X @ W_q) @ (X @ W_k).T
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)               # the attention map, who reads whom
    return float(np.abs(A - A.T).max())
'''}, misconception="score_asymmetry.weights_not_scores",
            source="attention maps (softmax weights) are what visualisations show (e.g. BertViz); the question is "
                   "about the scores before the softmax"),
]
