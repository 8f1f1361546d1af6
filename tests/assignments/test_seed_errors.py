"""Every error in document 000's answers (and the others') is caught and named in the feedback."""

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.spec import load_assignment

COUNTS_WITH = """
_d, _ff = PARAMS["d_model"], PARAMS["d_ff_factor"] * PARAMS["d_model"]
_ln = 2 * _d
_ffn = 2 * _d * _ff + _ff + _d
_mha = 4 * {w} * {w} + 4 * {w}
_enc = _mha + _ffn + 2 * _ln
_dec = {dec}
param_counts = {{"mha": _mha, "ffn": _ffn, "encoder_layer": _enc, "decoder_layer": _dec,
                "total": PARAMS["vocab"] * _d + PARAMS["n_enc_layers"] * _enc + {n_dec} * _dec}}
"""

PS1_SEED_ERRORS = {
    # 000: the grand total written as "encoder + encoder"
    "encoder_plus_encoder": (
        "counts_answer",
        "param_counts",
        COUNTS_WITH.format(w="_d", dec="_enc", n_dec='PARAMS["n_enc_layers"]'),
        "encoder + encoder",
    ),
    # 000: the attention term computed with 768 in a 1024-wide model
    "mixed_widths": (
        "counts_answer",
        "param_counts",
        COUNTS_WITH.format(
            w="(768 if _d != 768 else 1024)", dec="2 * _mha + _ffn + 3 * _ln", n_dec='PARAMS["n_dec_layers"]'
        ),
        "mixes 768 and 1024",
    ),
    # 000: the FFN narrows to d/2
    "ffn_narrows": ("shapes_answer", "shapes", 'shapes["ffn_hidden"] = (B, S, d // 2)', "does not narrow"),
    # 000: "softmax attention is sparse"
    "softmax_is_sparse": ("dense_answer", "attention_sparsity", 'attention_sparsity = "A"', "strictly positive"),
    # the parameter count without the 4d biases
    "biases_missing": ("formulas_answer", "mha_params_formula", 'mha_params_formula = "4*d**2"', "bias vector too"),
    # 003: the context vector from rounded weights
    "document_003_rounding": (
        "by_hand_answers",
        "context_shiny",
        "context_shiny = torch.tensor([0.3992, 0.3858, 0.8610])",
        "rounds the weights",
    ),
    # 002's formula without the scaling where the scaled form is asked
    "missing_scale_by_hand": ("by_hand_answers", "output_002_scaled", "output_002_scaled = output_002", "√d_k"),
}


def _grade(name, cases, tmp_path):
    assignment = load_assignment(name)
    solution = solution_sources(assignment)
    for student, (cell, _, extra, _) in cases.items():
        nb = make_notebook(assignment, {cell: solution[cell] + "\n" + extra})
        write_submission(tmp_path / "in", student, assignment, nb)
    return grade_cohort(assignment, tmp_path / "in", tmp_path / "out", progress=False)["students"]


@pytest.fixture(scope="module")
def ps1_graded(tmp_path_factory):
    return _grade("ps1_attention", PS1_SEED_ERRORS, tmp_path_factory.mktemp("seed1"))


@pytest.mark.parametrize("student", list(PS1_SEED_ERRORS))
def test_ps1_seed_error_is_named(ps1_graded, student):
    _, question, _, words = PS1_SEED_ERRORS[student]
    res = ps1_graded[student]["questions"][question]
    assert res["status"] == "failed" and res["score"] == 0
    assert res["misconception"] == student and words in res["feedback"], res
    others = [q for gid, q in ps1_graded[student]["questions"].items() if gid != question]
    assert all(q["status"] in ("passed", "pending") for q in others), "only the seeded error should cost points"


def test_ps5_invariance_claim_is_named(tmp_path):
    cases = {"invariance_claim": ("permuted_output_answer", "permuted_output", 'permuted_output = "A"', "")}
    res = _grade("ps5_equivariance", cases, tmp_path)["invariance_claim"]["questions"]["permuted_output"]
    assert res["misconception"] == "invariance_claim"
    assert "equivariance, not invariance" in res["feedback"]
