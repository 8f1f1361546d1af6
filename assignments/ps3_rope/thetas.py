"""Part 1, the frequencies θ_i = base^(−2(i−1)/d): the reference, the probes, the known-wrong
frequencies and their feedback."""

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.positional import rope_frequencies

from .common import EXPONENT_SIGN, thetas


# ---- probes, drawn per student
def thetas_probes(rng):
    return [
        Probe((int(d), float(b)), f"d = {d}, base = {b:g}")
        for d, b in zip(
            rng.choice([4, 6, 8, 16, 64, 128], 4, replace=False), rng.choice([100.0, 500.0, 10000.0, 1e6], 4)
        )
    ]


# ---- reference
def rope_thetas(d, base):
    return rope_frequencies(d, base)


# ---- known-wrong answers: rope_thetas(d, base)
def thetas_exponent_sign(d, base):
    return thetas(d, base, sign=+1)


def thetas_no_factor_two(d, base):
    return thetas(d, base, factor=1)


def thetas_off_by_one(d, base):
    return thetas(d, base, start=0)


QUESTIONS = [
    Question(
        grade_id="rope_thetas",
        answer="rope_thetas",
        title="The frequencies θ_i",
        reference=rope_thetas,
        probes=thetas_probes,
        compare=AllClose(atol=1e-10, rtol=1e-5),
        visible=[Probe((4, 100.0), "d = 4, base = 100", note="Document 000's setting: θ_1 = 1, θ_2 = 0.1.")],
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, thetas_exponent_sign),
            Misconception(
                "exponent_without_2",
                "The exponent is −2(i−1)/d: the pairs' exponents run "
                "from 0 down to −(d−2)/d, not to −(d−2)/(2d) — the factor 2 is missing.",
                thetas_no_factor_two,
            ),
            Misconception(
                "index_off_by_one",
                "i starts at 1 and the exponent uses i − 1: θ_1 = base^0 = 1 "
                "(the first pair turns by m radians), θ_2 = base^(−2/d), …",
                thetas_off_by_one,
            ),
        ),
    ),
]
