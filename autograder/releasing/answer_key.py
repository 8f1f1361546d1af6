"""The answer key's fingerprint, stamped into the released notebook's metadata.

A release depends on more than its visible examples: a reference or a hidden probe can change
what the grader expects without changing one visible value. The fingerprint is a digest of what
every question expects on its hidden probes (drawn for one fixed id) and its visible examples,
so ``autograder release --check`` calls a release stale after any change of the answer key, and
only then (a refactor that computes the same values leaves it alone). The values are the
release's float64 ones (``releasing.float64``), written at 5 decimals: float64's noise (1e-16)
cannot move them, so every processor computes the same digest. Where a reference's result
exists only in float32, what defines it — the probe and the reference's source — is hashed
instead of the float32 digits. One digest over everything: it tells a student nothing about any answer.
"""

from __future__ import annotations

import hashlib
import inspect

import numpy as np

from autograder.releasing.float64 import release_expected
from autograder.spec import Assignment, Probe, Question

ANSWER_KEY_ID = "answer-key"  # the id whose hidden probes are drawn for the digest


def canonical(value) -> str:
    """A machine-independent text of an expected value."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, dict):
        return "{" + ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in sorted(value.items(), key=str)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, (np.ndarray, np.generic, float)):
        arr = np.asarray(value)
        if arr.dtype.kind in "fc":
            rounded = np.round(arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64), 5) + 0.0
            return f"{arr.shape}:{rounded.tolist()}"
        return f"{arr.shape}:{arr.tolist()}"
    return repr(value)


def _has_float32(value) -> bool:
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype in (np.float32, np.complex64)
    if isinstance(value, (list, tuple)):
        return any(_has_float32(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float32(v) for v in value.values())
    return False


def _definition(question: Question, probe: Probe) -> str:
    """What defines a float32-only expected value: the probe's data and the reference's code."""
    try:
        source = inspect.getsource(question.reference)
    except (OSError, TypeError):
        source = getattr(question.reference, "__qualname__", repr(question.reference))
    return f"float32 result of {source!r} on {canonical(list(probe.args))}, {canonical(probe.kwargs)}"


def _expected(question: Question, probe: Probe) -> str:
    try:
        value = release_expected(question, probe)
        return _definition(question, probe) if _has_float32(value) else canonical(value)
    except Exception as exc:  # noqa: BLE001 - a reference that refuses a probe is part of the key too
        return f"raises {type(exc).__name__}"


def answer_key_digest(assignment: Assignment) -> str:
    h = hashlib.sha256(assignment.name.encode())
    for q in assignment.questions:
        probes = [*q.probes_for(ANSWER_KEY_ID, assignment), *(q.visible if q.call else [])]
        h.update(f"\0{q.grade_id}:{q.points}:{q.answer}".encode())
        for probe in probes:
            h.update(b"\0" + _expected(q, probe).encode())
    return h.hexdigest()[:20]
