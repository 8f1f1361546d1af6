"""Root cause across questions: a dependent answer that fails only because the student's own
dependency fails is re-asked in the sandbox with the reference in its place, and then passes
(points awarded, feedback "fix `layer_norm` first"); one with its own mistake keeps its verdict."""

import dataclasses
from pathlib import Path

import pytest

from autograder.grading.notebook import StudentNotebook
from autograder.grading.root_cause import apply_root_causes, resolved, to_retry
from autograder.grading.runner import execute
from autograder.judging.verdict import QuestionResult, judge
from autograder.releasing.sample_submissions import solution_sources
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


@pytest.mark.parametrize("name", ["ps2_positional", "ps3_rope", "ps4_alibi", "ps6_build"])
def test_reference_sources_compute_the_reference(name):
    assignment = load_assignment(name)
    assert any(q.reference_source is not None for q in assignment.questions)
    for q in assignment.questions:
        if q.reference_source is None:
            continue
        fn = q.reference_source.compile()
        for probe in [*q.probes_for(STUDENT, assignment), *q.visible]:
            got = to_plain(fn(*as_args(probe.args, q.args_as), **probe.kwargs))
            assert q.compare.matches(got, q.expected(probe)), (q.grade_id, probe.label)


def test_dependencies_declared_where_an_answer_calls_another():
    """One policy for every problem set (README): where the notebook has an answer call another
    answer, the dependency is declared and root cause re-judges it with the reference in place."""
    declared = {
        name: {q.grade_id: q.depends_on for q in load_assignment(name).questions if q.depends_on}
        for name in ("ps2_positional", "ps3_rope", "ps4_alibi")
    }
    assert declared["ps2_positional"] == {"t5_bias": ("t5_bucket",), "similarity": ("sinusoidal_pe",)}
    assert declared["ps3_rope"] == {
        "score_from_offset": ("rope_matrix", "apply_rope"),
        "rope_attention": ("apply_rope",),
        "decode_scores": ("apply_rope",),
        "rope_interpolated": ("apply_rope",),
    }
    assert declared["ps4_alibi"] == {
        "alibi_causal_bias": ("alibi_slopes",),
        "alibi_attention": ("alibi_causal_bias", "alibi_slopes"),
    }


def test_every_declared_dependency_exists_and_can_be_replaced(ps6):
    for assignment in [
        load_assignment(n) for n in ("ps1_attention", "ps2_positional", "ps3_rope", "ps4_alibi", "ps5_equivariance")
    ] + [ps6]:
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
    cells = [
        "import math\nimport numpy as np\nimport torch\n",
        WRONG_LN,
        sources["ffn_impl"],
        sources["mha_impl"],
        encoder_source,
    ]
    nb = StudentNotebook(Path(tmp_path / "nb.ipynb"), cells, [f"cell {i}" for i in range(len(cells))], [], {})
    subset = dataclasses.replace(
        ps6,
        questions=[ps6.question(g) for g in ("layer_norm", "feed_forward", "multi_head_attention", "encoder_layer")],
    )
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


WRONG_APPLY_ROPE = """def apply_rope(x, positions, base=10000.0, convention="interleaved"):
    d = x.shape[-1]
    theta = float(base) ** (+torch.arange(0, d, 2, dtype=torch.float64) / d)   # the exponent's sign lost
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * theta
    ang = ang.repeat_interleave(2, dim=-1) if convention == "interleaved" else torch.cat([ang, ang], -1)
    if convention == "half":
        x1, x2 = x.chunk(2, dim=-1)
        turned = torch.cat([-x2, x1], dim=-1)
    else:
        turned = torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
    return x * ang.cos().to(x.dtype) + turned * ang.sin().to(x.dtype)
"""


def test_ps3_a_wrong_apply_rope_is_the_root_cause_of_rope_attention(tmp_path):
    """The policy on another problem set: rope_attention that calls a wrong apply_rope is right once
    apply_rope is the reference — its points are awarded and the feedback says fix apply_rope first."""
    ps3 = load_assignment("ps3_rope")
    sources = solution_sources(ps3)
    cells = ["import math\nimport numpy as np\nimport torch\n", WRONG_APPLY_ROPE, sources["attention_impl"]]
    nb = StudentNotebook(Path(tmp_path / "nb.ipynb"), cells, [f"cell {i}" for i in range(len(cells))], [], {})
    subset = dataclasses.replace(ps3, questions=[ps3.question(g) for g in ("apply_rope", "rope_attention")])
    probes = {q.grade_id: q.probes_for(STUDENT, subset) for q in subset.questions}
    worker = Worker(0, SandboxConfig())
    try:
        run = execute(worker, nb, subset, probes, STUDENT)
        results = {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id]) for q in subset.questions}
        assert results["apply_rope"].status == "failed" and results["rope_attention"].status == "failed"
        apply_root_causes(worker, nb, subset, probes, STUDENT, results)
    finally:
        worker.stop()
    att = results["rope_attention"]
    assert att.status == "passed" and att.root_cause == "apply_rope" and "Fix `apply_rope` first" in att.feedback
    assert results["apply_rope"].score == 0
