"""Mutation operator families for the mistakes independent students made that the classic
operators did not (issue 27), each applied at every site it fits:

* **batch axis** — the code written for one sequence: ``X[..., p, :]`` read as ``X[p]`` (the
  permutation on axis 0), the ``...`` dropped, an axis −2 or −3 taken as axis 0;
* **default argument ignored** — an inner call that drops an argument the outer function
  received, so the callee's own default is used (``t5_bucket(rel, bidirectional)`` without
  ``num_buckets``);
* **do-while loop** — a loop body that runs at least once: ``range(n)`` → ``range(max(n, 1))``,
  a ``while`` that runs its body once before the test (a decoder that always appends a token);
* **boundary budget** — an integer budget (``k``, ``max_new_tokens``, a beam width, a length)
  off by one where it is used: ``k`` → ``k + 1`` / ``k − 1`` (the ``<``/``<=`` swap at a cut is
  the classic comparison operator's).

``family_sites(node, scope)`` yields ``(node, description, make_replacement)`` like the classic
operators in ``operators``; ``Scope`` is what they need to know of the mutated function."""

from __future__ import annotations

import ast
import copy
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass

# integer parameters that budget a loop, a cut or a length (besides those with an int default)
BUDGET_NAME = re.compile(
    r"^(k|top_k|n|max_new_tokens|max_len|max_length|max_steps|steps|beam_width|beam_size|n_beams|num_beams|"
    r"length|n_tokens|num_samples|budget)$"
)
BATCH_AXES = (2, 3)  # -2 and -3, read as axis 0


@dataclass(frozen=True)
class Scope:
    defaults: dict  # parameter -> its simple default (None, bool, int, float, str)
    params: frozenset  # every parameter's name
    budgets: frozenset  # the integer budget parameters

    @classmethod
    def of(cls, function) -> Scope:
        defaults, params, budgets = {}, set(), set()
        for p in inspect.signature(function).parameters.values():
            params.add(p.name)
            if p.default is not inspect.Parameter.empty and isinstance(p.default, (type(None), bool, int, float, str)):
                defaults[p.name] = p.default
            int_default = isinstance(p.default, int) and not isinstance(p.default, bool)
            if int_default or p.annotation in (int, "int") or BUDGET_NAME.match(p.name):
                budgets.add(p.name)
        return cls(defaults, frozenset(params), frozenset(budgets))


def _with(node, **changes):
    new = copy.copy(node)
    for key, value in changes.items():
        setattr(new, key, value)
    return new


def family_sites(node: ast.AST, scope: Scope) -> Iterator[tuple[ast.AST, str, object]]:
    if isinstance(node, ast.Subscript):
        yield from _batch_subscripts(node)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) is int and operand.value in BATCH_AXES:
            yield node, f"batch axis: axis -{operand.value} -> 0", lambda n: ast.Constant(0)
    elif isinstance(node, ast.Call):
        yield from _dropped_arguments(node, scope)
        yield from _do_while_range(node)
        yield from _budget_arguments(node, scope)
    elif isinstance(node, ast.While):
        yield node, "do-while: the loop body runs once before the test", _runs_once_first
    elif isinstance(node, ast.Slice):
        for part in ("lower", "upper"):
            bound = getattr(node, part)
            if isinstance(bound, ast.Name) and bound.id in scope.budgets:
                yield from _budget_variants(node, part, bound.id)
    elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
        right = node.comparators[0]
        if isinstance(right, ast.Name) and right.id in scope.budgets:
            for step, sign in ((1, "+"), (-1, "-")):
                yield (
                    node,
                    f"boundary budget: {right.id} -> {right.id} {sign} 1 in a comparison",
                    lambda n, s=step: _with(n, comparators=[_plus(n.comparators[0], s)]),
                )


def _batch_subscripts(node: ast.Subscript) -> Iterator:
    """``X[..., a, b]``: the ``...`` dropped (``X[a, b]``), or only its first index kept (``X[a]``)."""
    index = node.slice
    if not isinstance(index, ast.Tuple) or len(index.elts) < 2:
        return
    first = index.elts[0]
    if not (isinstance(first, ast.Constant) and first.value is Ellipsis):
        return
    rest = index.elts[1:]
    yield node, "batch axis: the ... dropped from an index", lambda n: _with(n, slice=_tuple_or_one(rest))
    if len(rest) > 1 and not isinstance(rest[0], ast.Slice):
        yield node, "batch axis: X[..., i, :] read as X[i]", lambda n: _with(n, slice=copy.deepcopy(rest[0]))


def _tuple_or_one(elts):
    elts = copy.deepcopy(elts)
    return elts[0] if len(elts) == 1 else ast.Tuple(elts, ast.Load())


def _callee(node: ast.Call) -> str | None:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _dropped_arguments(node: ast.Call, scope: Scope) -> Iterator:
    """An argument the outer function received, dropped from an inner call (the last positional
    one, or a keyword), so that the callee's default is used."""
    name = _callee(node)
    if node.args and len(node.args) >= 2:
        last = node.args[-1]
        if isinstance(last, ast.Name) and last.id in scope.params and not isinstance(last, ast.Starred):
            yield (
                node,
                f"default argument ignored: {last.id} not passed on to {name}()",
                lambda n: _with(n, args=n.args[:-1]),
            )
    for i, kw in enumerate(node.keywords):
        if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id in scope.params:
            yield (
                node,
                f"default argument ignored: {kw.arg}={kw.value.id} not passed on to {name}()",
                lambda n, i=i: _with(n, keywords=n.keywords[:i] + n.keywords[i + 1 :]),
            )


def _do_while_range(node: ast.Call) -> Iterator:
    if _callee(node) != "range" or not isinstance(node.func, ast.Name) or not 1 <= len(node.args) <= 2:
        return
    if len(node.args) == 1:
        yield node, "do-while: range(n) -> range(max(n, 1))", lambda n: _with(n, args=[_max(n.args[0], 1)])
    else:
        yield (
            node,
            "do-while: range(a, b) -> range(a, max(b, a + 1))",
            lambda n: _with(n, args=[n.args[0], _max(n.args[1], None, n.args[0])]),
        )


def _max(expr, at_least: int | None, start=None) -> ast.expr:
    floor = ast.Constant(at_least) if start is None else _plus(start, 1)
    return ast.Call(ast.Name("max", ast.Load()), [copy.deepcopy(expr), floor], [])


def _runs_once_first(node: ast.While) -> ast.While:
    """``while (_dw := locals().get('_dw', 0) + 1) == 1 or test:`` — true on the first pass."""
    first = ast.parse("(_dw_pass := locals().get('_dw_pass', 0) + 1) == 1", mode="eval").body
    return _with(node, test=ast.BoolOp(ast.Or(), [first, node.test]))


def _budget_arguments(node: ast.Call, scope: Scope) -> Iterator:
    for i, arg in enumerate(node.args):
        if isinstance(arg, ast.Name) and arg.id in scope.budgets:
            for step, sign in ((1, "+"), (-1, "-")):
                yield (
                    node,
                    f"boundary budget: {arg.id} -> {arg.id} {sign} 1 in {_callee(node)}()",
                    lambda n, i=i, s=step: _with(n, args=n.args[:i] + [_plus(n.args[i], s)] + n.args[i + 1 :]),
                )
    for i, kw in enumerate(node.keywords):
        if isinstance(kw.value, ast.Name) and kw.value.id in scope.budgets:
            for step, sign in ((1, "+"), (-1, "-")):
                yield (
                    node,
                    f"boundary budget: {kw.arg}={kw.value.id} {sign} 1 in {_callee(node)}()",
                    lambda n, i=i, s=step: _with(
                        n,
                        keywords=n.keywords[:i]
                        + [ast.keyword(n.keywords[i].arg, _plus(n.keywords[i].value, s))]
                        + n.keywords[i + 1 :],
                    ),
                )


def _budget_variants(node: ast.Slice, part: str, name: str) -> Iterator:
    for step, sign in ((1, "+"), (-1, "-")):
        yield (
            node,
            f"boundary budget: {name} -> {name} {sign} 1 in a slice",
            lambda n, p=part, s=step: _with(n, **{p: _plus(getattr(n, p), s)}),
        )


def _plus(expr, step: int) -> ast.expr:
    return ast.BinOp(copy.deepcopy(expr), ast.Add() if step > 0 else ast.Sub(), ast.Constant(abs(step)))
