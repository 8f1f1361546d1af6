"""Automatic diagnosis: for each kind, a wrong answer of that kind gets that diagnosis (and its
feedback names the cause, not the expected value). Questions are the course's own with their
named misconceptions removed, so the diagnosis is what speaks, or small ones built here."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import judge, public_label
from autograder.spec import FunctionSource, Probe, Question, load_assignment
from solutions.attention import scaled_dot_product_attention as sdpa_ref

STUDENT = "diagnose-student"


def bare(ps: str, grade_id: str):
    assignment = load_assignment(ps)
    return dataclasses.replace(assignment.question(grade_id), misconceptions=()), assignment


def verdict(question, assignment, wrong):
    probes = question.probes_for(STUDENT, assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def attention(q, k, v, mask=None, *, scale=None, dim=-1, mask_mode="keep"):
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None and mask_mode != "drop":
        scores = scores.masked_fill(mask if mask_mode == "invert" else ~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=dim), nan=0.0) @ v


def softmax_over_queries(q, k, v, m=None):
    """Only the softmax's axis differs from the reference: rows with no allowed key are handled as
    the reference does (a diagnosis is claimed only when it holds on every failing probe, and a
    second difference on those rows would rightly prevent it)."""
    if m is None:
        return attention(q, k, v, None, dim=-2)
    no_key = ~m.any(-1, keepdim=True)
    return attention(q, k, v, m | no_key, dim=-2).masked_fill(no_key, 0.0)


SDPA_WRONGS = {
    "sign": (lambda q, k, v, m=None: -sdpa_ref(q, k, v, m), "opposite sign"),
    "factor": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * q.shape[-1], "d_k"),
    "axes": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m).transpose(-2, -1), "axes -2 and -1 swapped"),
    "zeros": (lambda q, k, v, m=None: torch.zeros_like(sdpa_ref(q, k, v, m)), "all zeros"),
    "mask_missing": (lambda q, k, v, m=None: attention(q, k, v, m, mask_mode="drop"), "without any mask"),
    "mask_inverted": (lambda q, k, v, m=None: attention(q, k, v, m, mask_mode="invert"), "opposite mask"),
    "softmax_scale": (lambda q, k, v, m=None: attention(q, k, v, m, scale=1.0), "times √d_k"),
    "softmax_axis": (softmax_over_queries, "axis -2"),
    "precision": (lambda q, k, v, m=None: sdpa_ref(q.half().float(), k.half().float(), v, m), "only precision"),
    "nan": (lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * float("nan"), "NaN"),
    "masked_rows": (
        lambda q, k, v, m=None: (
            attention(q, k, v, m)
            if m is None or m.any(-1).all()
            else torch.where(m.any(-1, keepdim=True), attention(q, k, v, m), v.mean(-2, keepdim=True))
        ),
        "allows no position",
    ),
}


@pytest.mark.parametrize("kind", list(SDPA_WRONGS))
def test_attention_mistakes_are_diagnosed(kind):
    question, assignment = bare("ps1_attention", "sdpa")
    wrong, words = SDPA_WRONGS[kind]
    res = verdict(question, assignment, wrong)
    assert res.status == "failed" and res.score == 0
    assert res.diagnosis == kind, res.feedback
    assert words in res.feedback, res.feedback
    assert "does not match the reference:" in res.feedback


def test_layer_norm_over_tokens_is_a_normalisation_axis():
    question, assignment = bare("ps6_build", "layer_norm")

    def over_last_two(x, gamma, beta, eps):
        mean = x.mean((-2, -1), keepdim=True)
        var = x.var((-2, -1), unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * gamma + beta

    res = verdict(question, assignment, over_last_two)
    assert res.diagnosis == "norm_axis" and "last 2 axes" in res.feedback, res.feedback


def _vector_question(reference, **extra):
    def probes(rng):
        return [Probe((rng.standard_normal(8),), "eight numbers"), Probe((rng.standard_normal(6),), "six numbers")]

    return Question(
        grade_id="vec", answer="vec", points=1, reference=reference, probes=probes, args_as="numpy", **extra
    )


def _vector_verdict(question, wrong):
    from autograder.spec import student_rng

    probes = list(question.probes(student_rng(STUDENT, "vec", "vec")))
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def affine(x):
    return 2.0 * x + 1.0


def _changed(where):
    def wrong(x):
        out = affine(x).copy()
        out[where(len(out))] += 5.0
        return out

    return wrong


VECTOR_WRONGS = {
    "reversed": (lambda x: affine(x)[::-1].copy(), "reverse order"),
    "permuted": (lambda x: affine(x)[[3, 1, 2, 0, *range(4, len(x))]], "another order"),
    "shift": (lambda x: np.roll(affine(x), 1), "shifted by one"),
    "edge": (_changed(lambda n: n - 1), "only the last entry"),
    "stripes": (_changed(lambda n: slice(1, n, 2)), "odd index"),
    "location": (_changed(lambda n: slice(2, n)), "agree up to index 1"),
    "shape": (lambda x: np.append(affine(x), 0.0), "one entry too many"),
    "which_inputs": (lambda x: affine(x) if len(x) == 8 else np.cos(x * 3.7) * 11.0, "right on eight numbers"),
}


@pytest.mark.parametrize("kind", list(VECTOR_WRONGS))
def test_where_and_how_a_vector_is_wrong(kind):
    wrong, words = VECTOR_WRONGS[kind]
    res = _vector_verdict(_vector_question(affine), wrong)
    assert res.status == "failed" and res.diagnosis == kind, res.feedback
    assert words in res.feedback, res.feedback


def test_an_ignored_argument_is_named():
    def shifted(x, offset=1.0):
        return x + offset

    def probes(rng):
        return [
            Probe((rng.standard_normal(5), 2.5), "offset 2.5"),
            Probe((rng.standard_normal(4), -0.5), "offset -0.5"),
        ]

    question = Question(grade_id="vec", answer="vec", points=1, reference=shifted, probes=probes, args_as="numpy")
    res = _vector_verdict(question, lambda x, offset=1.0: x + 1.0)
    assert res.diagnosis == "argument" and "`offset`" in res.feedback and "default" in res.feedback, res.feedback


def test_only_the_diagonal_wrong():
    def gram(a):
        return a @ a.T

    def probes(rng):
        return [Probe((rng.standard_normal((4, 3)),), "4 × 3"), Probe((rng.standard_normal((5, 2)),), "5 × 2")]

    question = Question(grade_id="vec", answer="vec", points=1, reference=gram, probes=probes, args_as="numpy")
    res = _vector_verdict(question, lambda a: gram(a) + 3 * np.eye(len(a)))
    assert res.diagnosis == "diagonal" and "on the diagonal" in res.feedback, res.feedback


def test_a_named_factor_is_named_by_its_size():
    question, assignment = bare("ps1_attention", "sdpa")
    res = verdict(question, assignment, lambda q, k, v, m=None: sdpa_ref(q, k, v, m) * q.shape[-1] ** 0.5)
    assert res.diagnosis == "factor" and "√d_k" in res.feedback, res.feedback


def test_formula_terms_compared_without_the_expected_formula():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("mha_params_formula")
    res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": "4*d**2 + d"}]))
    assert res.diagnosis == "formula_terms"
    # issue 36: a two-term answer gets its concept, not "your d term is too small" (one step away)
    assert "count the learned maps" in res.feedback and "too small" not in res.feedback, res.feedback
    assert "4*d" not in res.feedback and "4d" not in res.feedback and "4·d" not in res.feedback
    missing = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": "4*d**2"}]))
    assert missing.misconception == "biases_missing"  # a named misconception still comes first


def test_named_misconceptions_come_first():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("sdpa")
    res = verdict(question, assignment, lambda q, k, v, m=None: attention(q, k, v, m, scale=1.0))
    assert res.misconception == "missing_scale" and res.diagnosis is None


def test_a_scalar_value_gets_no_relation_that_would_give_it_away():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("growth_when_T_doubles")
    res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": 8.0}]))
    assert res.diagnosis is None and res.status == "failed"


def test_probe_labels_lose_seeds_and_hidden_function_names():
    fn = FunctionSource("def secret_model(x):\n    return x\n", "secret_model")
    assert public_label(Probe((fn, 1), "secret_model"), 2) == "probe 3"
    assert public_label(Probe((1,), "temperature 0.5, seed 1234, 20 draws"), 0) == "temperature 0.5, 20 draws"
    assert (
        public_label(Probe((1,), "500 held-out sequences (seed 99, time budget 90 s)"), 0)
        == "500 held-out sequences (time budget 90 s)"
    )
    assert public_label(Probe((1,), "tiny model 4821, prompt [3, 1]"), 0) == "tiny model, prompt [3, 1]"


# ---- answers that raise: when (which property of the arguments), or what the exception shows
def _rot_interleaved(x):
    return torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)


def _rope_angles(x, positions, base):
    d = x.shape[-1]
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.as_tensor(positions).to(torch.float64)[:, None] * theta


def _rope(x, positions, base=10000.0, convention="interleaved", *, sign=1, offset=0):
    ang = _rope_angles(x, sign * (torch.as_tensor(positions) + offset), base)
    if convention == "interleaved":
        ang, turned = ang.repeat_interleave(2, dim=-1), _rot_interleaved(x)
    else:
        x1, x2 = x.chunk(2, dim=-1)
        ang, turned = torch.cat([ang, ang], dim=-1), torch.cat([-x2, x1], dim=-1)
    return x * ang.cos().to(x.dtype) + turned * ang.sin().to(x.dtype)


def sdpa_if_mask(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask:  # "if mask is given" — but a tensor of several entries has no truth value
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v


def rope_unbatched(x, positions, base=10000.0, convention="interleaved"):
    t, d = x.shape  # only (T, d) inputs
    return _rope(x, positions, base, convention)


def rope_interleaved_only(x, positions, base=10000.0, convention="interleaved"):
    if convention != "interleaved":
        raise ValueError(f"unknown convention {convention}")
    return _rope(x, positions, base, convention)


def sdpa_untransposed(q, k, v, mask=None):
    scores = torch.matmul(q, k) / math.sqrt(q.shape[-1])  # k not transposed
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v


def sdpa_module_called(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.nn.functional(scores) @ v


def sdpa_helper_without_return(q, k, v, mask=None):
    def scores(q, k):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # noqa: F841 - the missing return

    return torch.softmax(scores(q, k), -1) @ v


def rope_angles_not_repeated(x, positions, base=10000.0, convention="interleaved"):
    ang = _rope_angles(x, positions, base)  # (T, d/2) against x's d
    return x * ang.cos().to(x.dtype) + _rot_interleaved(x) * ang.sin().to(x.dtype)


def rope_pairs_unequal(x, positions, base=10000.0, convention="interleaved"):
    ang = _rope_angles(x, positions, base).repeat_interleave(2, dim=-1)
    turned = torch.stack([-x[..., 1:], x[..., 0::2]], dim=-1).flatten(-2)  # x[..., 1:], not x[..., 1::2]
    return x * ang.cos().to(x.dtype) + turned * ang.sin().to(x.dtype)


def rope_matrix_index_too_long(m, d, base=10000.0):
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    r = torch.zeros(d, d, dtype=torch.float64)
    i = torch.arange(0, d)  # every index, where the blocks start at 0, 2, 4, …
    r[i, i] = torch.cos(m * theta)
    return r


def rope_matrix_float32(m, d, base=10000.0):
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    c, s = torch.cos(m * theta), torch.sin(m * theta)
    r = torch.zeros(d, d)  # float32, filled with float64 values
    i = torch.arange(0, d, 2)
    r[i, i], r[i, i + 1], r[i + 1, i], r[i + 1, i + 1] = c, -s, s, c
    return r


def thetas_assert_inverted(d, base):
    assert d % 2 == 1, "d must be even"
    return float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


CRASHES = {
    # (problem set, question, wrong answer, kind, words the feedback must hold)
    "mask_given": ("ps1_attention", "sdpa", sdpa_if_mask, "crash_trigger", "only when `mask` is given"),
    "batch_dims": (
        "ps3_rope",
        "apply_rope",
        rope_unbatched,
        "crash_trigger",
        "only when `x` has batch dimensions (more than 2 axes)",
    ),
    "one_option": (
        "ps3_rope",
        "apply_rope",
        rope_interleaved_only,
        "crash_trigger",
        "only when `convention` is 'half'",
    ),
    "matmul": ("ps1_attention", "sdpa", sdpa_untransposed, "crash_matmul", "transpose(-2, -1)"),
    "module": ("ps1_attention", "sdpa", sdpa_module_called, "crash_module", "called as if it were a function"),
    "none": ("ps1_attention", "sdpa", sdpa_helper_without_return, "crash_none", "returns its result"),
    "broadcast": ("ps3_rope", "apply_rope", rope_angles_not_repeated, "crash_broadcast", "2 times as long"),
    "stack": ("ps3_rope", "apply_rope", rope_pairs_unequal, "crash_stack", "cut differently"),
    "index_put": ("ps3_rope", "rope_matrix", rope_matrix_index_too_long, "crash_index_put", "indexed assignment"),
    "dtype": ("ps3_rope", "rope_matrix", rope_matrix_float32, "crash_dtype", "different dtypes"),
    "assert": ("ps3_rope", "rope_thetas", thetas_assert_inverted, "crash_assert", "if it is one you wrote"),
}


@pytest.mark.parametrize("case", list(CRASHES))
def test_a_crash_is_diagnosed(case):
    ps, gid, wrong, kind, words = CRASHES[case]
    question, assignment = bare(ps, gid)
    res = verdict(question, assignment, wrong)
    assert res.status == "error" and res.score == 0 and res.diagnosis == kind, res.feedback
    assert words in res.feedback, res.feedback
    assert " raised " in res.feedback  # the student's own exception is still shown


def test_an_index_one_past_the_end_is_an_off_by_one():
    def differences(x):
        return x[1:] - x[:-1]

    def wrong(x):
        return np.array([x[i + 1] - x[i] for i in range(len(x))])  # one step too far

    res = _vector_verdict(_vector_question(differences), wrong)
    assert res.status == "error" and res.diagnosis == "crash_index" and "one past the end" in res.feedback, res.feedback


def test_an_axis_past_the_input_is_named():
    def total(x):
        return x.sum(-1)

    question = dataclasses.replace(_vector_question(total), args_as="torch")
    res = _vector_verdict(question, lambda x: torch.sum(x, dim=1))
    assert res.status == "error" and res.diagnosis == "crash_axes", res.feedback


def test_a_crash_without_a_telling_circumstance_stays_a_crash():
    question, assignment = bare("ps1_attention", "sdpa")

    def raises(q, k, v, mask=None):
        raise RuntimeError("something went wrong")

    res = verdict(question, assignment, raises)
    assert res.status == "error" and res.diagnosis is None


# ---- reference-driven kinds for positional encodings
def rope_attention_answer(q, k, v, positions, base=10000.0, *, causal="keep"):
    qr, kr = _rope(q.double(), positions, base), _rope(k.double(), positions, base)
    scores = qr @ kr.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).tril()
    if causal == "keep":
        scores = scores.masked_fill(~allowed, float("-inf"))
    elif causal == "invert":
        scores = scores.masked_fill(allowed, float("-inf"))
    return (torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v.double()).to(q.dtype)


POSITIONAL_WRONGS = {
    # rope_attention: the causal mask the answer builds itself
    "mask_missing": (
        "ps3_rope",
        "rope_attention",
        lambda q, k, v, p, b=10000.0: rope_attention_answer(q, k, v, p, b, causal="drop"),
        "without its mask",
    ),
    "mask_inverted": (
        "ps3_rope",
        "rope_attention",
        lambda q, k, v, p, b=10000.0: rope_attention_answer(q, k, v, p, b, causal="invert"),
        "allowed and the blocked positions swapped",
    ),
    # apply_rope: rotation direction (the angle's sign), positions off by one, conventions swapped
    "rotation_direction": (
        "ps3_rope",
        "apply_rope",
        lambda x, p, b=10000.0, c="interleaved": _rope(x, p, b, c, sign=-1),
        "`positions` with the opposite sign",
    ),
    "position_offset": (
        "ps3_rope",
        "apply_rope",
        lambda x, p, b=10000.0, c="interleaved": _rope(x, p, b, c, offset=1),
        "as if it were `positions` + 1",
    ),
    "conventions_swapped": (
        "ps3_rope",
        "apply_rope",
        lambda x, p, b=10000.0, c="interleaved": _rope(x, p, b, "half" if c == "interleaved" else "interleaved"),
        "are swapped",
    ),
}


@pytest.mark.parametrize("case", list(POSITIONAL_WRONGS))
def test_positional_mistakes_are_diagnosed(case):
    ps, gid, wrong, words = POSITIONAL_WRONGS[case]
    question, assignment = bare(ps, gid)
    res = verdict(question, assignment, wrong)
    assert res.status == "failed" and res.diagnosis is not None and words in res.feedback, res.feedback
    if case.startswith("mask"):
        assert res.diagnosis == case


def t5_bucket_rounded(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
    """The log buckets rounded to nearest instead of truncated (a realistic slip)."""
    rel_pos = torch.as_tensor(rel_pos)
    bucket = torch.zeros_like(rel_pos, dtype=torch.long)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (rel_pos > 0).long() * num_buckets
        n = rel_pos.abs()
    else:
        n = (-rel_pos).clamp(min=0)
    max_exact = num_buckets // 2
    large = (
        max_exact
        + torch.round(
            torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).long()
    )
    large = large.clamp(max=num_buckets - 1)
    return bucket + torch.where(n < max_exact, n, large)


def test_integer_outputs_wrong_only_for_large_inputs_and_off_by_one():
    question, assignment = bare("ps2_positional", "t5_bucket")
    res = verdict(question, assignment, t5_bucket_rounded)
    assert res.diagnosis == "input_region", res.feedback
    assert "right for small inputs" in res.feedback and "off by one there" in res.feedback, res.feedback


def test_integer_outputs_off_by_one_everywhere_they_differ():
    def thirds(x):
        return np.floor_divide(x, 3)

    def probes(rng):
        return [Probe((np.arange(-20, 21),), "−20 … 20"), Probe((rng.permutation(np.arange(-9, 30)),), "shuffled")]

    question = Question(grade_id="vec", answer="vec", points=1, reference=thirds, probes=probes, args_as="numpy")
    res = _vector_verdict(question, lambda x: np.ceil(x / 3).astype(np.int64))  # ceil for floor
    assert res.diagnosis == "off_by_one" and "off by one" in res.feedback, res.feedback


def test_a_sum_over_the_wrong_axis_is_named():
    question, assignment = bare("ps2_positional", "similarity")

    def pe(pos, d, base):
        w = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        ang = pos[:, None] * w
        return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(-2)

    def over_positions(p, distances, d, base=10000.0):
        dist = torch.as_tensor(distances).double()
        return (pe(torch.full_like(dist, float(p)), d, base) * pe(float(p) + dist, d, base)).sum(0)

    res = verdict(question, assignment, over_positions)
    assert res.diagnosis == "reduced_axis" and "`d`" in res.feedback, res.feedback


# ---- a diagnosis holds on every failing probe, or none is claimed
def test_no_diagnosis_from_one_probe_that_happens_to_fit():
    """t5_bias whose causal buckets use the wrong sign of the offset: on the one square causal probe
    it looks like a transpose, on the others it does not — "axes swapped" would mislead."""
    from solutions.encodings import t5_bias_matrix
    from solutions.positional import t5_relative_bucket

    question, assignment = bare("ps2_positional", "t5_bias")

    def wrong(table, t_q, t_k, bidirectional=True):
        if bidirectional:
            return t5_bias_matrix(table, t_q, t_k, True, num_buckets=len(table))
        rel = torch.arange(t_q)[:, None] - torch.arange(t_k)[None, :]  # query minus key
        return torch.as_tensor(table)[t5_relative_bucket(rel, False, num_buckets=len(table))].permute(2, 0, 1)

    res = verdict(question, assignment, wrong)
    assert res.status == "failed" and res.diagnosis != "axes", res.feedback
    assert "swapped" not in res.feedback and "other inputs differ" not in res.feedback, res.feedback


def test_a_length_relation_needs_the_entries_to_agree():
    """Twice as many entries, none of them the reference's (a list that keeps other hypotheses):
    no "every second entry" claim."""
    res = _vector_verdict(_vector_question(affine), lambda x: np.concatenate([np.cos(x) * 7, np.sin(x) * 5]))
    assert res.diagnosis != "shape" and "twice as many" not in res.feedback, res.feedback


def test_a_single_number_where_a_vector_is_expected():
    res = _vector_verdict(_vector_question(affine), lambda x: float(affine(x).sum()))
    assert res.diagnosis == "reduced_axis" and "single number" in res.feedback, res.feedback


def test_a_transposed_causal_mask_is_named():
    question, assignment = bare("ps3_rope", "rope_attention")

    def triu(q, k, v, positions, base=10000.0):
        qr, kr = _rope(q.double(), positions, base), _rope(k.double(), positions, base)
        scores = qr @ kr.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu()  # triu for tril
        scores = scores.masked_fill(~allowed, float("-inf"))
        return (torch.softmax(scores, -1) @ v.double()).to(q.dtype)

    res = verdict(question, assignment, triu)
    assert res.diagnosis == "mask_transposed", res.feedback


def test_a_rotation_that_changes_lengths_or_angles():
    question, assignment = bare("ps3_rope", "apply_rope")

    def cos_only(x, positions, base=10000.0, convention="interleaved"):  # the rotated part forgotten
        ang = _rope_angles(x, positions, base)
        ang = ang.repeat_interleave(2, -1) if convention == "interleaved" else torch.cat([ang, ang], -1)
        return x * ang.cos().to(x.dtype)

    def double_angle(x, positions, base=10000.0, convention="interleaved"):  # turns twice as far
        return _rope(x, 2 * torch.as_tensor(positions), base, convention)

    lengths = verdict(question, assignment, cos_only)
    assert lengths.diagnosis == "lengths" and "changes the lengths" in lengths.feedback, lengths.feedback
    angles = verdict(question, assignment, double_angle)
    assert angles.diagnosis == "lengths" and "other angles" in angles.feedback, angles.feedback


def test_a_crash_of_one_kind_on_some_inputs_names_them():
    question, assignment = bare("ps3_rope", "rope_attention")

    def three_axes(q, k, v, positions, base=10000.0):
        qr, kr = _rope(q.double(), positions, base), _rope(k.double(), positions, base)
        scores = qr @ kr.transpose(-3, -1) / math.sqrt(q.shape[-1])  # -3 for -2
        return torch.softmax(scores, -1) @ v.double()

    res = verdict(question, assignment, three_axes)
    assert res.status == "error" and res.diagnosis == "crash_trigger", res.feedback
    assert "only when `q` has 2 axes" in res.feedback, res.feedback


def _torch_vector_question(reference):
    return dataclasses.replace(_vector_question(reference), args_as="torch")


def test_more_exception_kinds():
    def cumulative(x):
        return torch.cumsum(x, dim=0)

    call = _vector_verdict(_torch_vector_question(cumulative), lambda x: torch.cumsum(x))  # dim forgotten
    assert call.status == "error" and call.diagnosis == "crash_call", call.feedback

    def pairs(x):
        return x.reshape(-1, 2).sum(-1)

    reshape = _vector_verdict(_torch_vector_question(pairs), lambda x: x.reshape(3, 2).sum(-1))  # a fixed size
    assert reshape.status == "error" and reshape.diagnosis in ("crash_reshape", "crash_trigger"), reshape.feedback
    assert "reshape" in reshape.feedback, reshape.feedback

    def clamped(x):
        return x.clamp(min=0.0)

    def on_a_number(x):
        total = 0
        for value in x.tolist():
            total += value
        return total.clamp(min=0.0) + 0 * x  # a Python float, not a tensor

    number = _vector_verdict(_torch_vector_question(clamped), on_a_number)
    assert number.status == "error" and number.diagnosis == "crash_number", number.feedback


def test_values_raised_to_a_constant_power():
    """ALiBi slopes with the 8 of 2^(−8h/n) forgotten: the same geometric shape, a wrong scale."""
    from solutions.positional import alibi_slopes

    question, assignment = bare("ps4_alibi", "alibi_slopes")
    res = verdict(question, assignment, lambda n: alibi_slopes(n) ** (1 / 8))
    assert res.diagnosis == "power" and "raised to" in res.feedback, res.feedback


def test_a_sequence_that_stops_too_late_or_too_early():
    def until_end(tokens):  # up to and including the end token 0
        tokens = [int(t) for t in tokens]
        return tokens[: tokens.index(0) + 1]

    def probes(rng):
        return [
            Probe((np.array([3, 5, 0, 4, 2]),), "end token in the middle"),
            Probe((np.array([7, 1, 2, 0, 6, 6, 1]),), "end token later"),
        ]

    question = Question(grade_id="vec", answer="vec", points=1, reference=until_end, probes=probes, args_as="numpy")
    late = _vector_verdict(question, lambda tokens: [int(t) for t in tokens])  # the end token ignored
    assert late.diagnosis == "stops" and "goes on" in late.feedback, late.feedback
    early = _vector_verdict(question, lambda tokens: until_end(tokens)[:-1])  # stops before the end token
    assert early.diagnosis == "stops" and "too early" in early.feedback, early.feedback


def beam_dropping_finished(model, prompt, beam_width, max_new_tokens, eos_id):
    """Beam search that forgets the hypotheses that ended with eos: it returns the best of the
    unfinished beams only."""
    beams, n = [(0.0, [int(t) for t in prompt])], len(prompt)
    for _ in range(int(max_new_tokens)):
        candidates = []
        for total, tokens in beams:
            log_p = torch.log_softmax(torch.as_tensor(model(tokens), dtype=torch.float32)[-1], -1).tolist()
            candidates += [(total + lp, tokens + [token]) for token, lp in enumerate(log_p)]
        candidates.sort(key=lambda c: -c[0])
        beams = [c for c in candidates if c[1][-1] != eos_id or eos_id in c[1][n:-1]][: int(beam_width)]
        if not beams:
            break
    return max(beams, key=lambda c: c[0])[1] if beams else [int(t) for t in prompt]


def test_beam_search_dropping_finished_hypotheses_is_not_told_a_length_story():
    question, assignment = bare("ps6_build", "beam_search")
    res = verdict(question, assignment, beam_dropping_finished)
    assert res.status == "failed", res.feedback
    assert "twice as many" not in res.feedback and "half as many" not in res.feedback, res.feedback
    assert res.diagnosis == "wrong_when" and "except when `eos_id` is given" in res.feedback, res.feedback


def test_formula_terms_never_name_the_agreeing_terms_when_they_are_the_whole_answer():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("score_entries_formula")  # the answer is one term
    res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": "T**2*h - T"}]))
    # issue 36: "1 of your terms is not part of it" left one term to drop: the concept instead
    assert "count the score matrices" in res.feedback and "not part of" not in res.feedback, res.feedback
    assert "agree" not in res.feedback and "T²" not in res.feedback, res.feedback


def test_a_one_term_answer_is_never_written_by_its_diagnosis():
    assignment = load_assignment("ps1_attention")
    question = assignment.question("score_entries_formula")
    for wrong, unsaid in (("-T**2*h", "wrong sign"), ("2*T**2*h", "too large")):  # issue 36: no direction
        res = judge(question, question.probes_for(STUDENT, assignment), Outcome("returned", [{"value": wrong}]))
        assert unsaid not in res.feedback and "T²" not in res.feedback and "T**2" not in res.feedback, res.feedback
        assert "count the score matrices" in res.feedback, res.feedback


def test_one_number_off_the_wire_is_not_told_it_has_an_extra_axis():
    from autograder.judging.diagnosis.locations import find_shape

    class _Case:
        def __init__(self, got, expected):
            self.got, self.expected = got, expected

    class _Ctx:
        cases = [_Case(np.array([1.5]), np.array(2.0))]  # a wrong 0-d answer, as the sandbox sends it

    assert find_shape(_Ctx()) is None
