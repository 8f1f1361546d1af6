"""Code for the released notebook's check cells: Python literals of expected values, and the
lines that check a value's structure. Each comparator writes its own check from these
(``Comparator.example_lines`` / ``value_lines``); ``autograder.releasing.visible_checks`` assembles the cell."""

from __future__ import annotations

from typing import Any

import numpy as np


def number(x, digits: int = 7) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "True" if x else "False"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if not np.isfinite(x):  # masked scores: a literal the student's cell can run
        return f"float('{float(x)}')"
    return format(float(x), f".{digits}g")


def nested(arr: np.ndarray, digits: int = 7) -> str:
    if arr.ndim == 0:
        return number(arr.item(), digits)
    return "[" + ", ".join(nested(a, digits) for a in arr) + "]"


def structure_lines(expr: str, value: Any, samples: list[Any] | None) -> list[str]:
    """Assert lines for the type / keys / shape / integrality of ``expr`` (and, with samples of
    the same value for other students, its order of magnitude)."""

    def check(condition: str, message: str) -> str:
        return f"assert {condition}, {f'{expr} {message}'!r}"

    if isinstance(value, dict):
        lines = [
            check(f"isinstance({expr}, dict)", "should be a dict"),
            check(
                f"sorted(map(str, {expr})) == {sorted(map(str, value))!r}",
                "should have the keys " + ", ".join(map(str, sorted(value))),
            ),
        ]
        for key in value:
            lines += structure_lines(f"{expr}[{key!r}]", value[key], [s[key] for s in samples] if samples else None)
        return lines
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        lines = [check(f"len({expr}) == {len(value)}", f"should have {len(value)} entries")]
        if all(isinstance(v, int) for v in value):
            lines.append(check(f"all(float(v) == int(v) for v in {expr})", "should hold whole numbers"))
        return lines
    if isinstance(value, np.ndarray):
        return [
            check(f"np.asarray({expr}).shape == {tuple(value.shape)!r}", f"should have shape {tuple(value.shape)}"),
            check(f"np.isfinite(np.asarray({expr}, dtype=np.float64)).all()", "should be finite"),
        ]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lines = [
            check(
                f"isinstance({expr}, (int, float, np.integer, np.floating)) and not isinstance({expr}, bool)",
                "should be a number",
            )
        ]
        if isinstance(value, int):
            lines.append(check(f"float({expr}) == int({expr})", "should be a whole number"))
        if samples:
            lo, hi = min(samples) / 10, max(samples) * 10
            lines.append(check(f"{lo:.6g} <= {expr} <= {hi:.6g}", "is off by an order of magnitude or more"))
        return lines
    if isinstance(value, str):
        return [check(f"isinstance({expr}, str)", "should be a string")]
    return []
