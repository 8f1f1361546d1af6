"""Part 1, attention by hand: document 002's worked example (scores, softmax rows, output,
the output with 1/√d_k) and document 003's context vector of "shiny" — the data, the
references, the known-wrong values and their feedback. Document 002's printed values are what
its visible checks compare with; document 003 prints a context vector with slips in it, so
``context_shiny`` is checked against the exact value only (``shiny_slip`` asks where 003 is off).
"""

import numpy as np

from autograder.authoring import AllClose, Misconception, Question
from solutions.attention import attention_weights
from solutions.attention import scaled_dot_product_attention as reference_sdpa

# Document 002's worked example (3 tokens, d_k = 4, d_v = 5); part 2's visible checks use it too.
Q_002 = np.array([[0.3, -2.0, 0.4, 6.0], [-1.0, 1.5, 0.2, 3.0], [0.3, -1.0, 0.2, 1.0]], np.float32)
K_002 = np.array([[-0.5, 1.7, 0.3, 4.0], [0.4, -1.5, 0.3, 5.5], [-1.0, -3.5, 1.0, 4.0]], np.float32)
V_002 = np.array([[0.0, 9.0, 0.0, -5.0, 1.2], [4.0, 0.1, 0.1, 0.1, 0.0], [-0.3, 0.0, 0.3, 10.0, 0.1]], np.float32)


# Document 003's "Hello shiny sun" embeddings (3-d), query = "shiny", and the context vector
# it prints ("bağlam vektörü = … = [0.3992, 0.3858, 0.8610]").
E_003 = np.array([[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]], np.float32)
SHINY_PRINTED_003 = (0.3992, 0.3858, 0.8610)


def _t(a):
    """The data as a float64 tensor: the worked values are computed in float64, so what the
    release prints of them is the same on every processor (float32's last digit is not)."""
    import torch

    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def by_hand_reference(part):
    q, k, v = _t(Q_002), _t(K_002), _t(V_002)
    return {
        "scores": lambda: q @ k.T,
        "weights": lambda: attention_weights(q, k, scale=1.0),
        "output": lambda: attention_weights(q, k, scale=1.0) @ v,
        "output_scaled": lambda: reference_sdpa(q, k, v),
        "context_shiny": lambda: attention_weights(_t(E_003[1:2]), _t(E_003), scale=1.0)[0] @ _t(E_003),
        "shiny_weights": lambda: attention_weights(_t(E_003[1:2]), _t(E_003), scale=1.0)[0],
    }[part]


def _by_hand(grade_id, part, title, misconceptions, document_value="", atol=1e-3):
    """A value answered in the variable ``grade_id``; ``document_value`` names the document
    that prints it (its visible check then compares with the printed value)."""
    return Question(
        grade_id=grade_id,
        answer=grade_id,
        title=title,
        call=False,
        reference=by_hand_reference(part),
        compare=AllClose(atol=atol, rtol=1e-4),
        misconceptions=misconceptions,
        document_value=document_value,
    )


QUESTIONS = [
    _by_hand(
        "scores_002",
        "scores",
        "Document 002: the scores QKᵀ",
        (
            Misconception(
                "transposed_scores",
                "scores[i, j] is q_i·k_j: rows are queries, columns keys. You computed K Qᵀ (the transpose).",
                lambda: by_hand_reference("scores")().T,
            ),
        ),
        document_value="document 002",
    ),
    _by_hand(
        "weights_002",
        "weights",
        "Document 002: softmax rows",
        (
            Misconception(
                "softmax_over_columns",
                "Each row (one query) must sum to 1: apply the softmax along the keys (dim=-1), not down the columns.",
                lambda: __import__("torch").softmax(by_hand_reference("scores")(), dim=0),
            ),
        ),
        document_value="document 002",
    ),
    _by_hand(
        "output_002",
        "output",
        "Document 002: softmax(QKᵀ)V",
        (
            Misconception(
                "forgot_softmax",
                "The weights are softmax(QKᵀ), not the raw scores QKᵀ.",
                lambda: by_hand_reference("scores")() @ _t(V_002),
            ),
        ),
        document_value="document 002",
    ),
    _by_hand(
        "output_002_scaled",
        "output_scaled",
        "Document 002 with 1/√d_k",
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
        "Document 003: the context vector of 'shiny'",
        (
            Misconception(
                "document_003_rounding",
                "This is the vector document 003 prints, not the one its data give: 003 rounds the "
                "weights to three decimals and two of its nine products slip in the fourth decimal. "
                "Compute the weighted sum at full precision.",
                lambda: np.array(SHINY_PRINTED_003),
            ),
            Misconception(
                "unnormalised_scores",
                "Weight the embeddings by the softmax of the scores, not by the raw dot products.",
                lambda: _t(E_003[1]) @ _t(E_003).T @ _t(E_003),
            ),
            Misconception(
                "rounded_weights_003",
                "Keep the weights at full precision: rounded to three decimals, as document 003 "
                "prints them, they move the fourth decimal of the context vector.",
                lambda: np.round(by_hand_reference("shiny_weights")().numpy().astype(np.float64), 3) @ E_003,
            ),
        ),
        atol=2e-5,
    ),
]
