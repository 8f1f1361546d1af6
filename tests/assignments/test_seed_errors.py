"""The errors in the seed documents' answers (document 000's in every problem set, and a few of
the others'), handed in as a student would, are caught and named in the feedback.

Each case replaces one answer cell of the solution notebook. It must fail exactly the question
where the mistake is made, with the misconception named and its words in the feedback; the
questions that reuse the student's function either pass pointing at the first failure (the
root-cause policy, README) or may fail too, named as that same mistake.
"""

from dataclasses import dataclass
from functools import cache

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.spec import load_assignment


@cache
def _solution(assignment: str, cell: str) -> str:
    return solution_sources(load_assignment(assignment))[cell]


@dataclass(frozen=True)
class Seeded:
    """One seeded error: `source` replaces answer cell `cell` of `assignment`'s solution."""

    assignment: str
    cell: str
    source: str
    questions: tuple[str, ...]  # where the error costs the points
    misconception: str
    words: tuple[str, ...]  # each must appear in those questions' feedback
    may_also_fail: frozenset[str] = frozenset()  # questions using the student's function
    inherits: tuple[str, ...] = ()  # questions that pass, pointing at the first failure


def appended(assignment: str, cell: str, extra: str) -> str:
    """The solution cell with `extra` appended: the wrong value overrides the right one."""
    return _solution(assignment, cell) + "\n" + extra


def replaced(assignment: str, cell: str, old: str, new: str) -> str:
    """The solution cell with one fragment changed (the fragment must be there)."""
    source = _solution(assignment, cell)
    assert old in source, (assignment, cell, old)
    return source.replace(old, new)


# ------------------------------------------------------------------ PS1: attention

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


PS1_ERRORS = {
    # student (also the misconception's name) -> (answer cell, graded question, appended source, words)
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
    "softmax_is_sparse": (
        "dense_answer",
        "attention_sparsity",
        "attention_sparsity = [0.0, 4.0, 5 / 9]",
        "strictly positive",
    ),
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
PS1 = {
    student: Seeded("ps1_attention", cell, appended("ps1_attention", cell, extra), (question,), student, (words,))
    for student, (cell, question, extra, words) in PS1_ERRORS.items()
}

# ------------------------------------------------------------------ PS2: sinusoidal encodings

# the similarity question uses the student's sinusoidal_pe: the error may cost it too
PS2 = {
    # 000 loses the exponent's minus sign (its RoPE angles 100^(2(i−1)/d)); as a sinusoid:
    "sign_000": Seeded(
        "ps2_positional",
        "pe_impl",
        replaced("ps2_positional", "pe_impl", "** (-torch.arange", "** (torch.arange"),
        ("sinusoidal_pe",),
        "exponent_sign",
        ("document 000", "base^(−2i/d)"),
        may_also_fail=frozenset({"similarity"}),
    ),
    # 000's cosine formula, verbatim: cos(k / (n^{2i} / d))
    "cos_formula_000": Seeded(
        "ps2_positional",
        "pe_impl",
        replaced(
            "ps2_positional",
            "pe_impl",
            "pe[:, 1::2] = torch.cos(pos * omega)",
            "pe[:, 1::2] = torch.cos(pos / (float(base) ** torch.arange(0, d, 2, dtype=torch.float64) / d))",
        ),
        ("sinusoidal_pe",),
        "cos_typo_000",
        ("document 000", "n^{2i}/d"),
        may_also_fail=frozenset({"similarity"}),
    ),
}

# ------------------------------------------------------------------ PS3: RoPE

# Document 000, Q4.4, verbatim (two decimals; all three are labelled m = 0 there): θ_2 = 10.
ROPE_000 = """
R_worked = torch.tensor([
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    [[0.54, -0.84, 0, 0], [0.84, 0.54, 0, 0], [0, 0, -0.83, 0.54], [0, 0, -0.54, -0.83]],
    [[-0.41, -0.9, 0, 0], [0.9, -0.41, 0, 0], [0, 0, 0.4, -0.91], [0, 0, 0.91, 0.4]],
])
"""

PS3 = {
    "rope_matrices_000": Seeded(
        "ps3_rope",
        "worked_answer",
        ROPE_000,
        ("worked_example",),
        "exponent_sign",
        ("θ_i must shrink with i", "the exponent is −2(i−1)/d", "cos 10 ≈ −0.84"),
    ),
    "rope_thetas_000": Seeded(
        "ps3_rope",
        "thetas_impl",
        "def rope_thetas(d, base):\n"
        "    i = torch.arange(1, d // 2 + 1, dtype=torch.float64)\n"
        "    return base ** (2 * (i - 1) / d)\n",
        ("rope_thetas",),
        "exponent_sign",
        ("the exponent is −2(i−1)/d",),
    ),
}

# ------------------------------------------------------------------ PS4: ALiBi

# Document 000, Q4.5: the slope is "a predefined constant, e.g. 0.4", the same for every head.
# The student's later answers call their own alibi_slopes, so the bias and the attention inherit it:
# the root-cause policy (README) costs the points once, where the mistake is made.
SLOPES_000 = """def alibi_slopes(n_heads):
    return torch.full((n_heads,), 0.4, dtype=torch.float64)
"""
BIAS_000 = """def alibi_causal_bias(n_heads, t):
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    bias = 0.4 * (j - i).to(torch.float64).expand(n_heads, t, t)
    return bias.masked_fill(j > i, float("-inf"))
"""
FREE_CONSTANT_WORDS = ("not a free constant like 0.4", "document 000", "geometric sequence", "2^(−8/n)")

PS4 = {
    "alibi_slopes_000": Seeded(
        "ps4_alibi",
        "slopes_impl",
        SLOPES_000,
        ("alibi_slopes",),
        "free_constant",
        FREE_CONSTANT_WORDS,
        inherits=("alibi_causal_bias", "alibi_attention"),
    ),
    "alibi_bias_000": Seeded(
        "ps4_alibi",
        "bias_impl",
        BIAS_000,
        ("alibi_causal_bias",),
        "free_constant",
        FREE_CONSTANT_WORDS,
        inherits=("alibi_attention",),
    ),
}

# ------------------------------------------------------------------ PS5: equivariance

PS5 = {
    "invariance_claim": Seeded(
        "ps5_equivariance",
        "permuted_output_answer",
        appended("ps5_equivariance", "permuted_output_answer", 'permuted_output = "A"'),
        ("permuted_output",),
        "invariance_claim",
        ("equivariance, not invariance",),
    ),
}

CASES = {**PS1, **PS2, **PS3, **PS4, **PS5}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """assignment -> its cohort of seeded students, graded once (on first use)."""
    cohorts = {}

    def students(assignment_name: str) -> dict:
        if assignment_name not in cohorts:
            assignment = load_assignment(assignment_name)
            tmp = tmp_path_factory.mktemp(assignment_name)
            for student, case in CASES.items():
                if case.assignment == assignment_name:
                    nb = make_notebook(assignment, {case.cell: case.source})
                    write_submission(tmp / "in", student, assignment, nb)
            submissions = collect_folder(tmp / "in", assignment)
            cohorts[assignment_name] = grade_cohort(assignment, submissions, tmp / "out", progress=False)["students"]
        return cohorts[assignment_name]

    return students


@pytest.mark.parametrize("student", list(CASES))
def test_seed_error_is_named(graded, student):
    case = CASES[student]
    questions = graded(case.assignment)[student]["questions"]
    for question in case.questions:
        res = questions[question]
        assert res["status"] == "failed" and res["score"] == 0, (question, res)
        assert res["misconception"] == case.misconception, (question, res)
        for w in case.words:
            assert w in res["feedback"], (question, w, res["feedback"])
        assert "Traceback" not in res["feedback"], res["feedback"]
    others = {
        gid: q for gid, q in questions.items() if gid not in case.questions and q["status"] not in ("passed", "pending")
    }
    assert set(others) <= case.may_also_fail, f"only the seeded error should cost points, also failed: {others}"
    for q in others.values():  # named as itself or as coming from the question that failed
        assert q["misconception"] and q["misconception"].endswith(case.misconception), q
    for gid in case.inherits:  # inherited, not repeated: passed, pointing at the cause
        res = questions[gid]
        assert res["status"] == "passed" and res["root_cause"] and "first" in res["feedback"], (gid, res)


def test_the_solution_cells_used_above_exist():
    for case in CASES.values():
        assert case.cell in solution_sources(load_assignment(case.assignment)), case
