"""PS5 — permutation equivariance: question specs.

The student's testers are graded by running them, in the sandbox, on the grader's own
functions (sent as source, compiled there): the expected verdict for each function comes from
the reference tester in ``solutions/equivariance.py``. Document 000 (Q5.4) claims the output
"stays the same" for a reordered input; that is the invariance misconception, answer "A" below.
"""

import numpy as np

from autograder.authoring import Assignment, Exact, FunctionSource, Misconception, Probe, Question
from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

from .weak_testers import EXTRA_MUTANTS

# One self-contained single-head attention with fixed weights, shared by the subject functions.
_ATTENTION = """
def _attention(X, positions=None, causal=False, rope=False, queries=None):
    g = torch.Generator().manual_seed(1234)
    d = X.shape[-1]
    W = [torch.randn(d, d, generator=g) / d ** 0.5 for _ in range(3)]
    H = X.float()
    if positions == "sinusoidal":
        pos = torch.arange(H.shape[-2]).float()[:, None]
        freq = 100.0 ** (-torch.arange(0, d, 2).float() / d)
        pe = torch.zeros(H.shape[-2], d)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
        H = H + pe
    q = (H if queries is None else queries(d)) @ W[0]
    k, v = H @ W[1], H @ W[2]
    if rope:
        def rotate(x):
            t = x.shape[-2]
            angle = torch.arange(t).float()[:, None] * 100.0 ** (-torch.arange(0, d, 2).float() / d)
            c, s = torch.cos(angle), torch.sin(angle)
            out = x.clone()
            out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
            out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
            return out
        q, k = rotate(q), rotate(k)
    scores = q @ k.transpose(-2, -1) / d ** 0.5
    if causal:
        t = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, -1) @ v
"""


def subject(name: str, body: str) -> FunctionSource:
    return FunctionSource(_ATTENTION + f"\n\ndef {name}(X):\n" + body, name)


SUBJECTS = {
    "attention_no_position": subject("attention_no_position", "    return _attention(X)\n"),
    "attention_sinusoidal": subject("attention_sinusoidal", "    return _attention(X, positions='sinusoidal')\n"),
    "attention_causal": subject("attention_causal", "    return _attention(X, causal=True)\n"),
    "attention_rope": subject("attention_rope", "    return _attention(X, rope=True)\n"),
    "tanh_projection": subject("tanh_projection", "    return torch.tanh(X) @ torch.ones(X.shape[-1], 3)\n"),
    "mean_pooled": subject("mean_pooled", "    return _attention(X).mean(-2, keepdim=True)\n"),
    "cross_attention_fixed_queries": subject(
        "cross_attention_fixed_queries",
        "    return _attention(X, queries=lambda d: torch.linspace(-1, 1, 3 * d).reshape(3, d))\n",
    ),
    # adversarial: equivariant except that token 0 gets a small extra term
    "first_token_special": subject(
        "first_token_special",
        "    y = _attention(X).clone()\n    y[..., 0, :] = y[..., 0, :] + 1e-3 * X[..., 0, :]\n    return y\n",
    ),
    # Each of the following defeats one classic weak tester (weak_testers.py):
    # a swap of the first two tokens never moves the last one,
    "last_token_special": subject(
        "last_token_special",
        "    y = _attention(X).clone()\n    y[..., -1, :] = y[..., -1, :] + 0.5 * X[..., -1, :]\n    return y\n",
    ),
    # a reversal maps position i to T-1-i, where this position weight is the same,
    "reversal_symmetric_position": subject(
        "reversal_symmetric_position",
        "    t = X.shape[-2]\n    w = (torch.arange(t).float() - (t - 1) / 2).abs()\n"
        "    return _attention(X) + 0.5 * w[:, None] * X\n",
    ),
    # cyclic shifts keep every token's successor,
    "circular_neighbour": subject("circular_neighbour", "    return X + 0.5 * torch.roll(X, -1, dims=-2)\n"),
    # reversals and cyclic shifts together (the dihedral group) keep every token's pair of
    # neighbours,
    "circular_both_neighbours": subject(
        "circular_both_neighbours", "    return X + 0.5 * (torch.roll(X, 1, dims=-2) + torch.roll(X, -1, dims=-2))\n"
    ),
    # sorted rows: the same multiset of rows for every order (invariant, not equivariant),
    "sorted_rows": subject(
        "sorted_rows", "    y = _attention(X)\n    return y[..., torch.argsort(y[..., 0], dim=-1), :]\n"
    ),
    # and, for invariance testers: a symmetric weighting survives the reversal,
    "symmetric_weighted_pool": subject(
        "symmetric_weighted_pool",
        "    t = X.shape[-2]\n    w = 1 + (torch.arange(t).float() - (t - 1) / 2).abs()\n"
        "    return (w[:, None] * X).sum(-2, keepdim=True)\n",
    ),
    # products of neighbours (cyclically) survive the cyclic shifts,
    "circular_pair_pool": subject(
        "circular_pair_pool", "    return (X * torch.roll(X, -1, dims=-2)).sum(-2, keepdim=True)\n"
    ),
    # the last token alone survives a swap of the first two,
    "last_token_readout": subject("last_token_readout", "    return X[..., -1:, :].clone()\n"),
    # and a pooled output nudged by token 0 passes a loose tolerance.
    "nearly_invariant_pool": subject(
        "nearly_invariant_pool", "    return _attention(X).mean(-2, keepdim=True) + 1e-3 * X[..., :1, :]\n"
    ),
}


def _tokens(rng, t, d=8):
    return rng.standard_normal((t, d)).astype(np.float32)


def tester_probes(rng: np.random.Generator) -> list[Probe]:
    t = int(rng.integers(4, 8))
    probes = [Probe((fn, _tokens(rng, t)), name) for name, fn in SUBJECTS.items()]
    # the same functions on another length: a tester must not depend on T
    t2 = int(rng.integers(6, 10))
    return probes + [
        Probe((SUBJECTS[name], _tokens(rng, t2)), f"{name}, T = {t2}")
        for name in ("attention_no_position", "first_token_special", "mean_pooled")
    ]


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


def equivariance_reference(f, X):
    return is_permutation_equivariant(f, X)


def invariance_reference(f, X):
    return is_permutation_invariant(f, X)


def tests_equivariance_instead(f, X):
    return is_permutation_equivariant(f, X)


def invariance_always_true(f, X):
    return True


MULTIPLE_CHOICE = "B"

ASSIGNMENT = Assignment(
    name="ps5_equivariance",
    notebook="ps5_equivariance.ipynb",
    questions=[
        Question(
            grade_id="equivariance_tester",
            title="A tester for permutation equivariance",
            answer="is_permutation_equivariant",
            points=4,
            reference=equivariance_reference,
            probes=tester_probes,
            visible=[
                Probe(
                    (SUBJECTS["attention_no_position"], _tokens(np.random.default_rng(5), 5)),
                    "attention without positions",
                    note="Attention without positional information.",
                ),
                Probe(
                    (SUBJECTS["attention_causal"], _tokens(np.random.default_rng(6), 5)),
                    "attention with a causal mask",
                    note="The same attention with a causal mask.",
                ),
            ],
            extra_mutants=EXTRA_MUTANTS["equivariance_tester"],
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
                    "(y[p], not y[argsort(p)]): f(X[p]) should equal f(X)[p].",
                    inverse_permutation,
                ),
            ),
        ),
        Question(
            grade_id="invariance_tester",
            title="A tester for permutation invariance",
            answer="is_permutation_invariant",
            points=2,
            reference=invariance_reference,
            probes=tester_probes,
            visible=[
                Probe(
                    (SUBJECTS["mean_pooled"], _tokens(np.random.default_rng(7), 5)),
                    "mean-pooled attention",
                    note="Mean-pooled attention output.",
                )
            ],
            extra_mutants=EXTRA_MUTANTS["invariance_tester"],
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
                    "Your tester says every function is invariant: compare f on a permuted "
                    "input with f on the original.",
                    invariance_always_true,
                ),
            ),
        ),
        Question(
            grade_id="permuted_output",
            title="What happens to the output of self-attention when the input is reordered?",
            answer="permuted_output",
            points=2,
            call=False,
            reference=lambda: MULTIPLE_CHOICE,
            compare=Exact(),
            misconceptions=(
                Misconception(
                    "invariance_claim",
                    "A permuted input permutes the output: Y(PX) = P·Y(X) — equivariance, not "
                    "invariance. Only a pooled output (e.g. the mean over tokens) stays the same.",
                    lambda: "A",
                ),
                Misconception(
                    "arbitrary_change",
                    "Without positional information nothing in attention depends on the order: "
                    "the output rows move with their tokens, they do not change arbitrarily.",
                    lambda: "C",
                ),
            ),
        ),
    ],
)
