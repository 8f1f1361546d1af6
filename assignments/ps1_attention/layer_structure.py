"""Part 3b, two facts of the layers that documents 000 and 003 state wrongly, where a shape table
cannot tell: how 003's multi-head attention splits d_out across the heads (``head_widths``: 003 says
"if the token has 8 dimensions and we want 3 heads, the dimensions will be split into 2 arrays of
4" while its own class asserts "d_out must be divisible by num_heads"), and how many Add & Norm
steps one decoder layer has (``decoder_add_norms``: 000 writes "Output of Decoder = Output of Add
Norm 2", but every sub-layer output has the same shape, so part 3's table cannot catch it)."""

import math

import numpy as np

from autograder.authoring import Exact, Misconception, Probe, Question


def head_widths(d_out, num_heads):
    """The width of each head's slice when 003's ``view(b, t, num_heads, d_out // num_heads)`` can
    split d_out; [] when it cannot (d_out not divisible by num_heads)."""
    d_out, num_heads = int(d_out), int(num_heads)
    return [d_out // num_heads] * num_heads if d_out % num_heads == 0 else []


def width_probes(rng: np.random.Generator) -> list[Probe]:
    pairs = [(8, 3), (8, 2), (7, 7), (6, 4), (5, 1)]
    for _ in range(3):
        h = int(rng.integers(2, 9))
        pairs.append((h * int(rng.integers(1, 40)), h))  # divisible
        pairs.append((h * int(rng.integers(1, 40)) + int(rng.integers(1, h)), h))  # not divisible
    return [Probe((d, h), f"d_out = {d}, num_heads = {h}") for d, h in pairs]


def widths_uneven(d_out, num_heads):
    """np.array_split's way: the first d_out % h heads one wider."""
    return [len(part) for part in np.array_split(np.arange(d_out), num_heads)]


def widths_floor(d_out, num_heads):
    return [d_out // num_heads] * num_heads


def widths_ceil(d_out, num_heads):
    return [math.ceil(d_out / num_heads)] * num_heads


def decoder_add_norms():
    """Post-LN decoder layer: self-attention, cross-attention and the FFN, each then Add & Norm."""
    return 3


CANNOT_SPLIT = (
    "view(b, num_tokens, num_heads, head_dim) needs num_heads · head_dim = d_out exactly — document "
    '003\'s own class asserts "d_out must be divisible by num_heads".'
)

QUESTIONS = [
    Question(
        grade_id="head_widths",
        answer="head_widths",
        title="Splitting d_out across the heads",
        reference=head_widths,
        probes=width_probes,
        compare=Exact(integers=True),
        visible=[Probe((12, 4), "d_out = 12, num_heads = 4")],
        misconceptions=(
            Misconception(
                "uneven_split",
                "Heads of different widths cannot come out of one reshape: " + CANNOT_SPLIT,
                widths_uneven,
            ),
            Misconception(
                "remainder_dropped",
                "Floor division drops the dimensions that do not fit, and the reshape then fails: " + CANNOT_SPLIT,
                widths_floor,
            ),
            Misconception(
                "rounded_up",
                "Rounding the head width up asks for more dimensions than d_out holds: " + CANNOT_SPLIT,
                widths_ceil,
            ),
        ),
    ),
    Question(
        grade_id="decoder_add_norms",
        answer="decoder_add_norms",
        title="Add & Norm steps in one decoder layer",
        call=False,
        reference=decoder_add_norms,
        compare=Exact(integers=True),
        misconceptions=(
            Misconception(
                "like_the_encoder",
                "The decoder layer has one more sub-layer than the encoder layer — cross-attention "
                "over the encoder's output — and each sub-layer is followed by its own Add & Norm.",
                lambda: 2,
            ),
            Misconception(
                "one_per_layer",
                "Each sub-layer (self-attention, cross-attention, feed-forward) has its own residual "
                "connection and Add & Norm, not one for the whole layer.",
                lambda: 1,
            ),
        ),
    ),
]
