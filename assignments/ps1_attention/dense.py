"""Part 6, self-attention as a fully connected layer: the parameters of a dense layer on the
flattened sequence (a formula in N and D, graded by CAS equivalence) and whether softmax
attention is sparse (a choice); the known-wrong answers and their feedback. The paragraph
(``attention_paragraph``) is graded by hand."""

import sympy

from autograder.authoring import Exact, Misconception, Question

from .common import formula

D, N = sympy.symbols("D N", positive=True, integer=True)

QUESTIONS = [
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
                "The dense layer maps the whole flattened sequence (N·D numbers) "
                "to N·D numbers: (ND)² weights, not D² per token.",
            ),
        ],
    ),
    Question(
        grade_id="attention_sparsity",
        answer="attention_sparsity",
        call=False,
        title="Is softmax attention sparse?",
        compare=Exact(),
        reference=lambda: "B",
        misconceptions=(
            Misconception(
                "softmax_is_sparse",
                "Softmax weights are all strictly positive (e^x > 0): attention is "
                "dense, though often concentrated on a few keys.",
                lambda: "A",
            ),
        ),
    ),
]
