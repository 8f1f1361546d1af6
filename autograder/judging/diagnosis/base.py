"""What every diagnosis finder works on: the failing probes (``Case``), the question, and the
named sizes a constant may be made of (``Context``). See ``diagnose.py``."""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.i18n import Message
from autograder.spec import Probe, Question, as_args, to_plain

ALIASES = {"q": "d_k", "k": "d_k", "query": "d_k", "key": "d_k", "v": "d_v", "x": "d", "x_q": "d_model"}


@dataclass(frozen=True)
class Diagnosis:
    kind: str  # factor | sign | axes | reversed | permuted | shift | mask_missing | mask_inverted |
    #            softmax_scale | softmax_axis | norm_axis | zeros | precision | formula_terms
    feedback: str


@dataclass
class Case:
    probe: Probe
    got: Any
    expected: Any


def numeric_array(value: Any) -> np.ndarray | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "fiub" or arr.size == 0:
        return None
    return arr.astype(np.float64)


def _like(candidate: np.ndarray, expected: Any) -> Any:
    """The candidate in the expected value's own form (a list of ints stays a list of ints)."""
    if isinstance(expected, np.ndarray):  # in the expected dtype: comparators may check it
        if expected.dtype.kind in "iub" and not np.allclose(candidate, np.round(candidate)):
            return candidate
        return candidate.astype(expected.dtype)
    if isinstance(expected, (list, int, float)) and not isinstance(expected, bool):
        if np.asarray(expected).dtype.kind in "iu":
            if not np.all(np.isfinite(candidate)) or not np.allclose(candidate, np.round(candidate)):
                return None
            candidate = np.round(candidate).astype(np.int64)
        return candidate.tolist()
    return candidate


class Context:
    def __init__(self, question: Question, cases: list[Case]):
        self.question, self.cases = question, cases
        try:
            self.params = list(inspect.signature(question.reference).parameters)
        except (TypeError, ValueError):
            self.params = []

    def fits(self, got: Any, candidate: Any, expected: Any) -> bool:
        if candidate is None:
            return False
        if isinstance(candidate, np.ndarray):
            candidate = _like(candidate, expected)
            if candidate is None:
                return False
        try:
            return bool(self.question.compare.matches(got, candidate))
        except Exception:  # noqa: BLE001 - a candidate the comparator cannot read explains nothing
            return False

    def all_fit(self, make: Callable[[Case], Any]) -> bool:
        """``make(case)`` builds the candidate for one failing probe; all must match."""
        for case in self.cases:
            try:
                candidate = make(case)
            except Exception:  # noqa: BLE001 - a variant that cannot be built explains nothing
                return False
            if not self.fits(case.got, candidate, case.expected):
                return False
        return True

    def reference(self, args: tuple, kwargs: dict, override=None) -> Any:
        from autograder.judging.diagnosis.variants import overridden

        q = self.question
        with overridden(override):
            return to_plain(q.reference(*as_args(args, q.args_as), **kwargs))

    def sizes(self, probe: Probe) -> list[tuple[str, float]]:
        """Named sizes a constant factor may be made of: the inputs' last axes, integer
        arguments, and their ratios (d_model / n_heads)."""
        found: list[tuple[str, float]] = []
        ints = []
        for name, arg in zip(self.params, probe.args):
            if isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.ndim >= 1:
                label = ALIASES.get(name, f"{name}.shape[-1]")
                found.append((label, float(arg.shape[-1])))
            elif isinstance(arg, (int, np.integer)) and not isinstance(arg, bool) and arg > 1:
                ints.append((name, int(arg)))
                found.append((name, float(arg)))
        for (label, size), (name, n) in itertools.product(list(found), ints):
            if label != name and size > n and size % n == 0:
                found.append((f"{label}/{name}", size / n))
        unique, seen = [], set()
        for label, size in found:
            if size > 1 and label not in seen:
                seen.add(label)
                unique.append((label, size))
        return unique

    def factor_names(self, probe: Probe) -> list[tuple[str, float]]:
        names = []
        for label, size in self.sizes(probe):
            root = f"√({label})" if "/" in label or "." in label else f"√{label}"
            names += [
                (root, math.sqrt(size)),
                (f"1/{root}", 1 / math.sqrt(size)),
                (label if "/" not in label else f"({label})", size),
                (f"1/{label}" if "/" not in label else f"1/({label})", 1 / size),
            ]
        return names + [("2", 2.0), ("1/2", 0.5), ("4", 4.0), ("1/4", 0.25), ("10", 10.0), ("1/10", 0.1)]


def named_constant(ctx: Context, values: list[float]) -> str | None:
    """A name that gives, on every failing probe, that probe's constant."""
    common = None
    for case, value in zip(ctx.cases, values):
        names = [n for n, v in ctx.factor_names(case.probe) if math.isclose(v, value, rel_tol=1e-3)]
        common = names if common is None else [n for n in common if n in names]
        if not common:
            return None
    if not common:
        return None
    numbers = [n for n in common if n.replace("/", "").isdigit()]
    sizes = [n for n in common if n not in numbers]
    if numbers and sizes:  # the probes cannot tell them apart: say both
        return Message("{number} (= {size} here)", number=numbers[0], size=sizes[0])
    return common[0]
