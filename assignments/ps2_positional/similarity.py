"""Part 5, similarity vs distance: PE(p)·PE(p + Δ) = Σ cos(Δω_i) (SymPy identity in
tests/solutions/test_encodings.py) — the probes, the known-wrong similarities (some built on a wrong
`sinusoidal_pe`, which the student's answer calls: root cause) and their feedback."""

import numpy as np
import sympy
import torch

from autograder.authoring import AllClose, Exact, Formula, Misconception, Probe, Question
from solutions.encodings import sinusoidal_similarity

from .common import COS_TYPO, DIM_INDEX, EXPONENT_SIGN, I_NOT_2I, ODD_EXPONENT, ONE_FREQUENCY_TOO_MANY, omegas, pe

FROM_PE = "Your dot products are taken right, but the encodings come from a sinusoidal_pe with a mistake (see 1a): "
SIM = {
    "normalised": "Return the raw dot product PE(p)·PE(p + Δ) (d/2 at Δ = 0), not the cosine similarity.",
    "offset": "Δ is a distance, not a position: compare PE(p) with PE(p + Δ), not with PE(Δ).",
}


# ---- probes, drawn per student
def similarity_probes(rng):
    probes = [
        Probe(
            (int(rng.integers(1, 200)), np.arange(0, 80, dtype=np.int64), int(d), float(b)),
            f"distances 0 … 79, d = {d}, base = {b:g}",
        )
        for d, b in zip(rng.choice([8, 16, 64, 128], 2, replace=False), (1000.0, 100.0))
    ]
    # the notebook promises distances >= 0 (PE has no negative positions): scattered, not 0 … 79
    distances = np.sort(rng.choice(np.arange(0, 240), 25, replace=False)).astype(np.int64)
    return probes + [Probe((int(rng.integers(1, 200)), distances, 32), "25 scattered distances, d = 32, base default")]


# ---- known-wrong answers: pe_similarity(p, distances, d, base)
def similarity(p, distances, d, base=10000.0, *, normalised=False, offset_as_position=False, **omega_kw):
    dist = torch.as_tensor(distances).to(torch.float64).reshape(-1)
    w = omegas(d, base, **omega_kw)

    def enc(pos):
        ang = pos[:, None] * w
        return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(-2)

    other = dist if offset_as_position else float(p) + dist
    out = (enc(torch.full_like(dist, float(p))) * enc(other)).sum(-1)
    return out / (d / 2) if normalised else out


def similarity_variant(**kw):
    def wrong(p, distances, d, base=10000.0):
        return similarity(p, distances, d, base, **kw)

    return wrong


def similarity_from_table(**pe_kw):
    """A right pe_similarity built on a wrong sinusoidal_pe (``pe``'s switches)."""

    def wrong(p, distances, d, base=10000.0):
        dist = torch.as_tensor(distances).long()
        table = pe(p + int(dist.max()) + 1, d, base, **pe_kw)
        return table[p + dist] @ table[p]

    return wrong


# ---- 5a′: the d = 4, base 100 similarity as a formula, and where the curve first rises
_P, _DELTA = sympy.symbols("p Delta", positive=True)
RISE_D = 64  # the plot's d = 64, base 10000, p = 0


def similarity_formula(omega_1=None):
    """PE(p)·PE(p + Δ) for d = 4: cos(Δ·ω_0) + cos(Δ·ω_1), ω_0 = 1, ω_1 = 100^(−2/4) = 1/10."""
    omega_1 = sympy.Rational(1, 10) if omega_1 is None else omega_1
    return sympy.cos(_DELTA) + sympy.cos(_DELTA * omega_1)


def first_rise(d=RISE_D, base=10000.0, shift=0):
    """The smallest Δ ≥ 1 with PE(0)·PE(Δ) > PE(0)·PE(Δ − 1) (d = 64, base 10000), from the
    reference similarity."""
    s = sinusoidal_similarity(0, torch.arange(0, 300), d, base)
    return int(torch.nonzero(s[1:] > s[:-1])[0, 0]) + 1 + shift


def cosines_only():
    """The dot product without the sine columns."""
    return sum(sympy.cos(w * _P) * sympy.cos(w * (_P + _DELTA)) for w in (1, sympy.Rational(1, 10)))


QUESTIONS = [
    Question(
        grade_id="similarity",
        answer="pe_similarity",
        title="Similarity vs distance",
        reference=sinusoidal_similarity,
        depends_on=("sinusoidal_pe",),
        probes=similarity_probes,
        compare=AllClose(atol=2e-3, rtol=1e-4),
        visible=[Probe((5, np.array([0, 1, 2, 10, 50]), 4, 100.0), "p = 5, d = 4, base 100")],
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, similarity_variant(sign=+1)),
            Misconception("i_not_2i", I_NOT_2I, similarity_variant(factor=1)),
            Misconception("normalised", SIM["normalised"], similarity_variant(normalised=True)),
            Misconception("offset_as_position", SIM["offset"], similarity_variant(offset_as_position=True)),
            Misconception("pe_d_not_d_half", FROM_PE + DIM_INDEX, similarity_from_table(dim_index=True)),
            Misconception("pe_cos_typo_000", FROM_PE + COS_TYPO, similarity_from_table(cos_typo=True)),
            Misconception("odd_exponent", ODD_EXPONENT, similarity_variant(odd=True)),
            Misconception("one_frequency_too_many", ONE_FREQUENCY_TOO_MANY, similarity_variant(extra=1)),
        ),
    ),
    Question(
        grade_id="similarity_formula",
        answer="similarity_formula",
        title="Similarity for d = 4, base 100, as a formula",
        call=False,
        reference=similarity_formula,
        compare=Formula(("p", "Delta"), timeout_s=10.0),  # trigonometric: SymPy may need seconds when loaded
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, lambda: similarity_formula(sympy.Integer(10))),
            Misconception("i_not_2i", I_NOT_2I, lambda: similarity_formula(1 / sympy.sqrt(10))),
            Misconception(
                "cosines_only",
                "The dot product runs over all d columns: the sine columns contribute "
                "sin(p·ω_i)·sin((p + Δ)·ω_i) as well as the cosine ones.",
                cosines_only,
            ),
            Misconception("normalised", SIM["normalised"], lambda: similarity_formula() / 2),
            Misconception(
                "second_frequency_one_over_base",
                "Your second frequency is 1/base, as if its exponent were −1 whatever i and d: "
                "ω_i = base^(−2i/d) — work out the exponent of the second pair for this d.",
                lambda: similarity_formula(sympy.Rational(1, 100)),
            ),
        ),
    ),
    Question(
        grade_id="first_rise",
        answer="first_rise",
        title="Where does the similarity first rise?",
        call=False,
        reference=first_rise,
        compare=Exact(integers=True, none_allowed=True),
        misconceptions=(
            Misconception(
                "monotone",
                "The curve is not monotone: a sum of cosines of different frequencies rises again "
                "between its falls — look at the plot's first few distances, or compare neighbours "
                "in code.",
                lambda: None,
            ),
            Misconception(
                "last_fall",
                "That is the last distance before the rise (the end of the first fall): the "
                "question asks for the first Δ whose similarity is larger than at Δ − 1.",
                lambda: first_rise(shift=-1),
            ),
            Misconception(
                "other_base",
                "Use the plot's setting, base 10000 (the default); with a smaller base the curve has other bumps.",
                lambda: first_rise(base=100.0),
            ),
        ),
    ),
]
