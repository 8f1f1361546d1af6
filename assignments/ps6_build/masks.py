"""Part 4, the masks (bool, True = may attend): the causal mask (``causal_mask``) and the key
padding mask (``padding_mask``, shape (B, 1, 1, T_k) to broadcast over heads and queries): the
references (the causal mask's self-contained, so the sandbox can bind it in place of a student's
wrong one when re-asking the decoder layer that builds it — root cause; the padding mask's is
``solutions.attention``'s), the probes, the visible examples, the known mistakes and feedback.
nn.Transformer's masks use the opposite convention (True = blocked, or an additive float mask):
two mistakes name that."""

import numpy as np
import torch

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question
from solutions.attention import padding_mask as solutions_padding_mask

from .common import padding

# Masks are compared as numbers, exactly (True = 1): the released checks render an expected
# array through assert_allclose (Exact would write `_got == array(...)`, which cannot run there).
MASK = AllClose(atol=0.0, rtol=0.0, same_dtype=True)  # bool, as the notebook asks


def padding_mask(key_is_pad):
    """(B, T_k) True at padding → (B, 1, 1, T_k) True where attention is allowed."""
    return solutions_padding_mask(key_is_pad)


def causal_mask(t):
    """(t, t): query i may attend to keys 0 … i (the lower triangle, diagonal included), as
    ``solutions.attention.causal_mask(t)``."""
    import torch

    t = int(t)
    return torch.ones(t, t, dtype=torch.bool).tril()


# ---- probes, drawn per student
def causal_probes(rng):
    return [Probe((int(t),), f"t = {int(t)}") for t in (1, rng.integers(2, 5), rng.integers(5, 9))]


def padding_probes(rng):
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 8))  # T ≠ 3: not the visible example's shape
    return [
        Probe((padding(rng, b, t, fully_padded_row=False),), "some keys padded"),
        Probe((padding(rng, b, t),), "one sequence fully padded"),
    ]


# ---- known-wrong masks


def causal_inverted(t):
    return ~causal_mask(t)


def causal_additive_float(t):
    """nn.Transformer.generate_square_subsequent_mask's form: 0 where allowed, −inf where blocked."""
    return torch.zeros(int(t), int(t)).masked_fill(causal_inverted(t), float("-inf"))


def causal_without_diagonal(t):
    return torch.ones(int(t), int(t), dtype=torch.bool).tril(-1)


def padding_not_inverted(key_is_pad):
    return key_is_pad[:, None, None, :]


def padding_no_broadcast_dims(key_is_pad):
    return ~key_is_pad


def padding_masks_queries(key_is_pad):
    return (~key_is_pad)[:, None, :, None]


QUESTIONS = [
    Question(
        grade_id="causal_mask",
        answer="causal_mask",
        title="Causal mask",
        reference=causal_mask,
        reference_source=FunctionSource.of(causal_mask),
        probes=causal_probes,
        compare=MASK,
        visible=[Probe((3,), "t = 3")],
        misconceptions=(
            Misconception(
                "inverted",
                "True means 'may attend': query i may see keys 0..i (lower triangle, "
                "diagonal included). Yours is inverted — True marks the blocked positions, the "
                "convention of nn.Transformer's bool masks.",
                causal_inverted,
            ),
            Misconception(
                "additive_float",
                "Return a bool mask (True = may attend), not an additive float mask "
                "of 0 and −inf like nn.Transformer.generate_square_subsequent_mask.",
                causal_additive_float,
            ),
            Misconception(
                "no_diagonal",
                "A token may attend to itself: keep the diagonal (tril, not tril(-1)).",
                causal_without_diagonal,
            ),
        ),
    ),
    Question(
        grade_id="padding_mask",
        answer="padding_mask",
        title="Key padding mask",
        reference=padding_mask,
        probes=padding_probes,
        compare=MASK,
        visible=[Probe((np.array([[False, False, True], [True, True, True]]),), "one sequence fully padded")],
        misconceptions=(
            Misconception(
                "not_inverted",
                "key_is_pad is True at padding; the mask is True where attention is allowed — invert it.",
                padding_not_inverted,
            ),
            Misconception(
                "no_broadcast_dims",
                "Return shape (B, 1, 1, T_k) so the mask broadcasts over heads and queries.",
                padding_no_broadcast_dims,
            ),
            Misconception(
                "masks_queries",
                "Padding hides *keys* (the last axis): shape (B, 1, 1, T_k), not (B, 1, T, 1).",
                padding_masks_queries,
            ),
        ),
    ),
]
