"""Document 000's positional-encoding errors, handed in as a student would, are caught and named:
the RoPE matrices with θ_2 = 10 (the exponent's lost minus sign) in PS3, the ALiBi slope as a
free constant 0.4 in PS4, and the sign-flipped sinusoidal formula in PS2."""
import pytest

from autograder.grade import grade_cohort
from autograder.samples import make_notebook, solution_sources, write_submission
from autograder.spec import load_assignment

# Document 000, Q4.4, verbatim (two decimals; all three are labelled m = 0 there).
ROPE_000 = '''
R_worked = torch.tensor([
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    [[0.54, -0.84, 0, 0], [0.84, 0.54, 0, 0], [0, 0, -0.83, 0.54], [0, 0, -0.54, -0.83]],
    [[-0.41, -0.9, 0, 0], [0.9, -0.41, 0, 0], [0, 0, 0.4, -0.91], [0, 0, 0.91, 0.4]],
])
'''

PS3_CASES = {
    # student -> (answer cell, source replacing it, graded question, misconception, words in the feedback)
    "rope_matrices_000": ("worked_answer", ROPE_000, "worked_example", "exponent_sign",
                          ("θ_i must shrink with i", "the exponent is −2(i−1)/d", "cos 10 ≈ −0.84")),
    "rope_thetas_000": ("thetas_impl", "def rope_thetas(d, base):\n"
                        "    i = torch.arange(1, d // 2 + 1, dtype=torch.float64)\n"
                        "    return base ** (2 * (i - 1) / d)\n",
                        "rope_thetas", "exponent_sign", ("the exponent is −2(i−1)/d",)),
}


def _grade(name, cases, tmp_path):
    assignment = load_assignment(name)
    for student, (cell, source, *_rest) in cases.items():
        write_submission(tmp_path / "in", student, assignment, make_notebook(assignment, {cell: source}))
    return grade_cohort(assignment, tmp_path / "in", tmp_path / "out", progress=False)["students"]


def _assert_named(graded, cases, student):
    _, _, question, misconception, words = cases[student]
    res = graded[student]["questions"][question]
    assert res["status"] == "failed" and res["score"] == 0, res
    assert res["misconception"] == misconception, res
    for w in words:
        assert w in res["feedback"], (w, res["feedback"])
    others = [gid for gid, q in graded[student]["questions"].items() if gid != question and q["status"] != "passed"]
    assert not others, f"only the seeded error should cost points, also failed: {others}"


@pytest.fixture(scope="module")
def ps3_graded(tmp_path_factory):
    return _grade("ps3_rope", PS3_CASES, tmp_path_factory.mktemp("seed3"))


@pytest.mark.parametrize("student", list(PS3_CASES))
def test_ps3_rope_exponent_sign_is_named(ps3_graded, student):
    _assert_named(ps3_graded, PS3_CASES, student)


def test_the_solution_cells_used_above_exist():
    for name, cases in (("ps3_rope", PS3_CASES),):
        sources = solution_sources(load_assignment(name))
        assert {cell for cell, *_ in cases.values()} <= set(sources)
