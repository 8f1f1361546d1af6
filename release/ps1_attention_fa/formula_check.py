"""The restricted formula grammar, standard library only.

The grader's parser (``autograder.judging.compare.symbolic.parse_formula``) checks every answer with
``check_formula`` before it builds SymPy objects, and the release ships this same file beside
the notebook as ``formula_check.py``, so a student's visible check refuses exactly what the
grader refuses: text that does not parse, a symbol the question does not offer, a function
or an operator outside the grammar. Nothing here evaluates the text (``ast.parse`` only
builds a tree).
"""

import ast

MAX_LENGTH = 500
MAX_DEPTH = 40
FUNCTIONS = ("sqrt", "exp", "log", "sin", "cos")
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


class FormulaSyntaxError(ValueError):
    """The text is not a formula in the grammar; the message is for the student."""


def normalise(text):
    return text.replace("^", "**").replace("·", "*").replace("×", "*").replace("−", "-").replace("÷", "/").strip()


def check_formula(text, allowed_symbols, allowed_functions=FUNCTIONS):
    """Raise FormulaSyntaxError unless ``text`` is a formula in ``allowed_symbols``."""
    if not isinstance(text, str):
        raise FormulaSyntaxError("the answer must be a formula written as a string, e.g. '4*d**2 + 4*d'")
    if len(text) > MAX_LENGTH:
        raise FormulaSyntaxError(f"the formula is longer than {MAX_LENGTH} characters")
    source = normalise(text)
    if not source:
        raise FormulaSyntaxError("the formula is empty")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        hint = " (write multiplication explicitly: 4*d, not 4d)" if _looks_implicit(source) else ""
        raise FormulaSyntaxError(f"{text!r} is not a formula I can read{hint}") from None
    _check(tree.body, set(allowed_symbols), set(allowed_functions), 0)


def _looks_implicit(source):
    return any(a.isdigit() and (b.isalpha() or b == "(") for a, b in zip(source, source[1:]))


def _check(node, symbols, functions, depth):
    if depth > MAX_DEPTH:
        raise FormulaSyntaxError("the formula is nested too deeply")
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise FormulaSyntaxError(f"{node.value!r} is not a number")
    elif isinstance(node, ast.Name):
        if node.id not in symbols:
            allowed = ", ".join(sorted(symbols)) or "none"
            raise FormulaSyntaxError(f"unknown symbol {node.id!r}: use {allowed}")
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise FormulaSyntaxError(f"the operator {type(node.op).__name__} is not allowed")
        _check(node.operand, symbols, functions, depth + 1)
    elif isinstance(node, ast.BinOp):
        if not isinstance(node.op, _OPERATORS):
            raise FormulaSyntaxError(f"the operator {type(node.op).__name__} is not allowed (use + - * / ** or ^)")
        _check(node.left, symbols, functions, depth + 1)
        _check(node.right, symbols, functions, depth + 1)
    elif isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in functions:
            raise FormulaSyntaxError(
                f"function {name or describe(node.func)} is not allowed"
                + (f" (allowed: {', '.join(sorted(functions))})" if functions else "")
            )
        if node.keywords or len(node.args) != 1:
            raise FormulaSyntaxError(f"{name} takes exactly one argument")
        _check(node.args[0], symbols, functions, depth + 1)
    else:
        raise FormulaSyntaxError(f"{describe(node)} is not allowed in a formula")


def describe(node):
    names = {
        "Attribute": "attribute access (a.b)",
        "Subscript": "indexing (a[i])",
        "Lambda": "lambda",
        "Compare": "a comparison",
        "BoolOp": "and/or",
        "List": "a list",
        "Tuple": "a tuple",
        "Dict": "a dict",
        "Set": "a set",
        "JoinedStr": "an f-string",
        "NamedExpr": ":=",
        "IfExp": "if/else",
        "ListComp": "a comprehension",
        "GeneratorExp": "a generator",
        "Starred": "*args",
        "Await": "await",
    }
    return names.get(type(node).__name__, type(node).__name__)
