"""Part 2, the shift PE(p) → PE(p + k) is linear: the matrix M_k with PE(p + k) = M_k·PE(p)
(proved in ``solutions.derivations.positional_proofs``) — the probes, the known-wrong matrices
and their feedback."""

import torch

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.encodings import sinusoidal_shift_matrix

from .common import EXPONENT_SIGN, I_NOT_2I, ODD_EXPONENT, omegas

TRANSPOSED = (
    "Your M_k is the transpose of the right one, and the transpose shifts by −k: it maps "
    "PE(p) to PE(p − k). On the pair (sin pω, cos pω) the block is [[cos kω, sin kω], "
    "[−sin kω, cos kω]] — expand sin((p+k)ω) and cos((p+k)ω)."
)
OMEGA_ONE = (
    "Block i must turn by k·ω_i, with the pair's own frequency ω_i = base^(−2i/d); yours turns "
    "every block by k radians, as if all pairs had ω = 1."
)


# ---- probes, drawn per student
def shift_probes(rng):
    probes = [
        Probe((int(k), int(d), float(rng.choice([100.0, 1000.0]))), f"k = {k}, d = {d}")
        for k, d in zip(
            (int(rng.integers(1, 50)), -int(rng.integers(1, 20)), int(rng.integers(2, 9)), 1), (4, 6, 8, 16)
        )
    ]
    return probes + [Probe((int(rng.integers(2, 30)), 10), "d = 10, base left at its default")]


# ---- known-wrong answers: shift_matrix(k, d, base)
def shift_transposed(k, d, base=10000.0):
    return sinusoidal_shift_matrix(k, d, base).T


def shift_variant(**kw):
    """M_k built from the wrong frequencies (``omega_one``: every block turns by k)."""

    def wrong(k, d, base=10000.0):
        w = torch.ones(d // 2, dtype=torch.float64) if kw.get("omega_one") else omegas(d, base, **kw)
        c, s = (k * w).cos(), (k * w).sin()
        out = torch.zeros(d, d, dtype=torch.float64)
        ev = torch.arange(0, d, 2)
        out[ev, ev], out[ev, ev + 1], out[ev + 1, ev], out[ev + 1, ev + 1] = c, s, -s, c
        return out

    return wrong


QUESTIONS = [
    Question(
        grade_id="shift_matrix",
        answer="shift_matrix",
        title="The shift PE(p) → PE(p + k) is linear",
        reference=sinusoidal_shift_matrix,
        probes=shift_probes,
        compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[Probe((1, 4, 100.0), "k = 1, d = 4, base 100")],
        misconceptions=(
            Misconception("transposed", TRANSPOSED, shift_transposed),
            Misconception("exponent_sign", EXPONENT_SIGN, shift_variant(sign=+1)),
            Misconception("i_not_2i", I_NOT_2I, shift_variant(factor=1)),
            Misconception("omega_one", OMEGA_ONE, shift_variant(omega_one=True)),
            Misconception("odd_exponent", ODD_EXPONENT, shift_variant(odd=True)),
        ),
    ),
]
