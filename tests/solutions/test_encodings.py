"""solutions/encodings.py: the PS2–PS4 reference pieces built on solutions/positional.py (tested
in tests/solutions/test_positional.py): the sinusoidal shift matrix, wavelengths and similarity
(with the SymPy identity behind it), RoPE and ALiBi attention, T5 bias tables, position
interpolation of a learned table, and the seeds' worked numbers (document 001's factors)."""

import math

import numpy as np
import pytest
import sympy
import torch

from solutions.encodings import (
    alibi_attention,
    alibi_causal_bias,
    alibi_last_row_weights,
    position_interpolation,
    rope_attention,
    rope_score_from_offset,
    sinusoidal_frequencies,
    sinusoidal_shift_matrix,
    sinusoidal_similarity,
    sinusoidal_wavelengths,
    t5_bias_matrix,
)
from solutions.positional import alibi_slopes, apply_rope, rope_matrix, sinusoidal_encoding, t5_relative_bucket


@pytest.mark.parametrize("d,base", [(4, 100.0), (16, 10000.0), (6, 500.0)])
def test_shift_matrix_maps_pe_p_to_pe_p_plus_k_for_every_p(d, base):
    pe = sinusoidal_encoding(300, d, base, dtype=torch.float64)
    for k in (0, 1, 7, 50):
        m = sinusoidal_shift_matrix(k, d, base)
        torch.testing.assert_close(pe[:250] @ m.T, pe[k : 250 + k], atol=1e-10, rtol=0)
    assert torch.allclose(sinusoidal_shift_matrix(0, d, base), torch.eye(d, dtype=torch.float64))


def test_rope_matrix_has_determinant_one_and_inverse_transpose():
    for m, d in [(1, 4), (17, 8), (300, 16)]:
        r = rope_matrix(m, d, 100.0)
        assert math.isclose(torch.linalg.det(r).item(), 1.0, abs_tol=1e-10)
        torch.testing.assert_close(r.T, rope_matrix(-m, d, 100.0), atol=1e-12, rtol=0)


def test_rope_score_from_offset_equals_the_score_at_any_absolute_position():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(8, generator=g, dtype=torch.float64), torch.randn(8, generator=g, dtype=torch.float64)
    for m, n in [(0, 5), (40, 45), (7, -3), (100, 60)]:
        direct = apply_rope(q[None], torch.tensor([m]), 500.0)[0] @ apply_rope(k[None], torch.tensor([n]), 500.0)[0]
        assert math.isclose(rope_score_from_offset(q, k, n - m, 500.0).item(), direct.item(), abs_tol=1e-10)
        assert math.isclose(direct.item(), (q @ rope_matrix(n - m, 8, 500.0) @ k).item(), abs_tol=1e-10)


def test_rope_attention_is_causal_and_leaves_v_unrotated():
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    pos = torch.arange(3, 8)
    out = rope_attention(q, k, v, pos, 100.0)
    qr, kr = apply_rope(q, pos, 100.0), apply_rope(k, pos, 100.0)
    for t in range(5):
        w = torch.softmax(qr[t] @ kr[: t + 1].T / 2.0, dim=-1)
        torch.testing.assert_close(out[t], w @ v[: t + 1], atol=1e-12, rtol=0)
    # shifting every position by the same amount changes nothing (relative only)
    torch.testing.assert_close(rope_attention(q, k, v, pos + 40, 100.0), out, atol=1e-10, rtol=0)


def test_t5_bias_matrix_looks_up_the_bucket_of_key_minus_query():
    table = torch.randn(32, 3, dtype=torch.float64)
    for bidirectional in (True, False):
        bias = t5_bias_matrix(table, 6, 9, bidirectional)
        assert bias.shape == (3, 6, 9)
        for i in range(6):
            for j in range(9):
                b = int(t5_relative_bucket(torch.tensor(j - i), bidirectional))
                torch.testing.assert_close(bias[:, i, j], table[b])


def test_alibi_causal_bias_and_attention():
    bias = alibi_causal_bias(4, 5)
    slopes = alibi_slopes(4)
    for h in range(4):
        for i in range(5):
            for j in range(5):
                expected = slopes[h].item() * (j - i) if j <= i else -math.inf
                assert bias[h, i, j].item() == pytest.approx(expected)
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 4, 5, 3, generator=g, dtype=torch.float64) for _ in range(3))
    out = alibi_attention(q, k, v)
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(3) + bias, dim=-1)
    torch.testing.assert_close(out, weights @ v, atol=1e-12, rtol=0)


def test_alibi_last_row_weights_are_a_geometric_profile():
    w = alibi_last_row_weights(0.5, 6)
    assert math.isclose(w.sum().item(), 1.0)
    ratios = (w[:-1] / w[1:]).tolist()
    assert all(math.isclose(r, math.exp(-0.5)) for r in ratios)
    # longer contexts barely change the weight near the query: the profile converges
    assert abs(alibi_last_row_weights(0.5, 1000)[-1] - alibi_last_row_weights(0.5, 50)[-1]) < 1e-9


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
