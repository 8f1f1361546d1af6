"""Part 3, multi-head attention (``multi_head_attention``, self- and cross-attention under a
bool mask, True = may attend; a query with no allowed key gets zero weights: its heads output 0,
and the layer returns b_o there): the
reference — self-contained, so the sandbox can bind it in place of a student's wrong attention
when re-asking the layers that call it (root cause) — the probes, the visible examples, the known
mistakes and their feedback."""

import numpy as np
import torch
import torch.nn.functional as F

from autograder.authoring import FunctionSource, Misconception, Probe, Question

from .common import ATTENTION_TOLERANCE, mha_weights, padding, randn, visible_rng


def multi_head_attention(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    """Project, split d_model into n_heads heads, softmax(q kᵀ / √d_head) v per head (masked keys
    at −inf; an all-masked row's NaN weights become 0), merge the heads, project with W_O: the
    operations of ``solutions.attention.multi_head_attention(..., fast=False)`` in the same order
    (tests/assignments/test_ps6_decoding.py checks that they agree bit for bit)."""
    import math

    import torch
    import torch.nn.functional as F

    n_heads = int(n_heads)

    def split(x):
        b, t, d = x.shape
        return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)

    q = split(F.linear(x_q, w_q, b_q))
    k, v = split(F.linear(x_kv, w_k, b_k)), split(F.linear(x_kv, w_v, b_v))
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    out = weights @ v
    b, h, t, d_head = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, h * d_head), w_o, b_o)


# ---- probes, drawn per student
def mha_probes(rng):
    h = int(rng.choice([2, 4]))
    d = 4 * int(rng.integers(1, 3))  # divisible by 2 and 4: the other head count below
    b, tq, tk = int(rng.integers(2, 4)), int(rng.integers(3, 6)), int(rng.integers(3, 7))
    w = mha_weights(rng, d)
    x, mem = randn(rng, b, tq, d, scale=2), randn(rng, b, tk, d, scale=2)
    causal = np.tril(np.ones((tq, tq), dtype=bool))
    return [
        Probe((x, x, *w, h, None), "self-attention, no mask"),
        Probe((x, x, *w, h, causal), "self-attention, causal mask"),
        Probe((x, mem, *w, h, None), "cross-attention (T_q ≠ T_k)"),
        Probe(
            (x, mem, *w, h, ~padding(rng, b, tk)[:, None, None, :]),
            "cross-attention with key padding, one sequence fully padded",
        ),
        Probe(
            (randn(rng, 1, tq + 1, d, scale=2), randn(rng, 1, tk, d, scale=2), *mha_weights(rng, d), 6 - h, None),
            f"cross-attention, {6 - h} heads, other weights",
        ),
    ]


# ---- known-wrong answers: one attention with a switch per mistake


def _heads(x, h):
    b, t, d = x.shape
    return x.view(b, t, h, d // h).transpose(1, 2)


def _mha(
    x_q,
    x_kv,
    w_q,
    b_q,
    w_k,
    b_k,
    w_v,
    b_v,
    w_o,
    b_o,
    n_heads,
    mask,
    *,
    split=True,
    merge="right",
    project=True,
    scale_by="head",
):
    h = n_heads if split else 1
    q, k, v = (_heads(F.linear(x, w, b), h) for x, w, b in ((x_q, w_q, b_q), (x_kv, w_k, b_k), (x_kv, w_v, b_v)))
    d_scale = q.shape[-1] if scale_by == "head" else x_q.shape[-1]
    scores = q @ k.transpose(-2, -1) / d_scale**0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v  # (B, h, T, d_head)
    b, _, t, _ = out.shape
    out = out.transpose(1, 2).reshape(b, t, -1) if merge == "right" else out.reshape(b, t, -1)
    return F.linear(out, w_o, b_o) if project else out


def mha_no_head_split(*args):
    return _mha(*args, split=False)


def mha_no_output_projection(*args):
    return _mha(*args, project=False)


def mha_merge_without_transpose(*args):
    return _mha(*args, merge="wrong")


def mha_scale_by_d_model(*args):
    return _mha(*args, scale_by="model")


def mha_nan_for_fully_masked_rows(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    q, k, v = (_heads(F.linear(x, w, b), n_heads) for x, w, b in ((x_q, w_q, b_q), (x_kv, w_k, b_k), (x_kv, w_v, b_v)))
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, -1) @ v
    return F.linear(out.transpose(1, 2).reshape(x_q.shape[0], x_q.shape[1], -1), w_o, b_o)


def mha_zero_output_for_fully_masked_rows(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    """Zero after the output projection (instead of zero weights, which give b_o there)."""
    out = multi_head_attention(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask)
    if mask is None:
        return out
    blocked = ~torch.as_tensor(mask).expand(x_q.shape[0], n_heads, x_q.shape[1], x_kv.shape[1]).any(-1).any(1)
    return out.masked_fill(blocked[..., None], 0.0)


VISIBLE_RNG = visible_rng(normals_before=52)  # after layer_norm's and feed_forward's; draws 172
_visible_x = randn(VISIBLE_RNG, 1, 3, 4)

QUESTIONS = [
    Question(
        grade_id="multi_head_attention",
        answer="multi_head_attention",
        title="Multi-head attention",
        reference=multi_head_attention,
        reference_source=FunctionSource.of(multi_head_attention),
        probes=mha_probes,
        compare=ATTENTION_TOLERANCE,
        visible=[
            Probe((_visible_x, _visible_x, *mha_weights(VISIBLE_RNG, 4), 2, None), "d = 4, 2 heads"),
            Probe(
                (_visible_x, _visible_x, *mha_weights(VISIBLE_RNG, 4), 2, np.tril(np.ones((3, 3), dtype=bool))),
                "causal",
                note="The same input with a causal mask.",
            ),
        ],
        misconceptions=(
            Misconception(
                "no_head_split",
                "Split d_model into n_heads heads of width d/h, attend in each head "
                "separately (scale 1/√(d/h)), then concatenate: you attended once over the full width.",
                mha_no_head_split,
            ),
            Misconception(
                "no_output_projection",
                "After concatenating the heads apply the output projection W_O (w_o, b_o).",
                mha_no_output_projection,
            ),
            Misconception(
                "merge_order",
                "Merging heads: (B, h, T, d_head) must become (B, T, h, d_head) — transpose "
                "back — before reshaping to (B, T, d). Reshaping directly mixes tokens and heads.",
                mha_merge_without_transpose,
            ),
            Misconception(
                "scale_by_d_model",
                "Scale each head's scores by 1/√d_head (d_model / n_heads), not 1/√d_model.",
                mha_scale_by_d_model,
            ),
            Misconception(
                "nan_fully_masked",
                "A query whose keys are all masked (a fully padded sequence) must get "
                "a zero attention output, not NaN: replace the NaN weights of such rows with 0.",
                mha_nan_for_fully_masked_rows,
            ),
            Misconception(
                "zero_after_projection",
                "A query whose keys are all masked gets zero attention *weights*: its heads "
                "output 0, and the output projection still adds its bias b_o. You zeroed the "
                "layer's output after the projection.",
                mha_zero_output_for_fully_masked_rows,
            ),
        ),
    ),
]
