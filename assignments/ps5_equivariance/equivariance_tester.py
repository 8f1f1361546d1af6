"""Part 2, the tester for permutation equivariance (``is_permutation_equivariant``): graded by
running it, in the sandbox, on the subject functions; the expected verdict for each comes from
the reference tester in ``solutions/equivariance.py``. Its known-wrong testers, their feedback,
and the weak testers its hidden probes must reject."""

import numpy as np

from autograder.authoring import Exact, Misconception, Probe, Question
from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

from .subjects import random_tokens, tester_probes
from .visible_subjects import VISIBLE_SUBJECTS
from .weak_testers import (
    FLOAT32_NOTE,
    equivariance_checker,
    first_axis_tester,
    relative_tolerance_tester,
    weak_tester_family,
)


def equivariance_reference(f, X):
    return is_permutation_equivariant(f, X)


# ---- known-wrong testers


def _same_after(f, X, p_in, p_out):
    import torch

    y, out = f(X), f(X[..., p_in, :])
    if y.shape[-2] != X.shape[-2] or out.shape != y.shape:
        return False
    return bool(torch.allclose(out, y[..., p_out, :], atol=1e-5))


def tests_invariance_instead(f, X):
    return is_permutation_invariant(f, X)


def always_true(f, X):
    return True


def only_swaps_the_last_two(f, X):
    import torch

    p = torch.arange(X.shape[-2])
    p[-2], p[-1] = p[-1].item(), p[-2].item()
    return _same_after(f, X, p, p)


def inverse_permutation(f, X):
    import torch

    p = torch.roll(torch.arange(X.shape[-2]), 1)
    return _same_after(f, X, p, torch.argsort(p))


QUESTIONS = [
    Question(
        grade_id="equivariance_tester",
        title="A tester for permutation equivariance",
        answer="is_permutation_equivariant",
        reference=equivariance_reference,
        probes=tester_probes,
        visible=[
            Probe(
                (VISIBLE_SUBJECTS["attention_no_position"], random_tokens(np.random.default_rng(5), 5)),
                "attention without positions",
                note="Attention without positional information.",
            ),
            Probe(
                (VISIBLE_SUBJECTS["attention_causal"], random_tokens(np.random.default_rng(6), 5)),
                "attention with a causal mask",
                note="The same attention with a causal mask.",
            ),
        ],
        extra_mutants=weak_tester_family(equivariance_checker),
        compare=Exact(),
        misconceptions=(
            Misconception(
                "tests_invariance",
                "Your tester checks f(PX) = f(X) — invariance. Equivariance is "
                "f(PX) = P·f(X): permute the output rows the same way before comparing.",
                tests_invariance_instead,
            ),
            Misconception(
                "no_real_permutation",
                "Your tester says every function is equivariant: it never compares f on a "
                "really permuted input with the permuted output.",
                always_true,
            ),
            Misconception(
                "one_permutation_is_not_enough",
                "Your tester called a function equivariant that is not: it departs from "
                "equivariance only slightly, at one token. Either your permutations never move "
                "that token (try several, including ones that move every position), or your "
                "tolerance is too loose (compare with a tight atol such as 1e-5).",
                only_swaps_the_last_two,
            ),
            Misconception(
                "inverse_permutation",
                "Permute the output with the same permutation P as the input "
                "(y[..., p, :], not y[..., argsort(p), :]): f(X[..., p, :]) should equal f(X)[..., p, :].",
                inverse_permutation,
            ),
            Misconception(
                "permutes_first_axis",
                "Your tester reorders X[p] — the first axis, which for a batch (B, T, d) holds the "
                "sequences, not the tokens. Reorder the token axis: X[..., p, :].",
                first_axis_tester(equivariance_checker),
            ),
            Misconception(
                "relative_tolerance",
                "Your tester compares with a tolerance relative to the values (torch.allclose's "
                "default rtol): on large outputs a real difference passes. Use the absolute "
                "tolerance the notebook states (rtol=0)." + FLOAT32_NOTE,
                relative_tolerance_tester(equivariance_checker),
            ),
        ),
    ),
]
