"""Part 1, the sinusoidal encoding: the table for any base and d (1a), document 001's factors
base^(2i/d) (1b) and the wavelengths 2π·base^(2i/d) (1c) — the references (with the table's
source for root cause: part 5 calls the student's `sinusoidal_pe`), the probes, the known-wrong
answers and their feedback."""

import math

import numpy as np

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question
from solutions.encodings import sinusoidal_frequencies, sinusoidal_wavelengths

from .common import COS_TYPO, DIM_INDEX, EXPONENT_SIGN, I_NOT_2I, omegas, pe

SWAPPED = (
    "sin and cos are swapped: the even columns 2i hold sin(p·ω_i) and the odd columns 2i+1 hold "
    "cos(p·ω_i) (so PE[0] = [0, 1, 0, 1, …], as in document 000's first row)."
)
HALF_LAYOUT = (
    "Your table puts all sines first and all cosines after (the concatenated layout of some "
    "libraries). The notebook's convention interleaves them: column 2i = sin(p·ω_i), column "
    "2i+1 = cos(p·ω_i)."
)
NO_2PI = (
    'That is the factor base^(2i/d), which document 001 prints as the "period". The period of '
    "sin(p / base^(2i/d)) in p is 2π·base^(2i/d): the wavelength needs the factor 2π."
)


# ---- probes, drawn per student
def pe_probes(rng):
    probes = [
        Probe((int(n), int(d), float(b)), f"n_pos = {n}, d = {d}, base = {b:g}")
        for n, d, b in zip(
            rng.integers(5, 200, 4), rng.choice([4, 6, 8, 16, 64], 4, replace=False), rng.choice([100.0, 1000.0], 4)
        )
    ]
    n, d = int(rng.integers(5, 60)), int(rng.choice([10, 12]))
    return probes + [Probe((n, d), f"n_pos = {n}, d = {d}, base left at its default")]


def wavelength_probes(rng):
    probes = [
        Probe((int(d), float(b)), f"d = {d}, base = {b:g}")
        for d, b in zip(rng.choice([4, 8, 16, 128, 512], 3, replace=False), rng.choice([100.0, 1000.0], 3))
    ]
    return probes + [Probe((int(rng.choice([6, 10, 32])),), "base left at its default")]


# ---- references. The table's is self-contained (its imports inside): the grader compares with
# it, and root cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks
# the compiled source, tests/assignments/test_reference_sources.py that it is
# solutions.positional.sinusoidal_encoding.
def sinusoidal_pe(n_pos, d, base=10000.0):
    import torch

    pos = torch.arange(int(n_pos), dtype=torch.float64)[:, None]
    inv_freq = float(base) ** (-torch.arange(0, int(d), 2, dtype=torch.float64) / int(d))
    table = torch.zeros(int(n_pos), int(d), dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos * inv_freq)
    table[:, 1::2] = torch.cos(pos * inv_freq)
    return table.to(torch.float32)


SINUSOIDAL_PE_SOURCE = FunctionSource.of(sinusoidal_pe)


def factors_001():
    return (1 / sinusoidal_frequencies(512, 10000.0))[[0, 128, 255]]


# ---- known-wrong answers
def pe_variant(**kw):
    def wrong(n_pos, d, base=10000.0):
        return pe(n_pos, d, base, **kw)

    return wrong


def wrong_factors_001(**kw):
    """Document 001's numbers: the factor for i = 0, 128, 255 at d = 512, base 10000."""
    return omegas(512, 10000.0, **kw)[[0, 128, 255]]


def wavelength_variant(two_pi=True, **kw):
    def wrong(d, base=10000.0):
        w = 1 / omegas(d, base, **kw)
        return 2 * math.pi * w if two_pi else w

    return wrong


def _pe_mis(name, feedback, **kw):
    return Misconception(name, feedback, pe_variant(**kw))


QUESTIONS = [
    Question(
        grade_id="sinusoidal_pe",
        answer="sinusoidal_pe",
        title="Sinusoidal PE for any base and d",
        reference=sinusoidal_pe,
        reference_source=SINUSOIDAL_PE_SOURCE,
        probes=pe_probes,
        compare=AllClose(atol=2e-4, rtol=1e-4),
        visible=[
            Probe(
                (3, 4, 100.0),
                "base 100, d = 4, positions 0, 1, 2",
                note="Document 000's table: [0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, −0.42, 0.20, 0.98].",
            ),
            Probe((2, 8, 10000.0), "base 10000, d = 8"),
        ],
        misconceptions=(
            _pe_mis("exponent_sign", EXPONENT_SIGN, sign=+1),
            _pe_mis("sin_cos_swapped", SWAPPED, swap=True),
            _pe_mis("i_not_2i", I_NOT_2I, factor=1),
            _pe_mis("d_not_d_half", DIM_INDEX, dim_index=True),
            _pe_mis("half_layout", HALF_LAYOUT, layout="half"),
            _pe_mis("cos_typo_000", COS_TYPO, cos_typo=True),
        ),
    ),
    Question(
        grade_id="factors_001",
        answer="factors_001",
        title="Document 001's factors",
        call=False,
        reference=factors_001,
        compare=AllClose(atol=1e-6, rtol=1e-5),
        misconceptions=(
            Misconception(
                "div_term",
                "These are document 001's div_term values base^(−2i/d), what the positions are "
                "multiplied by — not the factors base^(2i/d) that 001 divides them by.",
                lambda: wrong_factors_001(),
            ),
            Misconception("i_not_2i", I_NOT_2I, lambda: 1 / wrong_factors_001(factor=1)),
            Misconception(
                "wavelength",
                "That is the wavelength (question 1c), the positions a pair needs for one full "
                "turn — not the factor base^(2i/d) the question asks for.",
                lambda: 2 * np.pi / wrong_factors_001(),
            ),
        ),
    ),
    Question(
        grade_id="wavelengths",
        answer="sinusoidal_wavelengths",
        title="Wavelengths of the sinusoidal PE",
        reference=sinusoidal_wavelengths,
        probes=wavelength_probes,
        compare=AllClose(atol=1e-6, rtol=1e-5),
        visible=[Probe((4, 100.0), "d = 4, base = 100", note="2π and 20π: pair 1 repeats every ≈ 62.8 positions.")],
        misconceptions=(
            Misconception("no_2pi", NO_2PI, wavelength_variant(two_pi=False)),
            Misconception("exponent_sign", EXPONENT_SIGN, wavelength_variant(sign=+1)),
            Misconception("i_not_2i", I_NOT_2I, wavelength_variant(factor=1)),
        ),
    ),
]
