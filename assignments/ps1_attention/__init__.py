"""PS1 — attention: by hand, in code, shapes and sizes; the problem set the kit imports.

Parts 3 and 4 are graded at each student's own configuration (``common.student_params``,
copied into the released notebook). Every count and cost comes from ``solutions/derivations``
(SymPy), evaluated at that configuration; formulas are graded by CAS equivalence after a safe
parse. Part 6's paragraph (2 points) is graded by hand; its rubric is in the source notebook.

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``by_hand``            part 1, document 002's scores, weights and outputs, document 003's
                         context vector (values the documents print)
* ``shiny_slip``         part 1, which of document 003's printed products slip
* ``sdpa``               part 2, scaled dot-product attention (``scaled_dot_product_attention``)
* ``scaling``            part 2b, why √d_k: Var(q·k), the saturation in document 002's example,
                         the divisor of QKᵀ in 002's symbols (its display formula writes √(d^k))
* ``scale_tester``       part 2b, a tester for the 1/√d_k scaling (``is_correctly_scaled``)
* ``score_order``        part 2c, 001's "QKᵀ or KQᵀ": softmax(KQᵀ), W_Q = W_K, rank(QKᵀ)
* ``shapes``             part 3, the shapes through an encoder-decoder
* ``layer_structure``    part 3b, 003's head split (8 dimensions, 3 heads), 000's Add & Norm count
* ``parameter_formulas`` part 4a, parameter formulas in d, h and d_ff
* ``parameter_counts``   part 4b, the parameter counts of the student's configuration
* ``pre_ln``             part 4b, what Pre-LN with a final LayerNorm per stack adds to the count
* ``real_models``        part 4c, BERT-base, GPT-2 small and Transformer base against their papers
* ``document_000_counts`` part 4d, document 000's own count corrected, its wrong lines
* ``gemma2_row``         part 4e, document 001's Gemma-2 row: one layer counted, the layers read off the totals
* ``cost``               part 5, FLOPs and score entries of attention, growth when T doubles
* ``dense``              part 6, self-attention against a dense layer, sparsity measured
* ``common``             the student's configuration, the builder of a formula question

Points come from the notebook's grade cells.
"""

from autograder.authoring import Assignment

from . import (
    by_hand,
    cost,
    dense,
    document_000_counts,
    gemma2_row,
    layer_structure,
    parameter_counts,
    parameter_formulas,
    pre_ln,
    real_models,
    scale_tester,
    scaling,
    score_order,
    sdpa,
    shapes,
    shiny_slip,
)
from .common import student_params

ASSIGNMENT = Assignment(
    name="ps1_attention",
    notebook="ps1_attention.ipynb",
    student_params=student_params,
    questions=[
        *by_hand.QUESTIONS,
        *shiny_slip.QUESTIONS,
        *sdpa.QUESTIONS,
        *scaling.QUESTIONS,
        *scale_tester.QUESTIONS,
        *score_order.QUESTIONS,
        *shapes.QUESTIONS,
        *layer_structure.QUESTIONS,
        *parameter_formulas.QUESTIONS,
        *parameter_counts.QUESTIONS,
        *pre_ln.QUESTIONS,
        *real_models.QUESTIONS,
        *document_000_counts.QUESTIONS,
        *gemma2_row.QUESTIONS,
        *cost.QUESTIONS,
        *dense.QUESTIONS,
    ],
)
