"""What an exception's message says about its cause, read by rules (one per kind of mistake).

Each rule reads one message and returns the cause in words, or None; a cause is claimed only when
the rule reads the same words from every exception raised (:func:`first_cause`). The causes are
shapes and kinds, never a probe's values: a matrix product whose inner sizes differ, an index
one past the end of an axis, a module used as a number, an assertion of the student's own that
rejects inputs the specification allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Diagnosis


def _one_message(errors: list[str]) -> Callable[[str], str | None]:
    """A reader of one rule over all the messages: its words when it reads the same from each."""

    def each(rule: Callable[[str], str | None]) -> str | None:
        texts = {rule(e) for e in errors}
        return texts.pop() if len(texts) == 1 and None not in texts else None

    return each


_MATMUL = re.compile(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
_BMM = re.compile(
    r"Expected size for first two dimensions of batch2 tensor|size mismatch, got input \(\d+\), mat|"
    r"inconsistent tensor size|Expected (?:size|dimension) .* to match .* for matmul"
)
_ELEMENTWISE = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_INDEX = re.compile(r"index (-?\d+) is out of bounds for (?:dimension|axis) (\d+) with size (\d+)")
_DIM = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")


def _matmul(e: str) -> str | None:
    m = _MATMUL.search(e)
    if (m and m.group(2) != m.group(3)) or _BMM.search(e):
        return Message(
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
        return Message(
            "an element-wise operation combines two tensors, one {times} times as long as the other along "
            "an axis: a table built with the wrong length (repeated, split or halved once too often, or not "
            "at all)",
            times=b // a,
        )
    return None


def _stack(e: str) -> str | None:
    if "stack expects each tensor to be equal size" in e or "Sizes of tensors must match except in dimension" in e:
        return Message(
            "the pieces you stack or concatenate have different sizes: the slices (or halves) you put back "
            "together are cut differently"
        )
    return None


def _index_put(e: str) -> str | None:
    if "cannot be broadcast to indexing result" in e or re.search(
        r"The expanded size of the tensor \(\d+\) must match the existing size \(\d+\)", e
    ):
        return Message(
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
        return Message(
            "two tensors of different dtypes meet (float32 and float64, or a mask that is not bool): create "
            "each tensor with the dtype the other side needs"
        )
    return None


def _none(e: str) -> str | None:
    if e.startswith(("TypeError", "AttributeError")) and re.search(r"'NoneType'|not NoneType|got NoneType", e):
        return Message(
            "a value that is None is used as a tensor, a number or a size: check the `if … is None` branches "
            "(a condition the wrong way round?) and that every function returns its result"
        )
    return None


def _index(e: str) -> str | None:
    m = _INDEX.search(e)
    if m and int(m.group(1)) == int(m.group(3)):
        return Message(
            "an index runs one past the end of an axis (index = its size): an off-by-one in a range, "
            "a bound or an index computation"
        )
    if m and int(m.group(1)) < -int(m.group(3)):
        return Message(
            "an index is negative, beyond the start of an axis: a quantity that must be ≥ 0 there (clamped, "
            "or offset) is not"
        )
    if "tensors used as indices must be long, int, byte or bool" in e or "are valid indices" in e:
        return Message(
            "you index with a float tensor: indices must be integers (use // for integer division, or .long())"
        )
    return None


def _calls(e: str) -> str | None:
    if re.search(r"missing \d+ required positional arguments?", e):
        return Message("a function is called without one of its required arguments (the message names it)")
    if "selected index k out of range" in e:
        return Message("`topk` asks for more entries than the axis has: k is larger than the number of entries")
    if "step must be nonzero" in e or "inconsistent with step sign" in e:
        return Message("a range's step is zero or goes the wrong way for its start and end")
    if "only one element tensors can be converted to Python scalars" in e:
        return Message("`.item()`, `int()` or `float()` is applied to a tensor with more than one entry")
    if "probability tensor contains either `inf`, `nan` or element < 0" in e:
        return Message(
            "the probabilities handed to the sampler contain NaN, inf or negative entries: they are not a "
            "distribution (logits where probabilities belong, or a division by zero)"
        )
    if "doesn't match the broadcast shape" in e:
        return Message(
            "an in-place operation (+=, *=, …) would give a result larger than the tensor it writes into: one "
            "operand has the wrong shape"
        )
    if "Expected weight to be of same shape as normalized_shape" in e:
        return Message(
            "LayerNorm's normalized shape does not match its weight: normalise over the features (the last axis)"
        )
    return None


def _number(e: str) -> str | None:
    if e.startswith("AttributeError") and re.search(r"'(int|float)' object has no attribute", e):
        return Message(
            "a tensor method is called on a plain Python number: that value should be a tensor (build it with "
            "torch, or keep the tensor the expression started from)"
        )
    return None


def _reshape(e: str) -> str | None:
    if re.search(r"shape '\[[-\d, ]*\]' is invalid for input of size \d+|invalid shape dimension", e):
        return Message(
            "a reshape (or view) asks for a shape whose number of entries differs from the tensor's: check the "
            "sizes you pass (a -1 for the axis to infer)"
        )
    if "permute(): duplicate dims are not allowed" in e or "number of dims don't match in permute" in e:
        return Message("a permute names an axis twice or leaves one out: each axis must appear exactly once")
    return None


def _dim(e: str) -> str | None:
    if e.startswith("IndexError") and "tuple index out of range" in e:
        return Message(
            "an index past the end of a tuple — typically `.shape[i]` on an input with fewer axes than your "
            "code assumes (count the axes from the end, -1 being the last)"
        )
    m = _DIM.search(e)
    if m and int(m.group(3)) < int(m.group(1)):
        return Message(
            "an axis is counted from the end beyond the input's number of axes: the input has fewer "
            "axes than your code assumes (count the axes, or transpose the last two with -2, -1)"
        )
    if m and int(m.group(3)) > int(m.group(2)):
        return Message(
            "an axis index is past the input's last axis: the input has fewer axes than your code assumes "
            "(count the axes from the end, -1 being the last)"
        )
    return None


def _module(e: str) -> str | None:
    if e.startswith("TypeError") and "'module' object is not callable" in e:
        return Message(
            "a module is called as if it were a function: call the function inside it (for instance "
            "`torch.nn.functional.softmax(...)`, not `torch.nn.functional(...)`)"
        )
    if e.startswith("TypeError") and ("'module'" in e or "not module" in e or "module object" in e):
        return Message(
            "a module is used where a number or a tensor belongs: a function call (its name and parentheses) is missing"
        )
    return None


def _assertion(e: str) -> str | None:
    if e.startswith("AssertionError"):
        return Message(
            "an `assert` fails on every input, though all of them are valid for the specification: "
            "if it is one you wrote, its condition is wrong (inverted, or computed from the wrong "
            "quantity); if it is in a given cell, look at the values your code hands it (a misspelt "
            "option, a wrong type or shape)"
        )
    return None


# (diagnosis kind, rule), first match wins; the assertion rule is apart (see find_message).
RULES: tuple[tuple[str, Callable[[str], str | None]], ...] = (
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
)
ASSERTION_RULE = ("crash_assert", _assertion)


def first_cause(errors: list[str], rules=RULES) -> tuple[str, str] | None:
    """The first rule that reads the same cause from every message: (its kind, the cause)."""
    each = _one_message(errors)
    for kind, rule in rules:
        text = each(rule)
        if text is not None:
            return kind, text
    return None


def find_message(errors: list[str], everywhere: bool = True) -> Diagnosis | None:
    """A rule that reads the same cause from every exception raised. ``everywhere``: it raised on
    every probe (only then is an assertion of the student's own known to reject valid inputs)."""
    found = first_cause(errors, RULES + ((ASSERTION_RULE,) if everywhere else ()))
    return Diagnosis(*found) if found is not None else None
