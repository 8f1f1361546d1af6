"""PS2's content (issue 25, 27): the collected answers agree with the references and with
document 000's/001's own numbers, each document error is rejected with feedback that names it,
the notebook quotes what its questions need, and t5_bias is probed at other bucket counts."""

import json
import math

import numpy as np
import pytest
import sympy
import torch

from autograder.spec import load_assignment, problem_set_module
from solutions.encodings import sinusoidal_similarity, sinusoidal_wavelengths
from solutions.positional import sinusoidal_encoding

ASSIGNMENT = load_assignment("ps2")
PS2 = problem_set_module(ASSIGNMENT)


def rejected(grade_id, name):
    """The misconception ``name`` of ``grade_id``: the compare rejects it and it is recognised."""
    q = ASSIGNMENT.question(grade_id)
    mis = next(m for m in q.misconceptions if m.name == name)
    wrong = mis.wrong()
    answer = str(wrong) if isinstance(wrong, sympy.Basic) else wrong  # a student hands in a formula as text
    assert not q.compare(answer, q.reference()).ok
    assert q.compare(answer, wrong).ok
    return mis.feedback


def test_typo_entries_follow_000s_formulas():
    """The right table is 000's printed one; the literal typo cos(k / (n^{2i}/d)) changes
    exactly the cosine entries of k = 1, 2 — one of them only beyond the printed digits."""
    printed = torch.tensor([[0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, -0.42, 0.20, 0.98]], dtype=torch.float64)
    right = sinusoidal_encoding(3, 4, 100.0, dtype=torch.float64)
    assert torch.allclose(right, printed, atol=0.005 + 1e-9)
    k = torch.arange(3, dtype=torch.float64)
    typo = right.clone()
    for i in range(2):
        typo[:, 2 * i + 1] = torch.cos(k / (100.0 ** (2 * i) / 4))
    changed = [[int(a), int(b)] for a, b in torch.nonzero((typo - right).abs() > 1e-12).tolist()]
    assert PS2.table_readings.typo_entries() == changed == [[1, 1], [1, 3], [2, 1], [2, 3]]
    assert "0.995" in rejected("typo_entries", "printed_digits_only")
    for name in ("position_zero", "sine_columns", "pair_zero_unchanged"):
        rejected("typo_entries", name)


def test_cos_one_tenth_gap_is_what_000_rounds_away():
    """000 prints cos(1/10) as 1.0: the entry is 1 at two decimals, not at four; the gap is read in
    float64, a float32 answer passes, and 000's printout, its typo and degrees are each named
    (also in float32, where the small gaps are whole steps of 2^−24)."""
    gap = PS2.table_readings.cos_one_tenth_gap()
    assert math.isclose(gap, 1 - math.cos(0.1), rel_tol=1e-12)
    assert round(1 - gap, 2) == 1.0 and round(1 - gap, 4) < 1.0
    q = ASSIGNMENT.question("cos_one_tenth_gap")
    assert q.compare(float(1 - torch.cos(torch.tensor(0.1, dtype=torch.float32))), gap).ok
    assert not q.compare(0.005, gap).ok  # 3 significant digits are not enough
    for name in ("document_000_rounded", "cosine_typo", "degrees", "entry_not_gap"):
        rejected("cos_one_tenth_gap", name)
    names = {m.name: m for m in q.misconceptions}
    for name, value in (
        ("cosine_typo", 1 - float(torch.cos(torch.tensor(1 / 2500)))),
        ("degrees", 1 - float(torch.cos(torch.tensor(math.radians(0.1))))),
    ):
        assert any(q.compare.matches(value, w) for w in [names[name].wrong(), *names[name].also_wrong()]), name


def test_wavelength_range_bounds_every_d():
    low, high = PS2.table_readings.wavelength_range()
    for d in (4, 16, 128, 1024):
        lam = sinusoidal_wavelengths(d)
        assert math.isclose(float(lam.min()), low) and float(lam.max()) < high
    assert float(sinusoidal_wavelengths(4096).max()) > 0.99 * high
    assert "document 001" in rejected("wavelength_range", "factor_not_period")
    assert "document 000" in rejected("wavelength_range", "exponent_sign")


def test_similarity_formula_is_the_dot_product():
    expr = PS2.similarity.similarity_formula()
    sym = {s.name: s for s in expr.free_symbols}
    assert set(sym) == {"Delta"}  # no p: it depends on the distance only
    for p in (0, 7, 100):
        dist = [0, 1, 5, 33]
        ref = sinusoidal_similarity(p, dist, 4, 100.0)
        got = [float(expr.subs(sym["Delta"], x)) for x in dist]
        assert np.allclose(ref.numpy(), got)
    for name in ("exponent_sign", "i_not_2i", "cosines_only", "normalised"):
        rejected("similarity_formula", name)


def test_first_rise_is_where_the_plotted_curve_turns_up():
    s = sinusoidal_similarity(0, torch.arange(0, 300), 64).numpy()
    rise = PS2.similarity.first_rise()
    assert s[rise] > s[rise - 1] and all(np.diff(s[:rise]) < 0)
    for name in ("monotone", "last_fall", "other_base"):
        rejected("first_rise", name)


def test_t5_bias_uses_the_tables_bucket_count():
    """A bias that leaves t5_bucket at its default 32 buckets passes a 32-row table but not the
    hidden 16- and 64-row ones (issue 27)."""
    q = ASSIGNMENT.question("t5_bias")
    probes = q.probes(np.random.default_rng(0))
    rows = {int(np.shape(p.args[0])[0]) for p in probes}
    assert {16, 64, 32} <= rows
    wrong = PS2.t5_buckets.bias_variant(default_buckets=True)
    for p in probes:
        rows = np.shape(p.args[0])[0]
        if rows < 32:  # buckets past the table: IndexError, as a student's t5_bias would raise
            with pytest.raises(IndexError):
                wrong(*p.args)
        else:
            same = q.compare(np.asarray(wrong(*p.args)), np.asarray(q.reference(*p.args))).ok
            assert same == (rows == 32), p.label
    big = next(p for p in probes if np.shape(p.args[0])[0] == 64)
    assert "table.shape[0]" in rejected_function(q, "default_buckets", big.args)


def rejected_function(q, name, args):
    mis = next(m for m in q.misconceptions if m.name == name)
    assert not q.compare(np.asarray(mis.wrong(*args)), np.asarray(q.reference(*args))).ok
    return mis.feedback


@pytest.fixture(scope="module")
def notebook_text():
    nb = json.loads((ASSIGNMENT.source_dir / "ps2_positional.ipynb").read_text())
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in nb["cells"]}


def test_notebook_quotes_000_and_credits_chen_right(notebook_text):
    assert r"\cos\left(\frac{k}{n^{2i}/d}\right)" in notebook_text["typo_text"]
    assert "| 2 | sin(2/1) = 0.91 | cos(2/1) = −0.42" in notebook_text["typo_text"]
    interp = notebook_text["interp_text"]
    assert "RoPE's position indices" in interp and "Durch lineare Interpolation" in interp
    assert not any("solutions/" in text for text in notebook_text.values() if "BEGIN SOLUTION" not in text)


# ---- end to end: an honest notebook in another style, and 000's-style bias mistake (issue 27)
ALT_STYLE = {
    "typo_answer": """
_k = torch.arange(3.0)[:, None]
_good, _typo = sinusoidal_pe(3, 4, 100.0).double(), sinusoidal_pe(3, 4, 100.0).double()
_typo[:, 1::2] = torch.cos(_k / (100.0 ** torch.arange(0.0, 4, 2) / 4))
typo_entries = [tuple(e) for e in torch.nonzero((_typo - _good).abs() > 1e-9).tolist()]
""",
    "wavelength_range_answer": "wavelength_range = torch.tensor([2 * np.pi, 2e4 * np.pi])",
    "similarity_formula_answer": """
similarity_formula = ("sin(p)*sin(p+Delta) + cos(p)*cos(p+Delta)"
                      " + sin(p/10)*sin((p+Delta)/10) + cos(p/10)*cos((p+Delta)/10)")
_sim = np.asarray(pe_similarity(0, torch.arange(300), 64), dtype=float)
first_rise = np.argmax(np.diff(_sim) > 0) + 1
""",
}
BIAS_DEFAULT_BUCKETS = {
    "bias_impl": """
def t5_bias(table, t_q, t_k, bidirectional=True):
    table = torch.as_tensor(table)
    rel = torch.arange(t_k)[None, :] - torch.arange(t_q)[:, None]
    return table[t5_bucket(rel, bidirectional)].permute(2, 0, 1)
"""
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, write_submission

    tmp = tmp_path_factory.mktemp("ps2_content")
    for student, cells in (("alt_style", ALT_STYLE), ("bias_default_buckets", BIAS_DEFAULT_BUCKETS)):
        write_submission(tmp / "in", student, ASSIGNMENT, make_notebook(ASSIGNMENT, cells))
    found = collect_folder(tmp / "in", ASSIGNMENT)
    return grade_cohort(ASSIGNMENT, found, tmp / "out", workers=2, progress=False)["students"]


def test_honest_answers_in_another_style_get_full_marks(graded):
    res = graded["alt_style"]
    assert res["score"] == res["max_score"], {g: q for g, q in res["questions"].items() if q["status"] != "passed"}


def test_bias_with_t5_buckets_default_count_loses_exactly_t5_bias(graded):
    res = graded["bias_default_buckets"]
    failed = {g: q for g, q in res["questions"].items() if q["status"] not in ("passed", "pending")}
    assert set(failed) == {"t5_bias"}, failed
    assert failed["t5_bias"]["misconception"] == "default_buckets", failed["t5_bias"]
    assert "table.shape[0]" in failed["t5_bias"]["feedback"]
