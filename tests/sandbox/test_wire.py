"""The data-only channel between grader and sandbox (autograder/sandbox/wire.py), unit-tested:
every supported type survives a frame round trip unchanged, anything that is not plain data is
refused on the way out, and whatever arrives is validated on the way in (a forged or oversized
frame is an error, never code and never a crash elsewhere)."""

import base64
import json
import math
import os
import threading

import numpy as np
import pytest
import torch

from autograder.sandbox import wire


def through_a_pipe(message, max_bytes: int = 1 << 26):
    """Write one frame into a pipe (from a thread: big frames exceed the pipe buffer) and read it."""
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=lambda: (wire.write_message(write_fd, message), os.close(write_fd)))
    writer.start()
    try:
        return wire.read_message(read_fd, max_bytes)
    finally:
        writer.join()
        os.close(read_fd)


def round_trip(value):
    return wire.decode_value(through_a_pipe(wire.encode_value(value)))


def raw_frames(data: bytes, max_bytes: int = 1 << 20):
    """read_message on a stream holding exactly `data`."""
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    try:
        return wire.read_message(read_fd, max_bytes)
    finally:
        os.close(read_fd)


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, -(2**62), 3.25, -0.0, math.inf, "", "héllo ∑", [], [1, [2.5, [None, "x"]]]],
    ids=repr,
)
def test_json_values_round_trip_unchanged(value):
    back = round_trip(value)
    assert back == value and type(back) is type(value)


def test_nan_round_trips_as_nan():
    assert math.isnan(round_trip(float("nan")))


def test_tuples_arrive_as_lists_and_dicts_keep_non_string_keys():
    assert round_trip((1, (2, 3))) == [1, [2, 3]]
    mapping = {"a": 1, 2: [3.0], 2.5: None, True: "t", None: {"nested": (4,)}}
    back = round_trip(mapping)
    assert back == {"a": 1, 2: [3.0], 2.5: None, True: "t", None: {"nested": [4]}}
    assert list(back) == list(mapping)  # order kept


@pytest.mark.parametrize("dtype", sorted(wire.ALLOWED_DTYPES))
@pytest.mark.parametrize("shape", [(1,), (0, 3), (2, 3, 4)])
def test_arrays_of_every_allowed_dtype_round_trip_bit_for_bit(dtype, shape):
    arr = (np.arange(int(np.prod(shape))) % 7 - 3).reshape(shape).astype(dtype)
    back = round_trip(arr)
    assert isinstance(back, np.ndarray) and back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == arr.tobytes()
    assert back.flags.writeable  # a copy, not a view of the frame's buffer


def test_zero_dim_arrays_and_numpy_scalars_arrive_with_shape_one():
    """ascontiguousarray makes them 1-d: the documented behaviour the Scalar comparator accepts."""
    for value in (np.float32(1.5), np.array(1.5, dtype=np.float32), torch.tensor(1.5).numpy()):
        back = round_trip(value)
        assert back.shape == (1,) and back.dtype == np.float32 and back[0] == 1.5


def test_non_contiguous_arrays_travel_in_logical_order():
    strided = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(round_trip(strided), strided)
    np.testing.assert_array_equal(round_trip(strided.T), strided.T)


class Sneaky:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize(
    "value,words",
    [
        (lambda: 1, "type function"),
        (Sneaky(), "type Sneaky"),
        ({1, 2}, "type set"),
        (b"bytes", "type bytes"),
        (1 + 2j, "type complex"),
        (torch.zeros(2), "type Tensor"),
        (np.zeros(2, dtype=np.complex128), "dtype complex128"),
        (np.array([object()]), "dtype object"),
        ([1, [2, Sneaky()]], "type Sneaky"),
        ({"k": Sneaky()}, "type Sneaky"),
        (type("MyDict", (dict,), {})(a=1), "type MyDict"),  # subclasses could carry behaviour
    ],
    ids=lambda v: type(v).__name__,
)
def test_what_is_not_plain_data_is_refused_on_the_way_out(value, words):
    with pytest.raises(TypeError, match=words):
        wire.encode_value(value)


def test_nesting_deeper_than_the_limit_is_refused_both_ways():
    deep = []
    for _ in range(wire.MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(TypeError, match="nested too deeply"):
        wire.encode_value(deep)
    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.decode_value(json.loads(json.dumps(deep)))


def _array(dtype="float32", shape=[2], raw=b"\0" * 8):  # noqa: B006 - never mutated
    """An array as JSON carries it (shape a list), with 8 bytes of data."""
    return {"$nd": dtype, "shape": shape, "b64": base64.b64encode(raw).decode()}


@pytest.mark.parametrize(
    "obj,words",
    [
        (_array(dtype="object"), "not allowed"),
        (_array(dtype="complex64"), "not allowed"),
        (_array(shape=[3]), "does not match its shape"),
        (_array(shape=[-2]), "malformed shape"),
        (_array(shape=[1.0, 2]), "malformed shape"),
        (_array(shape="2"), "malformed shape"),
        ({"$nd": "float32", "shape": [1], "b64": 5}, "malformed array data"),
        ({"$dict": [[1, 2, 3]]}, "malformed mapping"),
        ({"$dict": [[[1], 2]]}, "keys must be numbers or strings"),
        ({"$dict": "x"}, "unexpected dict"),
        ({"__class__": "os.system"}, "unexpected dict"),
        ("x" * (wire.MAX_STRING + 1), "string too long"),
        ([0] * (wire.MAX_ITEMS + 1), "too many values"),
    ],
    ids=lambda v: str(v)[:40],
)
def test_what_arrives_is_validated(obj, words):
    with pytest.raises(wire.WireError, match=words):
        wire.decode_value(obj)


def test_invalid_base64_is_an_error_not_garbage():
    with pytest.raises(ValueError):  # binascii.Error: callers catch ValueError (runner)
        wire.decode_value({"$nd": "uint8", "shape": [1], "b64": "!!!!"})


def test_a_frame_larger_than_the_limit_is_refused_before_it_is_read():
    message = {"results": ["x" * 5000]}
    assert through_a_pipe(message, max_bytes=len(wire.dumps(message)))["results"] == ["x" * 5000]
    with pytest.raises(wire.WireError, match="exceeds the 4096-byte limit"):
        through_a_pipe(message, max_bytes=4096)
    # a forged header announcing a terabyte is refused from the header alone
    with pytest.raises(wire.WireError, match="exceeds"):
        raw_frames(wire.HEADER.pack(2**40))


def test_frames_are_big_endian_length_then_json():
    frame = wire.dumps({"q": "sdpa"})
    (length,) = wire.HEADER.unpack(frame[:8])
    assert length == len(frame) - 8 and json.loads(frame[8:]) == {"q": "sdpa"}


def test_a_big_frame_crosses_a_pipe_whole():
    arr = np.arange(2_000_000, dtype=np.float64)  # 16 MB: many pipe buffers
    np.testing.assert_array_equal(round_trip(arr), arr)


def test_end_of_stream_and_truncation_read_as_none():
    assert raw_frames(b"") is None
    assert raw_frames(b"\0\0\0") is None  # a header cut short
    assert raw_frames(wire.dumps({"a": 1})[:-1]) is None  # a body cut short


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b'{"a": 1'])
def test_malformed_frames_are_wire_errors(body):
    with pytest.raises(wire.WireError, match="malformed message"):
        raw_frames(wire.HEADER.pack(len(body)) + body)
