"""Formula answers, parsed safely: a restricted grammar, never ``eval``.

SymPy's ``sympify``/``parse_expr`` call ``eval`` on their input, so student text never goes
near them. ``parse_formula`` reads the text with Python's own parser (``ast.parse``, which only
builds a tree) and walks a strict allow-list of nodes — numbers, allowed symbols, + − × ÷ and
powers, parentheses, allowed functions — building SymPy objects directly. Anything else
(attributes, subscripts, strings, lambdas, calls of other names, huge exponents) is refused
with a message a student can act on.

``equivalent`` decides equality exactly at random positive integer points (rational
arithmetic), which is decisive for polynomials of bounded degree and rejects near-misses at
once; only when all points agree and the expressions are not polynomials does it ask SymPy's
``simplify``. The whole decision runs in a forked process limited to ``timeout_s`` seconds of
**CPU time** (RLIMIT_CPU), since evaluating even a well-formed formula can be unbounded (towers of
powers): a limit on the CPU clock gives the same verdict on a quiet and a saturated machine; a
wall-clock net far above it only catches a child that gets no CPU at all.
"""

from __future__ import annotations

import ast
import contextlib
import math
import os
import pickle
import random
import resource
import select
import signal
import struct
import time
from collections.abc import Iterable

import sympy

from autograder.i18n import Message
from autograder.judging.compare.formula_grammar import FUNCTIONS as FORMULA_FUNCTIONS
from autograder.judging.compare.formula_grammar import FormulaSyntaxError, check_formula
from autograder.judging.compare.formula_grammar import describe as _describe
from autograder.judging.compare.formula_grammar import normalise as _normalise
from autograder.judging.compare.formula_messages import syntax_message

MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_EXPONENT = 64
EXPONENT_LIMIT = Message("exponents are limited to rational numbers up to {limit}", limit=MAX_EXPONENT)
CHILD_MEMORY = 1 << 30  # address space a formula check may add
FUNCTIONS = {"sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log, "sin": sympy.sin, "cos": sympy.cos}


class FormulaError(ValueError):
    """The answer is not a formula we accept; the message is for the student."""


def parse_formula(
    text: str, allowed_symbols: Iterable[str], allowed_functions: Iterable[str] = FORMULA_FUNCTIONS
) -> sympy.Expr:
    """The grammar check shipped to students (``autograder.judging.compare.formula_grammar``) first, so both
    sides refuse the same texts; then SymPy objects built node by node."""
    allowed_symbols, allowed_functions = tuple(allowed_symbols), tuple(allowed_functions)
    try:
        check_formula(text, allowed_symbols, allowed_functions)
    except FormulaSyntaxError as exc:  # the shipped grammar's English, as the message it is (formula_messages)
        raise FormulaError(syntax_message(str(exc))) from None
    tree = ast.parse(_normalise(text), mode="eval")
    symbols = {name: sympy.Symbol(name, positive=True) for name in allowed_symbols}
    functions = {name: FUNCTIONS[name] for name in allowed_functions if name in FUNCTIONS}
    return _Builder(symbols, functions).build(tree.body, 0)


class _Builder:
    def __init__(self, symbols: dict, functions: dict):
        self.symbols, self.functions = symbols, functions

    def build(self, node: ast.AST, depth: int):
        if depth > MAX_DEPTH:
            raise FormulaError(Message("the formula is nested too deeply"))
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise FormulaError(Message("{what} is not allowed in a formula", what=_describe(node)))
        return method(node, depth + 1)

    def _Constant(self, node, depth):
        if type(node.value) is int:
            return sympy.Integer(node.value)
        if type(node.value) is float:
            return sympy.Rational(repr(node.value))
        raise FormulaError(Message("{value} is not a number", value=repr(node.value)))

    def _Name(self, node, depth):
        if node.id in self.symbols:
            return self.symbols[node.id]
        allowed = ", ".join(sorted(self.symbols)) or "none"
        if not self.symbols:
            raise FormulaError(Message("unknown symbol {name}: use none", name=repr(node.id)))
        raise FormulaError(Message("unknown symbol {name}: use {allowed}", name=repr(node.id), allowed=allowed))

    def _UnaryOp(self, node, depth):
        operand = self.build(node.operand, depth)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        raise FormulaError(Message("the operator {operator} is not allowed", operator=type(node.op).__name__))

    def _BinOp(self, node, depth):
        left, right = self.build(node.left, depth), self.build(node.right, depth)
        op = type(node.op)
        if op is ast.Add:
            return left + right
        if op is ast.Sub:
            return left - right
        if op is ast.Mult:
            return left * right
        if op is ast.Div:
            if right == 0:
                raise FormulaError(Message("division by zero"))
            return left / right
        if op is ast.Pow:
            if right.is_number and (not right.is_rational or abs(right) > MAX_EXPONENT):
                raise FormulaError(EXPONENT_LIMIT)
            if (
                right.is_number
                and isinstance(left, sympy.Pow)
                and left.exp.is_number
                and abs(left.exp * right) > MAX_EXPONENT
            ):
                raise FormulaError(EXPONENT_LIMIT)
            if not right.is_number and left.is_number and abs(left) > 10**6:
                raise FormulaError(Message("that power is too large"))
            return left**right
        raise FormulaError(
            Message("the operator {operator} is not allowed (use + - * / ** or ^)", operator=op.__name__)
        )

    def _Call(self, node, depth):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in self.functions:
            what = name or _describe(node.func)
            if self.functions:
                raise FormulaError(
                    Message(
                        "function {name} is not allowed (allowed: {allowed})",
                        name=what,
                        allowed=", ".join(sorted(self.functions)),
                    )
                )
            raise FormulaError(Message("function {name} is not allowed", name=what))
        if node.keywords or len(node.args) != 1:
            raise FormulaError(Message("{name} takes exactly one argument", name=name))
        return self.functions[name](self.build(node.args[0], depth))


# ---------------------------------------------------------------- equivalence


def _points_agree(a: sympy.Expr, b: sympy.Expr, names: list[str], trials: int, seed: int) -> bool:
    """Exact comparison at random positive integer points (symbols matched by name)."""
    rng = random.Random(seed)
    difference = a - b
    by_name = {}
    for sym in difference.free_symbols:
        by_name.setdefault(str(sym), []).append(sym)
    for _ in range(trials):
        values = {}
        for name in names:
            value = sympy.Integer(rng.randint(2, 997))
            values.update({sym: value for sym in by_name.get(name, ())})
        try:
            point = difference.xreplace(values)
        except (ZeroDivisionError, TypeError, ValueError):
            return False
        if point.is_rational:
            if point != 0:
                return False
        elif not point.is_number or abs(complex(point.evalf(30))) > 1e-20:
            return False
    return True


def _cap_memory(extra: int) -> None:
    """Limit this (child) process's address space to what it has now plus ``extra`` bytes."""
    try:
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (now + extra, now + extra))
    except (OSError, ValueError):
        pass


def _decide(student, reference, names, trials, seed, timeout_s, report) -> None:
    """The whole decision, run in a child process: ``report`` receives ("points", ok) once the
    sample points are compared, then ("final", ok) — or ("error", message)."""
    try:
        _cap_memory(CHILD_MEMORY)
        if not _points_agree(student, reference, names, trials, seed):
            report(("final", False))
            return
        report(("points", True))
        # Symbols that differ only in their assumptions are the same variable.
        unify = {s: sympy.Symbol(str(s), positive=True) for s in student.free_symbols | reference.free_symbols}
        difference = sympy.expand(student.xreplace(unify) - reference.xreplace(unify))
        if difference == 0:
            report(("final", True))
        elif difference.is_polynomial(*unify.values()):
            report(("final", False))  # a nonzero polynomial after expansion
        else:
            # Polynomial answers are settled above; other forms (sqrt, log, ratios) agreed exactly
            # at every sample point — simplify confirms within the parent's time limit.
            report(("final", bool(sympy.simplify(difference) == 0)))
    except Exception as exc:  # noqa: BLE001 - OverflowError, MemoryError, RecursionError, …
        report(("error", type(exc).__name__))


def wall_net(cpu_s: float) -> float:
    """The wall-clock limit behind a CPU limit: reached only by a child that gets no CPU (a
    saturated machine slowing a check tenfold stays below it)."""
    return 10 * cpu_s + 10


def _limit_cpu(cpu_s: float) -> None:
    """This (child) process is killed (SIGKILL: soft = hard, no core file) after ``cpu_s`` CPU-seconds."""
    seconds = max(1, math.ceil(cpu_s))
    with contextlib.suppress(OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


def reports_from_fork(target, args, timeout_s: float):
    """Run ``target(*args, report)`` in a forked child and yield what it reports until it exits
    or has used ``timeout_s`` CPU-seconds (then the kernel kills it; ``wall_net`` behind). A bare
    ``os.fork`` rather than ``multiprocessing``: grading may itself run in a daemonic process (a
    Dask worker), which multiprocessing forbids to have children."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running the parent's exit handlers
        status = 0
        try:
            os.close(reader)
            _limit_cpu(timeout_s)

            def report(message) -> None:
                data = pickle.dumps(message)
                os.write(writer, struct.pack("!I", len(data)) + data)

            target(*args, report)
        except BaseException:  # noqa: BLE001 - nothing may escape a forked child
            status = 1
        finally:
            os._exit(status)
    os.close(writer)
    deadline = time.monotonic() + wall_net(timeout_s)
    buffer = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([reader], [], [], left)[0]:
                return  # out of time
            chunk = os.read(reader, 65536)
            if not chunk:
                return  # the child exited (or was killed for memory)
            buffer += chunk
            while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack("!I", buffer[:4])[0]:
                size = struct.unpack("!I", buffer[:4])[0]
                yield pickle.loads(buffer[4 : 4 + size])
                buffer = buffer[4 + size :]
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(reader)


def equivalent(
    student: sympy.Expr,
    reference: sympy.Expr,
    symbols: Iterable[str] = (),
    *,
    timeout_s: float = 2.0,
    trials: int = 8,
    seed: int = 0,
) -> bool:
    """True when the two expressions are equal as functions of the given symbols.

    Evaluating a parsed formula can still be unbounded (``d**d**d`` at d = 500 builds an integer
    with 10^1349 digits; ``exp(exp(exp(d)))`` overflows), so the decision runs in a forked child
    killed after ``timeout_s`` CPU-seconds: a formula that cannot be checked in time raises FormulaError and
    costs that answer, never the grading run. When the sample points agreed and only SymPy's
    ``simplify`` ran out of time, the answer is accepted (it agreed exactly at every point)."""
    names = sorted({str(s) for s in student.free_symbols | reference.free_symbols})
    points_agreed, verdict = False, None
    with contextlib.closing(
        reports_from_fork(_decide, (student, reference, names, trials, seed, timeout_s), timeout_s)
    ) as reports:
        for kind, value in reports:
            if kind == "points":
                points_agreed = True
            elif kind == "final":
                verdict = bool(value)
                break
            else:
                raise FormulaError(
                    Message(
                        "the formula cannot be evaluated ({error}: it grows too fast) — "
                        "write it as a plain expression in the symbols",
                        error=value,
                    )
                )
    if verdict is not None:
        return verdict
    if points_agreed:
        return True  # agreed exactly at every sample point; simplify ran out of time
    raise FormulaError(
        Message(
            "the formula could not be evaluated within {seconds} CPU-s (a tower of powers or "
            "an enormous expansion?) — write it as a plain expression in the symbols",
            seconds=format(timeout_s, "g"),
        )
    )
