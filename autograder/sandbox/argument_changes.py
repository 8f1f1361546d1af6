"""Did the student's function change the arguments it was called with? (the in-place contract)

A function question's answer must not modify its arguments: the caller keeps them (``q /= d**0.5``
inside ``sdpa`` changes the caller's ``q``; called twice it gives another result). Before each
call the child takes a copy of the data every argument holds (:func:`snapshot`); after it,
:func:`first_change` compares the arguments with that copy, deep: tensors and arrays by dtype,
shape and bytes (NaN equals NaN; a view of an argument written through counts, it is the
caller's storage), lists, tuples and dicts item by item and by identity (an item replaced).
What it reports is data — which argument (the student's own parameter name and a path into it),
what kind of object changed and how — the verdict is reached by the grader
(``autograder.judging.argument_contract``).

Not compared: numbers, strings, None (nothing to change in place) and functions (a probe's
function is code, compiled afresh for every call). A function's own local tensors — clones,
new results, a model it builds and trains — are not arguments and are never looked at.

Runs inside the sandbox, imported by ``harness_child``: standard library, numpy and (optional)
torch only, nothing from ``autograder``.
"""

from __future__ import annotations

import inspect

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

MAX_DEPTH = 16  # as deep as the wire carries values
CONTAINERS = {list: "list", tuple: "tuple", dict: "dict"}


def _tensor_state(value):
    """(dtype, shape, bytes) of a tensor, or None when it cannot be read (then it is not judged)."""
    try:
        t = value.detach().cpu().contiguous()
        try:
            raw = t.numpy().tobytes()
        except (TypeError, RuntimeError):  # bfloat16, conj/neg views: bytes of a wider copy
            raw = t.resolve_conj().resolve_neg().to(torch.float64).numpy().tobytes()
        return str(t.dtype), tuple(t.shape), raw
    except Exception:  # noqa: BLE001 - a tensor the student broke is not evidence of a change
        return None


def _array_state(value: np.ndarray):
    return str(value.dtype), tuple(value.shape), np.ascontiguousarray(value).tobytes()


def snapshot(value, depth: int = 0):
    """What ``value`` holds now, kept apart from it: (kind, the object itself, its state)."""
    if torch is not None and isinstance(value, torch.Tensor):
        return ("tensor", value, _tensor_state(value))
    if isinstance(value, np.ndarray):
        return ("array", value, _array_state(value))
    kind = CONTAINERS.get(type(value))
    if kind is None or depth >= MAX_DEPTH:
        return ("other", value, None)
    items = value.items() if kind == "dict" else enumerate(value)
    return (kind, value, [(key, snapshot(item, depth + 1)) for key, item in items])


def snapshot_call(args, kwargs) -> list:
    """Every argument of one call: [(position or keyword, snapshot)]."""
    return [(i, snapshot(a)) for i, a in enumerate(args)] + [(k, snapshot(v)) for k, v in kwargs.items()]


def _data_change(kind: str, obj, state) -> str | None:
    now = _tensor_state(obj) if kind == "tensor" else _array_state(obj)
    if state is None or now is None:
        return None
    for index, what in enumerate(("dtype", "shape", "values")):
        if now[index] != state[index]:
            return what
    return None


def first_change(snap, path: tuple = ()):
    """The first change to a snapshotted value: (path, kind, change) or None. ``change``: dtype,
    shape, values (a tensor or array); length, items (a list or tuple: one added or removed, one
    replaced); keys, items (a dict)."""
    kind, obj, state = snap
    if kind in ("tensor", "array"):
        change = _data_change(kind, obj, state)
        return (path, kind, change) if change else None
    if kind == "other":
        return None
    keys = [key for key, _ in state]
    if kind == "dict":
        if list(obj.keys()) != keys:
            return (path, kind, "keys")
    elif len(obj) != len(keys):
        return (path, kind, "length")
    for key, item in state:
        now = obj[key]
        if now is not item[1] and not _same_plain(now, item[1]):
            return (path, kind, "items")
        found = first_change(item, path + (key,))
        if found:
            return found
    return None


def _same_plain(a, b) -> bool:
    """An immutable item (number, string, None) put back equal counts as unchanged."""
    if type(a) is not type(b) or type(a) not in (int, float, bool, str, complex, type(None)):
        return False
    return a == b or (a != a and b != b)  # NaN for NaN


def parameter_names(function, n_positional: int) -> list:
    """The student's names of the first ``n_positional`` parameters (None where there is none)."""
    names: list = []
    try:
        for p in inspect.signature(function).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                names += [f"{p.name}[{j}]" for j in range(max(n_positional - len(names), 0))]
                break
            else:
                break
    except Exception:  # noqa: BLE001 - no signature (a builtin, a hostile object): positions only
        names = []
    return (names + [None] * n_positional)[:n_positional]


def changed_argument(before: list, function, n_positional: int) -> dict | None:
    """The first argument the call changed, as plain data for the grader, else None."""
    for where, snap in before:
        try:
            found = first_change(snap)
        except Exception:  # noqa: BLE001 - what cannot be compared is not reported
            found = None
        if found is None:
            continue
        path, kind, change = found
        if isinstance(where, int):
            names = parameter_names(function, n_positional)
            name = names[where]
        else:
            name = where
        steps = [[type(k).__name__, k] for k in path if type(k) in (int, str)]
        return {"arg": where, "name": name, "path": steps, "kind": kind, "change": change}
    return None
