"""The grader's own layers that the student's causality tester classifies (sent as source,
compiled in the sandbox), and the hidden probes built from them. Each is the shared single-head
attention of ``subjects.py`` (fixed weights) or a small variation of it; several are built to
defeat one weak causality tester (``causal_tester.py``). The expected verdict for each comes
from ``solutions.equivariance.is_causal``."""

import numpy as np

from autograder.authoring import Probe

from .subjects import pooled_square_batch, random_tokens
from .subjects import subject as layer  # a layer computes in float64 too

CAUSAL_SUBJECTS = {
    # causal: output t reads tokens 0 … t only
    "causal_attention": layer("causal_attention", "    return _attention(X, causal=True)\n"),
    "positionwise_tanh": layer(
        "positionwise_tanh", "    return torch.tanh(X) @ torch.ones(X.shape[-1], 3, dtype=X.dtype)\n"
    ),
    "running_mean": layer(
        "running_mean",
        "    n = torch.arange(1, X.shape[-2] + 1, dtype=X.dtype)[:, None]\n    return X.cumsum(-2) / n\n",
    ),
    # not causal: every query sees every key,
    "bidirectional_attention": layer("bidirectional_attention", "    return _attention(X)\n"),
    # a mask off by one: each query also sees the next token,
    "mask_one_ahead": layer("mask_one_ahead", "    return _attention(X, causal=True, ahead=1)\n"),
    # the mask applied after a softmax over every key: the future sits in the denominator,
    "mask_after_softmax": layer("mask_after_softmax", "    return _attention(X, causal=True, mask_after=True)\n"),
    # output t reads token t + 2 only (a tester that changes only token t + 1 and looks only at output t),
    "reads_two_ahead": layer(
        "reads_two_ahead",
        "    y = _attention(X, causal=True).clone()\n    y[..., :-2, :] = y[..., :-2, :] + 0.5 * X[..., 2:, :]\n"
        "    return y\n",
    ),
    # only the last but one output reads the last token (a tester that tries t = 0 only),
    "late_leak": layer(
        "late_leak",
        "    y = _attention(X, causal=True).clone()\n    if X.shape[-2] > 1:\n"
        "        y[..., -2, :] = y[..., -2, :] + 0.5 * X[..., -1, :]\n    return y\n",
    ),
    # a leak of 1e-3 (a loose tolerance),
    "tiny_leak": layer(
        "tiny_leak",
        "    y = _attention(X, causal=True).clone()\n    y[..., 0, :] = y[..., 0, :] + 1e-3 * X[..., -1, :]\n"
        "    return y\n",
    ),
    # a leak of 1e-4 on outputs between 1000 and 3000 (a relative tolerance), in float64,
    "large_tiny_leak": layer(
        "large_tiny_leak",
        "    y = 1000 * (2 + torch.tanh(X.double()))\n    y[..., 0, :] = y[..., 0, :] + 1e-4 * X[..., -1, :]\n"
        "    return y\n",
    ),
    # the future seen only through padding: the count of non-zero tokens in the whole sequence,
    "padding_count": layer(
        "padding_count",
        "    n = (X.abs().sum(-1) > 0).sum(-1, keepdim=True)\n"
        "    return _attention(X, causal=True) * (n / X.shape[-2])[..., None]\n",
    ),
    # the future seen only through a statistic of the whole input,
    "global_scale": layer("global_scale", "    return _attention(X, causal=True) / X.std()\n"),
    # on a batch: output t of each sequence reads token t + 1 of the next sequence,
    "batch_neighbour_future": layer(
        "batch_neighbour_future",
        "    y = _attention(X, causal=True).clone()\n    if X.dim() == 3:\n"
        "        y[:, :-1, :] = y[:, :-1, :] + 0.5 * torch.roll(X, 1, dims=0)[:, 1:, :]\n    return y\n",
    ),
    # on a batch: each sequence but the last reads the last token of the next one (no wrap-round,
    # so a tester that changes only the first sequence's future never sees it),
    "batch_next_last_token": layer(
        "batch_next_last_token",
        "    y = _attention(X, causal=True).clone()\n    if X.dim() == 3:\n"
        "        y[:-1] = y[:-1] + 0.1 * X[1:, -1:, :]\n    return y\n",
    ),
    # pooled over the tokens: no token axis left to compare (unless T = 1).
    "mean_pooled_causal": layer("mean_pooled_causal", "    return _attention(X, causal=True).mean(-2, keepdim=True)\n"),
    # pooled without keeping the axis: no token axis, also on a batch with B = T.
    "mean_pooled_flat_causal": layer("mean_pooled_flat_causal", "    return _attention(X, causal=True).mean(-2)\n"),
}

CAUSAL_BATCHED = (
    "causal_attention",
    "bidirectional_attention",
    "mask_after_softmax",
    "padding_count",
    "batch_neighbour_future",
    "batch_next_last_token",
    "large_tiny_leak",
)


def causal_probes(rng: np.random.Generator) -> list[Probe]:
    """Every layer on one length; the batch-safe ones on a batch (B, T, d), B ≠ T (changing
    X[t+1:] changes sequences, not tokens), and a batch with B = T pooled to (B, d); T = 1
    (nothing after any token) and T = 2."""
    t = int(rng.integers(4, 8))
    probes = [Probe((fn, random_tokens(rng, t)), name) for name, fn in CAUSAL_SUBJECTS.items()]
    b = int(rng.choice([2, 3]))
    probes += [
        Probe((CAUSAL_SUBJECTS[name], random_tokens(rng, t, batch=b)), f"{name}, batch ({b}, T, d)")
        for name in CAUSAL_BATCHED
    ]
    probes.append(pooled_square_batch(rng, CAUSAL_SUBJECTS["mean_pooled_flat_causal"]))
    probes += [
        Probe((CAUSAL_SUBJECTS[name], random_tokens(rng, 1)), f"{name}, T = 1")
        for name in ("causal_attention", "bidirectional_attention", "mean_pooled_causal")
    ]
    return probes + [
        Probe((CAUSAL_SUBJECTS[name], random_tokens(rng, 2)), f"{name}, T = 2")
        for name in ("late_leak", "mask_one_ahead", "causal_attention")
    ]
