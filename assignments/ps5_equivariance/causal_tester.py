"""Part 4, a tester for causality (``is_causal``): output t must not change when the tokens
after t change (001's and 003's causal mask, seen from the outside). Graded by running it, in
the sandbox, on the layers of ``causal_subjects``; the expected verdict for each comes from
``solutions.equivariance.is_causal``. Its known-wrong testers, their feedback, and the weak
testers its hidden probes must reject."""

import numpy as np
import torch

from autograder.authoring import Exact, Misconception, Probe, Question
from solutions.equivariance import future_changes, is_causal

from .causal_subjects import causal_probes
from .subjects import random_tokens
from .visible_subjects import VISIBLE_SUBJECTS
from .weak_testers import FLOAT32_NOTE


def causal_reference(f, X):
    return is_causal(f, X)


def causal_checker(
    *, changes=future_changes, kept=lambda t: slice(0, t + 1), atol=1e-5, rtol=0.0, steps=None, first_axis=False
):
    """A causality tester: for each t in ``steps(T)``, the future changed by ``changes``, the
    outputs at ``kept(t)`` compared with tolerance ``atol`` (+ ``rtol``·|y|); ``first_axis``:
    slices X[t+1:] and y[:t+1] (the batch, on a (B, T, d) input)."""

    def tester(f, X):
        X = torch.as_tensor(X)
        y = f(X)
        if y.shape[:-1] != X.shape[:-1]:
            return False
        n = X.shape[0] if first_axis else X.shape[-2]
        for t in range(n - 1) if steps is None else steps(n):
            for changed in changes(X.transpose(0, -2) if first_axis else X, t):
                changed = changed.transpose(0, -2) if first_axis else changed
                a, b = f(changed), y
                a, b = (a[kept(t)], b[kept(t)]) if first_axis else (a[..., kept(t), :], b[..., kept(t), :])
                if a.shape != b.shape or not torch.allclose(a, b, atol=atol, rtol=rtol):
                    return False
        return True

    return tester


def random_only(x, t):
    return list(future_changes(x, t))[:1]


def next_token_only(x, t):
    changed = x.clone()
    changed[..., t + 1, :] = 3 * torch.randn(changed[..., t + 1, :].shape)
    return [changed]


compares_whole_output = causal_checker(kept=lambda t: slice(None))
prefix_without_t = causal_checker(kept=lambda t: slice(0, t))
changes_batch_axis = causal_checker(first_axis=True)
random_changes_only = causal_checker(changes=random_only)
relative_tolerance = causal_checker(atol=1e-8, rtol=1e-5)


def always_causal(f, X):
    return True


WEAK_CAUSAL_TESTERS = {
    "weak tester: changes only token t + 1, looks only at output t": causal_checker(
        changes=next_token_only, kept=lambda t: slice(t, t + 1)
    ),
    "weak tester: tries t = 0 only": causal_checker(steps=lambda n: range(min(n - 1, 1))),
    "weak tester: loose tolerance (atol 1e-2)": causal_checker(atol=1e-2),
    "weak tester: compares outputs up to t + 1": causal_checker(kept=lambda t: slice(0, t + 2)),
}

QUESTIONS = [
    Question(
        grade_id="causal_tester",
        title="A tester for causality",
        answer="is_causal",
        reference=causal_reference,
        probes=causal_probes,
        visible=[
            Probe(
                (VISIBLE_SUBJECTS["causal_attention"], random_tokens(np.random.default_rng(8), 5)),
                "causal attention",
                note="Attention with a causal mask.",
            ),
            Probe(
                (VISIBLE_SUBJECTS["bidirectional_attention"], random_tokens(np.random.default_rng(9), 5)),
                "attention without a mask",
                note="The same attention without a mask.",
            ),
        ],
        extra_mutants=WEAK_CAUSAL_TESTERS,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "compares_whole_output",
                "Your tester calls causal layers leaky: it compares outputs that are allowed to "
                "change. When the tokens after t change, only the outputs at positions up to t "
                "must stay the same; later outputs read the changed tokens legitimately.",
                compares_whole_output,
            ),
            Misconception(
                "output_t_not_compared",
                "Your tester misses a layer whose output t reads token t + 1 (a mask off by "
                "one): the output at t itself must be among the outputs you compare.",
                prefix_without_t,
            ),
            Misconception(
                "batch_axis",
                "Your tester changes X[t+1:] and compares y[:t+1] — the first axis, which for a "
                "batch (B, T, d) is the sequences, not the tokens: the token axis is -2.",
                changes_batch_axis,
            ),
            Misconception(
                "random_changes_only",
                "Your tester misses a layer that sees the future only through padding: change "
                "the tokens after t in more than one way, zeros (padding) among them.",
                random_changes_only,
            ),
            Misconception(
                "relative_tolerance",
                "Your tester compares with a tolerance relative to the values (torch.allclose's "
                "default rtol): on large outputs a small leak passes. Use the absolute tolerance "
                "the notebook states (rtol=0)." + FLOAT32_NOTE,
                relative_tolerance,
            ),
            Misconception(
                "no_real_change",
                "Your tester says every layer is causal: it never compares the outputs of an input "
                "whose future tokens were changed.",
                always_causal,
            ),
        ),
    ),
]
