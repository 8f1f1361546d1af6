"""Visible checks carry information before submission: the reference passes every one of
them; a formula with an unknown symbol, a value of the wrong type or shape and an unimplemented
function fail them — in process, under `autograder validate` and under `nbgrader validate`."""

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.judging.compare import formula_grammar
from autograder.judging.compare.symbolic import FormulaError, parse_formula
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.releasing.stages import ReleaseContext, check_formula_symbols
from autograder.releasing.visible_checks import check_rejects, reference_rejected, visible_check_source
from autograder.spec import list_assignments, load_assignment

VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def ps1():
    return load_assignment("ps1")


@pytest.mark.parametrize("name", list_assignments())
def test_the_reference_passes_every_visible_check(name):
    assignment = load_assignment(name)
    for q in assignment.questions:
        if q.call and not q.visible:
            continue  # PS6's and PS7's training questions: graded by training, no worked example
        assert not reference_rejected(assignment, q), q.grade_id


@pytest.mark.parametrize("name", list_assignments())
def test_every_function_question_has_a_worked_example(name):
    exempt = {"train_copy", "train_addition", "shift_generalises"}  # graded by training
    assert [
        q.grade_id for q in load_assignment(name).questions if q.call and not q.visible and q.grade_id not in exempt
    ] == []


def _check(ps1, grade_id):
    q = ps1.question(grade_id)
    return q, visible_check_source(q, ps1)


def test_checks_reject_an_unknown_symbol_a_wrong_type_or_shape_and_a_stub(ps1):
    q, source = _check(ps1, "mha_params_formula")
    assert not check_rejects(source, q, "4*d**2 + 4*d + 0*h", ps1)
    assert check_rejects(source, q, "4*x**2", ps1)
    assert check_rejects(source, q, "4d**2", ps1)
    q, source = _check(ps1, "shapes")
    assert check_rejects(source, q, [1, 2, 3], ps1)
    good = q.expected(q.probes_for("selftest-a", ps1)[0])
    assert not check_rejects(source, q, good, ps1)
    assert check_rejects(source, q, {**good, "logits": [1, 2]}, ps1)
    q, source = _check(ps1, "param_counts")
    counts = q.expected(q.probes_for("selftest-a", ps1)[0])
    assert check_rejects(source, q, {**counts, "mha": counts["mha"] * 1000}, ps1)  # order of magnitude
    assert check_rejects(source, q, {**counts, "mha": counts["mha"] + 0.5}, ps1)  # not a whole number
    q, source = _check(ps1, "scores_002")
    assert check_rejects(source, q, q.expected(q.probes_for("a", ps1)[0]).T, ps1)  # document 002 prints it
    q, source = _check(ps1, "sdpa")

    def stub(q, k, v, mask=None):
        raise NotImplementedError()

    assert check_rejects(source, q, stub, ps1)


def test_the_shipped_grammar_refuses_what_the_grader_refuses():
    symbols = ("d", "h", "d_ff")
    for text in [
        "4*d**2 + 4*d",
        "2*d*d_ff + d_ff + d",
        "d*h/h",
        "4 d",
        "x + d",
        "d.real",
        "sqrt(d)",
        "exp(d, h)",
        "__import__('os')",
        "d if h else d",
        "(d",
        "",
        "d ^ 2",
        "d // h",
        "[d]",
        "'d'",
    ]:
        try:
            formula_grammar.check_formula(text, symbols)
            shipped = None
        except formula_grammar.FormulaSyntaxError as exc:
            shipped = str(exc)
        try:
            parse_formula(text, symbols)
            grader = None
        except FormulaError as exc:
            grader = str(exc)
        assert shipped == grader, text


def test_h_which_cancels_is_accepted_where_the_notebook_offers_it(ps1):
    q = ps1.question("encoder_layer_formula")
    expected = q.expected(q.probes_for("a", ps1)[0])
    assert q.compare("4*d**2 + 4*d + 2*d*d_ff + d_ff + d + 4*d*h/h", expected).ok


def test_a_formula_symbol_mismatch_fails_the_release(ps1, tmp_path):
    from dataclasses import replace

    from autograder.judging.compare.comparators import Formula

    q = ps1.question("ffn_params_formula")
    narrowed = replace(ps1, questions=[replace(q, compare=Formula(("d", "d_ff")))])
    ctx = ReleaseContext(narrowed, tmp_path, notebook=ps1.source_dir / ps1.notebook)
    with pytest.raises(RuntimeError, match="ffn_params_formula: the text offers"):
        check_formula_symbols(ctx)
    check_formula_symbols(ReleaseContext(ps1, tmp_path, notebook=ps1.source_dir / ps1.notebook))


@pytest.fixture(scope="module")
def faulty_notebook(ps1, tmp_path_factory):
    """The solution with three faults: a formula in an unknown symbol, shapes of the wrong type,
    and scaled_dot_product_attention left as the release's stub."""
    formulas = solution_sources(ps1)["formulas_answer"].replace('"4*d**2 + 4*d"', '"4*x**2 + 4*d"', 1)
    assert '"4*x**2 + 4*d"' in formulas
    stub = "def scaled_dot_product_attention(q, k, v, mask=None):\n    raise NotImplementedError()\n"
    nb = make_notebook(
        ps1, {"formulas_answer": formulas, "shapes_answer": "shapes = [[1, 2], [3]]\n", "sdpa_impl": stub}
    )
    return write_submission(tmp_path_factory.mktemp("faulty"), "me", ps1, nb)


FAULTS = ("mha_params_formula", "shapes", "sdpa")


def test_autograder_validate_fails_on_each_fault(faulty_notebook):
    r = subprocess.run(
        [str(VENV_BIN / "autograder"), "validate", str(faulty_notebook)], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 1, r.stdout + r.stderr
    failed = [line.split()[1].rstrip(":") for line in r.stdout.splitlines() if line.strip().startswith("FAILED")]
    for grade_id in FAULTS:
        assert grade_id in failed, r.stdout
    assert "unknown symbol 'x'" in r.stdout and "not implemented yet" in r.stdout
    assert "ok      mha_params_no_bias_formula" in r.stdout  # the other checks still pass


def test_nbgrader_validate_fails_on_each_fault(faulty_notebook):
    r = subprocess.run(
        [str(VENV_BIN / "nbgrader"), "validate", str(faulty_notebook)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=faulty_notebook.parent,
    )
    out = r.stdout + r.stderr
    assert "VALIDATION FAILED" in out, out[-3000:]
    assert "unknown symbol 'x'" in out
    assert "shapes should be a dict" in out
    assert "`scaled_dot_product_attention` is not implemented yet" in out
