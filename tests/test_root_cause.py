"""Root cause across questions: a dependent answer that fails only because the student's own
dependency fails is re-asked in the sandbox with the reference in its place, and then passes
(points awarded, feedback "fix `layer_norm` first"); one with its own mistake keeps its verdict."""
import dataclasses
from pathlib import Path

import pytest

from autograder.judge import QuestionResult, judge
from autograder.notebook import StudentNotebook
from autograder.root_cause import apply_root_causes, resolved, to_retry
from autograder.runner import execute
from autograder.samples import solution_sources
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import as_args, load_assignment, to_plain

STUDENT = "root-cause-student"

WRONG_LN = """def layer_norm(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    return gamma * (x - mean) / (x.std(-1, keepdim=True) + eps) + beta
"""
POST_LN_ENCODER = """def encoder_layer(x, mask, n_heads, ln1_g, ln1_b, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o,
                  ln2_g, ln2_b, w1, b1, w2, b2):
    x = layer_norm(x + multi_head_attention(x, x, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask),
                   ln1_g, ln1_b, 1e-5)
    return layer_norm(x + feed_forward(x, w1, b1, w2, b2), ln2_g, ln2_b, 1e-5)
"""


@pytest.fixture(scope="module")
def ps6():
    return load_assignment("ps6_build")


def test_reference_sources_compute_the_reference(ps6):
    for q in ps6.questions:
        if q.reference_source is None:
            continue
        fn = q.reference_source.compile()
        for probe in [*q.probes_for(STUDENT, ps6), *q.visible]:
            got = to_plain(fn(*as_args(probe.args, q.args_as), **probe.kwargs))
            assert q.compare.matches(got, q.expected(probe)), (q.grade_id, probe.label)


def test_every_declared_dependency_exists_and_can_be_replaced(ps6):
    for assignment in [load_assignment(n) for n in ("ps1_attention", "ps2_positional", "ps3_rope", "ps4_alibi",
                                                    "ps5_equivariance")] + [ps6]:
        for q in assignment.questions:
            for gid in q.depends_on:
                assert assignment.question(gid).reference_source is not None, (q.grade_id, gid)
    assert ps6.question("encoder_layer").depends_on


def test_only_failed_questions_with_failing_dependencies_are_retried(ps6):
    def res(status):
        return QuestionResult(1.0 if status == "passed" else 0.0, 1.0, status, "x")
    results = {q.grade_id: res("passed") for q in ps6.questions}
    assert to_retry(ps6, results) == []
    results.update(layer_norm=res("failed"), encoder_layer=res("failed"), decoder_layer=res("passed"))
    retry = to_retry(ps6, results)
    assert [(q.grade_id, [d.grade_id for d in deps]) for q, deps in retry] == [("encoder_layer", ["layer_norm"])]
    assert dict(retry[0][0].rebind) == {"layer_norm": ps6.question("layer_norm").reference_source}


def test_the_verdict_once_re_asked(ps6):
    q, ln = ps6.question("encoder_layer"), ps6.question("layer_norm")
    first = QuestionResult(0.0, 3.0, "failed", "does not match")
    passed = resolved(q, [ln], first, QuestionResult(3.0, 3.0, "passed", "correct"))
    assert passed.status == "passed" and passed.score == 3.0 and passed.root_cause == "layer_norm"
    assert "Fix `layer_norm` first" in passed.feedback and "`encoder_layer` is right" in passed.feedback
    still = resolved(q, [ln], first, QuestionResult(0.0, 3.0, "failed", "other"))
    assert still.score == 0 and still.status == "failed" and "will not be enough" in still.feedback


def _grade(ps6, encoder_source, tmp_path):
    sources = solution_sources(ps6)
    cells = ["import math\nimport numpy as np\nimport torch\n", WRONG_LN, sources["ffn_impl"], sources["mha_impl"],
             encoder_source]
    nb = StudentNotebook(Path(tmp_path / "nb.ipynb"), cells, [f"cell {i}" for i in range(len(cells))], [], {})
    subset = dataclasses.replace(ps6, questions=[ps6.question(g) for g in
                                                 ("layer_norm", "feed_forward", "multi_head_attention", "encoder_layer")])
    probes = {q.grade_id: q.probes_for(STUDENT, subset) for q in subset.questions}
    worker = Worker(0, SandboxConfig())
    try:
        run = execute(worker, nb, subset, probes, STUDENT)
        results = {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id]) for q in subset.questions}
        assert results["layer_norm"].status == "failed"
        assert results["encoder_layer"].status == "failed"
        apply_root_causes(worker, nb, subset, probes, STUDENT, results)
    finally:
        worker.stop()
    return results


def test_a_wrong_layer_norm_is_the_root_cause_of_the_encoder_layer(ps6, tmp_path):
    results = _grade(ps6, solution_sources(ps6)["encoder_impl"], tmp_path)
    enc = results["encoder_layer"]
    assert enc.status == "passed" and enc.score == enc.max_score == 3.0, enc
    assert enc.root_cause == "layer_norm" and "Fix `layer_norm` first" in enc.feedback
    assert results["layer_norm"].score == 0  # the mistake costs its own question, once


def test_an_encoder_layer_with_its_own_mistake_keeps_its_verdict(ps6, tmp_path):
    enc = _grade(ps6, POST_LN_ENCODER, tmp_path)["encoder_layer"]
    assert enc.status == "failed" and enc.score == 0 and enc.root_cause is None
    assert "will not be enough" in enc.feedback
