"""PS7 — toy tasks: tokens, loss and the parser (document 001's toy tasks): the problem set the kit
imports.

Self-contained: it needs only PyTorch and what its notebook gives (the parser's token table, a
tiny one-layer attention model for part 4); no earlier problem set's answers are called.
Conventions stated to students in the notebook: BPE breaks ties by tuple order; the loss reads
logits (..., T, V) for the decoder input tgt[..., :-1] and averages over non-padding tokens of
tgt[..., 1:]; the parser's table is document 001's ``show_parser_examples`` table (25 ids).

One module per part, each with its references, probes, visible examples, known mistakes and
feedback, and its ``QUESTIONS``:

* ``bpe``            part 1, byte-pair encoding (``pair_counts``, ``learn_bpe``, ``bpe_tokenize``)
* ``loss``           part 2, cross-entropy per token with teacher forcing, and 001's worked example
* ``loss_examples``  part 2 (c), 001's two other worked losses (AdditionLoss's 0.803, the parser's 1.101)
* ``parser_tokens``  part 3, the parser task's linearisation, token ids and 001's mapping bug
* ``length``         part 4, length generalisation: 001's digit limit and padding mask, a clipped relative bias,
                     training at length 8 and testing at length 32 (graded by training)
* ``length_schemes`` part 4 (e), the five position schemes trained at length 8 and tested at 32
* ``more_digits``    part 4 (f), addition trained on 2-digit sums and tested on 3 digits (learned, sinusoidal)
* ``norm_order``     part 5, Pre-LN against Post-LN: each layer's gradient norm at initialisation,
                     measured (``layer_grad_norms``), and what it shows (``norm_order_reading``)

Points come from the notebook's grade cells. The notebook's one training run (part 4) takes
about a CPU-second for the reference; ``cpu_s`` leaves room for slower honest recipes.
"""

from autograder.authoring import Assignment

from . import bpe, length, length_schemes, loss, loss_examples, more_digits, norm_order, parser_tokens

ASSIGNMENT = Assignment(
    name="ps7_tasks",
    notebook="ps7_tasks.ipynb",
    questions=[
        *bpe.QUESTIONS,
        *loss.QUESTIONS,
        *loss_examples.QUESTIONS,
        *parser_tokens.QUESTIONS,
        *length.QUESTIONS,
        *length_schemes.QUESTIONS,
        *more_digits.QUESTIONS,
        *norm_order.QUESTIONS,
    ],
    cpu_s=200,
)
