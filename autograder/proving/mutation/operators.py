"""Mutation operators: small, plausible mistakes made to a reference function's source.

The operators follow the classic sets of mutmut and cosmic-ray (operator and comparison
swaps, number and boolean changes, dropped unary operators, negated conditions), plus the
mistakes the course cares about: a dropped term, a missing transpose / mask / sort (a method
call replaced by its receiver), an added transpose, another axis or an index shifted by one
(a number ±1), an argument left at its default (a keyword dropped, a parameter passed to a
callee replaced by its default), a swapped twin function (min/max, sin/cos, tril/triu); and the
families of ``families`` (batch axis, default argument ignored, do-while loop, boundary budget).

Each mutant is the function's AST with exactly one site changed, compiled into the function's
own module globals, so it calls what the reference calls.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autograder.proving.mutation.families import Scope, family_sites

BINOP_SWAPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
COMPARE_SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
# a method call replaced by its receiver: the transpose, mask, sort, clamp ... is dropped
DROPPABLE_METHODS = {
    "transpose",
    "t",
    "permute",
    "flip",
    "sort",
    "argsort",
    "masked_fill",
    "masked_fill_",
    "tril",
    "triu",
    "nan_to_num",
    "clamp",
    "clamp_min",
    "clamp_max",
    "roll",
    "softmax",
    "log_softmax",
    "cumsum",
    "abs",
    "sqrt",
    "exp",
    "log",
    "flatten",
    "squeeze",
    "unsqueeze",
}
DROPPABLE_ATTRIBUTES = {"T", "mT"}
TWINS = {
    "max": "min",
    "min": "max",
    "argmax": "argmin",
    "argmin": "argmax",
    "amax": "amin",
    "amin": "amax",
    "sin": "cos",
    "cos": "sin",
    "tril": "triu",
    "triu": "tril",
    "floor": "ceil",
    "ceil": "floor",
    "sum": "mean",
    "mean": "sum",
    "relu": "gelu",
    "gelu": "relu",
}


@dataclass(frozen=True)
class SourceMutant:
    target: Callable  # the function whose source was changed
    description: str  # "line 3: + -> -"
    function: Callable  # the mutated function (same globals, defaults and name)
    line: int  # the changed line in the target's file

    @property
    def name(self) -> str:
        return f"{self.target.__module__}.{self.target.__qualname__} {self.description}"


def _number_variants(value) -> list:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        out = [value + 1, value - 1] + ([value * 2, value // 2] if value not in (0, 1, -1) else [])
    elif isinstance(value, float):
        out = [value + 1.0, value * 2.0, value / 2.0] if value else [1.0]
    else:
        return []
    seen, result = {value}, []
    for v in out:
        if v not in seen:
            seen.add(v)
            result.append(v)
    return result


def _transposed(expr: ast.expr) -> ast.expr:
    """``(__m.transpose(-2, -1) if getattr((__m := expr), 'ndim', 0) >= 2 else __m)``: the
    result transposed where it is a matrix (``expr`` evaluated once)."""
    template = "(__m.transpose(-2, -1) if getattr((__m := __X), 'ndim', 0) >= 2 else __m)"
    return _replace_placeholder(ast.parse(template, mode="eval").body, expr)


def _replace_placeholder(tree: ast.expr, expr: ast.expr) -> ast.expr:
    class Fill(ast.NodeTransformer):
        def visit_Name(self, node):
            return copy.deepcopy(expr) if node.id == "__X" else node

    return Fill().visit(tree)


def _sites(func: ast.FunctionDef, scope: Scope) -> Iterator[tuple[ast.AST, str, Callable[[ast.AST], ast.AST]]]:
    """(node, description, make_replacement) for every single-site mutation in ``func``."""
    body = func.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]  # the docstring is not code
    for stmt in body:
        for node in ast.walk(stmt):
            yield from _node_sites(node, scope.defaults)
            yield from family_sites(node, scope)


def _node_sites(node, defaults):
    if isinstance(node, ast.BinOp):
        swap = BINOP_SWAPS.get(type(node.op))
        if swap:
            yield node, f"{_op(node.op)} -> {_op(swap())}", lambda n, s=swap: _with(n, op=s())
        if isinstance(node.op, (ast.Add, ast.Sub)):
            yield node, f"term dropped: only the left of {_op(node.op)}", lambda n: n.left
            yield node, f"term dropped: only the right of {_op(node.op)}", lambda n: n.right
        elif isinstance(node.op, (ast.Mult, ast.Div)):
            yield node, f"factor dropped: only the left of {_op(node.op)}", lambda n: n.left
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        swap = COMPARE_SWAPS.get(type(node.ops[0]))
        if swap:
            yield node, f"{type(node.ops[0]).__name__} -> {swap.__name__}", lambda n, s=swap: _with(n, ops=[s()])
    elif isinstance(node, ast.Constant) and not isinstance(node.value, str):
        for value in _number_variants(node.value):
            yield node, f"constant {node.value!r} -> {value!r}", lambda n, v=value: ast.Constant(v)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not, ast.Invert)):
        yield node, f"{type(node.op).__name__} dropped", lambda n: n.operand
    elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
        yield node, "condition negated", lambda n: _with(n, test=ast.UnaryOp(ast.Not(), n.test))
    elif isinstance(node, ast.Return) and node.value is not None:
        yield node, "transpose added to the result", lambda n: _with(n, value=_transposed(n.value))
    elif isinstance(node, ast.Attribute) and node.attr in DROPPABLE_ATTRIBUTES:
        yield node, f".{node.attr} dropped", lambda n: n.value
    elif isinstance(node, ast.Call):
        yield from _call_sites(node, defaults)


def _call_sites(node, defaults):
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if isinstance(func, ast.Attribute) and name in DROPPABLE_METHODS:
        yield node, f".{name}(...) dropped", lambda n: n.func.value
    if name in TWINS:
        twin = TWINS[name]
        if isinstance(func, ast.Attribute):
            yield node, f"{name} -> {twin}", lambda n, t=twin: _with(n, func=_with(n.func, attr=t))
        else:
            yield node, f"{name} -> {twin}", lambda n, t=twin: _with(n, func=ast.Name(t, ast.Load()))
    for i, kw in enumerate(node.keywords):
        if kw.arg is not None:
            yield (
                node,
                f"keyword {kw.arg}= dropped from {name}()",
                lambda n, i=i: _with(n, keywords=n.keywords[:i] + n.keywords[i + 1 :]),
            )
    for i, arg in enumerate(node.args):  # a parameter passed on is replaced by its default
        if isinstance(arg, ast.Name) and arg.id in defaults:
            default = defaults[arg.id]
            yield (
                node,
                f"argument {arg.id} -> its default {default!r} in {name}()",
                lambda n, i=i, d=default: _with(n, args=n.args[:i] + [ast.Constant(d)] + n.args[i + 1 :]),
            )


def _with(node, **changes):
    new = copy.copy(node)
    for key, value in changes.items():
        setattr(new, key, value)
    return new


def _op(op) -> str:
    return {
        ast.Add: "+",
        ast.Sub: "-",
        ast.Mult: "*",
        ast.Div: "/",
        ast.FloorDiv: "//",
        ast.Pow: "**",
        ast.Mod: "%",
    }.get(type(op), type(op).__name__)


def _parse(function) -> ast.FunctionDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None
    tree = ast.parse(source)
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None  # a lambda or a class
    func = tree.body[0]
    func.decorator_list = []
    return func


def _compile(function, func: ast.FunctionDef) -> Callable:
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    code = compile(module, f"<mutant of {function.__qualname__}>", "exec")
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == func.name)
    mutant = types.FunctionType(inner, function.__globals__, function.__name__, function.__defaults__)
    mutant.__kwdefaults__ = copy.copy(function.__kwdefaults__)
    return mutant


def source_mutants(function) -> list[SourceMutant]:
    """Every single-site mutant of ``function`` (a plain module-level function without a
    closure; anything else yields none)."""
    if not isinstance(function, types.FunctionType) or function.__closure__:
        return []
    original = _parse(function)
    if original is None:
        return []
    scope = Scope.of(function)
    first_line = inspect.getsourcelines(function)[1]
    plan = [(i, desc) for i, (_, desc, _) in enumerate(_sites(original, scope))]
    mutants = []
    for index, desc in plan:
        tree = copy.deepcopy(original)
        site, _, make = list(_sites(tree, scope))[index]
        where = f"line {getattr(site, 'lineno', original.lineno) - original.lineno}:{getattr(site, 'col_offset', 0)}"
        replaced = _replace_node(tree, site, make(site))
        try:
            mutants.append(
                SourceMutant(
                    function,
                    f"{where} {desc}",
                    _compile(function, replaced),
                    first_line + getattr(site, "lineno", original.lineno) - 1,
                )
            )
        except (SyntaxError, ValueError, TypeError):
            continue  # not every change compiles (a walrus target, a constant keyword)
    return mutants


def _replace_node(tree: ast.FunctionDef, site: ast.AST, new: ast.AST) -> ast.FunctionDef:
    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if node is site:
                return new
            return self.generic_visit(node)

    return Swap().visit(tree)
