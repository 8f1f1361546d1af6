"""Shared by the question modules: the probes' random tensors (weights in ``nn.Linear`` layout
(out, in), float32), key padding, and the fixed stream the visible examples draw from."""

import numpy as np

from autograder.authoring import AllClose

# The attention layers' tolerance (multi_head_attention, attend_with_cache; issue 36), against float32
# noise at the probes' magnitude: inputs ×2 through unit-gain projections give scores |s| ≲ 15 and
# outputs |o| ≲ 5; float32 (ε = 1.2e-7) over the three projections, the softmax and W_O leaves honest
# implementations (einsum, softmax by hand, torch's sdpa, a loop over heads, x @ w.T + b, the whole
# layer in float64) within 3.4e-6 of the reference (err / (1 + |expected|) ≤ 2.6e-6) over 300 student
# ids' probes and the visible ones, default and avx2 kernels alike; atol = rtol = 2e-5 leaves 7× that.
# Attention weights rounded to 4 decimals are off by ≥ 8.9e-5 (err / (1 + |expected|)) on every id —
# the old 1e-4 let them through on some. Sweep: scripts/tolerance_sweeps/ps6_attention.py;
# test: tests/assignments/test_ps6_attention_tolerance.py.
ATTENTION_TOLERANCE = AllClose(atol=2e-5, rtol=2e-5)


def randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


def linear(rng, d_out, d_in):
    """A linear map's (weight, bias), the weight scaled so that outputs keep unit size."""
    return randn(rng, d_out, d_in, scale=d_in**-0.5), randn(rng, d_out, scale=0.1)


def mha_weights(rng, d):
    """w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o for model width d."""
    return tuple(a for _ in range(4) for a in linear(rng, d, d))


def padding(rng, b, t, fully_padded_row=True):
    """key_is_pad (B, T): True at padding; the first key of every sequence is real, and with
    ``fully_padded_row`` the last sequence is all padding (its queries see no key)."""
    pad = rng.random((b, t)) < 0.3
    pad[:, 0] = False
    if fully_padded_row:
        pad[-1, :] = True
    return pad


def visible_rng(normals_before: int) -> np.random.Generator:
    """The visible examples' fixed, small inputs: one stream (seed 606) that the parts share in
    notebook order, each starting past the ``normals_before`` standard normals that the examples
    of the parts before it drew. Each module's examples are then the same whichever module is
    imported first (and the released checks stay the ones students already have)."""
    rng = np.random.default_rng(606)
    rng.standard_normal(normals_before)
    return rng
