"""PS3's content (issue 25): document 000's worked example judged from its printed numbers,
RoPE's geometry (000 Q4.3 against 004's claim), cached rotated keys reproduce the scores of
full recomputation, the cache's size, the d = 2 score identity — each document error rejected
with feedback that names it — and the notebook's corrected LLaMA layout."""

import json

import numpy as np
import pytest
import sympy
import torch

from autograder.spec import load_assignment, problem_set_module
from solutions.encodings import rope_score_from_offset
from solutions.positional import apply_rope, rope_frequencies, rope_matrix

ASSIGNMENT = load_assignment("ps3")
PS3 = problem_set_module(ASSIGNMENT)


def rejected(grade_id, name, *args):
    """Misconception ``name`` of ``grade_id`` is rejected (values: as a student hands it in)."""
    q = ASSIGNMENT.question(grade_id)
    mis = next(m for m in q.misconceptions if m.name == name)
    wrong, right = mis.wrong(*args), q.reference(*args)
    if isinstance(wrong, sympy.Basic):
        wrong = str(wrong)
    elif isinstance(wrong, torch.Tensor):
        wrong, right = wrong.numpy(), np.asarray(right)
    assert not q.compare(wrong, right).ok
    return mis.feedback


def test_worked_example_errors_from_000s_printed_numbers():
    """000's matrices are R_m with θ_2 = 10 (the lost sign) to rounding, and some entries are
    rounded wrong even for those angles (cos 2 = −0.416 printed −0.41)."""
    printed = PS3.worked_errors.PRINTED_000
    own = torch.stack([rope_matrix(m, 4, 1 / 100.0) for m in range(3)])  # base 1/100: θ_2 = 10
    assert torch.allclose(printed, own, atol=0.011)
    right = torch.stack([rope_matrix(m, 4, 100.0) for m in range(3)])
    assert not torch.allclose(printed, right, atol=0.1)
    assert float(printed[2, 0, 0]) == -0.41 and round(float(own[2, 0, 0]), 2) == -0.42
    assert PS3.worked_errors.true_letters() == ["A", "B", "F"]
    assert "document 000" in rejected("worked_errors", "sign_missed")
    for name in ("only_the_sign", "no_rounding_slips", "no_labels", "transposed", "identity_at_zero", "degrees"):
        rejected("worked_errors", name)


def test_rotation_keeps_lengths_and_turns_each_pair_by_m_theta():
    """000 Q4.3 is right (length kept, angle m·θ_i per pair); 004's "absolute value changes" is not."""
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal((5, 16)))
    for m in (1, 7, 300):
        y = apply_rope(x[:, None, :], torch.tensor([m]))[:, 0, :]
        assert torch.allclose(y.norm(dim=-1), x.norm(dim=-1))
        assert torch.allclose(y.reshape(5, 8, 2).norm(dim=-1), x.reshape(5, 8, 2).norm(dim=-1))
        angles = PS3.geometry.rotation_angles(x.numpy(), y.numpy())
        expected = torch.remainder(m * rope_frequencies(16) + torch.pi, 2 * torch.pi) - torch.pi
        assert torch.allclose(angles, expected.expand(5, 8), atol=1e-9)
    assert ASSIGNMENT.question("norm_claim").reference() == "B"
    assert "document 004" in rejected("norm_claim", "length_changes")


def test_cached_rotated_keys_reproduce_full_recomputation():
    """Keys rotated once when cached give the new query the same scores as rotating every key
    of the whole sequence again (000 Q4.2), also for an empty cache and batched heads."""
    rng = np.random.default_rng(2)
    for lead, m in (((), 6), ((2, 3), 4), ((3,), 0)):
        keys = torch.from_numpy(rng.standard_normal((*lead, m + 1, 8)))
        q = torch.from_numpy(rng.standard_normal((*lead, 8)))
        pos = torch.arange(m + 1)
        full = (apply_rope(keys, pos) @ apply_rope(q[..., None, :], pos[-1:]).transpose(-2, -1))[..., 0]
        cache = PS3.kv_cache.cache_of(keys[..., :m, :].numpy(), 10000.0)
        got = PS3.kv_cache.decode_scores(q.numpy(), keys[..., m, :].numpy(), cache)
        assert torch.allclose(got, full)
    args = (rng.standard_normal(8), rng.standard_normal(8), PS3.kv_cache.cache_of(rng.standard_normal((5, 8)), 100.0))
    for name in ("rotated_twice", "query_not_rotated", "new_key_not_rotated", "position_off_by_one"):
        rejected("decode_scores", name, *args)


def test_cache_bytes_formula_counts_a_real_cache():
    expr = ASSIGNMENT.question("kv_cache_bytes").reference()
    config = {"n_layers": 3, "n_heads": 4, "d_head": 8, "T": 5}
    cache = [(torch.zeros(config["n_heads"], config["T"], config["d_head"], dtype=torch.float16),) * 2] * 3
    counted = sum(t.numel() * t.element_size() for layer in cache for t in layer)
    values = {s: config.get(s.name, 2) for s in expr.free_symbols}  # b = 2 bytes (float16)
    assert int(expr.subs(values)) == counted
    for name in ("keys_only", "one_layer", "attention_matrix", "no_bytes"):
        rejected("kv_cache_bytes", name)


def test_score_formula_is_the_rotated_dot_product():
    expr = PS3.relative_scores.score_formula()
    sym = {s.name: s for s in expr.free_symbols}
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, k, (m, n) = rng.standard_normal(2), rng.standard_normal(2), rng.integers(0, 50, 2)
        ref = float(rope_score_from_offset(q, k, int(n - m), 1.0))
        vals = {"q1": q[0], "q2": q[1], "k1": k[0], "k2": k[1], "m": int(m), "n": int(n)}
        assert np.isclose(float(expr.subs({sym[s]: v for s, v in vals.items()})), ref)
    for name in ("angles_add", "offset_sign", "no_rotation", "no_sine_term"):
        rejected("score_formula", name)


def test_fastest_pair_and_000s_sign():
    assert ASSIGNMENT.question("fastest_pair").reference() == "first"
    assert "document 000" in rejected("fastest_pair", "exponent_sign")


@pytest.fixture(scope="module")
def notebook_text():
    nb = json.loads((ASSIGNMENT.source_dir / "ps3_rope.ipynb").read_text())
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in nb["cells"]}


def test_notebook_quotes_000_and_places_llama_right(notebook_text):
    intro = notebook_text["intro"]
    assert "GPT-NeoX, LLaMA" not in intro and "Meta's own LLaMA code" in intro
    worked = notebook_text["worked_text"]
    assert r"\theta_i = 100^{\frac{2(i-1)}{d}}" in worked and worked.count(r"R_{\Theta,0}^{d}") == 3
    assert "Show on paper" not in notebook_text["offset_text"]


# ---- end to end: an honest notebook in another style, and document 000's own reading
ALT_STYLE = {
    "fastest_answer": 'fastest_pair = " First "',
    "worked_errors_answer": 'worked_errors = ("A", "B", "F")',
    "geometry_impl": """
def rotation_angles(x, y):
    x, y = torch.as_tensor(x).double(), torch.as_tensor(y).double()
    before = torch.atan2(x[..., 1::2], x[..., 0::2])
    after = torch.atan2(y[..., 1::2], y[..., 0::2])
    turned = torch.remainder(after - before, 2 * math.pi)
    return torch.where(turned > math.pi, turned - 2 * math.pi, turned)
""",
    "norm_answer": 'norm_claim = "(b)"',
    "score_formula_answer": (
        'score_formula = "(q1*cos(m) - q2*sin(m))*(k1*cos(n) - k2*sin(n))'
        ' + (q1*sin(m) + q2*cos(m))*(k1*sin(n) + k2*cos(n))"'
    ),
    "kv_impl": """
def decode_scores(q, k, k_cache, base=10000.0):
    m = k_cache.shape[-2]
    d = q.shape[-1]
    R = rope_matrix(m, d, base).to(torch.float64)
    q_m = torch.as_tensor(q).double() @ R.T
    k_m = torch.as_tensor(k).double() @ R.T
    keys = torch.cat([torch.as_tensor(k_cache).double(), k_m.unsqueeze(-2)], dim=-2)
    return torch.einsum("...d,...td->...t", q_m, keys)
""",
    "kv_bytes_answer": 'kv_cache_bytes = "b * T * d_head * n_heads * n_layers * 2"',
}
READS_000 = {"worked_errors_answer": 'worked_errors = ["B", "F"]', "norm_answer": 'norm_claim = "A"'}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, write_submission

    tmp = tmp_path_factory.mktemp("ps3_content")
    for student, cells in (("alt_style", ALT_STYLE), ("reads_000_and_004", READS_000)):
        write_submission(tmp / "in", student, ASSIGNMENT, make_notebook(ASSIGNMENT, cells))
    found = collect_folder(tmp / "in", ASSIGNMENT)
    return grade_cohort(ASSIGNMENT, found, tmp / "out", workers=2, progress=False)["students"]


def test_honest_answers_in_another_style_get_full_marks(graded):
    res = graded["alt_style"]
    assert res["score"] == res["max_score"], {g: q for g, q in res["questions"].items() if q["status"] != "passed"}


def test_the_documents_errors_lose_exactly_their_questions_named(graded):
    res = graded["reads_000_and_004"]
    failed = {g: q for g, q in res["questions"].items() if q["status"] not in ("passed", "pending")}
    assert set(failed) == {"worked_errors", "norm_claim"}, failed
    assert failed["worked_errors"]["misconception"] == "sign_missed"
    assert "document 000" in failed["worked_errors"]["feedback"]
    assert failed["norm_claim"]["misconception"] == "length_changes"
    assert "document 004" in failed["norm_claim"]["feedback"]


def test_001s_complex_form_is_the_interleaved_rotation_and_its_single_theta_is_rejected():
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((2, 5, 8)).astype(np.float32))
    positions = torch.tensor([0, 7, 3, 150, 1])
    q = ASSIGNMENT.question("apply_rope_complex")
    assert torch.allclose(q.reference(x, positions, 100.0), apply_rope(x, positions, 100.0, "interleaved"), atol=1e-5)
    single = next(m for m in q.misconceptions if m.name == "single_theta")
    assert "001" in single.feedback and "one θ" in single.feedback
    rejected("apply_rope_complex", "single_theta", x, positions, 100.0)


def test_interpolated_positions_stay_in_the_trained_range_and_001s_table_rows_are_rejected():
    """Chen et al.'s RoPE interpolation: past L_train token m sits at m·L_train/T < L_train, not
    rounded (001's ⌊αi⌋ is for a table); a sequence that fits is read at 0 … T−1."""
    from solutions.positional import interpolated_positions

    assert torch.equal(interpolated_positions(5, 8), torch.arange(5, dtype=torch.float64))
    squeezed = interpolated_positions(12, 8)
    assert squeezed.max() < 8 and len(set(squeezed.tolist())) == 12 and squeezed[3] == 2.0
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((12, 8)).astype(np.float32))
    q = ASSIGNMENT.question("rope_interpolated")
    assert torch.allclose(q.reference(x, 8, 100.0), apply_rope(x, squeezed, 100.0, "interleaved"), atol=1e-6)
    rejected("rope_interpolated", "table_rows", x, 8, 100.0)
