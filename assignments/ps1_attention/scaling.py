"""Part 2b, why the scores are divided by √d_k (documents 001, 002, 003): the variance of q·k
for unit-variance entries (a formula in d_k, graded by CAS equivalence) and the saturation in
document 002's own example (the largest and smallest softmax weight once scaled, beside the
unscaled ones 002 prints), and the divisor of QKᵀ written in the symbols of 002's display formula
softmax(QK^T/√(d^k)) (a formula, graded by CAS equivalence: 002's d^k read as written is a named
mistake); references, known-wrong answers and their feedback."""

import sympy

from autograder.authoring import AllClose, Misconception, Question
from solutions.attention import attention_weights

from .by_hand import K_002, Q_002
from .common import formula

d_k = sympy.Symbol("d_k", positive=True, integer=True)

# The symbols of document 002's "Dodatkowa normalizacja": its sentence's d_k (the key vector's
# size), the value and model widths, and the letters d and k of its display formula √(d^k).
DIVISOR_SYMBOLS = ("d_k", "d_v", "d_model", "d", "k")
d_v, d_model, d, k = sympy.symbols("d_v d_model d k", positive=True)


def saturation(scale_power=0.5):
    """[largest, smallest] of document 002's softmax(QKᵀ · d_k**−scale_power), over all nine weights
    (the notebook quotes the unscaled ones, scale_power = 0, as 002 prints them)."""
    import torch

    q, k = torch.from_numpy(Q_002), torch.from_numpy(K_002)
    weights = attention_weights(q, k, scale=Q_002.shape[-1] ** -scale_power).double()
    return [float(weights.max()), float(weights.min())]


QUESTIONS = [
    formula(
        "score_variance_formula",
        "The variance of q·k for unit-variance entries",
        d_k,
        ("d_k",),
        [
            (
                "variance_is_std",
                sympy.sqrt(d_k),
                "That is the standard deviation of q·k; the question asks for its variance.",
            ),
            (
                "variance_one",
                sympy.Integer(1),
                "Each product q_i·k_i has variance 1, but q·k sums d_k independent such products: "
                "variances of independent terms add.",
            ),
            (
                "variance_squared",
                d_k**2,
                "Variances of independent terms add (they are not multiplied, and the sum is not squared).",
            ),
        ],
        concept="recall how the variances of independent terms combine, and what one product q_i·k_i contributes.",
    ),
    Question(
        grade_id="saturation_002",
        answer="saturation_002",
        title="Saturation in document 002's example",
        call=False,
        reference=saturation,
        compare=AllClose(atol=1e-9, rtol=1e-3),
        misconceptions=(
            Misconception(
                "saturation_scale_by_dk",
                "The second row divides the scores by √d_k = 2, not by d_k = 4.",
                lambda: saturation(scale_power=1.0),
            ),
            Misconception(
                "saturation_unscaled",
                "These are the unscaled weights document 002 prints: divide the scores by √d_k before the softmax.",
                lambda: saturation(scale_power=0.0),
            ),
        ),
    ),
    formula(
        "scale_divisor_002",
        "The divisor of QKᵀ in document 002's formula",
        sympy.sqrt(d_k),
        DIVISOR_SYMBOLS,
        [
            (
                "document_002_power",
                sympy.sqrt(d**k),
                "This reads the display formula's d^k as written, d raised to the power k: compare it with "
                "the sentence above it, which names the size the scale is taken from.",
            ),
            (
                "no_square_root",
                d_k,
                "d_k is the variance of q·k (part 2b): dividing by it shrinks the spread of the scores "
                "further and further below 1 as d_k grows.",
            ),
            (
                "model_width",
                sympy.sqrt(d_model),
                "d_model is the width of the whole model; a score q·k sums over the entries of one "
                "head's query and key vectors.",
            ),
            (
                "value_width",
                sympy.sqrt(d_v),
                "The values do not enter QKᵀ: a score q·k sums over the entries of the query and key vectors.",
            ),
        ],
        concept="recall which vectors' entries a score q·k sums over, and what the division does to the spread "
        "of the scores.",
    ),
]
