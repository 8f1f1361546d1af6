"""Part 1, the frequencies θ_i = base^(−2(i−1)/d): the reference, the probes, the known-wrong
frequencies and their feedback."""

from autograder.authoring import AllClose, Choice, Misconception, Probe, Question
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


FASTEST_OPTIONS = ("first", "last", "all the same", "depends on m")


def fastest_pair():
    """The pair with the largest θ_i (the angle m·θ_i grows fastest with m), as an option."""
    th = rope_frequencies(64, 10000.0)
    return {0: "first", len(th) - 1: "last"}[int(th.argmax())]


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
    Question(
        grade_id="fastest_pair",
        answer="fastest_pair",
        title="Which pairs turn fastest?",
        call=False,
        reference=fastest_pair,
        compare=Choice(FASTEST_OPTIONS),
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, lambda: "last"),
            Misconception(
                "all_the_same",
                "Each pair has its own frequency θ_i = base^(−2(i−1)/d): the pairs turn at "
                "different speeds (in document 000's setting θ_1 and θ_2 differ tenfold).",
                lambda: "all the same",
            ),
            Misconception(
                "depends_on_m",
                "Every pair's angle m·θ_i grows in proportion to m, so their order by speed is the same "
                "at every position: it is decided by θ_i alone.",
                lambda: "depends on m",
            ),
        ),
    ),
]
