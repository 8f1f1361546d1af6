"""Part 6, a Pre-LN decoder layer (``decoder_layer``: causal self-attention, cross-attention to the
encoder memory under its padding mask, then the FFN, each as x + sublayer(LN(x))): the reference
(``solutions.layers.DecoderLayer`` with the probe's weights), the probes, the visible example, the
known mistakes and their feedback. The student's layer calls their ``layer_norm``,
``feed_forward``, ``multi_head_attention`` and ``causal_mask``: declared dependencies (root cause)."""

import torch

from autograder.authoring import AllClose, Misconception, Probe, Question

from .attention import multi_head_attention
from .common import linear, mha_weights, padding, randn, visible_rng
from .feed_forward import feed_forward
from .layer_norm import LN_EPS, layer_norm
from .masks import causal_mask


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


# ---- probes, drawn per student
def decoder_args(rng, b, t, s, h, d_head, d_ff, memory_mask):
    d = h * d_head
    norm = lambda: (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))  # noqa: E731
    w1, b1 = linear(rng, d_ff, d)
    w2, b2 = linear(rng, d, d_ff)
    x, memory = randn(rng, b, t, d, scale=1.5) + 0.5, randn(rng, b, s, d, scale=1.5) - 0.5
    return (
        x,
        memory,
        memory_mask,
        h,
        *norm(),
        *mha_weights(rng, d),
        *norm(),
        *mha_weights(rng, d),
        *norm(),
        w1,
        b1,
        w2,
        b2,
    )


def decoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 7))  # T ≠ B: an axis mix-up shows
    s = t + int(rng.integers(1, 3))
    pad = ~padding(rng, b, s)[:, None, None, :]
    d_head = 2 * d_head if h == 2 else d_head  # d = h · d_head divisible by 2 and 4
    return [
        Probe(
            decoder_args(rng, b, t, s, 6 - h, h * d_head // (6 - h), d_ff, None),
            f"T = {t}, memory S = {s}, no memory mask, {6 - h} heads",
        ),
        Probe(decoder_args(rng, b, t, s, h, d_head, d_ff, None), f"T = {t}, memory S = {s}, no memory mask"),
        Probe(
            decoder_args(rng, b, t, s, h, d_head, d_ff, pad), "memory padding mask, one source sequence fully padded"
        ),
    ]


# ---- known-wrong layers: one layer built from the sub-layers' references, a switch per mistake


def _decoder(args, *, causal=True, order=("self", "cross"), post_ln=False, normalise_memory=False, memory_mask=True):
    x, memory, mem_mask, n_heads = args[:4]
    ln1, sa, ln2, ca, ln3, ffn = args[4:6], args[6:14], args[14:16], args[16:24], args[24:26], args[26:30]
    norm = lambda y, g_b: layer_norm(y, *g_b, LN_EPS)  # noqa: E731
    self_mask = causal_mask(x.shape[-2]) if causal else None
    blocks = {
        "self": (ln1, lambda y: multi_head_attention(y, y, *sa, n_heads, self_mask)),
        "cross": (
            ln2,
            lambda y: multi_head_attention(
                y, norm(memory, ln2) if normalise_memory else memory, *ca, n_heads, mem_mask if memory_mask else None
            ),
        ),
    }
    for name in (*order, "ffn"):
        g_b, sublayer = blocks[name] if name != "ffn" else (ln3, lambda y: feed_forward(y, *ffn))
        x = norm(x + sublayer(x), g_b) if post_ln else x + sublayer(norm(x, g_b))
    return x


def decoder_no_causal_mask(*args):
    return _decoder(args, causal=False)


def decoder_post_ln(*args):
    return _decoder(args, post_ln=True)


def decoder_cross_before_self(*args):
    return _decoder(args, order=("cross", "self"))


def decoder_normalises_memory(*args):
    return _decoder(args, normalise_memory=True)


def decoder_ignores_memory_mask(*args):
    return _decoder(args, memory_mask=False)


VISIBLE_RNG = visible_rng(normals_before=408)  # after parts 1–5's

QUESTIONS = [
    Question(
        grade_id="decoder_layer",
        answer="decoder_layer",
        title="A Pre-LN decoder layer",
        reference=decoder_layer,
        depends_on=("layer_norm", "feed_forward", "multi_head_attention", "causal_mask"),
        probes=decoder_probes,
        compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(decoder_args(VISIBLE_RNG, 1, 3, 4, 2, 2, 8, None), "d = 4, 2 heads, T = 3, S = 4")],
        misconceptions=(
            Misconception(
                "no_causal_mask",
                "The decoder's self-attention is causal: build causal_mask(T) inside the "
                "layer. Without it position t reads the target token it must predict (document 001's "
                "decoder needs the look-ahead mask).",
                decoder_no_causal_mask,
            ),
            Misconception(
                "post_ln",
                "This layer is Pre-LN: x + SelfAttn(LN₁(x)), x + CrossAttn(LN₂(x), memory), "
                "x + FFN(LN₃(x)). You normalised after each residual sum (Post-LN).",
                decoder_post_ln,
            ),
            Misconception(
                "cross_before_self",
                "Order: masked self-attention first, then cross-attention to the encoder memory, then the FFN.",
                decoder_cross_before_self,
            ),
            Misconception(
                "normalises_memory",
                "LN₂ normalises the decoder stream (the queries) only: keys and values "
                "come from the encoder memory as given (the encoder already applied its final norm).",
                decoder_normalises_memory,
            ),
            Misconception(
                "ignores_memory_mask",
                "Pass memory_mask to the cross-attention: padded source positions must not be attended.",
                decoder_ignores_memory_mask,
            ),
        ),
    ),
]
