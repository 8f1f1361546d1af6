"""Mutation analysis: operators make the mistakes they name, weak probes let mutants survive
(and the self-test says which), strong probes kill them, equivalent mutants are not counted,
and PS5's weak testers are all caught by its hidden probes."""

import itertools

import numpy as np
import pytest
import torch

from autograder.judging.compare.comparators import AllClose, Exact
from autograder.proving.mutation import analysis as mutation
from autograder.proving.mutation import mutants
from autograder.proving.mutation.operators import source_mutants
from autograder.spec import Assignment, Misconception, Probe, Question, as_args, load_assignment, problem_set_module


def scaled_sum(x, scale=2.0):
    y = torch.as_tensor(x).sum(dim=-1) * scale
    if y.shape == (-1,):  # never true: mutants of this line are equivalent
        y = y + 1
    return y - 1


def _question(probes, reference=scaled_sum):
    return Question(
        grade_id="q",
        answer="f",
        points=1,
        reference=reference,
        probes=probes,
        compare=AllClose(),
        misconceptions=(Misconception("m", "m", lambda *a, **k: 0.0),),
    )


def _assignment(q):
    return Assignment(name="synthetic_mut", notebook="x.ipynb", questions=[q])


def _x(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_operators_make_the_classic_mistakes():
    names = [m.name for m in source_mutants(scaled_sum)]
    for expected in (
        "* -> /",
        "- -> +",
        "constant 1 -> 2",
        "keyword",
        "condition negated",
        "term dropped",
        "transpose added",
    ):
        assert any(expected in n for n in names), (expected, names)
    x = torch.ones(2, 3)
    outputs = {n: m.function(x) for n, m in ((m.name, m) for m in source_mutants(scaled_sum)) if "- -> +" in n}
    assert all(torch.equal(v, torch.full((2,), 7.0)) for v in outputs.values())  # 3·2 + 1


def test_weak_probes_leave_survivors_that_the_selftest_names():
    # every probe passes scale = 2.0 explicitly: ignoring `scale` (keeping the default) passes
    q = _question(lambda rng: [Probe((_x(rng, 3, 4), 2.0)), Probe((_x(rng, 5, 2), 2.0))])
    result = mutation.analyse_question(q, _assignment(q), seeds=3)
    # the broad sample changes scale, so the mutant is not equivalent: it survives
    assert "ignores `scale` (keeps the default 2.0)" in result.survived
    assert any("ignores `scale`" in p for p in result.problems())
    assert result.score < 1.0


def test_strong_probes_kill_every_non_equivalent_mutant():
    q = _question(lambda rng: [Probe((_x(rng, 3, 4), float(rng.uniform(3, 5)))), Probe((_x(rng, 5, 2),))])
    result = mutation.analyse_question(q, _assignment(q), seeds=3)
    assert result.survived == [], result.survived
    assert result.killed and result.score == 1.0
    assert any("condition negated" in name for name in result.equivalent) or any(
        "line 3" in name for name in result.equivalent
    )


def test_accepted_survivors_are_allowed_up_to_five_percent():
    result = mutation.MutationResult(
        "q", killed=[f"k{i}" for i in range(19)], survived=["s"], accepted={"s": "equivalent for every valid input"}
    )
    assert result.problems() == []
    result = mutation.MutationResult("q", killed=["k"] * 3, survived=["s"], accepted={"s": "reason"})
    assert any("more than 5 %" in p for p in result.problems())


def test_a_mutant_in_a_called_course_function_is_installed_and_removed():
    from solutions import attention

    original = attention.attention_weights
    targets = mutation.mutation_targets(attention.scaled_dot_product_attention, (mutation.REPO_ROOT / "solutions",))
    assert original in targets and attention.causal_mask in targets
    with mutants.swapped_in(original, lambda *a, **k: "mutant", [attention.__dict__]):
        assert attention.attention_weights(None, None) == "mutant"
    assert attention.attention_weights is original


# ---- PS5: testers are graded on a generated family of functions


@pytest.fixture(scope="module")
def ps5():
    return load_assignment("ps5")


def _brute_force_equivariant(f, X):  # PS5's contract: an absolute tolerance
    y = f(X)
    if y.shape[-2:-1] != X.shape[-2:-1]:
        return False
    return all(
        torch.allclose(f(X[..., list(p), :]), y[..., list(p), :], rtol=0, atol=1e-5)
        for p in itertools.permutations(range(X.shape[-2]))
    )


def _brute_force_invariant(f, X):
    y = f(X)
    return all(
        torch.allclose(f(X[..., list(p), :]), y, rtol=0, atol=1e-5) for p in itertools.permutations(range(X.shape[-2]))
    )


def test_the_honest_tester_reports_every_function_of_the_family(ps5):
    from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

    module = problem_set_module(ps5)
    X = torch.from_numpy(np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32))
    for name, source in module.subjects.SUBJECTS.items():
        f = source.compile()
        assert is_permutation_equivariant(f, X) == _brute_force_equivariant(f, X), name
        assert is_permutation_invariant(f, X) == _brute_force_invariant(f, X), name


@pytest.mark.parametrize("grade_id", ["equivariance_tester", "invariance_tester"])
def test_every_weak_tester_is_rejected_on_every_selftest_students_probes(ps5, grade_id):
    from autograder.judging.instructor_answers import SELFTEST_STUDENTS

    q = ps5.question(grade_id)
    weak = q.extra_mutants
    assert len(weak) >= 6
    for student in SELFTEST_STUDENTS:
        probes = q.probes_for(student, ps5)
        expected = [q.expected(p) for p in probes]
        for name, tester in weak.items():
            try:
                got = [tester(*as_args(p.args, q.args_as)) for p in probes]
            except Exception:  # noqa: BLE001 - a tester that raises on a probe (T = 1) is rejected too
                continue
            assert got != expected, f"{name} passes {student}'s hidden probes"
    assert isinstance(q.compare, Exact)


def test_selftest_prints_a_score_per_question_and_mutants_killed_last(monkeypatch, capsys):
    import argparse

    from autograder import spec
    from autograder.cli import selftest

    strong = _question(
        lambda rng: [
            Probe((_x(rng, 3, 4), float(rng.uniform(3, 5)))),
            Probe((_x(rng, 5, 2),)),
            Probe((_x(rng, 2, 5, 2),)),  # the coverage rules: a batch axis wherever the reference takes one
        ]
    )
    monkeypatch.setattr(spec, "load_assignments", lambda names: [_assignment(strong)])
    code = selftest.run(argparse.Namespace(problem_sets=[], probes_only=True))
    lines = capsys.readouterr().out.strip().splitlines()
    assert any(line.strip().startswith("mutation q:") and "(100 %)" in line for line in lines), lines
    killed = [line for line in lines if line.startswith("mutants_killed:")]
    assert lines[-1] == killed[0] and code == 0
    k, n = lines[-1].split()[1].split("/")
    assert int(k) == int(n) > 0


@pytest.mark.parametrize("name", ["ps4_alibi", "ps7_tasks"])
def test_the_analysis_early_exit_agrees_with_the_verdict(name):
    """The analysis asks ``passes_every_probe`` (stops at the first failing probe, no feedback):
    it must pass exactly what ``judge`` passes, for the reference and every known-wrong answer."""
    from autograder.judging.instructor_answers import SELFTEST_STUDENTS, known_wrong_outcome, passes_every_probe
    from autograder.judging.verdict import judge

    assignment = load_assignment(name)
    asked = 0
    for q in mutation.function_questions(assignment):
        probes = q.probes_for(SELFTEST_STUDENTS[0], assignment)
        for answer in [q.reference] + [m.wrong for m in q.misconceptions]:
            passed = judge(q, probes, known_wrong_outcome(q, probes, answer)).status == "passed"
            assert passes_every_probe(q, probes, answer) == passed, (q.grade_id, answer)
            asked += 1
    assert asked > 10
