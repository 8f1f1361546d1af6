"""The released visible-check cells are code a student runs: they must execute against the
reference and fail on a wrong answer, whatever the comparator and the argument dtypes."""

import numpy as np
import torch

from autograder.judging.compare.comparators import AllClose, Exact
from autograder.releasing.stages import array_literal, visible_check_source
from autograder.spec import Probe, Question


def _argsort(x):
    return torch.argsort(torch.as_tensor(x), stable=True)


def _question(compare, reference, probe):
    return Question(
        grade_id="q",
        answer="f",
        title="t",
        points=1,
        reference=reference,
        probes=lambda rng: [probe],
        compare=compare,
        visible=[probe],
    )


def _run(source, f):
    namespace = {"f": f}
    exec(compile(source, "<visible check>", "exec"), namespace)  # our own generated code


def test_integer_arguments_keep_an_integer_dtype():
    assert array_literal(np.arange(3), "torch") == "torch.tensor([0, 1, 2], dtype=torch.int64)"
    assert array_literal(np.arange(3), "numpy") == "np.array([0, 1, 2], dtype=np.int64)"
    assert array_literal(np.ones(2, dtype=np.float32), "torch").endswith("dtype=torch.float32)")


def test_exact_array_check_runs_and_rejects_a_wrong_answer():
    probe = Probe((np.array([3, 1, 2]),), "three positions")
    source = visible_check_source(_question(Exact(), _argsort, probe))
    _run(source, _argsort)  # the reference passes its own check (no NameError on array(...))
    try:
        _run(source, lambda x: torch.argsort(torch.as_tensor(x), descending=True))
    except AssertionError as exc:
        assert "three positions" in str(exc)
    else:
        raise AssertionError("the visible check accepted a wrong answer")


def test_allclose_check_handles_masked_entries():
    probe = Probe((np.array([0.0, 1.0]),), "masked")

    def reference(x):
        return torch.tensor([float("-inf"), 1.0]) + torch.as_tensor(x)

    _run(visible_check_source(_question(AllClose(), reference, probe)), reference)
    assert AllClose()(np.array([-np.inf, 1.0]), np.array([-np.inf, 1.0])).ok


def test_allclose_tells_infinities_and_nan_apart():
    exp = np.array([-np.inf, 1.0])
    assert not AllClose()(np.array([np.inf, 1.0]), exp).ok
    assert not AllClose()(np.array([np.nan, 1.0]), exp).ok
    assert AllClose()(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])).ok
