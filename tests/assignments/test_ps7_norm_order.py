"""PS7 part 5 (Pre-LN against Post-LN, measured) against an independent build of both arms: the
notebook's locked ``norm_stack`` is the module's, the reference's gradient norms are those of a
stack of torch's own modules (nn.Linear, nn.LayerNorm) in float64, the reading's answers follow
from the measurement the notebook prescribes (seeds 0–19) with a margin, every named mistake is
rejected on every student's probes, and document 001's LayerNorm (σ + ε) is within the tolerance."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from autograder.spec import load_assignment, problem_set_module, student_rng

PS7 = load_assignment("ps7_tasks")
norm_order = problem_set_module(PS7).norm_order
GRADS = PS7.question("layer_grad_norms")


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny matrices: torch's thread pool costs more than it saves on a shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def module_stack_norms(seed, depth, arm, layer_norm=None):
    """Each layer's gradient norm from nn.Linear / nn.LayerNorm modules (float64)."""
    stack = norm_order.norm_stack(seed, depth)
    d, d_ff = stack["w1"].shape[1:]
    blocks = []
    for layer in range(depth):
        first, second = nn.Linear(d, d_ff, bias=False).double(), nn.Linear(d_ff, d, bias=False).double()
        with torch.no_grad():
            first.weight.copy_(torch.from_numpy(stack["w1"][layer].T))
            second.weight.copy_(torch.from_numpy(stack["w2"][layer].T))
        blocks.append(nn.Sequential(first, nn.ReLU(), second))
    norm = layer_norm or nn.LayerNorm(d, elementwise_affine=False).double()
    h = torch.from_numpy(stack["x"])
    for block in blocks:
        h = norm(h + block(h)) if arm == norm_order.POST else h + block(norm(h))
    if arm == norm_order.PRE:
        h = norm(h)
    logits = h @ torch.from_numpy(stack["w_out"])
    nn.functional.cross_entropy(logits, torch.from_numpy(stack["labels"])).backward()
    return np.array([np.sqrt(sum(float(p.grad.square().sum()) for p in b.parameters())) for b in blocks])


def test_the_notebooks_stack_is_the_modules():
    nb = json.loads((PS7.source_dir / PS7.notebook).read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "norm_stack")
    assert "".join(cell["source"]).strip() == norm_order.NORM_STACK_SOURCE.strip()


def test_the_reference_is_a_stack_of_torchs_own_modules():
    for seed, depth in ((0, 6), (3, 12)):
        for arm in norm_order.ARMS:
            np.testing.assert_allclose(
                norm_order.layer_grad_norms(seed, depth, arm), module_stack_norms(seed, depth, arm), rtol=1e-10
            )


def test_the_reading_follows_from_the_prescribed_measurement():
    def mean(depth, arm):
        return np.mean([norm_order.layer_grad_norms(s, depth, arm) for s in range(20)], axis=0)

    means = {(n, arm): mean(n, arm) for n in (6, 12, 24) for arm in norm_order.ARMS}
    post, pre = means[12, norm_order.POST], means[12, norm_order.PRE]
    assert post[-1] > 1.05 * post[0] and pre[-1] < 0.6 * pre[0]  # grows toward the output: Post-LN only
    assert post[-1] > 2 * pre[-1]  # the larger last-layer gradient: Post-LN
    last = {arm: [means[n, arm][-1] for n in (6, 12, 24)] for arm in norm_order.ARMS}
    assert last[norm_order.PRE][0] > 1.1 * last[norm_order.PRE][1] > 1.2 * last[norm_order.PRE][2]
    assert last[norm_order.POST][0] < last[norm_order.POST][1] < last[norm_order.POST][2]  # Post-LN's does not fall
    assert norm_order.MEASURED["grows_toward_output"] == norm_order.MEASURED["larger_last_layer_gradient"] == "post-ln"
    assert norm_order.MEASURED["shrinks_with_depth"] == "pre-ln"


def test_every_named_mistake_fails_every_students_probes():
    for student in ("s1", "s2", "s3"):
        probes = GRADS.probes(student_rng(student, PS7.name, GRADS.grade_id))
        assert {p.args[2] for p in probes} == set(norm_order.ARMS)
        for mistake in GRADS.misconceptions:
            assert any(
                not GRADS.compare.matches(np.asarray(mistake.wrong(*p.args)), GRADS.expected(p)) for p in probes
            ), (student, mistake.name)


def test_document_001s_layer_norm_is_inside_the_tolerance():
    """001's (x − mean)/(σ + ε) differs from √(σ² + ε) by ~ε/σ: at ε = 1e-5 that is 1e-5 relative,
    ten times inside the question's 1e-4 — this question grades the order, PS6's layer_norm the formula."""

    def layer_norm_001(h):
        mean = h.mean(-1, keepdim=True)
        return (h - mean) / ((h - mean).pow(2).mean(-1, keepdim=True).sqrt() + 1e-5)

    for arm in norm_order.ARMS:
        got = module_stack_norms(5, 8, arm, layer_norm=layer_norm_001)
        assert GRADS.compare.matches(got, norm_order.layer_grad_norms(5, 8, arm))
