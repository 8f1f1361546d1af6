"""PS2's additions to solutions/encodings.py: wavelengths, the similarity of sinusoidal
encodings (and the SymPy identity behind it), position interpolation of a learned table —
plus the seeds' worked numbers (document 000's table, document 001's factors)."""

import math

import numpy as np
import pytest
import sympy
import torch

from solutions.encodings import (
    position_interpolation,
    sinusoidal_frequencies,
    sinusoidal_similarity,
    sinusoidal_wavelengths,
)
from solutions.positional import sinusoidal_encoding, t5_relative_bucket


def test_document_000_table_base_100_d_4():
    pe = sinusoidal_encoding(3, 4, 100.0, dtype=torch.float64).numpy()
    table_000 = [[0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, -0.42, 0.20, 0.98]]
    np.testing.assert_allclose(pe, table_000, atol=5e-3)
    # layout: sin on even columns, cos on odd ones, pair i at frequency 100^(-2i/4)
    assert pe[1, 0] == pytest.approx(math.sin(1)) and pe[1, 3] == pytest.approx(math.cos(0.1))


def test_document_001_factors_and_wavelengths():
    factors = 1 / sinusoidal_frequencies(512, 10000.0)
    assert factors[0] == 1 and factors[128] == pytest.approx(100.0)
    assert factors[255] == pytest.approx(9646.6161991120, rel=1e-12)
    lam = sinusoidal_wavelengths(512)
    assert lam.shape == (256,) and lam[128] == pytest.approx(200 * math.pi)
    # the period of column 2i really is λ_i: PE(p + λ_i) = PE(p) on that pair
    d, base = 8, 100.0
    for i, wl in enumerate(sinusoidal_wavelengths(d, base).tolist()):
        w = 1 / base ** (2 * i / d)
        assert math.sin(3.7 * w) == pytest.approx(math.sin((3.7 + wl) * w), abs=1e-9)


def test_similarity_identity_with_sympy():
    """sin(pω)sin((p+Δ)ω) + cos(pω)cos((p+Δ)ω) = cos(Δω): the dot product of two sinusoidal
    encodings is Σ_i cos(Δ·ω_i), independent of p (what the PS2 experiment plots)."""
    p, delta, w = sympy.symbols("p Delta omega", real=True)
    pair = sympy.sin(p * w) * sympy.sin((p + delta) * w) + sympy.cos(p * w) * sympy.cos((p + delta) * w)
    assert sympy.simplify(sympy.expand_trig(pair - sympy.cos(delta * w))) == 0
    assert sympy.simplify(sympy.expand_trig(pair - sympy.cos((p - delta) * w))) != 0


@pytest.mark.parametrize("p,d,base", [(0, 4, 100.0), (17, 16, 10000.0), (250, 64, 10000.0)])
def test_similarity_is_the_dot_product_and_depends_on_the_distance_only(p, d, base):
    dist = torch.arange(0, 60)
    pe = sinusoidal_encoding(p + 60, d, base, dtype=torch.float64)
    direct = pe[p + dist] @ pe[p]
    torch.testing.assert_close(sinusoidal_similarity(p, dist, d, base), direct, atol=1e-9, rtol=0)
    closed = torch.cos(dist.double()[:, None] * sinusoidal_frequencies(d, base)).sum(-1)
    torch.testing.assert_close(sinusoidal_similarity(p, dist, d, base), closed, atol=1e-9, rtol=0)
    assert sinusoidal_similarity(p, [0], d, base).item() == pytest.approx(d / 2)


def _interp_001(table, n_new):
    """Document 001's formula, with the row past the end held at the last row."""
    L = table.shape[0]
    alpha = L / n_new
    rows = []
    for i in range(n_new):
        lo = math.floor(alpha * i)
        nxt = table[min(lo + 1, L - 1)]
        rows.append(table[lo] + (alpha * i - lo) * (nxt - table[lo]))
    return np.stack(rows)


@pytest.mark.parametrize("L,n_new", [(4, 4), (4, 8), (5, 12), (16, 37), (8, 5)])
def test_position_interpolation_is_document_001s_formula(L, n_new):
    table = np.random.default_rng(L * n_new).standard_normal((L, 3))
    got = position_interpolation(torch.from_numpy(table), n_new).numpy()
    np.testing.assert_allclose(got, _interp_001(table, n_new), atol=1e-12)
    x = np.arange(n_new) * L / n_new
    np.testing.assert_allclose(
        got, np.stack([np.interp(x, np.arange(L), table[:, j]) for j in range(3)], 1), atol=1e-12
    )


def test_position_interpolation_identity_and_endpoints():
    table = torch.randn(6, 4, dtype=torch.float64)
    torch.testing.assert_close(position_interpolation(table, 6), table)
    out = position_interpolation(table, 12)  # α = 1/2: even positions hit rows, odd are midpoints
    torch.testing.assert_close(out[0::2], table)
    torch.testing.assert_close(out[1:-1:2], (table[:-1] + table[1:]) / 2)
    torch.testing.assert_close(out[-1], table[-1])  # x = 5.5 is past the last row: held
    with pytest.raises(IndexError):  # the failure the interpolation avoids
        torch.nn.Embedding(6, 4)(torch.tensor([6]))


def test_t5_buckets_float32_and_float64_logs_agree_on_the_graded_offsets():
    """PS2 grades every offset in [−300, 300]; a student computing the log in float64 must not
    land in a different bucket than the float32 reference at any of them."""
    rel = torch.arange(-300, 301)
    for bidirectional in (True, False):
        for nb, md in ((32, 128), (16, 64), (64, 256), (8, 20)):
            ref = t5_relative_bucket(rel, bidirectional, nb, md)
            half = nb // 2 if bidirectional else nb
            n = rel.abs() if bidirectional else (-rel).clamp(min=0)
            exact = half // 2
            large = exact + np.floor(
                np.log(np.maximum(n.numpy(), 1) / exact) / math.log(md / exact) * (half - exact)
            ).astype(np.int64)
            b = np.where(n.numpy() < exact, n.numpy(), np.minimum(large, half - 1))
            if bidirectional:
                b = b + (rel.numpy() > 0) * half
            np.testing.assert_array_equal(ref.numpy(), b)
