"""PS7 (document 001's toy tasks) against the document and the reference code: the notebook's
parser table reproduces every id 001 prints, its linearisation is ``solutions.tasks.parser``'s,
the documents' errors (logits read as probabilities, the per-sequence loss, the shifted digits
of the Additional Tests) are known-wrong answers that the questions reject with feedback naming
them, and the length experiment comes out as the notebook says on the reference recipe."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from autograder.spec import as_args, load_assignment, problem_set_module, student_rng, to_plain
from solutions.tasks import addition
from solutions.tasks import parser as reference_parser

PS7 = load_assignment("ps7_tasks")
MODULES = problem_set_module(PS7)
bpe, loss, parser_tokens, length = MODULES.bpe, MODULES.loss, MODULES.parser_tokens, MODULES.length


def misconception(grade_id: str, name: str):
    return next(m for m in PS7.question(grade_id).misconceptions if m.name == name)


def rejected(grade_id: str, wrong) -> bool:
    """Some hidden probe of some student tells `wrong` from the reference."""
    q = PS7.question(grade_id)
    if not q.call:
        return not q.compare.matches(to_plain(wrong()), q.expected(q.probes_for("s", PS7)[0]))
    for student in ("s1", "s2", "s3"):
        for probe in q.probes(student_rng(student, PS7.name, grade_id)):
            got = to_plain(wrong(*as_args(probe.args, q.args_as), **probe.kwargs))
            if not q.compare.matches(got, q.expected(probe)):
                return True
    return False


# ------------------------------------------------------------------ part 1: BPE


def test_five_merges_split_playing_as_document_001_does():
    merges = bpe.learn_bpe(bpe.PLAY_CORPUS, 5)
    assert bpe.bpe_tokenize("playing", merges) == ["play", "ing"]
    # the corpus has a three-way tie at the third merge: the stated tuple rule decides it
    counts = bpe.pair_counts({" ".join(w): f for w, f in bpe.PLAY_CORPUS.items()})
    assert counts["p l"] == counts["l a"] == counts["a y"]


@pytest.mark.parametrize("name", ["tie_first_seen", "tie_last", "no_recount", "frequency_ignored", "text_replace"])
def test_bpe_merge_mistakes_are_rejected(name):
    assert rejected("bpe_merges", misconception("bpe_merges", name).wrong)


def test_merging_by_text_replacement_glues_a_longer_symbols_tail():
    """An independent student merged with str.replace on the spaced word and got full marks: on
    {"abc", "ab", "bc"} the merge (b, c) turns "ab c" into "abc". Every student's probes hold it."""
    corpus = {"abc": 1, "ab": 5, "bc": 3}
    assert bpe.learn_bpe(corpus, 3) != bpe.learn_by_text_replace(corpus, 3)
    for student in ("s1", "s2", "s3"):
        probes = PS7.question("bpe_merges").probes(student_rng(student, PS7.name, "bpe_merges"))
        assert any(p.args == (corpus, 3) for p in probes)


# ------------------------------------------------------------------ part 2: the loss


def test_token_loss_is_torch_cross_entropy_over_the_shifted_unpadded_targets():
    g = torch.Generator().manual_seed(0)
    logits, tgt = torch.randn(3, 5, 7, generator=g), torch.randint(1, 7, (3, 6), generator=g)
    tgt[1, 4:] = 0
    expected = torch.nn.functional.cross_entropy(logits.reshape(-1, 7), tgt[:, 1:].reshape(-1), ignore_index=0)
    assert torch.allclose(loss.token_loss(logits, tgt, 0).float(), expected, atol=1e-6)


def test_document_001s_worked_loss_is_its_own_slip():
    """001 prints −1/2·(log 0.9 + log 0.8 + log 0.9 + log 0.8 + log 0.7 + log 0.8): logits read
    as probabilities, divided by the number of sequences. The question's known-wrong answer is
    that formula, and it is far from the cross-entropy of those logits."""
    printed = -0.5 * sum(math.log(p) for p in (0.9, 0.8, 0.9, 0.8, 0.7, 0.8))
    assert loss.example_as_document() == pytest.approx(printed)
    assert abs(printed - loss.copy_example_loss()) > 0.4
    for name in ("document_recipe", "logits_as_probabilities", "per_sequence"):
        m = misconception("copy_example_loss", name)
        assert rejected("copy_example_loss", m.wrong)
    assert "document 001" in misconception("copy_example_loss", "document_recipe").feedback


@pytest.mark.parametrize(
    "name",
    [
        "logits_as_probabilities",
        "per_sequence",
        "no_shift",
        "padding_counted",
        "padding_in_denominator",
        "pad_zero_as_none",
    ],
)
def test_token_loss_mistakes_are_rejected(name):
    assert rejected("token_loss", misconception("token_loss", name).wrong)


def test_a_falsy_pad_id_is_named_not_diagnosed_as_a_shape():
    """`if pad_id:` reads pad_id = 0 as no padding: every student has a hidden probe with pad_id = 0,
    and the feedback names the falsy id."""
    q = PS7.question("token_loss")
    for student in ("s1", "s2", "s3"):
        assert any(len(p.args) == 3 and p.args[2] == 0 for p in q.probes(student_rng(student, PS7.name, q.grade_id)))
    assert "pad_id = 0" in misconception("token_loss", "pad_zero_as_none").feedback


def test_a_falsy_pad_id_returned_as_a_0d_tensor_gets_the_named_feedback():
    """What the independent student `wrong_loss_pad_zero_ignored` returns: a 0-d tensor, which the
    sandbox's wire delivers as shape (1,)."""
    from autograder.judging.outcome import Outcome
    from autograder.judging.verdict import judge

    q = PS7.question("token_loss")
    probes = q.probes_for("s1", PS7)
    wrong = misconception("token_loss", "pad_zero_as_none").wrong
    wired = [{"value": np.reshape(to_plain(wrong(*as_args(p.args, q.args_as), **p.kwargs)), (1,))} for p in probes]
    assert judge(q, probes, Outcome("returned", wired)).misconception == "pad_zero_as_none"


# ------------------------------------------------------------------ part 3: the parser


def test_the_notebook_table_reproduces_show_parser_examples():
    printed = {  # document 001, show_parser_examples(): expression → (expression tokens, tree tokens)
        "y=7/7": ([12, 1, 21, 5, 21], [6, 12, 10, 21, 21]),
        "x=4/3": ([11, 1, 18, 5, 17], [6, 11, 10, 18, 17]),
        "x=1*4": ([11, 1, 15, 4, 18], [6, 11, 9, 15, 18]),
    }
    for expr, (source, target) in printed.items():
        assert parser_tokens.parser_token_ids(expr) == {"source": source, "target": target}
    assert len(parser_tokens.TOKENS) == 25  # "vocab_size: 25"


def test_explain_parser_data_uses_another_digit_table():
    """001's explain_parser_data: "x = 4 + 9" → [11, 1, 17, 2, 22] and tree [6, 11, 7, 17, 22]."""
    assert parser_tokens.ids_explain_table("x=4+9") == {"source": [11, 1, 17, 2, 22], "target": [6, 11, 7, 17, 22]}
    assert rejected("parser_token_ids", parser_tokens.ids_explain_table)


def test_printed_tree_is_the_documents_additional_tests():
    printed = {  # document 001, test_parser(): "=== Additional Tests ==="
        "x=1+2": ["ASSIGN", "x", "ADD", "2", "3"],
        "y=3*4": ["ASSIGN", "y", "MUL", "4", "5"],
        "z=5-1": ["ASSIGN", "z", "SUB", "6", "2"],
        "x=2/3": ["ASSIGN", "x", "DIV", "3", "4"],
    }
    for expr, tree in printed.items():
        assert parser_tokens.printed_tree(expr) == tree
    for name in ("wrong_direction", "no_bug", "every_token_shifted"):
        assert rejected("printed_tree", misconception("printed_tree", name).wrong)


def test_linearise_is_the_reference_parsers():
    exprs = reference_parser.all_expressions(0) + reference_parser.all_expressions(1)
    exprs += reference_parser.all_expressions(2)[::37]
    for expr in exprs:
        tree = reference_parser.parse_to_tree(expr)
        assert parser_tokens.linearise(expr) == reference_parser.linearise(tree), expr
    assert parser_tokens.LINEARISE_SOURCE.compile()("x=1+2*3") == parser_tokens.linearise("x=1+2*3")


def test_the_bug_values_follow_from_the_printed_ids():
    assert PS7.question("digit_offset").reference() == 17 - 18
    assert PS7.question("digit_zero_collides").reference() == "z"


# ------------------------------------------------------------------ part 4: length


def test_document_001s_addition_table_reads_four_digits_at_most():
    """The source is digits(a) + [PLUS] + digits(b): 2n + 1 tokens (the reference task's 3-digit
    source has 7); 001's max_position_embeddings = 10 holds n = 4, not n = 5."""
    source, _ = addition.encode(torch.tensor([123]), torch.tensor([456]))
    assert source.shape[1] == 2 * addition.DIGITS + 1
    n = length.max_operand_digits(10)
    assert 2 * n + 1 <= 10 < 2 * (n + 1) + 1


def test_no_room_for_one_digit_is_zero_digits_not_minus_one():
    """The text: "0 when not even one digit each fits". (m − 1) // 2 unfloored gives −1 at m = 0,
    which every student's probes hold."""
    assert length.max_operand_digits(0) == 0
    assert rejected("max_operand_digits", misconception("max_operand_digits", "negative_digits").wrong)


def test_a_float32_bias_for_a_float64_table_fails():
    """The text asks for the bias in `table`'s dtype: a float64 table is among every student's probes,
    and a float32 result (torch.full without dtype=) fails there although its values are close."""
    q = PS7.question("relative_bias")
    wrong = misconception("relative_bias", "default_dtype").wrong
    for student in ("s1", "s2", "s3"):
        probes = [p for p in q.probes(student_rng(student, PS7.name, q.grade_id)) if p.args[0].dtype == np.float64]
        assert probes
        for probe in probes:
            got = to_plain(wrong(*as_args(probe.args, q.args_as)))
            assert q.compare.matches(got, q.expected(probe)) and not q.compare(got, q.expected(probe)).ok


def test_relative_bias_is_the_clipped_offset_table():
    table = torch.randn(2, 4, dtype=torch.float64)
    got = length.relative_bias(table, 7)
    for i in range(7):
        for j in range(7):
            want = table[:, min(i - j, 3)] if j <= i else torch.full((2,), -math.inf, dtype=torch.float64)
            assert torch.equal(got[:, i, j], want)


def _notebook_namespace():
    cells = json.loads((PS7.source_dir / PS7.notebook).read_text())["cells"]
    ns: dict = {}
    for cell in cells:
        if cell["id"] in ("imports", "bias_impl", "shift_model", "shift_impl"):
            exec("".join(cell["source"]), ns)
    return ns


def test_the_reference_recipe_generalises_and_the_learned_table_cannot():
    ns = _notebook_namespace()
    q = PS7.question("shift_generalises")
    (probe,) = q.probes(student_rng("s1", PS7.name, q.grade_id))
    got = to_plain(ns["shift_task"](*probe.args))
    assert q.compare(got, q.expected(probe)).ok
    torch.manual_seed(0)
    learned = ns["ShiftModel"]("learned")
    with pytest.raises(IndexError):
        learned(torch.as_tensor(np.zeros((1, ns["SHIFT_LONG_LEN"]), dtype=np.int64)))


def test_reference_sources_compute_the_reference():
    """Root cause binds these sources in the sandbox: each must be the question's reference."""
    sourced = [q for q in PS7.questions if q.reference_source is not None]
    assert {q.grade_id for q in sourced} == {"bpe_pair_counts", "parser_linearise", "relative_bias"}
    for q in sourced:
        fn = q.reference_source.compile()
        for probe in [*q.probes(student_rng("s1", PS7.name, q.grade_id)), *q.visible]:
            got = to_plain(fn(*as_args(probe.args, q.args_as), **probe.kwargs))
            assert q.compare.matches(got, q.expected(probe)), (q.grade_id, probe.label)


def test_a_real_learned_table_model_lands_in_the_absolute_positions_class():
    """A learned table with rows for all 32 positions, trained at length 8: right at length 8,
    wrong beyond — the symptom class the simulated `absolute_positions` flaw is in."""
    ns = _notebook_namespace()
    q = PS7.question("shift_generalises")
    (probe,) = q.probes(student_rng("s2", PS7.name, q.grade_id))

    def train_learned(seed, max_steps):
        torch.manual_seed(seed)
        model = ns["ShiftModel"]("learned", max_len=ns["SHIFT_LONG_LEN"])
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
        for _ in range(max_steps):
            tokens = torch.randint(0, ns["SHIFT_VOCAB"], (64, ns["SHIFT_TRAIN_LEN"]))
            logits = model(tokens)[:, 1:]
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, :-1].reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        return model

    ns["train_shift"] = train_learned
    got, truth = to_plain(ns["shift_task"](*probe.args)), q.expected(probe)
    assert not q.compare(got, truth).ok
    flaw = misconception("shift_generalises", "absolute_positions").wrong(*as_args(probe.args, q.args_as))
    assert q.compare.symptom(got, truth) == q.compare.symptom(to_plain(flaw), truth) is not None


def test_token_ids_returned_as_arrays_are_judged_not_crashed_on():
    """A student's dict of tensors comes back as a dict of arrays: compared as lists."""
    q = PS7.question("parser_token_ids")
    expected = q.expected(q.visible[0])
    as_arrays = {k: np.asarray(v) for k, v in expected.items()}
    assert q.compare(as_arrays, expected).ok
    assert not q.compare({**as_arrays, "target": as_arrays["target"][::-1]}, expected).ok


def test_document_001s_addition_padding_mask_has_nothing_to_hide():
    """001 zero-pads every operand (7 → [0, 0, 7]); its sources all have one length and no PAD:
    the "required" padding mask hides nothing, and each wrong choice is rejected."""
    source, _ = addition.encode(torch.tensor([7]), torch.tensor([25]))
    assert source.tolist() == [[0, 0, 7, addition.PLUS, 0, 2, 5]]
    assert PS7.question("addition_padding").reference() == "none"
    for m in PS7.question("addition_padding").misconceptions:
        assert rejected("addition_padding", m.wrong) and "none" not in m.feedback.lower()


def test_document_001s_other_worked_losses_are_its_printed_values_when_misread():
    """001's AdditionLoss example ("0.803 / batch_size", one sequence shown for batch_size = 2) and
    the parser's ("(1.16 + 1.042) / 2 = 1.101") are what the printed recipe gives — probabilities
    for logits, divided by the stated batch size — and the question rejects exactly that reading."""
    printed = MODULES.loss_examples.as_printed()
    assert round(printed[0] * 2, 3) == 0.803 and round(printed[1], 3) == 1.101
    truth = PS7.question("example_losses_001").reference()
    assert all(math.isfinite(v) and v > 0 for v in truth)
    for m in PS7.question("example_losses_001").misconceptions:
        assert not PS7.question("example_losses_001").compare(m.wrong(), truth).ok, m.name


def test_every_arm_of_the_length_experiment_lands_in_its_stated_outcome():
    """shift_outcomes' answer is measured, not assumed: the notebook's ShiftModel with each of the
    five schemes, trained by the reference train_shift on one seed (the sweep in issue 35's note
    covers seeds 0-49), lands in the outcome the question states, with a margin."""
    from assignments.ps7_tasks.length_schemes import BOTH, NEITHER, SHORT_ONLY

    ns = _notebook_namespace()
    torch.set_num_threads(1)
    tokens = {
        t: torch.randint(0, ns["SHIFT_VOCAB"], (200, t), generator=torch.Generator().manual_seed(t)) for t in (8, 32)
    }

    def right(model, t):
        try:
            with torch.no_grad():
                return (model(tokens[t]).argmax(-1)[:, 1:] == tokens[t][:, :-1]).all(-1).float().mean().item()
        except IndexError:  # the learned table has no row for position 8
            return 0.0

    for scheme, outcome in PS7.question("shift_outcomes").reference().items():
        model = ns["train_shift"](3, ns["SHIFT_STEPS"], scheme)
        at_8, at_32 = right(model, 8), right(model, 32)
        assert (at_8 >= 0.97) == (outcome in (BOTH, SHORT_ONLY)) and (at_8 <= 0.1) == (outcome == NEITHER), (
            scheme,
            at_8,
        )
        assert (at_32 >= 0.97) == (outcome == BOTH) and (outcome == BOTH or at_32 <= 0.6), (scheme, at_32)
