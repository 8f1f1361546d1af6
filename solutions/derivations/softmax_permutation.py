"""Permutations commute with row-wise softmax, hence self-attention is permutation-equivariant.

Lemma: for every permutation matrix P and every square A, softmax_rows(P·A·Pᵀ) =
P·softmax_rows(A)·Pᵀ — P·A·Pᵀ is A with rows and columns relabelled the same way, and a
row's softmax does not care about the order of its entries.

Consequence (homework Q5.4): with scores S(X) = X·W_Q·(X·W_K)ᵀ, self-attention without
positional encoding satisfies Y(P·X) = softmax(P·S·Pᵀ)·P·X·W_V = P·softmax(S)·Pᵀ·P·X·W_V =
P·Y(X): the output rows are permuted the same way — equivariance, not invariance. Only a
pooled output (e.g. the sum of the rows) stays the same.

The proofs below are exact: entries are symbols, and the differences simplify to zero.
"""

from __future__ import annotations

from itertools import permutations

import sympy

__all__ = [
    "generic_matrix",
    "row_softmax",
    "permutation_matrices",
    "softmax_commutes",
    "prove_softmax_permutation",
    "self_attention",
    "prove_self_attention_equivariance",
    "reordering_changes_output",
]


def generic_matrix(rows: int, cols: int | None = None, name: str = "a") -> sympy.Matrix:
    """A matrix of independent real symbols a_ij (1-based)."""
    cols = rows if cols is None else cols
    return sympy.Matrix(rows, cols, lambda r, c: sympy.Symbol(f"{name}_{r + 1}{c + 1}", real=True))


def row_softmax(M: sympy.Matrix) -> sympy.Matrix:
    """softmax over each row: exp(M_ij) / Σ_k exp(M_ik)."""
    out = sympy.zeros(M.rows, M.cols)
    for r in range(M.rows):
        total = sum(sympy.exp(M[r, c]) for c in range(M.cols))
        for c in range(M.cols):
            out[r, c] = sympy.exp(M[r, c]) / total
    return out


def permutation_matrices(size: int) -> list[sympy.Matrix]:
    """All size! permutation matrices (P[r, perm[r]] = 1, so (P·X)_r = X_perm[r])."""
    result = []
    for perm in permutations(range(size)):
        P = sympy.zeros(size, size)
        for r, c in enumerate(perm):
            P[r, c] = 1
        result.append(P)
    return result


def _is_zero(M: sympy.Matrix) -> bool:
    return all(sympy.simplify(entry) == 0 for entry in M)


def softmax_commutes(P: sympy.Matrix, A: sympy.Matrix) -> bool:
    """softmax_rows(P·A·Pᵀ) − P·softmax_rows(A)·Pᵀ simplifies to the zero matrix."""
    return _is_zero(row_softmax(P * A * P.T) - P * row_softmax(A) * P.T)


def prove_softmax_permutation(size: int = 3) -> bool:
    """The lemma for a generic size×size A and every size×size permutation matrix."""
    A = generic_matrix(size)
    return all(softmax_commutes(P, A) for P in permutation_matrices(size))


def self_attention(X: sympy.Matrix, W_Q: sympy.Matrix, W_K: sympy.Matrix, W_V: sympy.Matrix) -> sympy.Matrix:
    """One head, no scaling, no positions: softmax_rows(X W_Q (X W_K)ᵀ) · X W_V."""
    return row_softmax(X * W_Q * (X * W_K).T) * (X * W_V)


def _attention_symbols(tokens: int, width: int):
    X = generic_matrix(tokens, width, "x")
    return X, generic_matrix(width, width, "q"), generic_matrix(width, width, "k"), generic_matrix(width, width, "v")


def prove_self_attention_equivariance(tokens: int = 3, width: int = 2) -> bool:
    """Y(P·X) = P·Y(X) for generic X (tokens×width), generic weights and every permutation."""
    X, W_Q, W_K, W_V = _attention_symbols(tokens, width)
    Y = self_attention(X, W_Q, W_K, W_V)
    return all(_is_zero(self_attention(P * X, W_Q, W_K, W_V) - P * Y) for P in permutation_matrices(tokens))


def reordering_changes_output(tokens: int = 3, width: int = 2, seed: int = 0) -> bool:
    """The refutation of "the output stays the same": for every non-identity P there is an
    input (a random rational point, checked exactly) with Y(P·X) ≠ Y(X), while the pooled
    output Σ_rows Y is unchanged. Returns True when both hold for every P."""
    import random

    rng = random.Random(seed)
    X, W_Q, W_K, W_V = _attention_symbols(tokens, width)
    point = {s: sympy.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for M in (X, W_Q, W_K, W_V) for s in M}
    Xn, Qn, Kn, Vn = (M.xreplace(point) for M in (X, W_Q, W_K, W_V))
    Y = self_attention(Xn, Qn, Kn, Vn)
    ones = sympy.ones(1, tokens)
    for P in permutation_matrices(tokens):
        if P == sympy.eye(tokens):
            continue
        Y_perm = self_attention(P * Xn, Qn, Kn, Vn)
        if _is_zero(Y_perm - Y) or not _is_zero(ones * Y_perm - ones * Y):
            return False
    return True
