"""Which mutants a function question gets (see ``autograder.proving.mutation.analysis`` for how they are judged).

* source mutants: every single-site mutant (``autograder.proving.mutation.operators``) of the reference
  and of the course functions it calls (``solutions/``, the problem set's own modules), to
  CALLEE_DEPTH levels; a callee's mutant is installed by swapping the function in every
  module namespace that holds it, for the time the mutant runs;
* argument mutants: the reference ignoring one argument — keeping its default, the visible
  example's value, or (for positions) 0..T-1.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from autograder.proving.mutation.operators import source_mutants
from autograder.spec import Question

CALLEE_DEPTH = 2


@dataclass(frozen=True)
class Mutant:
    name: str
    function: Callable  # what the student would have written (same signature as the reference)
    install: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
    site: tuple[str, int] | None = None  # (file, line) changed; a line no input runs is equivalent


# ---------------------------------------------------------------- targets and installation


def _in_course(function, roots: tuple[Path, ...]) -> bool:
    try:
        path = Path(inspect.getsourcefile(function) or "").resolve()
    except TypeError:
        return False
    return any(root in path.parents for root in roots)


def _called_functions(function) -> Iterator[Callable]:
    """Plain functions named in ``function``'s body: globals, ``module.attr``, local imports."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return
    namespace = function.__globals__
    for node in ast.walk(tree):
        value = None
        if isinstance(node, ast.Name):
            value = namespace.get(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = namespace.get(node.value.id)
            value = getattr(owner, node.attr, None) if isinstance(owner, types.ModuleType) else None
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            with contextlib.suppress(ImportError):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    yield from _functions(getattr(module, alias.name, None))
        yield from _functions(value)


def _functions(value) -> Iterator[Callable]:
    if isinstance(value, types.FunctionType):
        yield value


def mutation_targets(reference, roots: tuple[Path, ...]) -> list[Callable]:
    """The reference and the course functions it calls, to CALLEE_DEPTH levels, in call order."""
    seen, order, frontier = {id(reference)}, [reference], [reference]
    for _ in range(CALLEE_DEPTH):
        nxt = []
        for fn in frontier:
            for callee in _called_functions(fn):
                if id(callee) not in seen and _in_course(callee, roots):
                    seen.add(id(callee))
                    order.append(callee)
                    nxt.append(callee)
        frontier = nxt
    return order


@contextlib.contextmanager
def swapped_in(original, replacement, namespaces: list[dict]):
    """Every name bound to ``original`` in these namespaces points at ``replacement``."""
    changed = []
    try:
        for ns in namespaces:
            for key, value in list(ns.items()):
                if value is original:
                    ns[key] = replacement
                    changed.append((ns, key))
        yield
    finally:
        for ns, key in changed:
            ns[key] = original


def source_level_mutants(reference, roots) -> list[Mutant]:
    targets = mutation_targets(reference, roots)
    namespaces = list({id(ns): ns for ns in (t.__globals__ for t in targets)}.values())
    mutants = []
    for target in targets:
        for m in source_mutants(target):
            site = (target.__code__.co_filename, m.line)
            if target is reference:
                mutants.append(Mutant(m.name, m.function, site=site))
            else:
                install = lambda o=target, r=m.function: swapped_in(o, r, namespaces)
                mutants.append(Mutant(m.name, reference, install, site))
    return mutants


def _forcing(reference, index: int, name: str, value) -> Callable:
    signature = inspect.signature(reference)

    def mutant(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.arguments[name] = value
        return reference(*bound.args, **bound.kwargs)

    return mutant


def _arange_like(value):
    import torch

    n = value.shape[-1]
    return torch.arange(n).expand(value.shape).clone() if hasattr(value, "expand") else np.arange(n)


def _positions_mutant(reference, name: str) -> Callable:
    signature = inspect.signature(reference)

    def mutant(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get(name) is not None:
            bound.arguments[name] = _arange_like(bound.arguments[name])
        return reference(*bound.args, **bound.kwargs)

    return mutant


def argument_mutants(q: Question) -> list[Mutant]:
    """Answers that ignore one argument: keep its default, the visible example's value, or
    (for positions) 0..T-1."""
    mutants = []
    params = [
        p
        for p in inspect.signature(q.reference).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    for index, p in enumerate(params):
        if p.default is not inspect.Parameter.empty:
            mutants.append(
                Mutant(
                    f"ignores `{p.name}` (keeps the default {p.default!r})",
                    _forcing(q.reference, index, p.name, p.default),
                )
            )
        shown = {
            repr(v.args[index])
            for v in q.visible
            if index < len(v.args) and isinstance(v.args[index], (bool, int, float, type(None)))
        }
        if len(shown) == 1 and len(q.visible) == sum(index < len(v.args) for v in q.visible):
            value = q.visible[0].args[index]
            if p.default is inspect.Parameter.empty or repr(p.default) != repr(value):
                mutants.append(
                    Mutant(
                        f"ignores `{p.name}` (uses the visible example's {value!r})",
                        _forcing(q.reference, index, p.name, value),
                    )
                )
        if "position" in p.name or p.name in ("pos", "positions"):
            mutants.append(
                Mutant(f"ignores `{p.name}` (assumes positions 0..T-1)", _positions_mutant(q.reference, p.name))
            )
    return mutants
