"""Part 2, scaled dot-product attention: the reference (``solutions.attention``), the hidden
probes (batched, unbatched, causal, padding, a fully masked row, the mask left at its default),
the visible checks on document 002's example, the known-wrong implementations and their feedback.

Conventions stated to students in the notebook:
* ``scaled_dot_product_attention(q, k, v, mask=None)`` takes tensors q (..., T_q, d_k),
  k (..., T_k, d_k), v (..., T_k, d_v) and returns (..., T_q, d_v).
* ``mask`` is a bool tensor broadcastable to (..., T_q, T_k); **True means "may attend"**.
* A query whose keys are all masked gets a zero output row (defined, never NaN).
"""

import numpy as np

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question
from solutions.attention import scaled_dot_product_attention as reference_sdpa

from .by_hand import K_002, Q_002, V_002


def sdpa(q, k, v, mask=None):
    return reference_sdpa(q, k, v, mask)


def self_contained_sdpa(q, k, v, mask=None):
    """The reference as self-contained source: bound under the student's name when a question
    that calls it (``scale_tester``) is asked again (root cause across questions)."""
    import math

    import torch

    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0) @ v


def sdpa_probes(rng: np.random.Generator) -> list[Probe]:
    def randn(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    b, h, tq, tk = int(rng.integers(2, 4)), int(rng.integers(1, 4)), int(rng.integers(3, 7)), int(rng.integers(3, 8))
    dk, dv = int(rng.choice([4, 8, 16])), int(rng.integers(2, 7))
    # Larger-scale inputs make a missing or wrong scale visible beyond tolerance.
    q, k, v = randn(b, h, tq, dk) * 2, randn(b, h, tk, dk) * 2, randn(b, h, tk, dv)
    causal = np.tril(np.ones((tq, tq), dtype=bool))
    padding = rng.random((b, 1, 1, tk)) > 0.3
    padding[..., 0] = True
    fully_masked = rng.random((b, h, tq, tk)) > 0.4
    fully_masked[0, 0, 1, :] = False  # one query sees no key at all
    fully_masked[..., 0, 0] = True
    return [
        Probe((q, k, v, None), "unmasked, batch × heads"),
        Probe((randn(tq, dk) * 3, randn(tk, dk) * 3, randn(tk, dv), None), "unbatched 2-D"),
        Probe((q[..., :tq, :], randn(b, h, tq, dk) * 2, randn(b, h, tq, dv), causal), "causal mask"),
        Probe((q, k, v, padding), "key padding mask"),
        Probe((q, k, v, fully_masked), "a row whose keys are all masked"),
        Probe((randn(h, tk, dk) * 2, randn(h, tq, dk) * 2, randn(h, tq, dv)), "mask left at its default"),
    ]


# ---- known-wrong answers (each must fail, and earns the feedback beside it)


def _softmax_attention(q, k, v, mask, scale, dim=-1, fill_nan=True):
    import torch

    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=dim)
    if fill_nan:
        weights = torch.nan_to_num(weights, nan=0.0)
    return weights @ v


def missing_scale(q, k, v, mask=None):
    return _softmax_attention(q, k, v, mask, 1.0)


def scale_by_dk(q, k, v, mask=None):
    return _softmax_attention(q, k, v, mask, 1.0 / q.shape[-1])


def softmax_over_queries(q, k, v, mask=None):
    return _softmax_attention(q, k, v, mask, q.shape[-1] ** -0.5, dim=-2)


def mask_ignored(q, k, v, mask=None):
    return _softmax_attention(q, k, v, None, q.shape[-1] ** -0.5)


def mask_inverted(q, k, v, mask=None):
    return _softmax_attention(q, k, v, None if mask is None else ~mask, q.shape[-1] ** -0.5)


def nan_for_fully_masked_rows(q, k, v, mask=None):
    return _softmax_attention(q, k, v, mask, q.shape[-1] ** -0.5, fill_nan=False)


# The tolerance against float32 noise at the probes' magnitude: scores reach |s| ≈ 30 (the 2-D
# probe: entries ×3, d_k = 16), which float32 (ε = 1.2e-7) rounds to ~|s|·ε ≈ 4e-6 — the weights'
# relative error — and outputs are |o| ≲ 5. Two honest float32 implementations (einsum, loops,
# softmax by hand with or without its max, numpy, torch's sdpa, the whole computation in float64)
# differ from the reference by at most 1.7e-6 (err / (1 + |expected|) ≤ 1.4e-6) over 300 student
# ids' probes and the visible ones, under the default and avx2 kernels; atol = rtol = 1e-5 leaves
# 7× that. Weights rounded to 4 decimals (errors of up to 5e-5 each, "as the documents print
# them") are off by ≥ 5.8e-5 on every id — the old 1e-4 let them through (issue 36).
# Sweep: scripts/tolerance_sweeps/ps1_sdpa.py; test: tests/assignments/test_ps1_sdpa_tolerance.py.
SDPA_TOLERANCE = AllClose(atol=1e-5, rtol=1e-5)

QUESTIONS = [
    Question(
        grade_id="sdpa",
        title="Scaled dot-product attention",
        answer="scaled_dot_product_attention",
        reference=sdpa,
        reference_source=FunctionSource.of(self_contained_sdpa),
        probes=sdpa_probes,
        visible=[
            Probe(
                (Q_002, K_002, V_002, None),
                "document 002's example",
                note="Document 002's worked Q, K, V — now with the 1/√d_k scaling.",
            ),
            Probe(
                (Q_002, K_002, V_002, np.tril(np.ones((3, 3), dtype=bool))),
                "causal mask",
                note="The same example with a causal mask (True = may attend).",
            ),
        ],
        compare=SDPA_TOLERANCE,
        misconceptions=(
            Misconception(
                "missing_scale",
                "The scores must be divided by √d_k before the softmax: your output equals "
                "softmax(QKᵀ)V, the unscaled form of document 002's first formula. Without the "
                "1/√d_k factor the dot products grow with d_k and the softmax saturates.",
                missing_scale,
            ),
            Misconception(
                "scale_by_dk",
                "Scale by 1/√d_k, not 1/d_k: the dot product of two random d_k-vectors has "
                "variance d_k, so its standard deviation is √d_k.",
                scale_by_dk,
            ),
            Misconception(
                "softmax_over_queries",
                "The softmax runs over the keys (the last axis, one distribution per query row); "
                "yours normalises over the queries.",
                softmax_over_queries,
            ),
            Misconception(
                "mask_ignored",
                "The mask is not applied: positions where mask is False must get weight 0 "
                "(fill their scores with −inf before the softmax).",
                mask_ignored,
            ),
            Misconception(
                "mask_inverted",
                "The mask is inverted: in this course True means 'may attend', as in "
                "torch's boolean attn_mask; you blocked the allowed positions.",
                mask_inverted,
            ),
            Misconception(
                "nan_for_fully_masked_rows",
                "A query whose keys are all masked must return a zero row: softmax over all −inf "
                "gives NaN, so replace those weights with 0.",
                nan_for_fully_masked_rows,
            ),
        ),
    ),
]
