"""The SymPy facts behind PS2–PS4 (solutions/derivations/positional_proofs.py), each proved
exactly, and the references the graders use checked against them."""

import math

import pytest
import sympy
import torch

from solutions.derivations import positional_proofs as pp


def test_sinusoidal_shift_map_is_independent_of_p():
    assert pp.prove_sinusoidal_shift()
    # the transposed block would map PE(p) to PE(p - k): the proof must fail for it
    p, k, w = sympy.symbols("p k w", real=True)
    pe = lambda pos: sympy.Matrix([sympy.sin(pos * w), sympy.cos(pos * w)])  # noqa: E731
    assert not pp._is_zero(pe(p + k) - pp.shift_block(k, w).T * pe(p))


def test_rope_rotation_is_orthogonal_with_det_1_and_composes_by_offset():
    assert pp.prove_rotation_orthogonal()
    assert pp.prove_rope_relative()
    m, n, t = sympy.symbols("m n t", real=True)
    assert not pp._is_zero(pp.rotation(m * t).T * pp.rotation(n * t) - pp.rotation((m - n) * t))


def test_rope_scores_depend_on_the_offset_only():
    assert pp.prove_rope_scores_relative(4)


@pytest.mark.parametrize("d", [4, 6, 8])
def test_rope_conventions_differ_by_the_even_odd_permutation(d):
    assert pp.prove_rope_conventions_permutation(d)


def test_theta_shrinks_with_i():
    assert pp.prove_theta_decreasing()


def test_alibi_bias_m_j_gives_the_same_softmax():
    diff = pp.alibi_row_difference()
    assert {str(s) for s in diff.free_symbols} == {"m", "i"}  # constant along a row (no j)
    assert sympy.expand(diff + sympy.Symbol("m", positive=True) * sympy.Symbol("i", positive=True)) == 0
    assert pp.prove_alibi_shift_invariance(4)


def test_references_agree_with_the_proved_forms():
    from solutions.encodings import sinusoidal_shift_matrix
    from solutions.positional import rope_matrix

    k, w = sympy.symbols("k w", real=True)
    block = sympy.lambdify((k, w), pp.shift_block(k, w))
    assert torch.allclose(
        sinusoidal_shift_matrix(3, 4, 100.0)[2:, 2:], torch.tensor(block(3, 0.1), dtype=torch.float64), atol=1e-12
    )
    thetas = [1.0, 0.1]
    exact = pp.rope_block_matrix(2, thetas)
    assert torch.allclose(
        rope_matrix(2, 4, 100.0), torch.tensor(exact.evalf().tolist(), dtype=torch.float64), atol=1e-12
    )
    assert math.isclose(float(exact[2, 2]), math.cos(0.2))
