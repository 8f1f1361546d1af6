"""PS6 — the reference side: the functional answers the grader expects, built on ``solutions/``,
and the tiny fixed language model that ``greedy_decode`` is graded on.

Every weight is in ``nn.Linear`` layout (out_features, in_features); masks are bool with
True = may attend; a query with no allowed key gets a zero attention output (then + b_o).
"""

import torch
import torch.nn.functional as F

from autograder.authoring import FunctionSource
from solutions.attention import causal_mask as reference_causal_mask
from solutions.attention import multi_head_attention as reference_mha
from solutions.attention import padding_mask as reference_padding_mask

LN_EPS = 1e-5  # the encoder layer's LayerNorm eps (PyTorch's default)


def layer_norm(x, gamma, beta, eps):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)  # (x − mean) / sqrt(var + eps)


def feed_forward(x, w1, b1, w2, b2):
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


def mha_weights(w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o):
    return {"w_q": w_q, "b_q": b_q, "w_k": w_k, "b_k": b_k, "w_v": w_v, "b_v": b_v, "w_o": w_o, "b_o": b_o}


def multi_head_attention(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    weights = mha_weights(w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o)
    return reference_mha(x_q, x_kv, weights, n_heads, mask, fast=False)


def causal_mask(t):
    return reference_causal_mask(int(t))


def padding_mask(key_is_pad):
    return reference_padding_mask(key_is_pad)


def encoder_layer(x, mask, n_heads, ln1_g, ln1_b, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, ln2_g, ln2_b, w1, b1, w2, b2):
    """The Pre-LN encoder layer, computed by ``solutions.layers.EncoderLayer`` with these weights
    (that layer is tested against ``nn.TransformerEncoderLayer(norm_first=True)``)."""
    from solutions.layers import EncoderLayer
    from solutions.model import TransformerConfig

    d, d_ff = x.shape[-1], w1.shape[0]
    layer = EncoderLayer(
        TransformerConfig(d_model=d, n_heads=int(n_heads), d_ff=d_ff, norm_first=True, norm_eps=LN_EPS)
    ).eval()
    sa, ffn = layer.self_attn, layer.ffn
    params = {
        layer.norm1.weight: ln1_g,
        layer.norm1.bias: ln1_b,
        sa.q_proj.weight: w_q,
        sa.q_proj.bias: b_q,
        sa.k_proj.weight: w_k,
        sa.k_proj.bias: b_k,
        sa.v_proj.weight: w_v,
        sa.v_proj.bias: b_v,
        sa.out_proj.weight: w_o,
        sa.out_proj.bias: b_o,
        layer.norm2.weight: ln2_g,
        layer.norm2.bias: ln2_b,
        ffn.linear1.weight: w1,
        ffn.linear1.bias: b1,
        ffn.linear2.weight: w2,
        ffn.linear2.bias: b2,
    }
    with torch.no_grad():
        for p, value in params.items():
            p.copy_(value)
        return layer(x, mask, fast=False)


def decoder_layer(
    x,
    memory,
    memory_mask,
    n_heads,
    ln1_g,
    ln1_b,
    sw_q,
    sb_q,
    sw_k,
    sb_k,
    sw_v,
    sb_v,
    sw_o,
    sb_o,
    ln2_g,
    ln2_b,
    cw_q,
    cb_q,
    cw_k,
    cb_k,
    cw_v,
    cb_v,
    cw_o,
    cb_o,
    ln3_g,
    ln3_b,
    w1,
    b1,
    w2,
    b2,
):
    """The Pre-LN decoder layer — causal self-attention (the layer builds the causal mask), then
    cross-attention to ``memory`` under ``memory_mask``, then the FFN — computed by
    ``solutions.layers.DecoderLayer`` (tested against ``nn.TransformerDecoderLayer(norm_first=True)``)."""
    from solutions.layers import DecoderLayer
    from solutions.model import TransformerConfig

    d, d_ff = x.shape[-1], w1.shape[0]
    layer = DecoderLayer(
        TransformerConfig(d_model=d, n_heads=int(n_heads), d_ff=d_ff, norm_first=True, norm_eps=LN_EPS)
    ).eval()
    sa, ca, ffn = layer.self_attn, layer.cross_attn, layer.ffn
    params = {
        layer.norm1.weight: ln1_g,
        layer.norm1.bias: ln1_b,
        layer.norm2.weight: ln2_g,
        layer.norm2.bias: ln2_b,
        layer.norm3.weight: ln3_g,
        layer.norm3.bias: ln3_b,
        ffn.linear1.weight: w1,
        ffn.linear1.bias: b1,
        ffn.linear2.weight: w2,
        ffn.linear2.bias: b2,
    }
    for attn, values in (
        (sa, (sw_q, sb_q, sw_k, sb_k, sw_v, sb_v, sw_o, sb_o)),
        (ca, (cw_q, cb_q, cw_k, cb_k, cw_v, cb_v, cw_o, cb_o)),
    ):
        lins = (attn.q_proj, attn.k_proj, attn.v_proj, attn.out_proj)
        params.update(
            {
                p: v
                for lin, (w, b) in zip(lins, zip(values[::2], values[1::2]))
                for p, v in ((lin.weight, w), (lin.bias, b))
            }
        )
    with torch.no_grad():
        for p, value in params.items():
            p.copy_(value)
        return layer(x, memory, causal_mask(x.shape[-2]), memory_mask, fast=False)


def next_token_probs(logits, temperature, top_k, top_p):
    """Divide by the temperature, keep the top k, keep the nucleus (the smallest set of most
    likely tokens reaching p, the crossing token included), renormalise. Temperature 0 is
    greedy: all the probability on the argmax."""
    from solutions.decoding import top_k_filter, top_p_filter

    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).float()
    return top_p_filter(top_k_filter(logits / temperature, top_k), top_p).softmax(-1)


def sample_tokens(logits, temperature, top_k, top_p, seed, n):
    """n draws, one after another, from one generator seeded with ``seed``."""
    probs = next_token_probs(logits, temperature, top_k, top_p)
    g = torch.Generator().manual_seed(int(seed))
    return [int(torch.multinomial(probs, 1, generator=g)) for _ in range(int(n))]


class _FunctionModel:
    """A tokens → logits function seen through the reference models' decoding interface (no
    KV cache: every step feeds the whole sequence), so ``solutions.decoding`` can search it."""

    def __init__(self, fn):
        self.fn = fn

    def start_state(self, src=None, use_cache=False):
        return {"pos": 0}

    def step(self, tokens, state):
        return torch.stack([torch.as_tensor(self.fn(row.tolist()), dtype=torch.float32) for row in tokens])

    @staticmethod
    def reorder_state(state, index):
        return state


def beam_search(model, prompt, beam_width, max_new_tokens, eos_id):
    """The highest-scoring continuation (sum of the generated tokens' log-probabilities) found by
    ``solutions.decoding.beam_search``: prompt + tokens, ending at eos_id if it finished."""
    from solutions.decoding import beam_search as reference_beam_search

    seqs, _ = reference_beam_search(
        _FunctionModel(model),
        torch.tensor([[int(t) for t in prompt]]),
        int(max_new_tokens),
        beam_size=int(beam_width),
        eos_id=eos_id,
        use_cache=False,
    )
    tokens, n = seqs[0].tolist(), len(prompt)
    if eos_id in tokens[n:]:
        tokens = tokens[: n + tokens[n:].index(eos_id) + 1]
    return tokens


def greedy_decode(model, prompt, max_new_tokens, eos_id):
    """Append argmax(model(tokens)[-1]) until eos_id has been appended or max_new_tokens are new."""
    tokens = [int(t) for t in prompt]
    for _ in range(int(max_new_tokens)):
        logits = model(tokens)
        tokens.append(int(torch.argmax(logits[-1])))
        if tokens[-1] == eos_id:
            break
    return tokens


# The tiny fixed model: one causal attention layer and an output head, weights from a
# seeded generator (the same numbers in the sandbox, the grader and the notebook).
_TINY_LM = '''
def tiny_lm(tokens):
    """tokens: a sequence of ints in [0, 12) -> logits (len(tokens), 12), position t predicts t+1."""
    g = torch.Generator().manual_seed({seed})
    vocab, d, max_len = 12, 16, 32
    emb = torch.randn(vocab, d, generator=g)
    pos = 0.5 * torch.randn(max_len, d, generator=g)
    w_q, w_k, w_v = (torch.randn(d, d, generator=g) / d ** 0.5 for _ in range(3))
    w_out = torch.randn(d, vocab, generator=g)
    ids = torch.as_tensor([int(t) for t in tokens], dtype=torch.long)
    h = emb[ids] + pos[: len(ids)]
    scores = (h @ w_q) @ (h @ w_k).T / d ** 0.5
    allowed = torch.ones(len(ids), len(ids), dtype=torch.bool).tril()
    h = h + torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ (h @ w_v)
    return h @ w_out / d ** 0.5
'''


def tiny_lm(seed: int) -> FunctionSource:
    return FunctionSource(_TINY_LM.replace("{seed}", str(int(seed))), "tiny_lm")


# ---- part 10: training on the toy tasks of document 001 (copy, 3-digit addition)
#
# The grader calls the notebook's `copy_task(seed, max_steps, src, tf_src, tf_tgt)` (and
# `addition_task`): it trains with the student's `train_copy(seed, max_steps)`, decodes the
# held-out `src` greedily and returns {"generated": (n, L) tokens, "teacher_forced": (m, L)
# argmax of model(tf_src, tf_tgt[:, :-1])}. The "reference" is the truth for those inputs; the
# verdict is the exact-match accuracy of "generated" against it (``TaskAccuracy``).

COPY_VOCAB, COPY_BOS, COPY_LEN = 20, 0, 20  # symbols 1 … 19, BOS = 0 (document 001)
ADD_PLUS, ADD_BOS, ADD_DIGITS = 10, 11, 3  # digits 0 … 9, '+' = 10, BOS = 11


def _digits(x, width):
    return (x[:, None] // 10 ** torch.arange(width - 1, -1, -1)) % 10


def addition_operands(src):
    """src (n, 7) = digits(a) + [PLUS] + digits(b) → (a, b)."""
    powers = torch.tensor([100, 10, 1])
    return (src[:, :3] * powers).sum(1), (src[:, 4:] * powers).sum(1)


def addition_target(src):
    """(n, 5) = [BOS] + the 4 digits of a + b, most significant first."""
    a, b = addition_operands(src)
    return torch.cat([torch.full((src.shape[0], 1), ADD_BOS), _digits(a + b, ADD_DIGITS + 1)], 1)


def copy_truth(seed, max_steps, src, tf_src, tf_tgt):
    return {"generated": src, "teacher_forced": tf_tgt[:, 1:], "decoder_input": tf_tgt[:, :-1]}


def addition_truth(seed, max_steps, src, tf_src, tf_tgt):
    a, b = addition_operands(src)
    return {
        "generated": addition_target(src)[:, 1:],
        "teacher_forced": tf_tgt[:, 1:],
        "decoder_input": tf_tgt[:, :-1],
        "both_below_500": (a < 500) & (b < 500),
    }  # document 001's range
