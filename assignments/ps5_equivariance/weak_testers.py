"""The classic weak testers, as mutants the hidden probes must kill (the self-test's mutation
analysis runs them like a student's answer): one family for each tester question, built by
``weak_tester_family(equivariance_checker)`` and ``weak_tester_family(invariance_checker)``.
Each one is caught by a subject function in ``subjects.SUBJECTS`` built to defeat it."""

from collections.abc import Callable

import torch

from solutions.equivariance import permutations_tried

# said with each relative-tolerance misconception: why a student's own float32 check may have
# failed the absolute tolerance (the conventions' reason), never a claim about their code
FLOAT32_NOTE = (
    " If a float32 layer of your own with values in the thousands failed the absolute tolerance, "
    "that was float32's rounding (one step at 1000 is about 6e-5): compute such a layer in float64, "
    "as the grader's layers are."
)


def _equal(a, b, atol):
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=atol, rtol=0.0))


def _multiset_equal(a, b, atol):
    """Rows compared as a multiset: sorted by their first entry, then compared."""
    if a.shape != b.shape:
        return False
    order = lambda y: y[..., torch.argsort(y[..., 0], dim=-1), :]  # noqa: E731
    return _equal(order(a), order(b), atol)


def _reversal(n):
    return [torch.arange(n - 1, -1, -1)]


def _swap_first_two(n):
    p = torch.arange(n)
    p[0], p[1] = 1, 0
    return [p]


def _cyclic_shifts(n):
    return [torch.roll(torch.arange(n), s) for s in range(1, n)]


def _shift_by_one(n):
    return [torch.roll(torch.arange(n), 1)]


def _dihedral(n):
    """Every cyclic shift and the reversal: together they move every token, yet generate only
    the 2n symmetries of a polygon, not all n! orders."""
    return _cyclic_shifts(n) + _reversal(n)


def _thorough(n):
    """The reference's own permutations: a tester that uses them fails by its comparison alone."""
    return list(permutations_tried(n))


def _relative(a, b, atol):
    """torch.allclose's own defaults: a tolerance relative to the values (rtol 1e-5, atol 1e-8)."""
    return a.shape == b.shape and bool(torch.allclose(a, b))


def _tokens(a, p):
    return a[..., p, :]


def _first_axis(a, p):
    """X[p]: on a batch (B, T, d) this permutes the sequences, not the tokens."""
    return a[p]


def equivariance_checker(permutations, same=_equal, atol=1e-5, permute=_tokens):
    """A tester of f(X[..., p, :]) ≈ f(X)[..., p, :] over the given permutations, rows compared
    by ``same`` (``permute``: how X and y are reordered)."""

    def tester(f, X):
        X = torch.as_tensor(X)
        y = f(X)
        n = X.shape[-2] if permute is _tokens else X.shape[0]
        if y.shape[-2:-1] != X.shape[-2:-1]:
            return False
        return all(same(f(permute(X, p)), permute(y, p), atol) for p in permutations(n))

    return tester


def invariance_checker(permutations, same=_equal, atol=1e-5, permute=_tokens):
    """A tester of f(X[..., p, :]) ≈ f(X) over the given permutations, rows compared by ``same``."""

    def tester(f, X):
        X = torch.as_tensor(X)
        y = f(X)
        n = X.shape[-2] if permute is _tokens else X.shape[0]
        return all(same(f(permute(X, p)), y, atol) for p in permutations(n))

    return tester


def weak_tester_family(make: Callable) -> dict[str, Callable]:
    """The weak testers a checker makes: too few permutations, a loose comparison or tolerance."""
    return {
        "weak tester: one permutation (a shift by one)": make(_shift_by_one),
        "weak tester: the reversal only": make(_reversal),
        "weak tester: one swap (the first two tokens)": make(_swap_first_two),
        "weak tester: cyclic shifts only": make(_cyclic_shifts),
        "weak tester: cyclic shifts and the reversal (the dihedral group)": make(_dihedral),
        "weak tester: rows compared as a multiset": make(_thorough, same=_multiset_equal),
        "weak tester: loose tolerance (atol 1e-2)": make(_thorough, atol=1e-2),
    }


def first_axis_tester(make: Callable) -> Callable:
    """The thorough tester of ``make`` reordering axis 0 (``X[p]``) instead of the token axis."""
    return make(_thorough, permute=_first_axis)


def relative_tolerance_tester(make: Callable) -> Callable:
    """The thorough tester of ``make`` comparing with torch.allclose's relative defaults."""
    return make(_thorough, same=_relative)
