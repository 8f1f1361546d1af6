"""Part 5, a Pre-LN encoder layer (``encoder_layer``: x + Attention(LN₁(x)), then x + FFN(LN₂(x))):
the reference (``solutions.layers.EncoderLayer`` with the probe's weights), the probes, the
visible example, the known mistakes and their feedback. The student's layer calls their
``layer_norm``, ``feed_forward`` and ``multi_head_attention``: those are declared dependencies,
so a layer that fails only through one of them is re-asked with its reference (root cause)."""

import torch

from autograder.authoring import AllClose, Misconception, Probe, Question

from .attention import multi_head_attention
from .common import linear, mha_weights, padding, randn, visible_rng
from .feed_forward import feed_forward
from .layer_norm import LN_EPS, layer_norm


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


# ---- probes, drawn per student
def encoder_args(rng, b, t, h, d_head, d_ff, mask):
    d = h * d_head
    ln1 = (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))
    ln2 = (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))
    w1, b1 = linear(rng, d_ff, d)
    w2, b2 = linear(rng, d, d_ff)
    x = randn(rng, b, t, d, scale=1.5) + 0.5
    return (x, mask, h, *ln1, *mha_weights(rng, d), *ln2, w1, b1, w2, b2)


def encoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 8))  # T ≠ 3: not the visible example's shape
    pad = ~padding(rng, b, t)[:, None, None, :]
    d_head = 2 * d_head if h == 2 else d_head  # d = h · d_head divisible by 2 and 4
    return [
        Probe(encoder_args(rng, b, t, 6 - h, h * d_head // (6 - h), d_ff, None), f"no mask, {6 - h} heads"),
        Probe(encoder_args(rng, b, t, h, d_head, d_ff, None), "no mask"),
        Probe(encoder_args(rng, b, t, h, d_head, d_ff, pad), "key padding, one sequence fully padded"),
    ]


# ---- known-wrong layers, built from the references of the sub-layers


def _unpack(args):
    x, mask, n_heads, ln1_g, ln1_b, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, ln2_g, ln2_b, w1, b1, w2, b2 = args
    ln1 = lambda y: layer_norm(y, ln1_g, ln1_b, LN_EPS)  # noqa: E731
    ln2 = lambda y: layer_norm(y, ln2_g, ln2_b, LN_EPS)  # noqa: E731
    sa = lambda y: multi_head_attention(y, y, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask)  # noqa: E731
    ff = lambda y: feed_forward(y, w1, b1, w2, b2)  # noqa: E731
    return x, ln1, ln2, sa, ff


def encoder_post_ln(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = ln1(x + sa(x))
    return ln2(x + ff(x))


def encoder_no_residual(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = sa(ln1(x))
    return ff(ln2(x))


def encoder_residual_from_normalised(*args):
    """x = LN(x); x = x + sublayer(x): the residual carries the normalised stream."""
    x, ln1, ln2, sa, ff = _unpack(args)
    x = ln1(x)
    x = x + sa(x)
    x = ln2(x)
    return x + ff(x)


def encoder_norm_on_branch_output(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = x + ln1(sa(x))
    return x + ln2(ff(x))


VISIBLE_RNG = visible_rng(normals_before=224)  # after parts 1–3's; draws 184

QUESTIONS = [
    Question(
        grade_id="encoder_layer",
        answer="encoder_layer",
        title="A Pre-LN encoder layer",
        reference=encoder_layer,
        depends_on=("layer_norm", "feed_forward", "multi_head_attention"),
        probes=encoder_probes,
        compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(encoder_args(VISIBLE_RNG, 1, 3, 2, 2, 8, None), "d = 4, 2 heads, d_ff = 8")],
        misconceptions=(
            Misconception(
                "post_ln",
                "This layer is Pre-LN: x + Attention(LN₁(x)), then x + FFN(LN₂(x)). You "
                "normalised after the residual sum (Post-LN, the 2017 paper's order).",
                encoder_post_ln,
            ),
            Misconception(
                "no_residual",
                "Each sub-layer's output is added to its input (the residual connection): x = x + sublayer(LN(x)).",
                encoder_no_residual,
            ),
            Misconception(
                "residual_from_normalised",
                "The residual must carry the un-normalised x: x + sublayer(LN(x)), not LN(x) + sublayer(LN(x)).",
                encoder_residual_from_normalised,
            ),
            Misconception(
                "norm_on_branch_output",
                "Pre-LN normalises the sub-layer's *input*: x + sublayer(LN(x)), not x + LN(sublayer(x)).",
                encoder_norm_on_branch_output,
            ),
        ),
    ),
]
