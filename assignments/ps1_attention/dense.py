"""Part 6, self-attention against a fully connected layer (document 000, Q5.1–Q5.3): the
parameters of single-head self-attention and of a dense layer on the flattened sequence
(formulas in N and D, graded by CAS equivalence), and whether softmax attention is sparse,
answered as values measured on document 002's weights; the known-wrong answers and their
feedback, each naming the claim of 000 it repeats. The paragraph (``attention_paragraph``) is
graded by hand."""

import numpy as np
import sympy

from autograder.authoring import AllClose, Misconception, Question
from solutions.attention import attention_weights

from .by_hand import K_002, Q_002
from .common import formula

D, N = sympy.symbols("D N", positive=True, integer=True)

SIGNIFICANT = 0.01  # "significant" weight for the sparsity measure


def weights_002():
    import torch

    return attention_weights(torch.from_numpy(Q_002), torch.from_numpy(K_002), scale=1.0).double().numpy()


def sparsity_measures(weights=None, zero_below=0.0):
    """[smallest weight, number of weights equal to 0, share of weights ≥ SIGNIFICANT] of
    document 002's softmax(QKᵀ); ``zero_below`` treats small weights as zeros (a known mistake)."""
    w = weights_002() if weights is None else weights
    w = np.where(w < zero_below, 0.0, w)
    return np.array([w.min(), float((w == 0).sum()), float((w >= SIGNIFICANT).mean())])


QUESTIONS = [
    formula(
        "attention_params_formula",
        "The parameters of single-head self-attention",
        3 * D**2,
        ("N", "D"),
        [
            (
                "attention_matrix_as_weights",
                N**2,
                "Document 000 counts the N×N attention matrix as a weight matrix: it is computed "
                "from X for each input, not learned. Count the learned matrices only.",
            ),
            (
                "attention_n2d2",
                N**2 * D**2,
                "This is document 000's O(N²D²): the entries of the attention matrix are computed, "
                "not parameters, and no learned matrix here depends on N.",
            ),
            (
                "projections_per_token",
                3 * N * D**2,
                "The projections are shared by all N positions: the count cannot depend on N.",
            ),
            (
                "output_projection_counted",
                4 * D**2,
                "The form given has no output projection W_O: count the matrices it uses.",
            ),
        ],
        concept="count the learned matrices of the form given and the entries of each.",
    ),
    formula(
        "dense_layer_params_formula",
        "A dense layer on the flattened sequence (with bias)",
        (N * D) ** 2 + N * D,
        ("N", "D"),
        [
            ("dense_without_bias", (N * D) ** 2, "With a bias: one per output."),
            (
                "dense_per_token",
                D**2 + D,
                "The dense layer maps the whole flattened sequence at once, every input number to "
                "every output number — not one token at a time.",
            ),
            (
                "dense_as_000",
                N**2,
                "Document 000's N×N matrix mixes whole positions; a fully connected layer on the "
                "flattened sequence connects every one of its numbers to every output number.",
            ),
        ],
        concept="count the inputs and outputs of a dense layer on the flattened sequence: a weight per "
        "(input, output) pair and a bias per output.",
    ),
    Question(
        grade_id="attention_sparsity",
        answer="attention_sparsity",
        call=False,
        title="Is softmax attention sparse? Measured on document 002's weights",
        compare=AllClose(atol=1e-9, rtol=1e-3),
        reference=sparsity_measures,
        misconceptions=(
            Misconception(
                "softmax_is_sparse",
                "Softmax weights are all strictly positive (e^x > 0): a tiny weight is not a zero. "
                "Attention is dense, though concentrated on a few keys (document 000 calls it sparse).",
                lambda: sparsity_measures(zero_below=SIGNIFICANT),
            ),
            Misconception(
                "printed_precision_zero",
                "A tiny weight is not a zero: keep full precision when you take the smallest one "
                "(rounded to a few decimals it looks like 0).",
                lambda: np.array([0.0, *sparsity_measures()[1:]]),
            ),
            Misconception(
                "share_below",
                "The third number is the share of weights at or above 0.01, not below it.",
                lambda: np.array([*sparsity_measures()[:2], 1 - sparsity_measures()[2]]),
            ),
        ),
    ),
]
