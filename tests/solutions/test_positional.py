"""solutions/positional.py, the positional pieces of the reference model: sinusoidal, RoPE (both
conventions), ALiBi, T5 buckets, with the seeds' worked numbers (document 000's table).
Tolerances: atol 1e-6 in float64, 1e-5 in float32."""

import math

import numpy as np
import pytest
import torch

from solutions.positional import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    rope_angles,
    rope_half_permutation,
    rope_matrix,
    rotate_half,
    sinusoidal_encoding,
    t5_relative_bucket,
)


def test_sinusoidal_matches_the_formula_and_the_textbook_numbers():
    pe = sinusoidal_encoding(50, 512)
    assert pe.shape == (50, 512)
    # document 001: 10000^(2i/d) for d = 512 is 100 at i = 128 and 9646.62 at i = 255
    assert math.isclose(10000 ** (2 * 128 / 512), 100.0)
    for p in (1, 7, 49):
        assert math.isclose(pe[p, 256].item(), math.sin(p / 100.0), abs_tol=1e-6)
        assert math.isclose(pe[p, 257].item(), math.cos(p / 100.0), abs_tol=1e-6)
        assert math.isclose(pe[p, 511].item(), math.cos(p / 9646.616), abs_tol=1e-6)
    small = sinusoidal_encoding(3, 4, base=100.0, dtype=torch.float64)
    expected = [
        [0, 1, 0, 1],
        [math.sin(1), math.cos(1), math.sin(0.1), math.cos(0.1)],
        [math.sin(2), math.cos(2), math.sin(0.2), math.cos(0.2)],
    ]
    torch.testing.assert_close(small, torch.tensor(expected, dtype=torch.float64), atol=1e-12, rtol=0)


def test_document_000_table_base_100_d_4():
    pe = sinusoidal_encoding(3, 4, 100.0, dtype=torch.float64).numpy()
    table_000 = [[0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, -0.42, 0.20, 0.98]]
    np.testing.assert_allclose(pe, table_000, atol=5e-3)
    # layout: sin on even columns, cos on odd ones, pair i at frequency 100^(-2i/4)
    assert pe[1, 0] == pytest.approx(math.sin(1)) and pe[1, 3] == pytest.approx(math.cos(0.1))


def test_rope_angles_have_a_negative_exponent():
    # homework Q4: base 100, d = 4: θ_1 = 1, θ_2 = 100^(−2/4) = 0.1 (not 10)
    ang = rope_angles([0, 1, 2], 4, base=100.0)
    torch.testing.assert_close(ang, torch.tensor([[0.0, 0.0], [1.0, 0.1], [2.0, 0.2]], dtype=torch.float64))
    r1 = rope_matrix(1, 4, base=100.0)
    assert math.isclose(r1[2, 2].item(), 0.995004, abs_tol=1e-6)
    assert math.isclose(r1[3, 2].item(), 0.0998334, abs_tol=1e-6)
    assert math.isclose(rope_matrix(2, 4, base=100.0)[2, 2].item(), math.cos(0.2), abs_tol=1e-12)
    torch.testing.assert_close(rope_matrix(0, 4, base=100.0), torch.eye(4, dtype=torch.float64))


def test_rope_matrix_is_the_interleaved_rotation_and_keeps_lengths():
    x = torch.randn(5, 8, dtype=torch.float64)
    pos = torch.arange(5)
    rotated = apply_rope(x, pos, base=10000.0, convention="interleaved")
    for m in range(5):
        r = rope_matrix(m, 8)
        torch.testing.assert_close(r @ x[m], rotated[m], atol=1e-12, rtol=0)
        torch.testing.assert_close(r.T @ r, torch.eye(8, dtype=torch.float64), atol=1e-12, rtol=0)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1), atol=1e-12, rtol=0)


def test_the_two_rope_conventions_differ_by_a_fixed_permutation():
    x = torch.randn(2, 3, 6, 16, dtype=torch.float64)
    pos = torch.arange(10, 16)
    perm = rope_half_permutation(16)
    inter = apply_rope(x, pos, base=500.0, convention="interleaved")
    half = apply_rope(x[..., perm], pos, base=500.0, convention="half")
    torch.testing.assert_close(half, inter[..., perm], atol=1e-12, rtol=0)
    assert not torch.allclose(apply_rope(x, pos, convention="half"), apply_rope(x, pos, convention="interleaved"))


def test_rope_half_matches_the_hugging_face_formula():
    # q * cos + rotate_half(q) * sin with cos = cat(cos θ, cos θ) (apply_rotary_pos_emb)
    q, d = torch.randn(4, 8, dtype=torch.float64), 8
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    emb = torch.cat([torch.outer(torch.arange(4, dtype=torch.float64), inv_freq)] * 2, dim=-1)
    expected = q * emb.cos() + rotate_half(q) * emb.sin()
    torch.testing.assert_close(apply_rope(q, torch.arange(4), convention="half"), expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("convention", ["interleaved", "half"])
def test_rope_scores_depend_only_on_the_offset(convention):
    q, k = torch.randn(16, dtype=torch.float64), torch.randn(16, dtype=torch.float64)

    def score(m, n):
        qm = apply_rope(q[None], torch.tensor([m]), convention=convention)[0]
        kn = apply_rope(k[None], torch.tensor([n]), convention=convention)[0]
        return (qm @ kn).item()

    for offset in (-7, 0, 3, 40):
        ref = score(100, 100 + offset)
        for m in (0, 5, 1234):
            assert math.isclose(score(m, m + offset), ref, abs_tol=1e-9)
    assert not math.isclose(score(0, 3), score(0, 4), abs_tol=1e-6)


def test_alibi_slopes_power_of_two_and_twelve():
    torch.testing.assert_close(alibi_slopes(8), torch.tensor([2.0**-h for h in range(1, 9)], dtype=torch.float64))
    torch.testing.assert_close(
        alibi_slopes(4), torch.tensor([2.0 ** (-2 * h) for h in range(1, 5)], dtype=torch.float64)
    )
    twelve = [2.0**-h for h in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    torch.testing.assert_close(alibi_slopes(12), torch.tensor(twelve, dtype=torch.float64))
    assert len(alibi_slopes(6)) == 6 and alibi_slopes(6)[4].item() == 2**-1


def test_alibi_bias_is_slope_times_signed_distance():
    b = alibi_bias(2, 4)
    assert b.shape == (2, 4, 4)
    assert b[0].tolist()[3] == [-3 / 16, -2 / 16, -1 / 16, 0.0]  # n = 2: slopes 2^-4, 2^-8; query 3
    assert b[1, 2, 0].item() == pytest.approx(-2 * 2**-8)
    torch.testing.assert_close(alibi_bias(2, 1, 4)[:, 0], b[:, 3])  # KV-cache alignment
    sym = alibi_bias(2, 4, symmetric=True)
    torch.testing.assert_close(sym, sym.transpose(-1, -2))
    assert sym.max() == 0


def t5_bucket_straightforward(rel, bidirectional, num_buckets=32, max_distance=128):
    """An independent, scalar re-implementation of the T5 bucketing rule."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        if rel > 0:
            offset = num_buckets
        n = abs(rel)
    else:
        n = max(-rel, 0)
    exact = num_buckets // 2
    if n < exact:
        return offset + n
    log_bucket = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (num_buckets - exact))
    return offset + min(log_bucket, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets_for_every_offset_in_minus_300_to_300(bidirectional):
    rel = torch.arange(-300, 301)
    ours = t5_relative_bucket(rel, bidirectional, num_buckets=32, max_distance=128).tolist()
    assert ours == [t5_bucket_straightforward(r, bidirectional) for r in rel.tolist()]
    if bidirectional:
        assert ours[300] == 0 and ours[301] == 17 and ours[299] == 1 and max(ours) == 31
    else:
        assert set(ours[301:]) == {0} and ours[299] == 1 and max(ours) == 31


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
