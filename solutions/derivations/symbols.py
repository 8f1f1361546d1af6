"""The course's symbol names, shared by every derivation, and ``evaluate``.

All sizes are positive integers, so SymPy may use that when simplifying. A reference formula
built here and a student's formula parsed by ``autograder.judging.compare.symbolic`` are matched by
symbol *name*, so the assumptions attached here never have to agree with the parser's.
"""

from __future__ import annotations

from numbers import Number

import sympy

_size = dict(positive=True, integer=True)

d = sympy.Symbol("d", **_size)  # d_model
h = sympy.Symbol("h", **_size)  # number of heads
d_k = sympy.Symbol("d_k", **_size)  # width of one head's queries/keys
d_v = sympy.Symbol("d_v", **_size)  # width of one head's values
d_ff = sympy.Symbol("d_ff", **_size)  # hidden width of the feed-forward block
V = sympy.Symbol("V", **_size)  # vocabulary size (shared, or the only one)
V_src = sympy.Symbol("V_src", **_size)  # source vocabulary
V_tgt = sympy.Symbol("V_tgt", **_size)  # target vocabulary
T = sympy.Symbol("T", **_size)  # sequence length (queries)
n = sympy.Symbol("n", **_size)  # second sequence length (keys), e.g. cross-attention
B = sympy.Symbol("B", **_size)  # batch size
L = sympy.Symbol("L", **_size)  # number of layers of a single stack
L_enc = sympy.Symbol("L_enc", **_size)  # encoder layers
L_dec = sympy.Symbol("L_dec", **_size)  # decoder layers
P = sympy.Symbol("P", **_size)  # rows of a learned positional table (max length)

m = sympy.Symbol("m", integer=True)  # a position (RoPE, sinusoidal)
k = sympy.Symbol("k", integer=True)  # an offset between positions
i = sympy.Symbol("i", positive=True, integer=True)  # 1-based index of a 2-D pair (RoPE)
base = sympy.Symbol("base", positive=True)  # 10000 in the papers, 100 in the homework
theta = sympy.Symbol("theta", real=True)  # one rotation frequency


def evaluate(expr, **values) -> int | float:
    """Substitute numbers by symbol name and return a plain ``int`` (exact) or ``float``.

    Every free symbol must get a value; a name that is not a free symbol is an error, so a
    typo cannot pass silently.
    """
    expr = sympy.sympify(expr) if isinstance(expr, Number) else expr
    by_name = {str(s): s for s in expr.free_symbols}
    unknown = set(values) - set(by_name)
    if unknown:
        raise KeyError(f"not symbols of {expr}: {sorted(unknown)}")
    missing = set(by_name) - set(values)
    if missing:
        raise KeyError(f"no value given for {sorted(missing)} in {expr}")
    result = expr.xreplace({by_name[name]: sympy.sympify(v) for name, v in values.items()})
    if result.is_Integer:
        return int(result)
    if result.is_number and result.is_real:
        return float(result)
    raise ValueError(f"{expr} does not evaluate to a real number at {values}: {result}")
