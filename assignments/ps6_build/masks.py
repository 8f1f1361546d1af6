"""Part 4, the masks (bool, True = may attend): the causal mask (``causal_mask``), the key
padding mask (``padding_mask``, shape (B, 1, 1, T_k) to broadcast over heads and queries) and
the decoder's self-attention mask, 001's "Padding-Maske + Causal-Maske" (``decoder_self_mask``,
the reference transformer's own, (B, 1, T, T)): the
references (the causal mask's self-contained, so the sandbox can bind it in place of a student's
wrong one when re-asking the decoder layer that builds it — root cause; the padding mask's is
``solutions.attention``'s), the probes, the visible examples, the known mistakes and feedback.
nn.Transformer's masks use the opposite convention (True = blocked, or an additive float mask):
two mistakes name that."""

import numpy as np
import torch

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question
from solutions.attention import decoder_self_mask as solutions_decoder_self_mask
from solutions.attention import padding_mask as solutions_padding_mask

from .common import padding

# Masks are compared as numbers, exactly (True = 1): the released checks render an expected
# array through assert_allclose (Exact would write `_got == array(...)`, which cannot run there).
MASK = AllClose(atol=0.0, rtol=0.0, same_dtype=True)  # bool, as the notebook asks


def padding_mask(key_is_pad):
    """(B, T_k) True at padding → (B, 1, 1, T_k) True where attention is allowed."""
    return solutions_padding_mask(key_is_pad)


def decoder_self_mask(key_is_pad):
    """(B, T) True at target padding → (B, 1, T, T): causal, and padded keys hidden, as
    ``solutions/model.py`` builds its decoder's self-attention mask."""
    return solutions_decoder_self_mask(torch.as_tensor(key_is_pad, dtype=torch.bool))


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


def target_padding_probes(rng):
    """Right-padded targets of different lengths (the usual batch) and padding scattered after a
    real first token; T ≥ 4, so no probe is the visible example's shape."""
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 8))
    lengths = rng.integers(1, t, size=b)  # every other sequence padded at its end
    lengths[0] = t  # one sequence unpadded
    right = np.arange(t)[None, :] >= lengths[:, None]
    inside = padding(rng, b, t, fully_padded_row=False)
    inside[-1, 1] = True  # a padded key with a real token after it: padding on the query axis alone
    inside[-1, t - 1] = False  # then lets that token see it, and padding on both axes does not
    return [Probe((inside,), "padding inside"), Probe((right,), "right-padded targets")]


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


def _pad(key_is_pad):
    return torch.as_tensor(key_is_pad, dtype=torch.bool)


def target_only_causal(key_is_pad):
    b, t = _pad(key_is_pad).shape
    return causal_mask(t).expand(b, 1, t, t)


def target_only_padding(key_is_pad):
    b, t = _pad(key_is_pad).shape
    return padding_mask(_pad(key_is_pad)).expand(b, 1, t, t)


def target_padding_on_queries(key_is_pad):
    pad = _pad(key_is_pad)
    return causal_mask(pad.shape[-1]) & (~pad)[:, None, :, None]


def target_padding_on_both_axes(key_is_pad):
    pad = _pad(key_is_pad)
    return decoder_self_mask(pad) & (~pad)[:, None, :, None]


def target_masks_combined_with_or(key_is_pad):
    pad = _pad(key_is_pad)
    return causal_mask(pad.shape[-1]) | padding_mask(pad)


def target_mask_inverted(key_is_pad):
    return ~decoder_self_mask(key_is_pad)


def target_mask_no_head_axis(key_is_pad):
    return decoder_self_mask(key_is_pad)[:, 0]


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
    Question(
        grade_id="decoder_self_mask",
        answer="decoder_self_mask",
        title="The decoder's self-attention mask: padding and causal",
        reference=decoder_self_mask,
        probes=target_padding_probes,
        compare=MASK,
        visible=[Probe((np.array([[False, False, False], [False, False, True]]),), "one target padded at the end")],
        misconceptions=(
            Misconception(
                "only_causal",
                "001's decoder uses 'Padding-Maske + Causal-Maske': your mask is causal but lets "
                "every query attend to padded target tokens.",
                target_only_causal,
            ),
            Misconception(
                "only_padding",
                "001's decoder uses 'Padding-Maske + Causal-Maske': your mask hides the padding but "
                "lets a query see the target tokens after it — the causal part is missing.",
                target_only_padding,
            ),
            Misconception(
                "padding_on_queries",
                "Padding hides *keys* (the last axis): a padded token must not be attended to. "
                "Yours blanks the rows of padded queries instead, so real queries still see padding.",
                target_padding_on_queries,
            ),
            Misconception(
                "padding_on_both_axes",
                "The padding part hides keys only, as part 4's key padding mask does (and "
                "nn.Transformer's tgt_key_padding_mask): yours also blanks the rows of padded queries.",
                target_padding_on_both_axes,
            ),
            Misconception(
                "combined_with_or",
                "A query may attend to a key only where *both* masks allow it: combine them with AND, not OR.",
                target_masks_combined_with_or,
            ),
            Misconception(
                "inverted",
                "True means 'may attend' here; yours is True where attention is blocked "
                "(nn.Transformer's convention for bool masks).",
                target_mask_inverted,
            ),
            Misconception(
                "no_head_axis",
                "Return shape (B, 1, T, T): the 1 lets the mask broadcast over the heads.",
                target_mask_no_head_axis,
            ),
        ),
    ),
]
