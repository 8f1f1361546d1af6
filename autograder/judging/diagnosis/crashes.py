"""Diagnosis of an answer that raises: *when* it raises, and what the exception's shapes say.

* **Which circumstance triggers it.** When the answer raises on some probes and returns on
  others, each probe's arguments are described by a few properties (an argument given or None,
  the number of axes of an array, an odd or not-power-of-two size, an integer or float dtype,
  T_q ≠ T_k, a flag on or off, a named option) and the first property that holds on every probe
  that raised and on none that returned is named ("it raises only when `mask` is given"). Only
  the property is named — never a probe's values, a hidden function or a seed.
* **What the exception says.** When it raises everywhere: a matrix product whose inner sizes
  differ but would agree with one operand transposed, an index one past the end of an axis, a
  module used as a number, an assertion of the student's own that rejects inputs the
  specification allows.

Nothing here is claimed unless it holds on every probe (the separation is exact; a message-based
diagnosis must fit every probe that raised).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from autograder.judging.diagnosis.base import Diagnosis
from autograder.spec import FunctionSource, Probe, Question

Feature = tuple[str, Callable[[Probe], Any]]  # (the circumstance in words, probe -> bool or None)


def _params(question: Question) -> list[str]:
    try:
        return [
            p.name
            for p in inspect.signature(question.reference).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return []


def _defaults(question: Question) -> dict:
    try:
        return {
            p.name: p.default
            for p in inspect.signature(question.reference).parameters.values()
            if p.default is not inspect.Parameter.empty
        }
    except (TypeError, ValueError):
        return {}


def _arg_of(probe: Probe, index: int, name: str, defaults: dict | None = None):
    if index < len(probe.args):
        return probe.args[index]
    return probe.kwargs.get(name, (defaults or {}).get(name, inspect.Parameter.empty))


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _pow2(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


def _features(question: Question, probes: list[Probe]) -> list[Feature]:
    """Candidate circumstances, most telling first; each maps a probe to True/False (None: n/a)."""
    names = _params(question)
    defaults = _defaults(question)

    def _arg(probe, index, name):  # the probe's argument, or the signature's default
        return _arg_of(probe, index, name, defaults)

    out: list[Feature] = []
    arrays, ints = [], []
    for i, name in enumerate(names):
        values = [_arg(p, i, name) for p in probes]
        if any(isinstance(v, FunctionSource) for v in values):
            continue
        if any(v is None for v in values) and any(v is not None and v is not inspect.Parameter.empty for v in values):
            out.append((f"`{name}` is given (not None)", lambda p, i=i, n=name: _arg(p, i, n) is not None))
            out.append((f"`{name}` is None", lambda p, i=i, n=name: _arg(p, i, n) is None))
        if any(isinstance(v, (bool, np.bool_)) for v in values):
            out.append((f"`{name}` is True", lambda p, i=i, n=name: _arg(p, i, n) is True or _arg(p, i, n) is np.True_))
            out.append(
                (f"`{name}` is False", lambda p, i=i, n=name: _arg(p, i, n) is False or _arg(p, i, n) is np.False_)
            )
        if any(isinstance(v, str) for v in values):
            for s in sorted({v for v in values if isinstance(v, str)}):
                out.append((f"`{name}` is {s!r}", lambda p, i=i, n=name, s=s: _arg(p, i, n) == s))
        if any(isinstance(v, np.ndarray) for v in values):
            arrays.append((i, name))
        if any(_is_int(v) for v in values):
            ints.append((i, name))

    def arr(p, i, n):
        v = _arg(p, i, n)
        return v if isinstance(v, np.ndarray) else None

    for i, name in arrays:
        ndims = sorted({a.ndim for a in (arr(p, i, name) for p in probes) if a is not None})
        for nd in ndims:
            word = {1: "is a vector (1 axis)", 2: "has 2 axes (no batch dimension)"}.get(nd, f"has {nd} axes")
            out.append(
                (
                    f"`{name}` {word}",
                    lambda p, i=i, n=name, nd=nd: None if arr(p, i, n) is None else arr(p, i, n).ndim == nd,
                )
            )
        if len(ndims) > 1:
            out.append(
                (
                    f"`{name}` has batch dimensions (more than {ndims[0]} axes)",
                    lambda p, i=i, n=name, k=ndims[0]: None if arr(p, i, n) is None else arr(p, i, n).ndim > k,
                )
            )
        out.append(
            (
                f"`{name}` has integer entries",
                lambda p, i=i, n=name: None if arr(p, i, n) is None else arr(p, i, n).dtype.kind in "iu",
            )
        )
        out.append(
            (
                f"`{name}` is float64",
                lambda p, i=i, n=name: None if arr(p, i, n) is None else arr(p, i, n).dtype == np.float64,
            )
        )
        out.append(
            (
                f"`{name}` is float32",
                lambda p, i=i, n=name: None if arr(p, i, n) is None else arr(p, i, n).dtype == np.float32,
            )
        )
        out.append(
            (
                f"the last axis of `{name}` is odd",
                lambda p, i=i, n=name: (
                    None if arr(p, i, n) is None or arr(p, i, n).ndim == 0 else arr(p, i, n).shape[-1] % 2 == 1
                ),
            )
        )
        out.append(
            (
                f"the last axis of `{name}` is not a multiple of 4",
                lambda p, i=i, n=name: (
                    None if arr(p, i, n) is None or arr(p, i, n).ndim == 0 else arr(p, i, n).shape[-1] % 4 != 0
                ),
            )
        )
        out.append(
            (
                f"`{name}` has a row with no allowed position",
                lambda p, i=i, n=name: (
                    None
                    if arr(p, i, n) is None or arr(p, i, n).dtype != bool or arr(p, i, n).ndim < 1
                    else bool((~arr(p, i, n).any(-1)).any())
                ),
            )
        )
    for (i, a), (j, b) in zip(arrays, arrays[1:]):

        def differ(p, i=i, a=a, j=j, b=b, axis=-2):
            x, y = arr(p, i, a), arr(p, j, b)
            if x is None or y is None or x.ndim < 2 or y.ndim < 2 or x.dtype == bool or y.dtype == bool:
                return None
            return x.shape[axis] != y.shape[axis]

        out.append((f"`{a}` and `{b}` have different lengths (T_q ≠ T_k)", differ))
        out.append((f"`{a}` and `{b}` have different feature sizes", lambda p, f=differ: f(p, axis=-1)))
    for i, name in ints:

        def val(p, i=i, n=name):
            v = _arg(p, i, n)
            return int(v) if _is_int(v) else None

        out += [
            (f"`{name}` is odd", lambda p, v=val: None if v(p) is None else v(p) % 2 == 1),
            (f"`{name}` is not a multiple of 4", lambda p, v=val: None if v(p) is None else v(p) % 4 != 0),
            (f"`{name}` is not a power of two", lambda p, v=val: None if v(p) is None else not _pow2(v(p))),
            (f"`{name}` is 1", lambda p, v=val: None if v(p) is None else v(p) == 1),
            (f"`{name}` is 0", lambda p, v=val: None if v(p) is None else v(p) == 0),
            (f"`{name}` is negative", lambda p, v=val: None if v(p) is None else v(p) < 0),
        ]
    for (i, a), (j, b) in zip(ints, ints[1:]):

        def cmp(p, i=i, a=a, j=j, b=b):
            x, y = _arg(p, i, a), _arg(p, j, b)
            return None if not (_is_int(x) and _is_int(y)) else x > y

        out.append((f"`{a}` is larger than `{b}`", cmp))
        out.append((f"`{a}` is not larger than `{b}`", lambda p, c=cmp: None if c(p) is None else not c(p)))
    return out


def _separating(
    question: Question, probes: list[Probe], inside: list[Probe], outside: list[Probe], skip: tuple[str, ...] = ()
) -> str | None:
    for words, feature in _features(question, probes):
        if any(s in words for s in skip):
            continue
        try:
            if all(feature(p) is True for p in inside) and all(feature(p) is False for p in outside):
                return words
        except Exception:  # noqa: BLE001 - a property that cannot be read tells nothing
            continue
    return None


def _error_type(text: str) -> str:
    return text.split(":", 1)[0].strip()


def find_trigger(question: Question, probes: list[Probe], items: list[dict]) -> Diagnosis | None:
    """Raises on some probes, returns on others: the one property of the arguments that tells them
    apart. Or, when different inputs raise different exceptions: the property that tells the
    probes raising the first one (the one shown) from all the others."""
    raised = [p for p, item in zip(probes, items) if "error" in item]
    returned = [p for p, item in zip(probes, items) if "value" in item]
    if not raised:
        return None
    if returned:
        words = _separating(question, probes, raised, returned)
        if words is not None:
            return Diagnosis(
                "crash_trigger",
                f"it raises only when {words}, and runs on every other input: "
                "look at what your code does differently in that case",
            )
    first = _error_type(next(item["error"] for item in items if "error" in item))
    same = [p for p, item in zip(probes, items) if "error" in item and _error_type(item["error"]) == first]
    others = [p for p in probes if all(p is not q for q in same)]
    if others and len(same) < len(raised) + len(returned):
        words = _separating(question, probes, same, others)
        if words is not None:
            shown = _one_message([item["error"] for p, item in zip(probes, items) if any(p is q for q in same)])
            why = next(
                (
                    t
                    for t in map(
                        shown,
                        (
                            _matmul,
                            _index,
                            _dim,
                            _module,
                            _elementwise,
                            _stack,
                            _index_put,
                            _dtype,
                            _none,
                            _number,
                            _reshape,
                            _calls,
                        ),
                    )
                    if t is not None
                ),
                None,
            )
            return Diagnosis(
                "crash_trigger",
                f"it raises this {first} only when {words} (other inputs fail "
                "differently or run)"
                + (f"; {why}" if why else ": look at what your code does differently in that case"),
            )
    return None


_MATMUL = re.compile(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
_BMM = re.compile(
    r"Expected size for first two dimensions of batch2 tensor|size mismatch, got input \(\d+\), mat|"
    r"inconsistent tensor size|Expected (?:size|dimension) .* to match .* for matmul"
)
_ELEMENTWISE = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_INDEX = re.compile(r"index (-?\d+) is out of bounds for (?:dimension|axis) (\d+) with size (\d+)")
_DIM = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")


def _one_message(errors: list[str]) -> Callable[[str], str | None]:
    def each(rule: Callable[[str], str | None]) -> str | None:
        texts = {rule(e) for e in errors}
        return texts.pop() if len(texts) == 1 and None not in texts else None

    return each


def _matmul(e: str) -> str | None:
    m = _MATMUL.search(e)
    if (m and m.group(2) != m.group(3)) or _BMM.search(e):
        return (
            "a matrix product's inner sizes do not agree (the first operand's last axis must equal the "
            "second's second-to-last): check which operand needs `.transpose(-2, -1)` and the operands' order"
        )
    return None


def _elementwise(e: str) -> str | None:
    m = _ELEMENTWISE.search(e)
    if not m:
        return None
    a, b = sorted(map(int, m.groups()))
    if a > 0 and b % a == 0 and b // a in (2, 3, 4):
        return (
            f"an element-wise operation combines two tensors, one {b // a} times as long as the other along "
            "an axis: a table built with the wrong length (repeated, split or halved once too often, or not "
            "at all)"
        )
    return None


def _stack(e: str) -> str | None:
    if "stack expects each tensor to be equal size" in e or "Sizes of tensors must match except in dimension" in e:
        return (
            "the pieces you stack or concatenate have different sizes: the slices (or halves) you put back "
            "together are cut differently"
        )
    return None


def _index_put(e: str) -> str | None:
    if "cannot be broadcast to indexing result" in e or re.search(
        r"The expanded size of the tensor \(\d+\) must match the existing size \(\d+\)", e
    ):
        return (
            "an indexed assignment selects a different number of entries than the values assigned to them: "
            "a range, a step or a slice does not match the length of the values"
        )
    return None


def _dtype(e: str) -> str | None:
    if re.search(
        r"dtypes? (?:to )?match|expected scalar type|must have the same dtype|"
        r"operator\.invert\) is only implemented on integer and Boolean",
        e,
    ):
        return (
            "two tensors of different dtypes meet (float32 and float64, or a mask that is not bool): create "
            "each tensor with the dtype the other side needs"
        )
    return None


def _none(e: str) -> str | None:
    if e.startswith(("TypeError", "AttributeError")) and re.search(r"'NoneType'|not NoneType|got NoneType", e):
        return (
            "a value that is None is used as a tensor, a number or a size: check the `if … is None` branches "
            "(a condition the wrong way round?) and that every function returns its result"
        )
    return None


def _index(e: str) -> str | None:
    m = _INDEX.search(e)
    if m and int(m.group(1)) == int(m.group(3)):
        return (
            "an index runs one past the end of an axis (index = its size): an off-by-one in a range, "
            "a bound or an index computation"
        )
    if m and int(m.group(1)) < -int(m.group(3)):
        return (
            "an index is negative, beyond the start of an axis: a quantity that must be ≥ 0 there (clamped, "
            "or offset) is not"
        )
    if "tensors used as indices must be long, int, byte or bool" in e or "are valid indices" in e:
        return "you index with a float tensor: indices must be integers (use // for integer division, or .long())"
    return None


def _calls(e: str) -> str | None:
    if re.search(r"missing \d+ required positional arguments?", e):
        return "a function is called without one of its required arguments (the message names it)"
    if "selected index k out of range" in e:
        return "`topk` asks for more entries than the axis has: k is larger than the number of entries"
    if "step must be nonzero" in e or "inconsistent with step sign" in e:
        return "a range's step is zero or goes the wrong way for its start and end"
    if "only one element tensors can be converted to Python scalars" in e:
        return "`.item()`, `int()` or `float()` is applied to a tensor with more than one entry"
    if "probability tensor contains either `inf`, `nan` or element < 0" in e:
        return (
            "the probabilities handed to the sampler contain NaN, inf or negative entries: they are not a "
            "distribution (logits where probabilities belong, or a division by zero)"
        )
    if "doesn't match the broadcast shape" in e:
        return (
            "an in-place operation (+=, *=, …) would give a result larger than the tensor it writes into: one "
            "operand has the wrong shape"
        )
    if "Expected weight to be of same shape as normalized_shape" in e:
        return "LayerNorm's normalized shape does not match its weight: normalise over the features (the last axis)"
    return None


def _number(e: str) -> str | None:
    if e.startswith("AttributeError") and re.search(r"'(int|float)' object has no attribute", e):
        return (
            "a tensor method is called on a plain Python number: that value should be a tensor (build it with "
            "torch, or keep the tensor the expression started from)"
        )
    return None


def _reshape(e: str) -> str | None:
    if re.search(r"shape '\[[-\d, ]*\]' is invalid for input of size \d+|invalid shape dimension", e):
        return (
            "a reshape (or view) asks for a shape whose number of entries differs from the tensor's: check the "
            "sizes you pass (a -1 for the axis to infer)"
        )
    if "permute(): duplicate dims are not allowed" in e or "number of dims don't match in permute" in e:
        return "a permute names an axis twice or leaves one out: each axis must appear exactly once"
    return None


def _dim(e: str) -> str | None:
    if e.startswith("IndexError") and "tuple index out of range" in e:
        return (
            "an index past the end of a tuple — typically `.shape[i]` on an input with fewer axes than your "
            "code assumes (count the axes from the end, -1 being the last)"
        )
    m = _DIM.search(e)
    if m and int(m.group(3)) < int(m.group(1)):
        return (
            "an axis is counted from the end beyond the input's number of axes: the input has fewer "
            "axes than your code assumes (count the axes, or transpose the last two with -2, -1)"
        )
    if m and int(m.group(3)) > int(m.group(2)):
        return (
            "an axis index is past the input's last axis: the input has fewer axes than your code assumes "
            "(count the axes from the end, -1 being the last)"
        )
    return None


def _module(e: str) -> str | None:
    if e.startswith("TypeError") and "'module' object is not callable" in e:
        return (
            "a module is called as if it were a function: call the function inside it (for instance "
            "`torch.nn.functional.softmax(...)`, not `torch.nn.functional(...)`)"
        )
    if e.startswith("TypeError") and ("'module'" in e or "not module" in e or "module object" in e):
        return (
            "a module is used where a number or a tensor belongs: a function call (its name and parentheses) is missing"
        )
    return None


def _assertion(e: str) -> str | None:
    if e.startswith("AssertionError"):
        return (
            "an `assert` of your own fails on every input, though all of them are valid for the "
            "specification: its condition is wrong (inverted, or computed from the wrong quantity)"
        )
    return None


def find_message(errors: list[str], everywhere: bool = True) -> Diagnosis | None:
    """A rule that reads the same cause from every exception raised. ``everywhere``: it raised on
    every probe (only then is an assertion of the student's own known to reject valid inputs)."""
    each = _one_message(errors)
    rules = [
        ("crash_matmul", _matmul),
        ("crash_index", _index),
        ("crash_axes", _dim),
        ("crash_module", _module),
        ("crash_broadcast", _elementwise),
        ("crash_stack", _stack),
        ("crash_index_put", _index_put),
        ("crash_dtype", _dtype),
        ("crash_none", _none),
        ("crash_number", _number),
        ("crash_reshape", _reshape),
        ("crash_call", _calls),
    ]
    for kind, rule in rules + ([("crash_assert", _assertion)] if everywhere else []):
        text = each(rule)
        if text is not None:
            return Diagnosis(kind, text)
    return None


def diagnose_crash(question: Question, probes: list[Probe], items: list[dict]) -> Diagnosis | None:
    """When an answer raises on some probe: the circumstance, or what its exception shows."""
    items = list(items)[: len(probes)]
    found = find_trigger(question, probes, items)
    if found is not None:
        return found
    errors = [item["error"] for item in items if "error" in item]
    return find_message(errors, everywhere=len(errors) == len(probes)) if errors else None


__all__ = ["diagnose_crash", "find_trigger", "find_message"]
