"""Part 3, causal attention with ALiBi: the probes, an attention with a switch per mistake
(built on part 2's wrong biases) and the feedback."""

import math

import numpy as np

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.attention import attention_weights, causal_mask
from solutions.encodings import alibi_attention

from .bias import BIAS_SIGN, bias
from .slopes import FREE_CONSTANT, LINEAR, NAIVE_RULE, SLOPES, WRONG_ORDER


def _randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


# ---- probes, drawn per student
def attention_probes(rng):
    t, d = int(rng.choice([5, 7, 9])), int(rng.choice([4, 8]))  # T ≠ d and T ≠ h: an axis mix-up shows
    h = int(rng.choice([2, 4, 8]))
    return [
        Probe((_randn(rng, h, t, d), _randn(rng, h, t, d), _randn(rng, h, t, d)), f"{h} heads, (h, T, d)"),
        Probe((_randn(rng, 2, 6, t, d), _randn(rng, 2, 6, t, d), _randn(rng, 2, 6, t, d)), "6 heads, (B, h, T, d)"),
    ]


# ---- known-wrong attention: alibi_attention(q, k, v)
def attention(q, k, v, *, use_bias=True, scale_bias=False, **bias_kw):
    n_heads, t = q.shape[-3], q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    b = bias(n_heads, t, masked=None, **bias_kw) if use_bias else None
    if scale_bias:  # (q·k + bias)/√d: the bias added before the scaling
        b = b * scale
    w = attention_weights(q.double(), k.double(), causal_mask(t), scale=scale, bias=b)
    return (w @ v.double()).to(q.dtype)


def slope_times_scores(q, k, v, *, with_bias=False, root_d=True):
    """Document 000's m that "normalises" q·k: softmax(m_h·q·k/√d) with the causal mask, the
    distance bias left out (or added as well)."""
    n_heads, t, d = q.shape[-3:]
    m = SLOPES["right"](n_heads)[:, None, None]
    b = bias(n_heads, t, masked=None) if with_bias else None
    scale = m / math.sqrt(d) if root_d else m
    w = attention_weights(q.double(), k.double(), causal_mask(t), scale=scale, bias=b)
    return (w @ v.double()).to(q.dtype)


def slope_times_scores_others(q, k, v):
    return [slope_times_scores(q, k, v, with_bias=True), slope_times_scores(q, k, v, root_d=False)]


SLOPE_SCALES_SCORES = (
    'The slope does not multiply q·k: document 000 says m "normalises" the growing q·k, but ALiBi '
    "keeps the content scores q·k/√d as they are and adds m_h·(j − i), a penalty that grows with "
    "the distance; yours scales the content scores by the slope."
)


def attention_variant(**kw):
    def wrong(q, k, v):
        return attention(q, k, v, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="alibi_attention",
        answer="alibi_attention",
        title="Causal attention with ALiBi",
        reference=alibi_attention,
        depends_on=("alibi_causal_bias", "alibi_slopes"),
        probes=attention_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4, same_dtype=True),
        visible=[
            Probe(
                (
                    np.zeros((2, 4, 4), np.float32),
                    np.zeros((2, 4, 4), np.float32),
                    np.tile(np.eye(4, dtype=np.float32), (2, 1, 1)),
                ),
                "2 heads, q = k = 0, v = I",
                note="Content scores all 0 and v = I: each output row is that query's attention "
                "weights, set by the bias alone (slopes 2^-4 and 2^-8).",
            )
        ],
        misconceptions=(
            Misconception("free_constant", FREE_CONSTANT, attention_variant(slopes="free_constant")),
            Misconception("bias_sign", BIAS_SIGN, attention_variant(sign=-1)),
            Misconception("wrong_order", WRONG_ORDER, attention_variant(slopes="wrong_order")),
            Misconception("linear_spacing", LINEAR, attention_variant(slopes="linear_spacing")),
            Misconception("naive_rule_for_every_n", NAIVE_RULE, attention_variant(slopes="naive_rule")),
            Misconception(
                "bias_missing",
                "Add the ALiBi bias m_h·(j − i) to the scaled scores of head h "
                "before the softmax; yours is plain causal attention.",
                attention_variant(use_bias=False),
            ),
            Misconception(
                "bias_scaled",
                "Add the bias after the scaling: softmax(q·k/√d + m_h·(j − i)). "
                "Dividing the bias by √d as well flattens every head's slope by a factor √d.",
                attention_variant(scale_bias=True),
            ),
            Misconception(
                "slope_scales_scores", SLOPE_SCALES_SCORES, slope_times_scores, also_wrong=slope_times_scores_others
            ),
        ),
    ),
]
