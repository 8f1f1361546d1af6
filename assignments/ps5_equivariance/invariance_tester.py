"""Part 2, the tester for permutation invariance (``is_permutation_invariant``): graded like the
equivariance tester, on the same subject functions and hidden probes, against the reference
in ``solutions/equivariance.py``; its known-wrong testers, their feedback, and its weak testers."""

import numpy as np

from autograder.authoring import Exact, Misconception, Probe, Question
from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

from .subjects import random_tokens, tester_probes
from .visible_subjects import VISIBLE_SUBJECTS
from .weak_testers import (
    FLOAT32_NOTE,
    first_axis_tester,
    invariance_checker,
    relative_tolerance_tester,
    weak_tester_family,
)


def invariance_reference(f, X):
    return is_permutation_invariant(f, X)


# ---- known-wrong testers


def tests_equivariance_instead(f, X):
    return is_permutation_equivariant(f, X)


def invariance_always_true(f, X):
    return True


QUESTIONS = [
    Question(
        grade_id="invariance_tester",
        title="A tester for permutation invariance",
        answer="is_permutation_invariant",
        reference=invariance_reference,
        probes=tester_probes,
        visible=[
            Probe(
                (VISIBLE_SUBJECTS["mean_pooled"], random_tokens(np.random.default_rng(7), 5)),
                "mean-pooled attention",
                note="Mean-pooled attention output.",
            )
        ],
        extra_mutants=weak_tester_family(invariance_checker),
        compare=Exact(),
        misconceptions=(
            Misconception(
                "tests_equivariance",
                "Invariance means the output does not change at all: f(PX) = f(X). "
                "Your tester checks equivariance, f(PX) = P·f(X).",
                tests_equivariance_instead,
            ),
            Misconception(
                "no_real_permutation",
                "Your tester says every function is invariant: compare f on a permuted input with f on the original.",
                invariance_always_true,
            ),
            Misconception(
                "permutes_first_axis",
                "Your tester reorders X[p] — the first axis, which for a batch (B, T, d) holds the "
                "sequences, not the tokens. Reorder the token axis: X[..., p, :].",
                first_axis_tester(invariance_checker),
            ),
            Misconception(
                "relative_tolerance",
                "Your tester compares with a tolerance relative to the values (torch.allclose's "
                "default rtol): on large outputs a real difference passes. Use the absolute "
                "tolerance the notebook states (rtol=0)." + FLOAT32_NOTE,
                relative_tolerance_tester(invariance_checker),
            ),
        ),
    ),
]
