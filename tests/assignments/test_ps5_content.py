"""PS5's content against the documents and the stated contract: document 000's "stays the same"
is rejected with feedback that names it in each question that can carry it; the causality
tester's reference knows every layer; the hidden probes vary what the notebook allows (a batch
axis, T = 1, outputs in the thousands); the release never writes f(X[p])."""

import json

import numpy as np
import torch

from autograder.spec import REPO_ROOT, as_args, load_assignment, problem_set_module
from solutions.equivariance import is_causal, is_permutation_equivariant

ASSIGNMENT = load_assignment("ps5_equivariance")
MODULE = problem_set_module(ASSIGNMENT)
CAUSAL = {"causal_attention", "positionwise_tanh", "running_mean"}


def probes(grade_id, students=("s1", "s2")):
    q = ASSIGNMENT.question(grade_id)
    return q, [p for s in students for p in q.probes_for(s, ASSIGNMENT)]


def test_000s_invariance_claim_is_named_in_every_question_that_can_carry_it():
    for grade_id in ("permuted_output", "permuted_rows", "symmetry_kinds"):
        q = ASSIGNMENT.question(grade_id)
        claim = next(m for m in q.misconceptions if m.name == "invariance_claim")
        assert "000" in claim.feedback and "stays the same" in claim.feedback
        assert q.compare(claim.wrong(), q.reference()).ok is False, grade_id


def test_the_rows_and_kinds_are_computed_by_running_the_functions():
    assert MODULE.permuted_output.permuted_rows() == MODULE.permuted_output.ORDER
    kinds = MODULE.permuted_output.symmetry_kinds()
    assert kinds["a"] == "equivariant" and kinds["b"] == "invariant" and kinds["c"] == "neither"


def test_the_causal_reference_knows_every_layer():
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((6, 8)).astype(np.float32))
    batch_only = {"batch_neighbour_future", "batch_next_last_token"}  # they leak across a batch only
    for name, source in MODULE.causal_subjects.CAUSAL_SUBJECTS.items():
        assert is_causal(source.compile(), x) == (name in CAUSAL | batch_only), name
    batch = torch.from_numpy(np.random.default_rng(1).standard_normal((3, 6, 8)).astype(np.float32))
    for name in batch_only:
        assert is_causal(MODULE.causal_subjects.CAUSAL_SUBJECTS[name].compile(), batch) is False, name


def test_every_tester_is_probed_on_a_batch_and_on_one_token():
    for grade_id in ("equivariance_tester", "invariance_tester", "causal_tester"):
        _, ps = probes(grade_id)
        shapes = [p.args[1].shape for p in ps]
        assert any(len(s) == 3 and s[0] != s[1] for s in shapes), grade_id
        assert any(s[-2] == 1 for s in shapes), grade_id


def test_a_relative_tolerance_and_an_axis_0_permutation_are_caught():
    for grade_id in ("equivariance_tester", "invariance_tester"):
        q, ps = probes(grade_id)
        for name in ("relative_tolerance", "permutes_first_axis"):
            weak = next(m.wrong for m in q.misconceptions if m.name == name)
            assert any(weak(*as_args(p.args, "torch")) != q.reference(*as_args(p.args, "torch")) for p in ps), (
                grade_id,
                name,
            )


def test_each_causal_misconception_is_caught_by_some_hidden_probe():
    q, ps = probes("causal_tester")
    for wrong in [m.wrong for m in q.misconceptions] + list(q.extra_mutants.values()):
        verdicts = []
        for p in ps:
            args = as_args(p.args, "torch")
            try:
                verdicts.append(wrong(*args) != q.reference(*args))
            except Exception:  # noqa: BLE001 - a crash is a different verdict too
                verdicts.append(True)
        assert any(verdicts), wrong


def test_t_equal_one_is_equivariant_and_causal():
    x = torch.randn(1, 8)
    f = MODULE.subjects.SUBJECTS["attention_causal"].compile()
    assert is_permutation_equivariant(f, x) and is_causal(f, x)


def test_the_release_writes_the_token_axis_permutation():
    nb = json.loads((REPO_ROOT / "release/ps5_equivariance/ps5_equivariance.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"])
    assert "f(X[p])" not in text and "f(X)[p]" not in text
    assert "atol=1e-5, rtol=0" in text and "solutions/" not in text


# ---- issue 38: the conventions' tolerance and the pooled B = T case, as stated and as probed
TESTERS = ("equivariance_tester", "invariance_tester", "causal_tester")
RELEASED = "".join(
    "".join(c["source"])
    for c in json.loads((REPO_ROOT / "release/ps5_equivariance/ps5_equivariance.ipynb").read_text())["cells"]
)


def test_every_output_a_tester_is_given_is_float64_as_the_conventions_say():
    assert "compute in `float64`" in RELEASED and "float32 outputs in the thousands" in RELEASED
    largest, compiled = 0.0, {}
    for grade_id in ("equivariance_tester", "causal_tester"):  # the invariance tester's probes are the former's
        for p in probes(grade_id, students=("s1",))[1]:
            source, x = p.args[0], torch.from_numpy(p.args[1])
            if source not in compiled:
                compiled[source] = source.compile()
            y = compiled[source](x)
            assert y.dtype == torch.float64, (grade_id, p.label)
            largest = max(largest, float(y.abs().max()))
            assert all(s >= 2 for s in x.shape[:-2]), (grade_id, p.label)  # a batch holds B ≥ 2 sequences
    assert largest > 1000  # "values in the thousands"


def test_the_stated_float32_step_at_1000_is_why_large_layers_are_checked_in_float64():
    assert 5e-5 < float(np.spacing(np.float32(1000))) < 7e-5 and "6\\cdot10^{-5}" in RELEASED
    w = torch.from_numpy(np.random.default_rng(4).standard_normal((3, 8, 8)).astype(np.float32)) / 8**0.5

    def large_attention(X):  # 1000 × self-attention without positions, in X's dtype
        q, k, v = (X @ m.to(X.dtype) for m in w)
        return 1000 * torch.softmax(q @ k.transpose(-2, -1) / 8**0.5, -1) @ v

    x = torch.from_numpy(np.random.default_rng(3).standard_normal((8, 8)).astype(np.float32))
    assert is_permutation_equivariant(large_attention, x.double())  # float64, as the grader's layers
    assert not is_permutation_equivariant(large_attention, x)  # float32: sums in a new order move by a step


def test_a_batch_with_b_equal_t_pooled_is_stated_and_probed_with_the_stated_verdicts():
    assert RELEASED.count("also when $B = T$") >= 2 and "$B = T$ or not" in RELEASED
    expected = {"equivariance_tester": False, "invariance_tester": True, "causal_tester": False}
    for grade_id in TESTERS:
        q, ps = probes(grade_id)
        square = [p for p in ps if p.args[1].ndim == 3 and p.args[1].shape[0] == p.args[1].shape[1]]
        assert square, grade_id
        for p in square:
            f, x = as_args(p.args, "torch")
            assert f(x).shape == (x.shape[0], x.shape[-1]), p.label  # pooled: (B, d), axis -2 of length T
            assert q.expected(p) is expected[grade_id], (grade_id, p.label)


def test_multi_head_reordered_is_what_a_real_multi_head_layer_gives_on_the_reordered_input():
    """000 Q5.4's concatenation and W_O: the reference, fed the heads of a real multi-head layer on
    X, equals that layer on X[..., p, :] (a 1e-5 match in float64); 000's "stays the same" does not."""
    q, ps = probes("multi_head_reordered")
    claim = next(m for m in q.misconceptions if m.name == "invariance_claim")
    assert "000" in claim.feedback and "stays the same" in claim.feedback
    for p in ps:
        heads, W_O, perm = as_args(p.args, "torch")
        *lead, h, t, d_h = heads.shape
        g = torch.Generator().manual_seed(0)
        x = torch.randn(*lead, t, 5, generator=g, dtype=torch.float64)
        w = torch.randn(3, h, 5, d_h, generator=g, dtype=torch.float64)

        def layer(x):  # h heads without positions, joined per token, then W_O
            q_, k, v = (torch.einsum("...td,hde->...hte", x, m) for m in w)
            out = torch.softmax(q_ @ k.transpose(-2, -1) / d_h**0.5, -1) @ v
            return out.transpose(-3, -2).flatten(-2) @ W_O.double()

        heads_on_x = torch.softmax(
            torch.einsum("...td,hde->...hte", x, w[0])
            @ torch.einsum("...td,hde->...hte", x, w[1]).transpose(-2, -1)
            / d_h**0.5,
            -1,
        ) @ torch.einsum("...td,hde->...hte", x, w[2])
        got = q.reference(heads_on_x, W_O.double(), perm)
        assert torch.allclose(got, layer(x[..., perm, :]), atol=1e-5, rtol=0), p.label
        assert not torch.allclose(claim.wrong(heads_on_x, W_O.double(), perm), got, atol=1e-3), p.label


def test_the_visible_checks_paste_no_hidden_subjects_fixture():
    """The released testers' checks hand over small attentions of their own: nothing names the
    knobs the hidden subjects vary (RoPE, fixed queries, a mask off by one or after the softmax)."""
    cells = json.loads((REPO_ROOT / "release/ps5_equivariance/ps5_equivariance.ipynb").read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert code.count("def attention_no_position(X)") == 1
    for knob in ("def _attention(", "rope", "queries", "ahead", "mask_after", "sinusoidal", "manual_seed(1234)"):
        assert knob not in code, knob
