"""Symbolic derivations: the source of every expected value the grader uses.

Each module exposes plain functions that return SymPy expressions (or prove an identity and
return ``True``); numbers for grading come from evaluating them, never from typing them in.
``tests/solutions/test_derivations.py`` checks each derivation — parameter counts against real torch
modules, identities by exact symbolic simplification.
"""

from solutions.derivations.symbols import evaluate

__all__ = ["evaluate"]
