"""Compute and memory cost of self-attention, as formulas in T, d, h and B.

FLOP convention: multiplying an m×n matrix by an n×p matrix costs 2·m·n·p (one multiply and
one add per term) — the convention of ``torch.utils.flop_counter``. Heads split the model
width, d_k = d_v = d/h, so per-layer totals do not depend on h except the score tensor,
which has one T×n matrix per head. Queries have length T, keys/values length n (n = T for
self-attention). Softmax, scaling and masking are elementwise and not counted here.
"""

from __future__ import annotations

import sympy

from solutions.derivations.symbols import B, T, d, h

__all__ = [
    "matmul_flops",
    "qk_flops",
    "weighted_sum_flops",
    "projection_flops",
    "attention_flops",
    "score_elements",
    "score_bytes",
    "growth",
]


def matmul_flops(m, n, p) -> sympy.Expr:
    """(m×n)·(n×p): 2mnp."""
    return 2 * m * n * p


def qk_flops(T=T, d=d, h=h, B=B, n=None) -> sympy.Expr:
    """Scores Q·Kᵀ for every head: B·h matmuls (T×d/h)·(d/h×n) = 2·B·T·n·d (h cancels)."""
    n = T if n is None else n
    return sympy.simplify(B * h * matmul_flops(T, d / h, n))


def weighted_sum_flops(T=T, d=d, h=h, B=B, n=None) -> sympy.Expr:
    """Weights times values for every head: B·h matmuls (T×n)·(n×d/h) = 2·B·T·n·d."""
    n = T if n is None else n
    return sympy.simplify(B * h * matmul_flops(T, n, d / h))


def projection_flops(T=T, d=d, B=B, n=None) -> sympy.Expr:
    """The four d×d projections: queries and output on T rows, keys and values on n rows:
    2·B·d²·(2T + 2n) = 8·B·T·d² for self-attention (linear in T)."""
    n = T if n is None else n
    return sympy.expand(B * (2 * matmul_flops(T, d, d) + 2 * matmul_flops(n, d, d)))


def attention_flops(T=T, d=d, h=h, B=B, n=None) -> sympy.Expr:
    """Projections + scores + weighted sum: 8BTd² + 4BT²d for self-attention."""
    return sympy.expand(projection_flops(T, d, B, n) + qk_flops(T, d, h, B, n) + weighted_sum_flops(T, d, h, B, n))


def score_elements(T=T, h=h, B=B, n=None) -> sympy.Expr:
    """Entries of the score (and of the weight) tensor, shape (B, h, T, n): B·h·T·n."""
    n = T if n is None else n
    return B * h * T * n


def score_bytes(T=T, h=h, B=B, n=None, bytes_per_element=4) -> sympy.Expr:
    """Memory of one score tensor: B·h·T·n·bytes (4 for float32, 2 for float16/bfloat16)."""
    return score_elements(T, h, B, n) * bytes_per_element


def growth(expr, var=T, factor=2) -> sympy.Expr:
    """expr(factor·var) / expr(var), simplified: 4 for a term quadratic in T when T doubles,
    2 for a linear one; for a mix it depends on the other sizes."""
    return sympy.simplify(expr.subs(var, factor * var) / expr)
