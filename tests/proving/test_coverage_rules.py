"""Each coverage rule for hidden probes fails the self-test, naming the argument, on a spec
built to break it — and a spec that follows every rule passes."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from autograder.judging.compare.comparators import AllClose
from autograder.proving import coverage
from autograder.proving.selftest import check_probes
from autograder.spec import Assignment, Misconception, Probe, Question


def scale_rows(x, factor, offset=0.0):
    return torch.as_tensor(x) * factor + offset


def shift_by_position(x, positions):
    return torch.as_tensor(x) + torch.as_tensor(positions)[..., None]


def _question(reference, probes, visible=(), grade_id="q"):
    return Question(
        grade_id=grade_id,
        answer="f",
        points=1,
        reference=reference,
        probes=probes,
        visible=list(visible),
        compare=AllClose(),
        misconceptions=(Misconception("zero", "all zero", lambda *a, **k: torch.zeros(1)),),
    )


def _assignment(*questions):
    return Assignment(name="synthetic_cov", notebook="x.ipynb", questions=list(questions))


def _x(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _problems(q, together=None):
    q = replace(q, coverage_together=together or {})
    probes = {s: q.probes_for(s, _assignment(q)) for s in ("a", "b")}
    return coverage.question_problems(q, probes)


def test_an_argument_that_never_varies_is_named():
    q = _question(scale_rows, lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 4, 3), 2.0, 1.0))])
    problems = _problems(q)
    assert any("`factor` takes one value" in p for p in problems), problems
    assert not any("`offset`" in p for p in problems)


def test_a_default_never_omitted_is_named():
    q = _question(scale_rows, lambda rng: [Probe((_x(rng, 2, 3), 2.0, 0.5)), Probe((_x(rng, 4, 3), 3.0, 1.0))])
    problems = _problems(q)
    assert any("omits `offset`" in p for p in problems), problems
    assert not any("`factor`" in p for p in problems)


def test_positions_only_zero_to_t_minus_one_are_named():
    q = _question(
        shift_by_position, lambda rng: [Probe((_x(rng, 3, 2), np.arange(3))), Probe((_x(rng, 4, 2), np.arange(4)))]
    )
    assert any("`positions` is 0..T-1" in p for p in _problems(q))
    good = _question(
        shift_by_position,
        lambda rng: [Probe((_x(rng, 3, 2), np.arange(3))), Probe((_x(rng, 3, 2), np.array([5, 9, 10])))],
    )
    assert not any("positions" in p for p in _problems(good))


def test_only_the_visible_sizes_are_named():
    visible = [Probe((np.ones((2, 3), np.float32), 2.0))]
    q = _question(
        scale_rows, lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 2, 3), 3.0, 1.0))], visible=visible
    )
    assert any("`x` has only the visible examples' shapes" in p for p in _problems(q))


def test_interacting_options_must_be_probed_together():
    q = _question(scale_rows, lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 4, 3), 3.0, 1.0))])
    together = {"a negative factor with an offset": lambda a: a["factor"] < 0 and a["offset"]}
    assert any("a negative factor with an offset" in p for p in _problems(q, together))


def test_a_spec_following_every_rule_passes():
    q = _question(
        scale_rows,
        lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 2, 4, 3), -3.0, 1.0))],
        visible=[Probe((np.ones((1, 3), np.float32), 2.0))],
    )
    together = {"a negative factor with an offset": lambda a: a["factor"] < 0 and a["offset"]}
    assert _problems(q, together) == []


@pytest.mark.parametrize(
    "probes, named",
    [
        (lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 4, 3), 2.0, 1.0))], "`factor`"),
        (lambda rng: [Probe((_x(rng, 2, 3), 2.0, 0.5)), Probe((_x(rng, 4, 3), 3.0, 1.0))], "`offset`"),
    ],
)
def test_the_selftest_fails_naming_the_argument(probes, named):
    problems, results = check_probes(_assignment(_question(scale_rows, probes)))
    assert any(named in p for p in problems), problems
    assert results and results[0].grade_id == "q"


def take_first(x, k, reverse=False):
    x = torch.as_tensor(x)
    return (x.flip(-2) if reverse else x)[..., :k, :]


def test_a_default_never_given_another_value_is_named():
    """Issue 27: PS2's t5_bias passing the table's size on to t5_bucket passes if every probe used 32."""
    q = _question(scale_rows, lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 2, 4, 3), 3.0, 0.0))])
    problems = _problems(q)
    assert any("gives `offset` a value other than its default 0.0" in p for p in problems), problems


def test_a_batch_axis_the_reference_accepts_must_be_probed():
    """Issue 27: PS5's tester that permutes axis 0 passed where X may be (B, T, d)."""
    probes = lambda rng: [Probe((_x(rng, 2, 3), 2.0)), Probe((_x(rng, 4, 3), 3.0, 1.0))]  # noqa: E731
    problems = _problems(_question(scale_rows, probes))
    assert any("`x` always has the same number of axes" in p and "batch" in p for p in problems), problems
    exempt = replace(_question(scale_rows, probes), coverage_exempt={"x": "the notebook asks for (T, d) only"})
    assert not any("batch" in p for p in _problems(exempt))


def test_a_budgets_boundary_must_be_probed():
    """Issue 27: PS6's greedy_decode that always appends a token passed: max_new_tokens = 0 was never asked."""
    probes = lambda rng: [Probe((_x(rng, 2, 5, 3), 2)), Probe((_x(rng, 6, 3), 3, True))]  # noqa: E731
    problems = _problems(_question(take_first, probes))
    assert any("budget `k` its boundary value 0" in p for p in problems), problems
    with_zero = lambda rng: [Probe((_x(rng, 2, 5, 3), 0)), Probe((_x(rng, 6, 3), 3, True))]  # noqa: E731
    assert not any("budget" in p for p in _problems(_question(take_first, with_zero)))
