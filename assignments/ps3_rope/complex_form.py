"""Part 4b, document 001's RoPE formulas: its complex form RoPE(x, m) = x ⊙ e^{imθ}
(``apply_rope_complex``; 001 writes one θ, "a hyperparameter that controls the frequency", where
every pair has its own θ_i) and position interpolation, which 001 credits to Chen et al. (2023)
for a learned table while Chen et al. squeeze RoPE's position indices (``rope_interpolated``; 001's
α = L_train / L_inference, no table rows to round to). References: ``solutions.positional``."""

import numpy as np
import torch

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.positional import apply_rope_complex, rope_interpolated

from .common import EXPONENT_SIGN, randn, rope


# ---- 4b (i): the complex form
def complex_probes(rng):
    probes = []
    for base in (100.0, float(rng.choice([500.0, 10000.0]))):
        d = int(rng.choice([4, 8, 16]))
        t = int(rng.integers(3, 7))
        positions = rng.choice(np.arange(0, 200), t, replace=False).astype(np.int64)
        probes += [
            Probe((randn(rng, t, d), positions, base), f"(T, d) input, d = {d}"),
            Probe((randn(rng, 2, 3, t, d), positions, base), f"(B, H, T, d) input, d = {d}"),
        ]
    t = int(rng.integers(3, 7))
    return probes + [Probe((randn(rng, t, 6), np.arange(t, dtype=np.int64)), "(T, 6) input, base left at its default")]


def complex_reference(x, positions, base=10000.0):
    return apply_rope_complex(x, positions, base)


def one_theta(pair):
    """Every pair turned at the frequency of one pair (001's single θ)."""

    def wrong(x, positions, base=10000.0):
        d = x.shape[-1]
        theta = float(base) ** (-2 * (pair(d) - 1) / d)
        ang = torch.as_tensor(positions).to(torch.float64)[:, None] * theta
        c, s = ang.cos(), ang.sin()
        xd = x.to(torch.float64)
        a, b = xd[..., 0::2], xd[..., 1::2]
        return torch.stack([a * c - b * s, a * s + b * c], -1).flatten(-2).to(x.dtype)

    return wrong


def complex_single_theta_others(x, positions, base=10000.0):
    return [one_theta(lambda d: d // 2)(x, positions, base)]


def complex_variant(**kw):
    def wrong(x, positions, base=10000.0):
        return rope(x, positions, base, "interleaved", **kw)

    return wrong


def complex_of_halves(x, positions, base=10000.0):
    return rope(x, positions, base, "half")


# ---- 4b (ii): position interpolation
def interpolation_probes(rng):
    """Three training lengths a < b < c: past a (T, d) and past b (a batch), a sequence shorter
    than c, and one exactly as long as a."""
    a, b, c = (int(n) for n in np.sort(rng.choice(np.arange(4, 12), 3, replace=False)))
    return [
        Probe((randn(rng, a + int(rng.integers(2, 9)), 8), a, 100.0), f"T past train_length = {a}"),
        Probe((randn(rng, 2, b + int(rng.integers(2, 9)), 8), b, 100.0), f"(B, T, d), T past train_length = {b}"),
        Probe((randn(rng, int(rng.integers(3, c - 1)), 8), c, 100.0), "T shorter than train_length"),
        Probe((randn(rng, a, 4), a), "T = train_length, base left at its default"),
    ]


def interpolation_reference(x, train_length, base=10000.0):
    return rope_interpolated(x, train_length, base)


def at_positions(positions_of):
    def wrong(x, train_length, base=10000.0):
        t = x.shape[-2]
        return rope(x, positions_of(t, train_length), base, "interleaved")

    return wrong


def table_rows(t, train):
    return np.floor(np.arange(t) * min(1.0, train / t))


def inverted_ratio(t, train):
    return np.arange(t) * (t / train if t > train else 1.0)


def always_scaled(t, train):
    return np.arange(t) * (train / t)


def not_interpolated(t, train):
    return np.arange(t, dtype=np.float64)


QUESTIONS = [
    Question(
        grade_id="apply_rope_complex",
        answer="apply_rope_complex",
        title="001's complex form of RoPE",
        reference=complex_reference,
        probes=complex_probes,
        compare=AllClose(atol=3e-4, rtol=1e-4, same_dtype=True),
        visible=[
            Probe(
                (np.eye(4, dtype=np.float32), np.arange(4), 100.0),
                "d = 4, base 100",
                note="The rows of the 4×4 identity at positions 0, 1, 2, 3 (base 100).",
            )
        ],
        misconceptions=(
            Misconception(
                "single_theta",
                "Document 001 writes RoPE(x, m) = x ⊙ e^{imθ} with one θ, but every pair has its own "
                "frequency: pair i is multiplied by e^{i m θ_i}, θ_i = base^(−2(i−1)/d), so the "
                "first pairs turn fast and the last ones slowly.",
                one_theta(lambda d: 1),
                also_wrong=complex_single_theta_others,
            ),
            Misconception("exponent_sign", EXPONENT_SIGN, complex_variant(sign=+1)),
            Misconception(
                "conjugate",
                "You multiply by e^{−imθ_i} (or read the pair as x_{2i−1} + i·x_{2i−2}): that turns "
                "every pair backwards. The pair (x_{2i−2}, x_{2i−1}) is the complex number "
                "x_{2i−2} + i·x_{2i−1}, multiplied by e^{+imθ_i}.",
                complex_variant(backwards=True),
            ),
            Misconception(
                "halves_as_complex",
                "Your complex numbers pair x_i with x_{i+d/2} (the rotate_half layout); 001's "
                "complex product, like Meta's LLaMA code, reads adjacent coordinates "
                "(x_0, x_1), (x_2, x_3), … as one complex number each.",
                complex_of_halves,
            ),
        ),
    ),
    Question(
        grade_id="rope_interpolated",
        answer="rope_interpolated",
        title="Position interpolation for RoPE",
        reference=interpolation_reference,
        probes=interpolation_probes,
        depends_on=("apply_rope",),
        compare=AllClose(atol=3e-4, rtol=1e-4, same_dtype=True),
        visible=[
            Probe(
                (np.eye(4, dtype=np.float32), 4, 100.0),
                "T = train_length = 4",
                note="Four tokens for a model trained on four (base 100).",
            )
        ],
        misconceptions=(
            Misconception(
                "table_rows",
                "Your positions are rounded down to whole numbers, as 001's formula reads the rows "
                "P[⌊αi⌋] of a learned table. RoPE has no table: it rotates by any real angle, so "
                "token m sits at α·m itself, and no two tokens share a position.",
                at_positions(table_rows),
            ),
            Misconception(
                "inverted_ratio",
                "Your scale is inverted: α = L_train / L_inference (001) is below 1 for a longer "
                "sequence and squeezes the positions into the trained range; T / L_train stretches "
                "them further beyond it.",
                at_positions(inverted_ratio),
            ),
            Misconception(
                "always_scaled",
                "Your positions are rescaled also for a sequence no longer than the training length: "
                "such a sequence fits the trained range as it is; rescaling moves its tokens to "
                "positions (and offsets) the model never saw.",
                at_positions(always_scaled),
            ),
            Misconception(
                "not_interpolated",
                "Past the training length your positions are 0 … T−1 unchanged: that is extrapolation, "
                "angles the model never saw. Position interpolation scales them by α = L_train / T.",
                at_positions(not_interpolated),
            ),
        ),
    ),
]
