"""Part 3b, what a rotation keeps (document 000, question 4.3: the length is kept and the angle
changes by m·θ_i; document 004: "the absolute value of the word embedding changes"): the angle
each pair was turned by, read back from x and R_m x, and the multiple choice on 004's claim —
the references, the probes, the known-wrong answers and their feedback."""

import math

import numpy as np
import torch

from autograder.authoring import AllClose, Choice, Misconception, Probe, Question
from solutions.positional import apply_rope

from .common import DEGREES, randn

NORM_OPTIONS = ("A", "B", "C", "D")


def rotated(x, m, base):
    """R_m x for x (..., d), interleaved, float64 (the probes' y)."""
    x = torch.as_tensor(x, dtype=torch.float64)
    return apply_rope(x[..., None, :], torch.tensor([m]), base, "interleaved")[..., 0, :].numpy()


# ---- probes, drawn per student
def angle_probes(rng):
    out = []
    for shape, m, base in (((4,), 1, 100.0), ((3, 8), 7, 10000.0), ((2, 3, 6), 40, 100.0), ((16,), 0, 10000.0)):
        x = randn(rng, *shape).astype(np.float64)
        out.append(Probe((x, rotated(x, m, base)), f"x of shape {shape}, y = R_m x at m = {m}, base {base:g}"))
    x = randn(rng, 5, 10).astype(np.float64)
    y = rotated(x, int(rng.integers(100, 900)), 10000.0)
    return out + [Probe((x, y), "x of shape (5, 10), y = R_m x at a large m: angles past π wrap around")]


# ---- reference
def rotation_angles(x, y):
    """(..., d/2): the angle in (−π, π] that turns pair i of x (interleaved) into pair i of y."""
    x, y = torch.as_tensor(x, dtype=torch.float64), torch.as_tensor(y, dtype=torch.float64)
    x0, x1, y0, y1 = x[..., 0::2], x[..., 1::2], y[..., 0::2], y[..., 1::2]
    return torch.atan2(x0 * y1 - x1 * y0, x0 * y0 + x1 * y1)


# ---- known-wrong answers: rotation_angles(x, y)
def pair_angle(v, half=False):
    v = torch.as_tensor(v, dtype=torch.float64)
    d = v.shape[-1]
    a, b = (v[..., : d // 2], v[..., d // 2 :]) if half else (v[..., 0::2], v[..., 1::2])
    return torch.atan2(b, a)


def angle_of_y(x, y):
    return pair_angle(y)


def unwrapped(x, y):
    return pair_angle(y) - pair_angle(x)


def in_degrees(x, y):
    return rotation_angles(x, y) * 180 / math.pi


def half_pairs(x, y):
    turned = pair_angle(y, half=True) - pair_angle(x, half=True)
    return torch.remainder(turned + math.pi, 2 * math.pi) - math.pi


def y_to_x(x, y):
    return rotation_angles(y, x)


def products(x, y):
    """The pairs' four products x0·y0, x1·y1, x0·y1, x1·y0 (interleaved pairs)."""
    x, y = torch.as_tensor(x, dtype=torch.float64), torch.as_tensor(y, dtype=torch.float64)
    x0, x1, y0, y1 = x[..., 0::2], x[..., 1::2], y[..., 0::2], y[..., 1::2]
    return x0 * y0, x1 * y1, x0 * y1, x1 * y0


def cross_as_sum(x, y):
    a, b, c, e = products(x, y)
    return torch.atan2(c + e, a + b)


def dot_as_difference(x, y):
    a, b, c, e = products(x, y)
    return torch.atan2(c - e, a - b)


QUESTIONS = [
    Question(
        grade_id="rotation_angles",
        answer="rotation_angles",
        title="The angle each pair turns",
        reference=rotation_angles,
        probes=angle_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe(
                (np.array([1.0, 0.0, 1.0, 0.0]), rotated(np.array([1.0, 0.0, 1.0, 0.0]), 1, 100.0)),
                "x = [1, 0, 1, 0], y = R_1 x at base 100",
                note="Pair 1 turns by 1·θ_1 = 1, pair 2 by 1·θ_2 = 0.1.",
            )
        ],
        misconceptions=(
            Misconception(
                "angle_of_y",
                "That is the angle of y's pair against the horizontal axis; the rotation's angle is "
                "the difference between y's and x's angles (x's pairs are not on the axis).",
                angle_of_y,
            ),
            Misconception(
                "not_wrapped",
                "A difference of two atan2 angles lies in (−2π, 2π): bring it back into (−π, π] "
                "(or take atan2 of the pair's cross and dot products).",
                unwrapped,
            ),
            Misconception("degrees", DEGREES, in_degrees),
            Misconception(
                "half_pairing",
                "The pairs are interleaved, (x_0, x_1), (x_2, x_3), …, as in R_{Θ,m}; yours pairs "
                "coordinate i with i + d/2.",
                half_pairs,
            ),
            Misconception(
                "direction",
                "The angle turns x into y (counter-clockwise positive, as R_m turns by +m·θ_i); yours "
                "is the angle from y back to x.",
                y_to_x,
            ),
            Misconception(
                "cross_sign",
                "The first argument of your atan2 adds the two products where the 2-D cross product of "
                "x's pair with y's pair — ‖x‖‖y‖ times the sine of the angle from x to y — subtracts "
                "them: check its signs against the cross product's definition.",
                cross_as_sum,
            ),
            Misconception(
                "dot_minus",
                "The second argument of your atan2 subtracts the two products where the dot product of "
                "x's pair with y's pair — ‖x‖‖y‖ times the cosine of the angle between them — adds them "
                "(a difference of those products belongs to multiplying the pairs as complex numbers, "
                "which adds the two angles).",
                dot_as_difference,
            ),
        ),
    ),
    Question(
        grade_id="norm_claim",
        answer="norm_claim",
        title="Does the rotation change the embedding's length?",
        call=False,
        reference=lambda: "B",
        compare=Choice(NORM_OPTIONS),
        misconceptions=(
            Misconception(
                "length_changes",
                "This is document 004's claim, and it is wrong: each 2×2 block is a rotation, and a "
                "rotation keeps the length of the pair it turns (cos² + sin² = 1).",
                lambda: "A",
            ),
            Misconception(
                "pairs_change",
                "R_m is block diagonal: each block turns one pair by itself, so nothing moves from one "
                "pair to another and each pair keeps its own length.",
                lambda: "C",
            ),
            Misconception(
                "length_shrinks",
                "An orthogonal matrix (R_mᵀ R_m = I) keeps every length: ‖R_m x‖² = xᵀ R_mᵀ R_m x = ‖x‖².",
                lambda: "D",
            ),
        ),
    ),
]
