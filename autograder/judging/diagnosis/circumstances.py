"""The circumstances that set some probes apart from the others, named without their values.

A probe's arguments are described by a few properties — an argument given or None, a flag on or
off, a named option, the number of axes of an array, its dtype, an odd or not-power-of-two size,
T_q ≠ T_k, one size larger than another — and :func:`separating_circumstance` names the first
property that holds on every probe of one group and on none of the other ("`mask` is given").
A crash diagnosis (``crashes.py``) asks which circumstance makes an answer raise; ``diagnose.py``
which one makes it wrong. Only the property is ever named — never a probe's values, a hidden
function or a seed.

The fixed properties are tables, one row per property: its name (what ``skip`` names), its
predicate on the argument's value (True or False; None where it does not apply) and its
description, ``{a}`` (and ``{b}``) standing for the argument's name. The properties read off
the probes themselves (each axis count seen, each option seen) are built in code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from autograder.i18n import N_, Message
from autograder.spec import FunctionSource, Probe, Question


class Row(NamedTuple):
    name: str
    holds: Callable[..., bool | None]
    description: str


class Circumstance(NamedTuple):
    name: str
    words: Message
    holds: Callable[[Probe], Any]  # True, False, or None where it does not apply


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _pow2(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


def _sizes_differ(x: np.ndarray, y: np.ndarray, axis: int) -> bool | None:
    if x.ndim < 2 or y.ndim < 2 or x.dtype == bool or y.dtype == bool:
        return None
    return x.shape[axis] != y.shape[axis]


# An argument that is None on some probes and given on others.
OPTIONAL_ROWS = (
    Row("given", lambda v: v is not None, N_("`{a}` is given (not None)")),
    Row("none", lambda v: v is None, N_("`{a}` is None")),
)
# An argument that is a flag on some probe.
FLAG_ROWS = (
    Row("true", lambda v: v is True or v is np.True_, N_("`{a}` is True")),
    Row("false", lambda v: v is False or v is np.False_, N_("`{a}` is False")),
)
# An array argument (after its axis counts, which come from the probes).
ARRAY_ROWS = (
    Row("integer entries", lambda x: x.dtype.kind in "iu", N_("`{a}` has integer entries")),
    Row("float64", lambda x: x.dtype == np.float64, N_("`{a}` is float64")),
    Row("float32", lambda x: x.dtype == np.float32, N_("`{a}` is float32")),
    Row(
        "more than one sequence",
        lambda x: None if x.ndim < 3 or x.dtype == bool else x.shape[0] > 1,
        N_("`{a}` holds more than one sequence (its first, batch axis is larger than 1)"),
    ),
    Row("odd", lambda x: None if x.ndim == 0 else x.shape[-1] % 2 == 1, N_("the last axis of `{a}` is odd")),
    Row(
        "not a multiple of 4",
        lambda x: None if x.ndim == 0 else x.shape[-1] % 4 != 0,
        N_("the last axis of `{a}` is not a multiple of 4"),
    ),
    Row(
        "row with nothing allowed",
        lambda x: None if x.dtype != bool or x.ndim < 1 else bool((~x.any(-1)).any()),
        N_("`{a}` has a row with no allowed position"),
    ),
)
# Two array arguments next to each other in the signature.
ARRAY_PAIR_ROWS = (
    Row(
        "different lengths",
        lambda x, y: _sizes_differ(x, y, -2),
        N_("`{a}` and `{b}` have different lengths (T_q ≠ T_k)"),
    ),
    Row(
        "different feature sizes",
        lambda x, y: _sizes_differ(x, y, -1),
        N_("`{a}` and `{b}` have different feature sizes"),
    ),
)
# An integer argument.
INTEGER_ROWS = (
    Row("odd", lambda n: n % 2 == 1, N_("`{a}` is odd")),
    Row("not a multiple of 4", lambda n: n % 4 != 0, N_("`{a}` is not a multiple of 4")),
    Row("not a power of two", lambda n: not _pow2(n), N_("`{a}` is not a power of two")),
    Row("one", lambda n: n == 1, N_("`{a}` is 1")),
    Row("zero", lambda n: n == 0, N_("`{a}` is 0")),
    Row("negative", lambda n: n < 0, N_("`{a}` is negative")),
)
# Two integer arguments next to each other in the signature (compared as given, not converted).
INTEGER_PAIR_ROWS = (
    Row("larger", lambda x, y: x > y, N_("`{a}` is larger than `{b}`")),
    Row("not larger", lambda x, y: not x > y, N_("`{a}` is not larger than `{b}`")),
)


def _signature(question: Question) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(question.reference).parameters.values())
    except (TypeError, ValueError):
        return []


def _reader(probe_index: int, name: str, defaults: dict) -> Callable[[Probe], Any]:
    """The probe's argument at that position or name, else the signature's default (else empty)."""

    def read(probe: Probe):
        if probe_index < len(probe.args):
            return probe.args[probe_index]
        return probe.kwargs.get(name, defaults.get(name, inspect.Parameter.empty))

    return read


def _array_of(read: Callable[[Probe], Any]) -> Callable[[Probe], np.ndarray | None]:
    return lambda p: v if isinstance(v := read(p), np.ndarray) else None


def _int_of(read: Callable[[Probe], Any]) -> Callable[[Probe], int | None]:
    return lambda p: int(v) if _is_int(v := read(p)) else None


def _int_as_given(read: Callable[[Probe], Any]) -> Callable[[Probe], Any]:
    """The integer as the probe holds it (a numpy integer stays one), None when it is none."""
    return lambda p: v if _is_int(v := read(p)) else None


def _always(row: Row, name: str, read) -> Circumstance:
    """The row on the argument's value, whatever it is (None included)."""
    return Circumstance(row.name, Message(row.description, a=name), lambda p: row.holds(read(p)))


def _where_present(row: Row, name: str, read) -> Circumstance:
    """The row on the argument's value; None (does not apply) where the reader finds none."""
    return Circumstance(
        row.name, Message(row.description, a=name), lambda p: None if (v := read(p)) is None else row.holds(v)
    )


def _pair(row: Row, a: str, b: str, read_a, read_b) -> Circumstance:
    def holds(p):
        x, y = read_a(p), read_b(p)
        return None if x is None or y is None else row.holds(x, y)

    return Circumstance(row.name, Message(row.description, a=a, b=b), holds)


def _value_circumstances(name: str, read, values: list) -> list[Circumstance]:
    """An argument that is None or given, a flag, an option among named strings."""
    out = []
    if any(v is None for v in values) and any(v is not None and v is not inspect.Parameter.empty for v in values):
        out += [_always(row, name, read) for row in OPTIONAL_ROWS]
    if any(isinstance(v, (bool, np.bool_)) for v in values):
        out += [_always(row, name, read) for row in FLAG_ROWS]
    for s in sorted({v for v in values if isinstance(v, str)}):
        out.append(
            Circumstance("option", Message("`{a}` is {option}", a=name, option=repr(s)), lambda p, s=s: read(p) == s)
        )
    return out


AXES_WORDS = {1: N_("`{a}` is a vector (1 axis)"), 2: N_("`{a}` has 2 axes (no batch dimension)")}


def _axes_circumstances(name: str, array, probes: list[Probe]) -> list[Circumstance]:
    """Each number of axes the array has on some probe; more than the fewest (batch dimensions)."""
    ndims = sorted({a.ndim for a in map(array, probes) if a is not None})
    out = []
    for nd in ndims:
        words = Message(AXES_WORDS[nd], a=name) if nd in AXES_WORDS else Message("`{a}` has {n} axes", a=name, n=nd)
        out.append(Circumstance("axes", words, lambda p, nd=nd: None if (x := array(p)) is None else x.ndim == nd))
    if len(ndims) > 1:
        fewest = ndims[0]
        words = Message("`{a}` has batch dimensions (more than {n} axes)", a=name, n=fewest)
        out.append(
            Circumstance("batch dimensions", words, lambda p: None if (x := array(p)) is None else x.ndim > fewest)
        )
    return out


def circumstances(question: Question, probes: list[Probe]) -> list[Circumstance]:
    """Candidate circumstances for these probes, most telling first."""
    parameters = _signature(question)
    defaults = {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    out: list[Circumstance] = []
    arrays: list[tuple[str, Callable]] = []
    ints: list[tuple[str, Callable]] = []
    for i, name in enumerate(positional):
        read = _reader(i, name, defaults)
        values = [read(p) for p in probes]
        if any(isinstance(v, FunctionSource) for v in values):
            continue
        out += _value_circumstances(name, read, values)
        if any(isinstance(v, np.ndarray) for v in values):
            arrays.append((name, _array_of(read)))
        if any(_is_int(v) for v in values):
            ints.append((name, read))
    for name, array in arrays:
        out += _axes_circumstances(name, array, probes)
        out += [_where_present(row, name, array) for row in ARRAY_ROWS]
    out += _pairs(arrays, ARRAY_PAIR_ROWS)
    for name, read in ints:
        out += [_where_present(row, name, _int_of(read)) for row in INTEGER_ROWS]
    out += _pairs([(name, _int_as_given(read)) for name, read in ints], INTEGER_PAIR_ROWS)
    return out


def _pairs(arguments: Sequence[tuple[str, Callable]], rows: tuple[Row, ...]) -> list[Circumstance]:
    """The rows on each two arguments of a kind that are neighbours in the signature."""
    return [
        _pair(row, a, b, read_a, read_b) for (a, read_a), (b, read_b) in zip(arguments, arguments[1:]) for row in rows
    ]


def separating_circumstance(
    question: Question,
    probes: list[Probe],
    inside: list[Probe],
    outside: list[Probe],
    skip: tuple[str, ...] = (),
    controlled: bool = False,
) -> str | None:
    """The words for the first circumstance that holds on every probe ``inside`` and on none
    ``outside`` (rows named in ``skip`` left out), or None.

    ``controlled``: named only when it is the cause as far as the probes can tell — no other
    circumstance separates the two groups as well (the batch size and an odd width both set the
    wrong probes apart: neither is established), and for every other circumstance some probe
    inside and some outside agree on it (a pair controlled for that one: it alone cannot be what
    flips the result). The pairs come from the probes drawn; the student's code is not re-run."""
    found = [c for c in circumstances(question, probes) if c.name not in skip]
    separating = [c for c in found if _separates(c, inside, outside)]
    if not separating:
        return None
    if not controlled:
        return separating[0].words
    if len({c.words for c in separating}) > 1:
        return None  # two circumstances, both fitting: a coincidence cannot be ruled out
    cause = [_holds(separating[0], p) for p in probes]
    for other in found:  # each other circumstance (not the cause, nor its negation): a controlled pair
        pattern = [_holds(other, p) for p in probes]
        if pattern == cause or pattern == [None if v is None else not v for v in cause]:
            continue
        pairs = [(_holds(other, w), _holds(other, r)) for w in inside for r in outside]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        if pairs and not any(a == b for a, b in pairs):
            return None
    return separating[0].words


def _holds(found: Circumstance, probe: Probe):
    try:
        return found.holds(probe)
    except Exception:  # noqa: BLE001 - a property that cannot be read tells nothing
        return None


def _separates(found: Circumstance, inside: list[Probe], outside: list[Probe]) -> bool:
    return all(_holds(found, p) is True for p in inside) and all(_holds(found, p) is False for p in outside)
