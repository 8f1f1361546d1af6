"""Part 6, synthetic scores: where the last query looks (the weights softmax_j m·(j − i) of the
last row): the probes, the known-wrong profiles and their feedback."""

import torch

from autograder.authoring import AllClose, Misconception, Probe, Question, StatedRange
from solutions.encodings import alibi_last_row_weights

from .bias import BIAS_SIGN


# ---- probes, drawn per student
def profile_probes(rng):
    return [
        *(
            Probe((float(2.0 ** -rng.integers(1, 9)), int(length)), f"length {length}")
            for length in (int(rng.integers(5, 20)), int(rng.integers(100, 300)), 2048)
        ),
        Probe((0.5, 2048), "slope 1/2, length 2048"),
        Probe((float(2.0 ** -rng.integers(1, 9)), 1), "length 1"),
    ]


NO_EMPTY_SEQUENCE = {
    "length": "length 0 has no last query: the notebook's query is i = length − 1 over keys "
    "0 … length − 1, so length ≥ 1; length 1 is probed"
}


# what the text promises: "The grader uses up to 2048 keys and slopes up to 1/2" (and the last
# query i = length − 1 needs a key: length ≥ 1)
PROFILE_RANGES = {
    "length": StatedRange(text="The grader uses up to 2048 keys", low=1, high=2048),
    "slope": StatedRange(text="slopes up to $1/2$", high=0.5),
}


# ---- known-wrong profiles: alibi_profile(slope, length)
def profile_sign(slope, length):
    j = torch.arange(length, dtype=torch.float64)
    return torch.softmax(-slope * (j - (length - 1)), dim=0)


def profile_uniform(slope, length):
    return torch.full((length,), 1.0 / length, dtype=torch.float64)


def profile_overflow(slope, length):
    """exp(m·j) / Σ exp(m·j): NaN once m·(length − 1) > 709."""
    w = torch.exp(slope * torch.arange(length, dtype=torch.float64))
    return w / w.sum()


def profile_unnormalised(slope, length):
    j = torch.arange(length, dtype=torch.float64)
    return torch.exp(slope * (j - (length - 1)))


QUESTIONS = [
    Question(
        grade_id="alibi_profile",
        answer="alibi_profile",
        title="Synthetic scores: where the last query looks",
        reference=alibi_last_row_weights,
        probes=profile_probes,
        compare=AllClose(atol=1e-6, rtol=1e-4),
        coverage_exempt=NO_EMPTY_SEQUENCE,
        stated_ranges=PROFILE_RANGES,
        visible=[Probe((0.5, 4), "slope 1/2, 4 keys")],
        misconceptions=(
            Misconception("bias_sign", BIAS_SIGN, profile_sign),
            Misconception(
                "bias_ignored",
                "With every content score 0 the weights come from the bias alone: "
                "softmax over j of m·(j − i) — not uniform.",
                profile_uniform,
            ),
            Misconception(
                "not_normalised",
                "Attention weights sum to 1: take the softmax of the biases, not just exp(m·(j − i)).",
                profile_unnormalised,
            ),
            Misconception(
                "overflow",
                "exp(m·j) overflows for long sequences (m = 1/2, j = 2047: e^1023 > "
                "the largest float64), and inf/inf is NaN. Subtract the row's largest score before "
                "exp, i.e. use m·(j − i), which is ≤ 0 — or torch.softmax, which does it for you.",
                profile_overflow,
            ),
        ),
    ),
]
