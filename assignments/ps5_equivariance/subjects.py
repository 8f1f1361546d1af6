"""The grader's own functions that the student's testers classify (sent as source, compiled in
the sandbox), shared by both tester questions, and the hidden probes built from them: each
subject is a single-head attention with fixed weights or a small variation of it, several
built to defeat one classic weak tester (weak_testers.py)."""

import numpy as np

from autograder.authoring import FunctionSource, Probe

# One self-contained single-head attention with fixed weights, shared by the subject functions
# (also by causal_subjects.py).
ATTENTION_SOURCE = """
def _attention(X, positions=None, causal=False, rope=False, queries=None, ahead=0, mask_after=False):
    g = torch.Generator().manual_seed(1234)
    d = X.shape[-1]
    W = [torch.randn(d, d, generator=g).double() / d ** 0.5 for _ in range(3)]
    H = X.double()
    if positions == "sinusoidal":
        pos = torch.arange(H.shape[-2]).float()[:, None]
        freq = 100.0 ** (-torch.arange(0, d, 2).float() / d)
        pe = torch.zeros(H.shape[-2], d)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
        H = H + pe
    q = (H if queries is None else queries(d).double()) @ W[0]
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
    if causal and mask_after:  # the mask applied to the weights, after a softmax over every key
        t = scores.shape[-1]
        return (torch.softmax(scores, -1) * torch.ones(t, t).tril()) @ v
    if causal:  # ahead = 1: each query also sees the next token (a mask off by one)
        t = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(ahead), float("-inf"))
    return torch.softmax(scores, -1) @ v
"""


def subject(name: str, body: str) -> FunctionSource:
    """A subject function ``name(X)`` with the given body, the shared attention beside it. It
    computes in float64 (its input widened first): a function that is equivariant is then
    equivariant to ~1e-13 on every processor, so no tester's verdict on it — the reference's,
    a known-wrong one's, a student's — hangs on float32's summation order, which permuting the
    tokens changes and which differs between processors' vector units."""
    return FunctionSource(ATTENTION_SOURCE + f"\n\ndef {name}(X):\n    X = torch.as_tensor(X).double()\n" + body, name)


SUBJECTS = {
    "attention_no_position": subject("attention_no_position", "    return _attention(X)\n"),
    "attention_sinusoidal": subject("attention_sinusoidal", "    return _attention(X, positions='sinusoidal')\n"),
    "attention_causal": subject("attention_causal", "    return _attention(X, causal=True)\n"),
    "attention_rope": subject("attention_rope", "    return _attention(X, rope=True)\n"),
    "tanh_projection": subject(
        "tanh_projection", "    return torch.tanh(X) @ torch.ones(X.shape[-1], 3, dtype=X.dtype)\n"
    ),
    "mean_pooled": subject("mean_pooled", "    return _attention(X).mean(-2, keepdim=True)\n"),
    # pooled without keeping the axis: (T, d) -> (d,), (B, T, d) -> (B, d); with B = T its axis -2
    # has length T but holds the sequences (the conventions: no token axis, B = T or not)
    "mean_pooled_flat": subject("mean_pooled_flat", "    return _attention(X).mean(-2)\n"),
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
    # Large outputs (float64; elementwise or max: no rounding from a new order) nudged by 1e-3:
    # a relative tolerance (1e-5 of 1000) lets the nudge pass, the stated absolute one does not.
    "large_first_token_special": subject(
        "large_first_token_special",
        "    y = 1000 * X.double()\n    y[..., 0, :] = y[..., 0, :] + 1e-3 * X[..., 0, :]\n    return y\n",
    ),
    "large_nearly_invariant_pool": subject(
        "large_nearly_invariant_pool",
        "    return 1000 * (2 + torch.tanh(X.double())).amax(-2, keepdim=True) + 1e-3 * X[..., :1, :]\n",
    ),
}

# subjects that also take a batch (B, T, d) (sorted_rows indexes one sequence only)
BATCHED = (
    "attention_no_position",
    "attention_causal",
    "attention_sinusoidal",
    "mean_pooled",
    "first_token_special",
    "nearly_invariant_pool",
    "last_token_readout",
    "large_first_token_special",
)


def random_tokens(rng: np.random.Generator, t: int, d: int = 8, batch: int | None = None) -> np.ndarray:
    """A (t, d) input of standard normal tokens, or (batch, t, d)."""
    shape = (t, d) if batch is None else (batch, t, d)
    return rng.standard_normal(shape).astype(np.float32)


def pooled_square_batch(rng: np.random.Generator, pooled) -> Probe:
    """A batch (B, T, d) with B = T, pooled to (B, d) by ``pooled``: the case where the output's
    axis -2 has the length of the token axis but is not one (the conventions state it)."""
    n = int(rng.integers(2, 5))
    return Probe((pooled, random_tokens(rng, n, batch=n)), f"{pooled.name}, batch ({n}, {n}, d) pooled to ({n}, d)")


def tester_probes(rng: np.random.Generator) -> list[Probe]:
    """Every subject on one length, three of them on another (a tester must not depend on T),
    the batch-safe ones on a batch (B, T, d) whose B differs from T (a tester that permutes
    axis 0 permutes the batch), a batch with B = T pooled to (B, d), and three on a single token
    (T = 1: only the identity)."""
    t = int(rng.integers(4, 8))
    probes = [Probe((fn, random_tokens(rng, t)), name) for name, fn in SUBJECTS.items()]
    t2 = int(rng.integers(6, 10))
    probes += [
        Probe((SUBJECTS[name], random_tokens(rng, t2)), f"{name}, T = {t2}")
        for name in ("attention_no_position", "first_token_special", "mean_pooled")
    ]
    b = int(rng.choice([2, 3]))
    probes += [
        Probe((SUBJECTS[name], random_tokens(rng, t, batch=b)), f"{name}, batch ({b}, T, d)") for name in BATCHED
    ]
    probes.append(pooled_square_batch(rng, SUBJECTS["mean_pooled_flat"]))
    return probes + [
        Probe((SUBJECTS[name], random_tokens(rng, 1)), f"{name}, T = 1")
        for name in ("attention_causal", "mean_pooled", "last_token_special")
    ]
