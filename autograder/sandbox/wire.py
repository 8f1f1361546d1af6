"""The data-only channel between the grader and the sandbox.

Frames are an 8-byte big-endian length followed by UTF-8 JSON. Arrays travel as
``{"$nd": dtype, "shape": [...], "b64": raw bytes}``; everything else is JSON's own types.
No pickle, no code: whatever a student does to this channel, it can only carry data, and
:func:`decode_value` validates every value (dtype allow-list, shape vs byte count, sizes, depth).

This file runs on both sides of the sandbox, so it imports nothing from ``autograder``.
"""

from __future__ import annotations

import base64
import json
import os
import struct

import numpy as np

HEADER = struct.Struct(">Q")
ALLOWED_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"}
MAX_DEPTH = 16
MAX_STRING = 100_000
MAX_ITEMS = 100_000


class WireError(ValueError):
    """The other side sent something that is not valid plain data."""


# ---------------------------------------------------------------- values


def encode_value(value, _depth: int = 0):
    """Plain data -> JSON-able structure. Raises TypeError for anything that is not data."""
    if _depth > MAX_DEPTH:
        raise TypeError("value nested too deeply")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, np.ndarray) or type(value).__module__ == "numpy":
        arr = np.ascontiguousarray(np.asarray(value))
        if arr.dtype.name not in ALLOWED_DTYPES:
            raise TypeError(f"arrays of dtype {arr.dtype} cannot be returned")
        return {"$nd": arr.dtype.name, "shape": list(arr.shape), "b64": base64.b64encode(arr.tobytes()).decode("ascii")}
    if type(value) in (list, tuple):
        return [encode_value(v, _depth + 1) for v in value]
    if type(value) is dict:
        return {"$dict": [[encode_value(k, _depth + 1), encode_value(v, _depth + 1)] for k, v in value.items()]}
    raise TypeError(f"values of type {type(value).__name__} cannot be returned")


def decode_value(obj, _depth: int = 0, _budget: list | None = None):
    """JSON structure -> plain data, validating as it goes."""
    budget = _budget if _budget is not None else [MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0:
        raise WireError("too many values")
    if _depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if obj is None or type(obj) in (bool, int, float):
        return obj
    if type(obj) is str:
        if len(obj) > MAX_STRING:
            raise WireError("string too long")
        return obj
    if type(obj) is list:
        return [decode_value(v, _depth + 1, budget) for v in obj]
    if type(obj) is dict and set(obj) == {"$nd", "shape", "b64"}:
        return _decode_array(obj)
    if type(obj) is dict and set(obj) == {"$dict"} and type(obj["$dict"]) is list:
        out = {}
        for pair in obj["$dict"]:
            if type(pair) is not list or len(pair) != 2:
                raise WireError("malformed mapping")
            key = decode_value(pair[0], _depth + 1, budget)
            if type(key) not in (str, int, float, bool) and key is not None:
                raise WireError("mapping keys must be numbers or strings")
            out[key] = decode_value(pair[1], _depth + 1, budget)
        return out
    raise WireError(f"unexpected {type(obj).__name__} on the wire")


def _decode_array(obj) -> np.ndarray:
    dtype, shape, b64 = obj["$nd"], obj["shape"], obj["b64"]
    if dtype not in ALLOWED_DTYPES:
        raise WireError(f"dtype {dtype!r} not allowed")
    if type(shape) is not list or len(shape) > 32 or not all(type(s) is int and s >= 0 for s in shape):
        raise WireError("malformed shape")
    if type(b64) is not str:
        raise WireError("malformed array data")
    raw = base64.b64decode(b64.encode("ascii"), validate=True)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count * np.dtype(dtype).itemsize != len(raw):
        raise WireError("array data does not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


# ---------------------------------------------------------------- frames


def dumps(message) -> bytes:
    body = json.dumps(message, allow_nan=True, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(len(body)) + body


def write_message(fd: int, message) -> None:
    data = dumps(message)
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_message(fd: int, max_bytes: int):
    """One frame from fd, or None at end of stream. Raises WireError past max_bytes."""
    header = read_exact(fd, HEADER.size)
    if header is None:
        return None
    (length,) = HEADER.unpack(header)
    if length > max_bytes:
        raise WireError(f"message of {length} bytes exceeds the {max_bytes}-byte limit")
    body = read_exact(fd, length)
    if body is None:
        return None
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"malformed message: {exc}") from None
