"""Document 000's positional-encoding errors, handed in as a student would, are caught and named:
the RoPE matrices with θ_2 = 10 (the exponent's lost minus sign) in PS3, the ALiBi slope as a
free constant 0.4 in PS4, and the sign-flipped sinusoidal formula in PS2."""

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.spec import load_assignment

# Document 000, Q4.4, verbatim (two decimals; all three are labelled m = 0 there).
ROPE_000 = """
R_worked = torch.tensor([
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    [[0.54, -0.84, 0, 0], [0.84, 0.54, 0, 0], [0, 0, -0.83, 0.54], [0, 0, -0.54, -0.83]],
    [[-0.41, -0.9, 0, 0], [0.9, -0.41, 0, 0], [0, 0, 0.4, -0.91], [0, 0, 0.91, 0.4]],
])
"""

PS3_CASES = {
    # student -> (answer cell, source replacing it, graded question, misconception, words in the feedback)
    "rope_matrices_000": (
        "worked_answer",
        ROPE_000,
        "worked_example",
        "exponent_sign",
        ("θ_i must shrink with i", "the exponent is −2(i−1)/d", "cos 10 ≈ −0.84"),
    ),
    "rope_thetas_000": (
        "thetas_impl",
        "def rope_thetas(d, base):\n"
        "    i = torch.arange(1, d // 2 + 1, dtype=torch.float64)\n"
        "    return base ** (2 * (i - 1) / d)\n",
        "rope_thetas",
        "exponent_sign",
        ("the exponent is −2(i−1)/d",),
    ),
}


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

PS4_CASES = {
    "alibi_slopes_000": (
        "slopes_impl",
        SLOPES_000,
        ("alibi_slopes",),
        "free_constant",
        FREE_CONSTANT_WORDS,
    ),
    "alibi_bias_000": (
        "bias_impl",
        BIAS_000,
        ("alibi_causal_bias",),
        "free_constant",
        FREE_CONSTANT_WORDS,
    ),
}


def _grade(name, cases, tmp_path):
    assignment = load_assignment(name)
    for student, (cell, source, *_rest) in cases.items():
        write_submission(tmp_path / "in", student, assignment, make_notebook(assignment, {cell: source}))
    return grade_cohort(assignment, tmp_path / "in", tmp_path / "out", progress=False)["students"]


def _assert_named(graded, cases, student):
    _, _, questions, misconception, words = cases[student]
    questions = (questions,) if isinstance(questions, str) else questions
    for question in questions:
        res = graded[student]["questions"][question]
        assert res["status"] == "failed" and res["score"] == 0, (question, res)
        assert res["misconception"] == misconception, (question, res)
        for w in words:
            assert w in res["feedback"], (question, w, res["feedback"])
    others = [
        gid
        for gid, q in graded[student]["questions"].items()
        if gid not in questions and q["status"] not in ("passed", "pending")
    ]
    assert not others, f"only the seeded error should cost points, also failed: {others}"


@pytest.fixture(scope="module")
def ps3_graded(tmp_path_factory):
    return _grade("ps3_rope", PS3_CASES, tmp_path_factory.mktemp("seed3"))


@pytest.mark.parametrize("student", list(PS3_CASES))
def test_ps3_rope_exponent_sign_is_named(ps3_graded, student):
    _assert_named(ps3_graded, PS3_CASES, student)


@pytest.fixture(scope="module")
def ps4_graded(tmp_path_factory):
    return _grade("ps4_alibi", PS4_CASES, tmp_path_factory.mktemp("seed4"))


PS4_DEPENDENTS = {"alibi_slopes_000": ("alibi_causal_bias", "alibi_attention"), "alibi_bias_000": ("alibi_attention",)}


@pytest.mark.parametrize("student", list(PS4_CASES))
def test_ps4_alibi_free_constant_slope_is_named(ps4_graded, student):
    _assert_named(ps4_graded, PS4_CASES, student)
    for gid in PS4_DEPENDENTS[student]:  # inherited, not repeated: passed, pointing at the cause
        res = ps4_graded[student]["questions"][gid]
        assert res["status"] == "passed" and res["root_cause"] and "first" in res["feedback"], (gid, res)


def test_the_solution_cells_used_above_exist():
    for name, cases in (("ps3_rope", PS3_CASES), ("ps4_alibi", PS4_CASES)):
        sources = solution_sources(load_assignment(name))
        assert {cell for cell, *_ in cases.values()} <= set(sources)
