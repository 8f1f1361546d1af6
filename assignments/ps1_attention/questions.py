"""PS1 — attention: the question specs (one source of truth for checks, probes and feedback).

Conventions stated to students in the notebook:
* ``scaled_dot_product_attention(q, k, v, mask=None)`` takes tensors q (..., T_q, d_k),
  k (..., T_k, d_k), v (..., T_k, d_v) and returns (..., T_q, d_v).
* ``mask`` is a bool tensor broadcastable to (..., T_q, T_k); **True means "may attend"**.
* A query whose keys are all masked gets a zero output row (defined, never NaN).
"""

import numpy as np

from autograder.authoring import AllClose, Assignment, Exact, Misconception, Probe, Question
from solutions.attention import attention_weights
from solutions.attention import scaled_dot_product_attention as reference_sdpa
from solutions.shapes import encoder_decoder_shapes

from . import counting as counting  # parts 4-6, beside this file

# Document 002's worked example (3 tokens, d_k = 4, d_v = 5).
Q_002 = np.array([[0.3, -2.0, 0.4, 6.0], [-1.0, 1.5, 0.2, 3.0], [0.3, -1.0, 0.2, 1.0]], np.float32)
K_002 = np.array([[-0.5, 1.7, 0.3, 4.0], [0.4, -1.5, 0.3, 5.5], [-1.0, -3.5, 1.0, 4.0]], np.float32)
V_002 = np.array([[0.0, 9.0, 0.0, -5.0, 1.2], [4.0, 0.1, 0.1, 0.1, 0.0], [-0.3, 0.0, 0.3, 10.0, 0.1]], np.float32)


# Document 003's "Hello shiny sun" embeddings (3-d), query = "shiny".
E_003 = np.array([[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]], np.float32)


def student_params(student_id):
    """Your configuration: the seed homework used batch 32, length 2048, d_model 1024."""
    import hashlib

    digest = hashlib.sha256(f"ps1-config:{student_id}".encode()).digest()
    pick = lambda i, options: options[digest[i] % len(options)]  # noqa: E731
    n_heads = pick(0, [8, 12, 16])
    return {
        "batch": pick(1, [16, 32, 64]),
        "src_len": pick(2, [512, 1024, 2048]),
        "tgt_len": pick(3, [256, 384, 768]),
        "d_model": n_heads * pick(4, [64, 96, 128]),
        "n_heads": n_heads,
        "d_ff_factor": 4,
        "vocab": pick(5, [16000, 32000, 37000]),
        "n_enc_layers": pick(6, [6, 12]),
        "n_dec_layers": pick(7, [6, 8]),
    }


def sdpa(q, k, v, mask=None):
    return reference_sdpa(q, k, v, mask)


def _t(a):
    import torch

    return torch.from_numpy(a)


def by_hand_reference(part):
    q, k, v = _t(Q_002), _t(K_002), _t(V_002)
    return {
        "scores": lambda: q @ k.T,
        "weights": lambda: attention_weights(q, k, scale=1.0),
        "output": lambda: attention_weights(q, k, scale=1.0) @ v,
        "output_scaled": lambda: reference_sdpa(q, k, v),
        "context_shiny": lambda: attention_weights(_t(E_003[1:2]), _t(E_003), scale=1.0)[0] @ _t(E_003),
    }[part]


def shapes_reference(batch, src_len, tgt_len, d_model, n_heads, d_ff_factor, vocab, **_):
    shapes = encoder_decoder_shapes(batch, src_len, tgt_len, d_model, n_heads, d_ff_factor * d_model, vocab)
    return {name: list(shape) for name, shape in shapes.items()}


def _shapes_with(**changes):
    """A known-wrong shape table: the reference with some entries replaced by f(B, S, T, d, h)."""

    def wrong(**params):
        shapes = shapes_reference(**params)
        dims = [params[k] for k in ("batch", "src_len", "tgt_len", "d_model", "n_heads")]
        shapes.update({name: list(make(*dims)) for name, make in changes.items()})
        return shapes

    return wrong


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


SDPA_MISCONCEPTIONS = (
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
)


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


# Values the source documents print: their visible checks compare with the printed value.
DOCUMENT_VALUES = {
    "scores_002": "document 002",
    "weights_002": "document 002",
    "output_002": "document 002",
    "context_shiny": "document 003 (rounded there)",
}


def _by_hand(grade_id, part, answer, title, points, misconceptions, atol=1e-3):
    """A value printed in the source documents: its visible check compares with the printed value."""
    return Question(
        grade_id=grade_id,
        answer=answer,
        title=title,
        points=points,
        call=False,
        reference=by_hand_reference(part),
        compare=AllClose(atol=atol, rtol=1e-4),
        misconceptions=misconceptions,
        document_value=DOCUMENT_VALUES.get(grade_id, ""),
    )


BY_HAND = [
    _by_hand(
        "scores_002",
        "scores",
        "scores_002",
        "Document 002: the scores QKᵀ",
        1,
        (
            Misconception(
                "transposed_scores",
                "scores[i, j] is q_i·k_j: rows are queries, columns keys. You computed K Qᵀ (the transpose).",
                lambda: by_hand_reference("scores")().T,
            ),
        ),
    ),
    _by_hand(
        "weights_002",
        "weights",
        "weights_002",
        "Document 002: softmax rows",
        1,
        (
            Misconception(
                "softmax_over_columns",
                "Each row (one query) must sum to 1: apply the softmax along the keys (dim=-1), not down the columns.",
                lambda: __import__("torch").softmax(by_hand_reference("scores")(), dim=0),
            ),
        ),
    ),
    _by_hand(
        "output_002",
        "output",
        "output_002",
        "Document 002: softmax(QKᵀ)V",
        1,
        (
            Misconception(
                "forgot_softmax",
                "The weights are softmax(QKᵀ), not the raw scores QKᵀ.",
                lambda: by_hand_reference("scores")() @ _t(V_002),
            ),
        ),
    ),
    _by_hand(
        "output_002_scaled",
        "output_scaled",
        "output_002_scaled",
        "Document 002 with 1/√d_k",
        1,
        (
            Misconception(
                "missing_scale_by_hand",
                "This part asks for the scaled form: divide QKᵀ by √d_k = 2 before the softmax.",
                lambda: by_hand_reference("output")(),
            ),
            Misconception(
                "scale_by_dk_by_hand",
                "Divide by √d_k = 2, not by d_k = 4.",
                lambda: attention_weights(_t(Q_002), _t(K_002), scale=0.25) @ _t(V_002),
            ),
        ),
    ),
    _by_hand(
        "context_shiny",
        "context_shiny",
        "context_shiny",
        "Document 003: the context vector of 'shiny'",
        1,
        (
            Misconception(
                "document_003_rounding",
                "Document 003 rounds the weights to three decimals before the weighted sum, and "
                "your answer reproduces its rounded result: keep full precision throughout.",
                lambda: np.array([0.3992, 0.3858, 0.8610]),
            ),
            Misconception(
                "unnormalised_scores",
                "Weight the embeddings by the softmax of the scores, not by the raw dot products.",
                lambda: _t(E_003[1]) @ _t(E_003).T @ _t(E_003),
            ),
        ),
        atol=2e-4,
    ),
]

SHAPES = Question(
    grade_id="shapes",
    answer="shapes",
    title="Shapes through an encoder-decoder",
    points=3,
    call=False,
    personal=True,
    reference=shapes_reference,
    compare=Exact(),
    misconceptions=(
        Misconception(
            "ffn_narrows",
            "The FFN widens the model to d_ff = 4·d_model (as in the "
            "original paper); it does not narrow to d/2 as document 000's answer does.",
            _shapes_with(ffn_hidden=lambda B, S, T, d, h: (B, S, d // 2)),
        ),
        Misconception(
            "heads_not_split",
            "Per-head Q has shape (B, h, T, d_model/h): the model width is split across the heads, not copied to each.",
            _shapes_with(encoder_q_per_head=lambda B, S, T, d, h: (B, h, S, d)),
        ),
        Misconception(
            "cross_attention_lengths",
            "Cross-attention scores are (B, h, T_target, T_source): "
            "queries come from the decoder, keys from the encoder.",
            _shapes_with(cross_scores=lambda B, S, T, d, h: (B, h, S, T)),
        ),
    ),
)


ASSIGNMENT = Assignment(
    name="ps1_attention",
    notebook="ps1_attention.ipynb",
    student_params=student_params,
    questions=[
        *BY_HAND,
        SHAPES,
        *counting.FORMULAS,
        counting.COUNTS,
        counting.REAL_MODELS,
        *counting.COST,
        *counting.DENSE,
        Question(
            grade_id="sdpa",
            title="Scaled dot-product attention",
            answer="scaled_dot_product_attention",
            points=4,
            reference=sdpa,
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
            compare=AllClose(atol=1e-4, rtol=1e-4),
            misconceptions=SDPA_MISCONCEPTIONS,
        ),
    ],
)
