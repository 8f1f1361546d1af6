"""Exact (SymPy) facts behind the positional-encoding problem sets (PS2 sinusoidal, PS3 RoPE,
PS4 ALiBi). Every ``prove_*`` returns True when the identity simplifies to zero symbolically;
``tests/solutions/test_positional_proofs.py`` runs each one, and the graders use the expressions below.

* Sinusoidal shift (PS2): with PE(p) = (…, sin pω_i, cos pω_i, …), PE(p+k) = M_k·PE(p) where
  M_k is block diagonal with blocks [[cos kω, sin kω], [−sin kω, cos kω]] — independent of p.
* RoPE (PS3): R(a) = [[cos a, −sin a], [sin a, cos a]] is orthogonal with det 1, and
  R(mθ)ᵀR(nθ) = R((n−m)θ), so (R_m q)·(R_n k) = qᵀ R_{n−m} k depends on n − m only.
  The two conventions (interleaved pairs, half split) differ by a fixed permutation.
* θ_i = base^(−2(i−1)/d) decreases with i (the exponent's sign, document 000's error).
* ALiBi (PS4): m·(j − i) − m·j = −m·i is constant along a query's row, and softmax is
  invariant to adding a constant to a row, so the bias m·j gives the same weights.
"""

from __future__ import annotations

import sympy

__all__ = [
    "rotation",
    "rope_block_matrix",
    "shift_block",
    "prove_sinusoidal_shift",
    "prove_rotation_orthogonal",
    "prove_rope_relative",
    "prove_rope_scores_relative",
    "prove_rope_conventions_permutation",
    "prove_theta_decreasing",
    "alibi_row_difference",
    "prove_alibi_shift_invariance",
]

p, k, m, n, i, j = sympy.symbols("p k m n i j", real=True)
omega, theta, slope = sympy.symbols("omega theta slope", positive=True)


def _is_zero(M) -> bool:
    M = M if isinstance(M, sympy.MatrixBase) else sympy.Matrix([M])
    return all(sympy.simplify(sympy.expand_trig(e)) == 0 for e in M)


# ------------------------------------------------------------------ sinusoidal (PS2)
def shift_block(k_, w) -> sympy.Matrix:
    """The 2×2 block of M_k acting on (sin pω, cos pω)."""
    return sympy.Matrix([[sympy.cos(k_ * w), sympy.sin(k_ * w)], [-sympy.sin(k_ * w), sympy.cos(k_ * w)]])


def prove_sinusoidal_shift() -> bool:
    """(sin (p+k)ω, cos (p+k)ω) = shift_block(k, ω)·(sin pω, cos pω) for all p, k, ω."""
    pe = lambda pos: sympy.Matrix([sympy.sin(pos * omega), sympy.cos(pos * omega)])  # noqa: E731
    return _is_zero(pe(p + k) - shift_block(k, omega) * pe(p))


# ------------------------------------------------------------------ RoPE (PS3)
def rotation(a) -> sympy.Matrix:
    return sympy.Matrix([[sympy.cos(a), -sympy.sin(a)], [sympy.sin(a), sympy.cos(a)]])


def rope_block_matrix(pos, thetas) -> sympy.Matrix:
    """R_{Θ,pos} (interleaved): block diagonal with rotation(pos·θ_i)."""
    return sympy.diag(*[rotation(pos * t) for t in thetas])


def prove_rotation_orthogonal() -> bool:
    R = rotation(m * theta)
    return _is_zero(R.T * R - sympy.eye(2)) and _is_zero(R.det() - 1)


def prove_rope_relative() -> bool:
    """R(mθ)ᵀ·R(nθ) = R((n−m)θ)."""
    return _is_zero(rotation(m * theta).T * rotation(n * theta) - rotation((n - m) * theta))


def prove_rope_scores_relative(d: int = 4) -> bool:
    """(R_m q)·(R_n k) = qᵀ R_{n−m} k for generic q, k in R^d and generic frequencies."""
    thetas = sympy.symbols(f"theta_1:{d // 2 + 1}", positive=True)
    q = sympy.Matrix(sympy.symbols(f"q_1:{d + 1}", real=True))
    kv = sympy.Matrix(sympy.symbols(f"k_1:{d + 1}", real=True))
    lhs = (rope_block_matrix(m, thetas) * q).T * (rope_block_matrix(n, thetas) * kv)
    rhs = q.T * rope_block_matrix(n - m, thetas) * kv
    return _is_zero(lhs - rhs)


def _rope_symbolic(x: sympy.Matrix, pos, thetas, convention: str) -> sympy.Matrix:
    d = len(x)
    out = sympy.zeros(d, 1)
    for idx, t in enumerate(thetas):
        a, b = (2 * idx, 2 * idx + 1) if convention == "interleaved" else (idx, idx + d // 2)
        c, s = sympy.cos(pos * t), sympy.sin(pos * t)
        out[a], out[b] = x[a] * c - x[b] * s, x[a] * s + x[b] * c
    return out


def prove_rope_conventions_permutation(d: int = 6) -> bool:
    """half(x[P]) = interleaved(x)[P] with P = [0, 2, 4, …, 1, 3, 5, …], symbolically."""
    thetas = sympy.symbols(f"theta_1:{d // 2 + 1}", positive=True)
    x = sympy.Matrix(sympy.symbols(f"x_0:{d}", real=True))
    perm = list(range(0, d, 2)) + list(range(1, d, 2))
    permuted = sympy.Matrix([x[t] for t in perm])
    inter = _rope_symbolic(x, m, thetas, "interleaved")
    return _is_zero(_rope_symbolic(permuted, m, thetas, "half") - sympy.Matrix([inter[t] for t in perm]))


def prove_theta_decreasing() -> bool:
    """θ_{i+1}/θ_i = base^(−2/d) < 1 for base > 1: the frequencies shrink with i."""
    base, d = sympy.symbols("base d", positive=True)
    ii = sympy.Symbol("i", positive=True, integer=True)
    th = lambda t: base ** (-2 * (t - 1) / d)  # noqa: E731
    ratio = sympy.simplify(th(ii + 1) / th(ii))
    return sympy.simplify(ratio - base ** (-2 / d)) == 0 and bool(sympy.Gt(1, ratio.subs({base: 100, d: 4})))


# ------------------------------------------------------------------ ALiBi (PS4)
def alibi_row_difference() -> sympy.Expr:
    """The bias m·(j − i) minus the key-only bias m·j, as an expression in m, i, j: −m·i."""
    mm, ii, jj = sympy.symbols("m i j", positive=True)
    return sympy.expand(mm * (jj - ii) - mm * jj)


def prove_alibi_shift_invariance(keys: int = 4) -> bool:
    """softmax_j(s_j + m(j − i)) = softmax_j(s_j + m·j) for generic scores s_1..s_keys."""
    s = sympy.symbols(f"s_1:{keys + 1}", real=True)

    def softmax(row):
        total = sum(sympy.exp(v) for v in row)
        return sympy.Matrix([sympy.exp(v) / total for v in row])

    relative = softmax([s[t] + slope * (t - i) for t in range(keys)])
    key_only = softmax([s[t] + slope * t for t in range(keys)])
    no_j = "j" not in {str(sym) for sym in alibi_row_difference().free_symbols}
    return no_j and _is_zero(relative - key_only)
