"""Part 5, from one convention to the other: the permutation P with half(x[P]) =
interleaved(x)[P] — the probes, the known-wrong permutations and their feedback."""

import torch

from autograder.authoring import IntegerArray, Misconception, Probe, Question
from solutions.positional import rope_half_permutation


# ---- probes, drawn per student
def permutation_probes(rng):
    return [Probe((int(d),), f"d = {d}") for d in sorted(rng.choice([6, 8, 10, 12, 16, 64], 3, replace=False))]


# ---- reference: solutions.positional.rope_half_permutation, read off the (d/2, 2) table of the
# pairs (d is even in the notebook; arange(0, d, 2)'s stop d ± 1 would be a mutant no even d shows)
def rope_permutation(d):
    return torch.arange(int(d)).reshape(-1, 2).T.flatten()


# ---- known-wrong answers: rope_permutation(d)
def permutation_inverse(d):
    return torch.argsort(rope_half_permutation(d))


def permutation_odd_first(d):
    return torch.cat([torch.arange(1, d, 2), torch.arange(0, d, 2)])


QUESTIONS = [
    Question(
        grade_id="rope_permutation",
        answer="rope_permutation",
        title="From one convention to the other",
        reference=rope_permutation,
        probes=permutation_probes,
        compare=IntegerArray(),
        visible=[Probe((4,), "d = 4")],
        misconceptions=(
            Misconception(
                "inverse_permutation",
                "That is the inverse permutation. P[j] names the interleaved coordinate that goes "
                "to slot j of the half layout: the even coordinates first, then the odd ones "
                "(P = [0, 2, 4, …, 1, 3, 5, …]), so that half(x[P]) = interleaved(x)[P].",
                permutation_inverse,
            ),
            Misconception(
                "odd_first",
                "Within a pair the first coordinate is the even one (x_0 of (x_0, x_1)) and it goes "
                "to the first half; odd-first turns every pair the other way.",
                permutation_odd_first,
            ),
        ),
    ),
]
