"""Part 2b, why the scores are divided by √d_k (documents 001, 002, 003): the variance of q·k
for unit-variance entries (a formula in d_k, graded by CAS equivalence) and the saturation in
document 002's own example (the largest and smallest softmax weight once scaled, beside the
unscaled ones 002 prints); references, known-wrong answers and their feedback."""

import sympy

from autograder.authoring import AllClose, Misconception, Question
from solutions.attention import attention_weights

from .by_hand import K_002, Q_002
from .common import formula

d_k = sympy.Symbol("d_k", positive=True, integer=True)


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
]
