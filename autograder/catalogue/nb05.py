"""Answer variants of 05_cross_attention: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "05_cross_attention"

# ---------------------------------------------------------------- wrong answers
SELF_CAUSAL_IGNORED = '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)  # the causal flag is never used
'''

SELF_CAUSAL_TRIU = '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = np.triu(np.ones((n, n), dtype=bool)) if causal else None  # upper triangle: reads the future
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''

CROSS_SWAPPED = '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)  # roles swapped
'''

CROSS_PADDING_WRONG_AXIS = '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = np.swapaxes(padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2]), -1, -2)  # (batch, n_enc, 1)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''

CROSS_PADDING_IGNORED = '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)  # enc_lengths unused
'''

# ---------------------------------------------------------------- correct answers written differently
SELF_ADDITIVE_MASK = '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    bias = None
    if causal:
        bias = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)  # an additive mask: 0 or -inf
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=bias)
'''

CROSS_PER_SENTENCE = '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    if enc_lengths is None:
        return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    n_dec, n_enc = X_dec.shape[-2], X_enc.shape[-2]
    dtype = np.result_type(X_dec, X_enc)
    outputs, weights = [], []
    for b, length in enumerate(np.asarray(enc_lengths)):
        if length == 0:  # no source at all: nothing to read
            outputs.append(np.zeros((n_dec, W_o.shape[1]), dtype=dtype))
            weights.append(np.zeros((num_heads, n_dec, n_enc), dtype=dtype))
            continue
        out, w = multi_head_attention(X_dec[b], X_enc[b, :length], W_q, W_k, W_v, W_o, num_heads)
        outputs.append(out)
        weights.append(np.concatenate([w, np.zeros((num_heads, n_dec, n_enc - length), dtype=w.dtype)], axis=-1))
    return np.stack(outputs), np.stack(weights)
'''

VARIANTS = [
    Variant("self_attention_causal_ignored", A, "self_attention", {"self_attention": SELF_CAUSAL_IGNORED},
            misconception="self_attention.causal_ignored",
            source="https://github.com/facebookresearch/xformers/issues/103 ; https://github.com/FGA-DIKU/BONSAI/issues/343"),
    Variant("self_attention_causal_triu", A, "self_attention", {"self_attention": SELF_CAUSAL_TRIU},
            misconception="self_attention.causal_wrong_direction",
            source="commonly seen: np.triu / torch.triu where tril is meant (upper instead of lower triangle); "
                   "https://github.com/facebookresearch/xformers/issues/1135"),
    Variant("cross_attention_swapped", A, "cross_attention", {"cross_attention": CROSS_SWAPPED},
            misconception="cross_attention.swapped",
            source="https://github.com/humza909/LLM_Survey/issues/2 ; https://github.com/datawhalechina/happy-llm/issues/5 ; "
                   "https://github.com/pbloem/former/issues/19"),
    Variant("cross_attention_padding_wrong_axis", A, "cross_attention", {"cross_attention": CROSS_PADDING_WRONG_AXIS},
            misconception="cross_attention.padding_wrong_axis",
            source="https://github.com/hyunwoongko/transformer/pull/40 (unsqueeze(1).unsqueeze(3) masks queries); "
                   "https://github.com/bentrevett/pytorch-seq2seq/issues/119"),
    Variant("cross_attention_padding_ignored", A, "cross_attention", {"cross_attention": CROSS_PADDING_IGNORED},
            misconception="cross_attention.padding_ignored",
            source="https://github.com/jingyaogong/minimind-v/issues/76 ; https://github.com/m96-chan/web-xpu-ops/issues/77"),
    # correct answers written differently
    Variant("self_attention_additive_mask", A, "self_attention", {"self_attention": SELF_ADDITIVE_MASK}, correct=True),
    Variant("cross_attention_per_sentence_loop", A, "cross_attention", {"cross_attention": CROSS_PER_SENTENCE},
            correct=True),
]

VARIANTS += [
    Variant("self_attention_always_causal", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal_mask(n))  # flag unused
'''}, misconception="self_attention.causal_always",
        source="a decoder's causal mask kept in an encoder layer (the flag never read)"),
    Variant("self_attention_decoder_default", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=True):   # a decoder's habit: causal unless told
    if not causal:
        return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)
    n = X.shape[-2]
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal_mask(n))
'''}, misconception="self_attention.causal_default",
        source="GPT-style code (nanoGPT's CausalSelfAttention masks always; Hugging Face decoders default to "
               "is_causal=True): the signature's default changed to causal=True, an explicit causal=False still "
               "read (blind set 9)"),
    Variant("self_attention_strict_causal", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = np.tril(np.ones((n, n), dtype=bool), k=-1) if causal else None  # a position may not read itself
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="self_attention.causal_no_diagonal",
        source="RVC-Boss/GPT-SoVITS issue #965 (causal mask that leaves out the current position)"),
    Variant("cross_attention_with_causal_mask", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    n_dec, n_enc = np.shape(X_dec)[-2], np.shape(X_enc)[-2]
    mask = causal_mask(n_dec, n_enc)  # the decoder's causal mask reused for the source
    if enc_lengths is not None:
        mask = mask & padding_mask(np.asarray(enc_lengths), n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.causal_mask",
        source="the decoder's self-attention mask passed to the encoder-decoder attention too "
               "(Vaswani et al. 2017: only the decoder's self-attention is masked)"),
    Variant("cross_attention_padding_flipped", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = ~padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])  # True read as "padding"
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.padding_inverted",
        source="pytorch/pytorch PR #39321 (key_padding_mask: True = ignore, the opposite of this course)"),
]

VARIANTS += [
    Variant("comparison_masks_keywords", A, "cross_attention", {
        "self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = (np.arange(n)[:, None] >= np.arange(n)) if causal else None
    return multi_head_attention(X_q=X, X_kv=X, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o, num_heads=num_heads, mask=mask)
''',
        "cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n_enc = np.shape(X_enc)[-2]
        mask = (np.arange(n_enc) < np.asarray(enc_lengths)[:, None])[:, None, :]  # (batch, 1, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, correct=True),
]

# ---------------------------------------------------------------- issue 24: probes that tell the causes apart
VARIANTS += [
    Variant("cross_reads_decoder", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])
    return multi_head_attention(X_dec, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)  # keys from X_dec
'''}, misconception="cross_attention.reads_decoder",
        source='encoder-decoder attention takes queries from the decoder and keys and values from the encoder (Vaswani et al. 2017 §3.2.3); X_dec for both is self-attention'),
    Variant("cross_self_attention_encoder", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])
    return multi_head_attention(X_enc, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)  # the decoder never asks
'''}, misconception="cross_attention.queries_from_encoder",
        source='Vaswani et al. 2017 §3.2.3 (queries from the previous decoder layer); queries from the encoder give one output row per input position'),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# The misconception below was met in benchmarks/heldout/heldout_2026_12_03.py; the answer here is written anew,
# in another form than the held-out one, so that the check is proven on the property, not on that text.
VARIANTS += [
    Variant("cross_padding_over_decoder_positions", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n = np.shape(X_dec)[-2]                 # the length of "the sequence"
        mask = (np.arange(n) < np.asarray(enc_lengths)[:, None])[:, None, :]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.padding_decoder_length",
        source="the padding of cross-attention belongs to the source sentence, the keys (Vaswani et al. 2017 "
               "§3.2.3; PyTorch's nn.Transformer takes memory_key_padding_mask of shape (N, S), S the source "
               "length); sized by the decoder's length it is right only when both lengths agree"),
]

# Met in benchmarks/heldout/heldout_2026_12_02.py (causal_mask(len(X))); written anew with X.shape[0].
VARIANTS += [
    Variant("self_attention_mask_from_first_axis", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[0]) if causal else None     # "the number of positions"
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="self_attention.mask_size_from_batch",
        source="for a batch (batch, n, d_model) the first axis counts sequences; the positions are axis -2 (the "
               "course's shape contract (..., n, d))"),
]

# Met in benchmarks/heldout/heldout_2026_12_04.py (~causal_mask(n); causal_mask(X.shape[-1])); written anew.
VARIANTS += [
    Variant("self_attention_mask_true_hides", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    # "mask out the future": True where a key comes after the query
    future = np.arange(n)[None, :] > np.arange(n)[:, None]
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=future if causal else None)
'''}, misconception="self_attention.causal_inverted",
        source="PyTorch's nn.Transformer.generate_square_subsequent_mask and boolean attn_mask mark with True the "
               "positions *not* allowed to attend, the opposite of this course's convention (True = may attend)"),
    Variant("self_attention_mask_from_width", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    *_, width = X.shape                   # "the length of X"
    mask = causal_mask(width) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="self_attention.mask_size_from_width",
        source="the course's shape contract (..., n, d_model): the positions are axis -2, the width axis -1; the "
               "two agree only for a square X"),
]

VARIANTS += [
    Variant("self_causal_mask_of_numbers", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = np.tri(n, n) if causal else None   # ones on and below the diagonal (floats)
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="self_attention.causal_not_bool",
        source="np.tri returns floats by default (numpy docs, numpy.tri: dtype=float); in this course, as in PyTorch's "
               "scaled_dot_product_attention, a floating mask is added to the scores and a boolean one selects"),
]

# issue 24, blind set 6: a flag used wrongly is not a flag ignored; the causal=False probe tells them apart.
VARIANTS += [
    Variant("self_attention_flag_as_mask", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    # "mask: whether to mask" -- the flag handed on as it is
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal)
'''}, misconception="self_attention.flag_as_mask",
        source="the mask= and is_causal= arguments of torch.nn.functional.scaled_dot_product_attention are two "
               "different things (PyTorch docs); a boolean scalar mask broadcasts to every key: True keeps all, "
               "False hides all"),
]

# issue 24, blind set 6: cross-attention's padding mask, mistakes told apart by their errors and values
VARIANTS += [
    Variant("cross_attention_lengths_in_if", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths:                                   # "were lengths given?"
        mask = padding_mask(enc_lengths, np.shape(X_enc)[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.lengths_truth_test",
        source="numpy's 'The truth value of an array with more than one element is ambiguous' (numpy FAQ; a "
               "frequent Stack Overflow question, https://stackoverflow.com/questions/10062954)"),
    Variant("cross_attention_head_axis_added", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(enc_lengths, np.shape(X_enc)[-2])[:, None]   # (batch, heads=1, 1, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.head_axis_twice",
        source="the head axis added by hand for a per-head mask (as torch's MultiheadAttention needs (N*heads, L, "
               "S)), where this course's multi_head_attention adds it itself"),
    Variant("cross_attention_lengths_as_last_index", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        last = np.asarray(enc_lengths) - 1                          # index of the last real position
        mask = np.arange(np.shape(X_enc)[-2])[None, None, :] < last[:, None, None]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.padding_off_by_one",
        source="lengths vs last indices (a sequence of length L ends at index L - 1): the classic off-by-one of "
               "padding masks (e.g. the sequence_mask of TF takes lengths, not last indices)"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
VARIANTS += [
    Variant("self_attention_plain_sequence", A, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    # "self": the rows are their own queries, keys and values
    return scaled_dot_product_attention(X, X, X, mask=causal_mask(n) if causal else None)
'''}, misconception="self_attention.no_maps",
        source="the 'X attends to X' picture of self-attention read literally; the queries, keys and values are "
               "X W^Q, X W^K, X W^V (Vaswani et al. 2017, section 3.2.2)"),
    Variant("cross_lengths_counted_as_padding", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n = np.shape(X_enc)[-2]
        pads = np.asarray(enc_lengths)                    # taken as the padding at the end of each source
        mask = (np.arange(n)[None, :] < n - pads[:, None])[:, None, :]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.lengths_as_padding",
        source="batches described by their padding counts (a 'num_pad' column) where the course's enc_lengths "
               "counts the real tokens (Hugging Face's attention_mask marks the real ones too)"),
    Variant("cross_mask_squeezed", A, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(enc_lengths, np.shape(X_enc)[-2]).squeeze(1)   # (batch, n_enc) looks tidier
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.padding_no_query_axis",
        source="key_padding_mask of shape (batch, n_k) in torch.nn.MultiheadAttention (PyTorch docs), which the "
               "library expands itself; a mask given to attention directly needs its query axis"),
]
