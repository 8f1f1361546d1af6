"""Part 4b, the source documents' mask bugs, predicted and fixed: document 003's
``torch.triu(torch.ones(T, T), diagonal=1) * float('-inf')`` (0 · (−∞) is NaN on every allowed
entry: ``nan_entries_003``, ``nan_rows_003``), document 001's padding example whose printed mask
pads another sentence than the one it shows (``padding_001``), 001's "mask converted to −inf"
that keeps 1.0 on the allowed entries (``mask_001_effect``), and a ``masked_softmax`` that gets
all of it right — including a query whose keys are all masked, where 001's −1e9 gives uniform
weights and −∞ gives NaN (the notebook's rule: zero weights)."""

import numpy as np
import torch

from autograder.authoring import AllClose, Choice, Exact, Misconception, Probe, Question

from .common import padding, randn

T_003 = 4  # the size the questions ask about

# Document 001's "I love deep learning" scores (its causal- and padding-mask examples).
SCORES_001 = np.array(
    [[0.9, 0.7, 0.3, 0.2], [0.6, 0.8, 0.9, 0.4], [0.2, 0.5, 0.7, 0.9], [0.4, 0.3, 0.8, 0.6]], np.float32
)
CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))


def document_003_mask(t):
    """Document 003's line, as printed."""
    return torch.triu(torch.ones(t, t), diagonal=1) * float("-inf")


def nan_entries_003():
    return torch.isnan(document_003_mask(T_003)).numpy()


def nan_rows_003():
    """Rows of 003's attention weights (on 001's scores) that hold a NaN."""
    scores = torch.from_numpy(SCORES_001)
    weights = torch.softmax(scores + document_003_mask(T_003), dim=-1)
    return int(torch.isnan(weights).any(-1).sum())


def padding_001():
    """−∞ entries that step 2's mask (row 0 of the batch: [1, 1, 1, 1]) puts into the first
    sentence's 4 × 4 scores."""
    first_sentence_mask = np.array([1.0, 1.0, 1.0, 1.0])
    return int(np.broadcast_to(first_sentence_mask == 0, (4, 4)).sum())


def masked_softmax(scores, allowed):
    """Softmax over the last axis where ``allowed`` (bool, broadcastable, True = may attend);
    blocked entries get weight 0, and a row with no allowed entry gets zero weights."""
    scores = torch.as_tensor(scores, dtype=torch.float32)
    weights = torch.softmax(scores.masked_fill(~torch.as_tensor(allowed), float("-inf")), dim=-1)
    return torch.nan_to_num(weights, nan=0.0)


# ---- known-wrong masked softmaxes, one per document's mistake


def softmax_fill_minus_1e9(scores, allowed):
    """Document 001's ``scores.masked_fill(mask == 0, -1e9)``."""
    scores = torch.as_tensor(scores, dtype=torch.float32)
    return torch.softmax(scores.masked_fill(~torch.as_tensor(allowed), -1e9), dim=-1)


def softmax_minus_inf_nan(scores, allowed):
    scores = torch.as_tensor(scores, dtype=torch.float32)
    return torch.softmax(scores.masked_fill(~torch.as_tensor(allowed), float("-inf")), dim=-1)


def softmax_times_minus_inf_003(scores, allowed):
    """Document 003's pattern: (blocked as 1.0, allowed as 0.0) · (−∞), added to the scores."""
    scores = torch.as_tensor(scores, dtype=torch.float32)
    return torch.softmax(scores + (~torch.as_tensor(allowed)).float() * float("-inf"), dim=-1)


def softmax_inverted(scores, allowed):
    return masked_softmax(scores, ~torch.as_tensor(allowed))


def softmax_then_zero(scores, allowed):
    """Softmax over every key, then the blocked weights set to 0 (rows no longer sum to 1)."""
    scores = torch.as_tensor(scores, dtype=torch.float32)
    return torch.softmax(scores, dim=-1) * torch.as_tensor(allowed)


# ---- probes, drawn per student


def masked_softmax_probes(rng):
    b, h, t = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(3, 7))
    tq = t + 1
    return [
        Probe((randn(rng, t, t, scale=2), np.tril(np.ones((t, t), dtype=bool))), f"({t}, {t}) scores, causal"),
        Probe(
            (randn(rng, b, h, t, t, scale=2), ~padding(rng, b, t)[:, None, None, :]),
            "(B, h, T, T) scores, key padding, one sequence fully padded",
        ),
        Probe(
            (randn(rng, b, tq, t, scale=2), rng.random((b, tq, t)) < 0.6),
            "(B, T_q, T_k) scores, a random mask (some rows may be fully masked)",
        ),
    ]


QUESTIONS = [
    Question(
        grade_id="nan_entries_003",
        answer="nan_entries_003",
        title="Document 003's mask: where NaN appears",
        call=False,
        reference=nan_entries_003,
        compare=AllClose(atol=0.0, rtol=0.0),
        misconceptions=(
            Misconception(
                "zero_times_inf_is_zero",
                "0 · (−∞) is not 0 in floating point: IEEE 754 leaves it undefined.",
                lambda: np.zeros((T_003, T_003), dtype=bool),
            ),
            Misconception(
                "blocked_entries",
                "The blocked entries (1 · (−∞)) are −∞, a valid float; NaN comes from the other factor.",
                lambda: ~nan_entries_003(),
            ),
            Misconception(
                "diagonal_forgotten",
                "Check the diagonal: what does triu(..., diagonal=1) leave there?",
                lambda: np.tril(np.ones((T_003, T_003), dtype=bool), -1),
            ),
        ),
    ),
    Question(
        grade_id="nan_rows_003",
        answer="nan_rows_003",
        title="Document 003's mask: the rows of the weights",
        call=False,
        reference=nan_rows_003,
        compare=Exact(integers=True),
        misconceptions=(
            Misconception(
                "mask_works",
                "Not every entry of 003's mask is −∞ or 0: one undefined entry in a row of scores "
                "spoils the softmax's normaliser, hence the whole row. Look again at each row's diagonal.",
                lambda: 0,
            ),
            Misconception(
                "only_rows_with_blocked_keys",
                "The last row has no blocked key, yet its mask entries are not all 0: what is 0 · (−∞)?",
                lambda: T_003 - 1,
            ),
        ),
    ),
    Question(
        grade_id="padding_001",
        answer="padding_001",
        title="Document 001's padding example",
        call=False,
        reference=padding_001,
        compare=Exact(integers=True),
        misconceptions=(
            Misconception(
                "text_three_pads",
                "That is what the text claims (three PAD words at the end of the first sentence), "
                "not what step 2's printed mask does to the first sentence's scores.",
                lambda: 12,
            ),
            Misconception(
                "second_sentence",
                "That is the padded key of the *second* sentence of the batch (one per query); "
                "the table shows the first sentence.",
                lambda: 4,
            ),
            Misconception("one_key", "Count the entries of the 4 × 4 score table, per query and key.", lambda: 1),
        ),
    ),
    Question(
        grade_id="mask_001_effect",
        answer="mask_001_effect",
        title="Document 001's mask with 1.0 on the allowed entries",
        call=False,
        reference=lambda: "A",
        compare=Choice(("A", "B", "C", "D")),
        misconceptions=(
            Misconception(
                "weights_times_e",
                "Each allowed weight is exp(score + 1) divided by the sum of exp(score + 1) over "
                "the row's allowed keys: write the factor e^1 out in the numerator and in the denominator.",
                lambda: "B",
            ),
            Misconception(
                "rows_do_not_sum_to_one",
                "softmax divides by the row's own total whatever is added to the scores: its rows always sum to 1.",
                lambda: "C",
            ),
            Misconception(
                "nan",
                "1.0 + (−∞) is −∞ and 1.0 + s is finite: no 0 · (−∞) happens in this mask, nothing becomes NaN.",
                lambda: "D",
            ),
        ),
    ),
    Question(
        grade_id="masked_softmax",
        answer="masked_softmax",
        title="A masked softmax that is right",
        reference=masked_softmax,
        probes=masked_softmax_probes,
        compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[
            Probe((SCORES_001, CAUSAL_4), "document 001's scores, causal mask"),
            Probe(
                (
                    np.stack([SCORES_001, SCORES_001]),
                    np.array([[[True, True, False, False]], [[False, False, False, False]]]),
                ),
                "a batch of two, the second with no allowed key",
                note="The same scores twice (B = 2), a key padding mask: no query of the second sees any key.",
            ),
        ],
        misconceptions=(
            Misconception(
                "fill_minus_1e9",
                "Document 001's masked_fill(mask == 0, -1e9): a query whose keys are all masked then "
                "gets equal scores everywhere, hence uniform weights over the keys it must not see. "
                "Such a row must get zero weights.",
                softmax_fill_minus_1e9,
            ),
            Misconception(
                "minus_inf_nan",
                "With −∞ a fully masked row has softmax 0/0 = NaN: replace those rows by zero weights "
                "(torch.nan_to_num, or a where on 'any key allowed').",
                softmax_minus_inf_nan,
            ),
            Misconception(
                "times_minus_inf_003",
                "Document 003's pattern (mask of 0 and 1 multiplied by −∞, then added): 0 · (−∞) is "
                "NaN on every allowed entry. Use masked_fill(~allowed, -inf) (or torch.where).",
                softmax_times_minus_inf_003,
            ),
            Misconception(
                "inverted",
                "True means 'may attend': block where allowed is False; you blocked the allowed keys.",
                softmax_inverted,
            ),
            Misconception(
                "zero_after_softmax",
                "Mask before the softmax, not after: zeroing weights after it leaves rows that no "
                "longer sum to 1 over the allowed keys.",
                softmax_then_zero,
            ),
        ),
    ),
]
