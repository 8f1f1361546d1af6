"""PS1's content against the documents it quotes (issue 25): each document error a PS1 question
assesses is rejected with feedback that names it, each value the notebook quotes from a
document is what the reference computes, and each new reference is checked by an independent
computation (PyTorch's own modules, Monte Carlo, matrix rank). In process: no sandbox."""

import math

import numpy as np
import pytest
import sympy
import torch

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment, problem_set_module

STUDENT = "content-test-student"


@pytest.fixture(scope="module")
def ps1():
    return load_assignment("ps1")


@pytest.fixture(scope="module")
def modules(ps1):
    package = problem_set_module(ps1)
    return {name: getattr(package, name) for name in ("document_000_counts", "scale_tester", "score_order")}


def verdict(assignment, grade_id, answer):
    """The verdict for a student whose answer is ``answer`` (a function, or a value's maker)."""
    question = assignment.question(grade_id)
    probes = question.probes_for(STUDENT, assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, answer))


def reference_of(assignment, grade_id):
    question = assignment.question(grade_id)
    return question.expected(question.probes_for(STUDENT, assignment)[0])


# ---- each document error: rejected, and its feedback names it


DOCUMENT_ERRORS = {
    # grade id -> (the document's answer, the misconception, words its feedback must contain)
    "context_shiny": (lambda: [0.3992, 0.3858, 0.8610], "document_003_rounding", "document 003 prints"),
    "attention_sparsity": (lambda: [0.0, 4.0, 5 / 9], "softmax_is_sparse", "document 000 calls it sparse"),
    "attention_params_formula": (lambda: "N**2*D**2", "attention_n2d2", "document 000's O(N²D²)"),
    "shared_projection": (lambda: "B", "weights_symmetric", "each row is normalised"),
}


@pytest.mark.parametrize("grade_id", DOCUMENT_ERRORS)
def test_document_error_is_rejected_and_named(ps1, grade_id):
    answer, misconception, words = DOCUMENT_ERRORS[grade_id]
    result = verdict(ps1, grade_id, answer)
    assert result.score == 0
    assert result.misconception == misconception
    assert words in result.feedback


def test_document_000_own_numbers_are_named(ps1, modules):
    m = modules["document_000_counts"]
    as_printed = verdict(ps1, "doc000_counts", m.doc000_as_printed)
    assert as_printed.misconception == "doc000_as_printed"
    for name, wrong, words in (
        ("doc000_attention_768", lambda: m.counts_with(attention=m.DOC000_ATTENTION), "768 in a 1024-wide"),
        ("doc000_ffn_narrows", lambda: m.counts_with(ffn=m.DOC000_FFN), "narrows to d/2"),
        (
            "doc000_encoder_plus_encoder",
            lambda: m.counts_with(decoder_as_encoder=True),
            "50439168 + 50439168",
        ),
    ):
        result = verdict(ps1, "doc000_counts", wrong)
        assert (result.score, result.misconception) == (0, name)
        assert words in result.feedback


def test_document_000_lines_as_the_notebook_quotes_them(modules):
    """The notebook quotes 000's lines verbatim; its sums are what 000 prints, and its last line
    adds the encoder stack to the decoder stack although it is labelled encoder + encoder."""
    m = modules["document_000_counts"]
    printed = m.doc000_printed_totals()
    assert (m.DOC000_ATTENTION, m.DOC000_FFN) == (787456 + 2361600, 524800 + 525312)
    assert (printed["encoder_layer"], printed["decoder_layer"]) == (4203264, 7354368)
    assert (printed["total_encoder"], printed["total_decoder"]) == (50439168, 58834944)
    assert printed["total_params"] == 109274112 == 50439168 + 58834944 != 50439168 + 50439168


def test_document_000_corrected_count_matches_pytorch(ps1):
    """An nn.Transformer of 000's size without its final norms, plus one shared 32000 × 1024
    table, has the parameters the corrected table states."""
    expected = reference_of(ps1, "doc000_counts")
    model = torch.nn.Transformer(1024, 4, 12, 8, 4096, batch_first=True, device="meta")
    final_norms = sum(p.numel() for n in (model.encoder.norm, model.decoder.norm) for p in n.parameters())
    counted = sum(p.numel() for p in model.parameters()) - final_norms + 32000 * 1024
    assert expected["total"] == counted
    assert expected["attention"] == sum(p.numel() for p in model.encoder.layers[0].self_attn.parameters())


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_pre_ln_extra_is_nn_transformer_minus_its_post_ln_count(ps1):
    """PyTorch's nn.Transformer has a LayerNorm after each stack; with norm_first it is Pre-LN.
    Its count minus the Post-LN count of param_counts is what pre_ln_extra states."""
    params = ps1.params_for(STUDENT)
    d = params["d_model"]
    model = torch.nn.Transformer(
        d,
        params["n_heads"],
        params["n_enc_layers"],
        params["n_dec_layers"],
        params["d_ff_factor"] * d,
        norm_first=True,
        batch_first=True,
        device="meta",
    )
    pre_ln_total = sum(p.numel() for p in model.parameters()) + params["vocab"] * d
    extra = reference_of(ps1, "pre_ln_extra")
    assert extra == pre_ln_total - reference_of(ps1, "param_counts")["total"]
    layer = sum(p.numel() for p in model.encoder.layers[0].parameters())
    assert layer == reference_of(ps1, "param_counts")["encoder_layer"]
    per_layer = verdict(ps1, "pre_ln_extra", lambda **p: extra + (p["n_enc_layers"] + p["n_dec_layers"]) * 2 * d)
    assert (per_layer.score, per_layer.misconception) == (0, "pre_ln_adds_norms")


# ---- why √d_k


def test_score_variance_is_d_k_on_seeded_samples(ps1):
    expected = sympy.sympify(reference_of(ps1, "score_variance_formula"))
    g = torch.Generator().manual_seed(0)
    for d_k in (4, 64, 256):
        q, k = torch.randn(20000, d_k, generator=g), torch.randn(20000, d_k, generator=g)
        measured = float((q * k).sum(-1).var())
        assert measured == pytest.approx(
            float(expected.subs({symbol: d_k for symbol in expected.free_symbols})), rel=0.05
        )
        assert float((q * k).sum(-1).div(math.sqrt(d_k)).var()) == pytest.approx(1.0, rel=0.05)


def test_saturation_against_document_002_printed_weights(ps1):
    """The notebook quotes 002's unscaled extremes (0.99418, 1.5562e-07); scaling softens both."""
    unscaled = verdict(ps1, "saturation_002", lambda: [0.99418, 1.5562e-07])
    assert (unscaled.score, unscaled.misconception) == (0, "saturation_unscaled")
    largest, smallest = reference_of(ps1, "saturation_002")
    assert largest < 0.99418 and smallest > 1000 * 1.5562e-07


def test_scale_divisor_002_is_pytorchs_scale_and_002s_display_formula_loses(ps1):
    """The reference divisor, at 002's sizes (d_k = 4, d_v = 5), gives what PyTorch's own scaled
    dot-product attention computes; 002's display formula read as written (√(d^k)) is rejected with
    its own feedback, the sentence's √d_k in another spelling passes."""
    from torch.nn.functional import scaled_dot_product_attention as torch_sdpa

    expected = sympy.sympify(reference_of(ps1, "scale_divisor_002"))
    sizes = {"d_k": 4, "d_v": 5, "d_model": 16, "d": 3, "k": 7}
    divisor = float(expected.subs({s: sizes[str(s)] for s in expected.free_symbols}))
    g = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g), torch.randn(3, 5, generator=g)
    ours = torch.softmax(q @ k.T / divisor, dim=-1) @ v
    torch.testing.assert_close(ours, torch_sdpa(q[None], k[None], v[None])[0])
    literal = verdict(ps1, "scale_divisor_002", lambda: "sqrt(d^k)")
    assert (literal.score, literal.misconception) == (0, "document_002_power")
    assert verdict(ps1, "scale_divisor_002", lambda: "d_k**(1/2)").status == "passed"


def test_scale_tester_reference_and_weak_testers(modules):
    m = modules["scale_tester"]
    subjects = {name: source.compile() for name, source in m.SUBJECTS.items()}
    right = {"scaled_right", "scaled_right_by_torch", "scaled_queries_first"}
    assert {name for name, f in subjects.items() if m.is_correctly_scaled(f)} == right
    for weak in (m.tester_key_width_one, m.tester_equal_sizes, m.tester_tiny_inputs, m.tester_exact_equality):
        assert any(weak(f) != (name in right) for name, f in subjects.items()), weak.__name__


def test_scale_tester_weak_tester_named(ps1, modules):
    result = verdict(ps1, "scale_tester", modules["scale_tester"].tester_key_width_one)
    assert (result.score, result.misconception) == (0, "tester_key_width_one")


# ---- 001's "QKᵀ can be replaced by KQᵀ"


def test_kq_weights_are_not_the_transposed_weights(ps1):
    kq = np.asarray(reference_of(ps1, "kq_weights_002"))
    qk = np.asarray(reference_of(ps1, "weights_002"))
    assert not np.allclose(kq, qk.T, atol=1e-3)
    assert np.allclose(kq.sum(-1), 1) and not np.allclose(qk.sum(0), 1)
    result = verdict(ps1, "kq_weights_002", lambda: qk.T)
    assert result.misconception == "kq_transposed_weights"


def test_shared_projection_options(modules):
    m = modules["score_order"]
    demo = m.shared_projection_demo()
    assert demo == {"scores_symmetric": True, "weights_symmetric": False, "diagonal_always_wins": False}
    g = torch.Generator().manual_seed(1)
    x, w = torch.randn(7, 5, generator=g), torch.randn(5, 3, generator=g)
    scores = (x @ w) @ (x @ w).T
    assert torch.allclose(scores, scores.T)
    assert m.SHARED_PROJECTION_ANSWER == "A"


def test_scores_rank_is_reached(ps1, modules):
    g = torch.Generator().manual_seed(2)
    measured = [
        int(
            torch.linalg.matrix_rank(
                torch.randn(t, dk, generator=g, dtype=torch.float64)
                @ torch.randn(dk, t, generator=g, dtype=torch.float64)
            )
        )
        for t, dk in modules["score_order"].RANK_SHAPES
    ]
    assert measured == reference_of(ps1, "scores_rank")


# ---- document 003's printed context vector


def test_shiny_products_off_from_003s_printed_sums(ps1):
    """003's printed products add up to its printed vector; the slips are where the reference says."""
    printed = np.array([[0.0779, 0.2156, 0.1057], [0.0504, 0.1382, 0.1972], [0.1237, 0.3983, 0.3390]])
    assert np.allclose(printed.sum(1), [0.3992, 0.3858, 0.8610])
    exact = np.asarray(reference_of(ps1, "context_shiny"), dtype=np.float64)
    assert not np.allclose(np.round(exact, 4)[:2], [0.3992, 0.3858])
    embeddings = np.array([[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]])
    weights = np.exp(embeddings @ embeddings[1]) / np.exp(embeddings @ embeddings[1]).sum()
    off = np.round((weights[:, None] * embeddings).T, 4) != printed
    assert reference_of(ps1, "shiny_products_off") == off.tolist()
    assert off.any() and not off.all()
    assert verdict(ps1, "shiny_products_off", lambda: [[True] * 3] * 3).misconception == "all_products_off"


def test_shapes_decoder_ffn_uses_the_target_length(ps1):
    shapes = reference_of(ps1, "shapes")
    params = ps1.params_for(STUDENT)
    assert shapes["decoder_ffn_hidden"][1] == params["tgt_len"] and shapes["ffn_hidden"][1] == params["src_len"]


def test_scale_tester_is_not_charged_for_a_wrong_sdpa(ps1, tmp_path):
    """The notebook lets the tester call the student's scaled_dot_product_attention: with that
    one unscaled, the tester (the solution's, which compares with it) is awarded by root cause."""
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission

    sdpa_source = solution_sources(ps1)["sdpa_impl"]
    assert "/ math.sqrt(d_k)" in sdpa_source
    cells = {"sdpa_impl": sdpa_source.replace("/ math.sqrt(d_k)", "")}
    write_submission(tmp_path / "in", "unscaled", ps1, make_notebook(ps1, cells))
    graded = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", progress=False)
    questions = graded["students"]["unscaled"]["questions"]
    assert questions["sdpa"]["misconception"] == "missing_scale"
    assert questions["scale_tester"]["status"] == "passed" and questions["scale_tester"]["root_cause"]
    failed = {gid for gid, q in questions.items() if q["status"] not in ("passed", "pending")}
    assert failed == {"sdpa"}


class _GemmaLikeLayer(torch.nn.Module):
    """A layer laid out as the notebook states Gemma-2's: grouped-query attention, GeGLU, four
    RMSNorm gains, no biases (small sizes: only its parameter count is used)."""

    def __init__(self, d, h, h_kv, d_h, d_ff):
        super().__init__()
        linear = lambda i, o: torch.nn.Linear(i, o, bias=False)  # noqa: E731
        self.q, self.k, self.v, self.o = (
            linear(d, h * d_h),
            linear(d, h_kv * d_h),
            linear(d, h_kv * d_h),
            linear(h * d_h, d),
        )
        self.gate, self.up, self.down = linear(d, d_ff), linear(d, d_ff), linear(d_ff, d)
        self.norms = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(d)) for _ in range(4)])


def test_gemma2_layer_count_is_a_torch_layers_and_001s_row_is_rejected(ps1):
    gemma2 = problem_set_module(ps1).gemma2_row
    for cfg in [(12, 4, 2, 5, 20), (16, 2, 1, 6, 40)]:  # d ≠ h·d_h, as in Gemma-2
        assert gemma2.layer_params(*cfg) == sum(p.numel() for p in _GemmaLikeLayer(*cfg).parameters())
    expected = gemma2.gemma2_001()
    assert expected["layers"] == [26, 46]  # 2b: 26, 9b: 42, 27b: 46 (Gemma 1: 18 and 28)
    question = ps1.question("gemma2_001")
    probes = question.probes_for(STUDENT, ps1)
    doc = next(m for m in question.misconceptions if m.name == "document_001_row")
    assert judge(question, probes, known_wrong_outcome(question, probes, doc.wrong)).misconception == doc.name
