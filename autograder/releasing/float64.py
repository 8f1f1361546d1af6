"""Expected values for what a release writes down, computed in float64.

A released literal (a visible check's expected array, a document's printed value) and the
answer key's fingerprint must be the same bytes on every machine. A float32 result is not: its
last digits follow the processor's vector unit (``ATEN_CPU_CAPABILITY=default|avx2|avx512``
each give another), and a literal printed to 7 digits shows them. The reference is therefore
run once more on the same probe with every float32 array widened to float64; where the
reference builds tensors of its own (layer weights loaded into a module), it runs with float64
as torch's default dtype too. Float64's noise (~1e-16) is nine orders below what is printed.

The float64 value is used only where it agrees with the float32 one under the question's own
comparator (it is the same answer, computed more exactly); otherwise — a reference whose result
depends on the dtype, such as a random draw — the float32 value stands, and
``tests/releasing/test_capabilities.py`` proves that what is released from it is the same on
every capability.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from autograder.spec import Probe, Question, as_args, to_plain


def widened(value: Any) -> Any:
    """``value`` with every float32 array (in lists, tuples and dicts too) as float64."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    if isinstance(value, np.float32):
        return np.float64(value)
    if type(value) in (list, tuple):
        return type(value)(widened(v) for v in value)
    if isinstance(value, dict):
        return {k: widened(v) for k, v in value.items()}
    return value


@contextlib.contextmanager
def _torch_default(dtype_name: str | None):
    if dtype_name is None:
        yield
        return
    import torch

    before = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, dtype_name))
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _agrees(question: Question, wide: Any, narrow: Any) -> bool:
    try:
        return bool(question.compare.matches(wide, narrow))
    except Exception:  # noqa: BLE001 - a comparator that cannot compare them: not the same answer
        return False


def release_expected(question: Question, probe: Probe) -> Any:
    """What ``question`` expects on ``probe``, computed in float64 where the reference allows it."""
    narrow = question.expected(probe)
    if not probe.args and not probe.kwargs:
        return narrow  # a constant: its reference computes in float64 where the release prints it
    args, kwargs = widened(probe.args), widened(probe.kwargs)
    for default in (None, "float64"):
        try:
            with _torch_default(default):
                wide = to_plain(question.reference(*as_args(args, question.args_as), **kwargs))
        except Exception:  # noqa: BLE001 - a reference that wants float32 inside: try the next way
            continue
        if _agrees(question, wide, narrow):
            return wide
    return narrow
