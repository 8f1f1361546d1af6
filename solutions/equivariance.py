"""Permutation equivariance and invariance along the sequence axis, and causality — reference testers.

f is permutation *equivariant* when f(P X) = P f(X) for every permutation P of the rows
(tokens) of X, and *invariant* when f(P X) = f(X). Self-attention without positional
information is equivariant; pooling it over tokens is invariant; positional encodings,
causal masks and RoPE break equivariance.

The testers try structured permutations (every adjacent swap, the reversal, a cyclic shift)
and seeded random ones, so a function that is equivariant for most but not all permutations
(say, one that treats token 0 specially) is still caught.
"""

from __future__ import annotations

import torch


def permutations_tried(n: int, n_random: int = 4, seed: int = 0):
    """The permutations both testers try: the reversal, a cyclic shift, every adjacent swap and
    a few seeded random ones (PS5's weak testers reuse them to fail by their comparison alone)."""
    yield torch.arange(n - 1, -1, -1)
    yield torch.roll(torch.arange(n), 1)
    for i in range(n - 1):
        p = torch.arange(n)
        p[i], p[i + 1] = i + 1, i
        yield p
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_random):
        yield torch.randperm(n, generator=g)


def _close(a, b, atol):
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=atol, rtol=0.0))


def is_permutation_equivariant(f, X, atol=1e-5) -> bool:
    """X: (T, d) or (B, T, d); permutes the token axis (-2)."""
    X = torch.as_tensor(X)
    y = f(X)
    if y.shape[-2:-1] != X.shape[-2:-1]:
        return False  # the output has no token axis to permute
    return all(_close(f(X[..., p, :]), y[..., p, :], atol) for p in permutations_tried(X.shape[-2]))


def is_permutation_invariant(f, X, atol=1e-5) -> bool:
    X = torch.as_tensor(X)
    y = f(X)
    return all(_close(f(X[..., p, :]), y, atol) for p in permutations_tried(X.shape[-2]))


def future_changes(x: torch.Tensor, t: int, seed: int = 0):
    """Two ways to change every token after position ``t`` (axis -2): fresh random tokens, and
    zeros (padding). A layer may react to one kind of change only."""
    g = torch.Generator().manual_seed(seed + t)
    future = x[..., t + 1 :, :]
    for new in (3 * torch.randn(future.shape, generator=g).to(x.dtype), torch.zeros_like(future)):
        changed = x.clone()
        changed[..., t + 1 :, :] = new
        yield changed


def is_causal(f, X, atol=1e-5) -> bool:
    """True when output t of f is unchanged (absolute tolerance ``atol``) whatever the tokens
    after t are, for every t. X: (T, d) or (B, T, d); every sequence of a batch is changed at
    once. An output without a token axis of length T is not causal (nothing to compare)."""
    X = torch.as_tensor(X)
    y = f(X)
    n = X.shape[-2]
    if y.shape[:-1] != X.shape[:-1]:
        return False
    for t in range(n - 1):
        for changed in future_changes(X, t):
            out = f(changed)
            if not _close(out[..., : t + 1, :], y[..., : t + 1, :], atol):
                return False
    return True


def merge_heads(heads: torch.Tensor) -> torch.Tensor:
    """Concat[H_1; ...; H_h]: (..., h, T, d_h) -> (..., T, h·d_h), each token's head vectors
    side by side (the head axis moved next to the features first, then flattened with them)."""
    return heads.transpose(-3, -2).flatten(-2)


def multi_head_on_reordered_input(heads, W_O, p) -> torch.Tensor:
    """Multi-head self-attention without positions on X[..., p, :], from the heads' outputs on X
    alone (000 Q5.4). Each head is equivariant, H_i(PX) = P·H_i(X); concatenating per token and
    the token-wise W_O keep that, so Y(PX) = P·Concat[H_1(X); ...; H_h(X)]·W_O."""
    heads, W_O = torch.as_tensor(heads), torch.as_tensor(W_O)
    return (merge_heads(heads) @ W_O)[..., torch.as_tensor(p), :]
