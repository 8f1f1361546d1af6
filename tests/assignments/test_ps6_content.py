"""PS6's questions on the source documents' mistakes and on the contract issue 27 left open,
checked against the documents' own code run as printed and against ``solutions/``: 003's
``triu(ones) * -inf`` mask, 001's padding example and its mask of 1.0, −1e9 against −∞ on a fully
masked row, inverted dropout (expected row sums over many seeds), the KV cache (incremental
equals full recomputation), the tie rules of top-k and top-p, the zero budgets of decoding,
001's "Ich liebe dich" steps against nn.Transformer's own causal mask, and 001's "bank" (the
notebook's locked layer is the grader's; float32 noise far from the stated tolerance)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from assignments.ps6_build import bank_context, decoding, dropout, kv_cache, mask_bugs, sampling, translation_steps
from autograder.spec import as_args, load_assignment
from solutions.attention import AttentionConfig
from solutions.decoding import top_k_filter, top_p_filter
from solutions.layers import Attention

PS6 = load_assignment("ps6_build")


def misconception(grade_id, name):
    return next(m for m in PS6.question(grade_id).misconceptions if m.name == name)


def test_document_003_mask_is_nan_on_every_allowed_entry():
    mask = torch.triu(torch.ones(4, 4), diagonal=1) * float("-inf")  # document 003's line
    assert torch.equal(torch.isnan(mask), torch.ones(4, 4, dtype=torch.bool).tril())
    assert np.array_equal(mask_bugs.nan_entries_003(), np.tril(np.ones((4, 4), dtype=bool)))
    assert mask_bugs.nan_rows_003() == 4  # every row's diagonal is 0 · (−∞)


def test_document_001_padding_example_masks_nothing_in_the_sentence_it_shows():
    printed_mask = torch.tensor([[[1.0, 1, 1, 1]], [[1, 1, 1, 0]], [[1, 1, 1, 1]], [[1, 1, 1, 1]]])
    scores = torch.from_numpy(mask_bugs.SCORES_001)
    first = scores.masked_fill(printed_mask[0] == 0, float("-inf"))
    assert int(torch.isneginf(first).sum()) == mask_bugs.padding_001() == 0
    # the text's reading (three padded words) and the second sentence's mask are the named mistakes
    assert {misconception("padding_001", n).wrong() for n in ("text_three_pads", "second_sentence")} == {12, 4}


def test_document_001_mask_of_ones_leaves_the_weights_unchanged_and_matches_its_printout():
    scores = torch.from_numpy(mask_bugs.SCORES_001)
    ones_mask = torch.tril(torch.ones(4, 4))
    ones_mask = ones_mask.masked_fill(ones_mask == 0, float("-inf"))  # document 001's two lines
    zero_mask = torch.zeros(4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf"))
    weights = F.softmax(scores + ones_mask, dim=-1)
    assert torch.allclose(weights, F.softmax(scores + zero_mask, dim=-1), atol=1e-6)
    printed = torch.tensor([[1.0, 0, 0, 0], [0.45, 0.55, 0, 0], [0.25, 0.34, 0.41, 0], [0.22, 0.20, 0.32, 0.26]])
    assert torch.allclose(weights, printed, atol=0.006)
    assert PS6.question("mask_001_effect").reference() == "A"


def test_minus_1e9_gives_uniform_weights_and_minus_inf_nan_on_a_fully_masked_row():
    scores = torch.randn(2, 3, 5)
    allowed = torch.ones(2, 3, 5, dtype=torch.bool)
    allowed[1, 2] = False
    assert torch.allclose(mask_bugs.softmax_fill_minus_1e9(scores, allowed)[1, 2], torch.full((5,), 0.2))
    assert torch.isnan(mask_bugs.softmax_minus_inf_nan(scores, allowed)[1, 2]).all()
    right = mask_bugs.masked_softmax(scores, allowed)
    assert torch.equal(right[1, 2], torch.zeros(5))
    assert torch.allclose(right[0].sum(-1), torch.ones(3))
    assert torch.isnan(mask_bugs.softmax_times_minus_inf_003(scores, allowed)).all()  # 0 · (−∞) everywhere


def test_mask_bug_feedback_names_each_document():
    for grade_id, name, document in (
        ("masked_softmax", "fill_minus_1e9", "001"),
        ("masked_softmax", "times_minus_inf_003", "003"),
        ("attention_dropout", "no_rescale", "003"),
    ):
        assert f"Document {document}" in misconception(grade_id, name).feedback


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_inverted_dropout_keeps_expected_row_sums_and_the_documents_reading_does_not(p):
    weights = torch.softmax(torch.randn(4, 6), -1)
    sums = torch.stack([dropout.attention_dropout(weights, p, seed).sum(-1) for seed in range(1000)])
    assert abs(sums.mean().item() - 1.0) < 0.03
    unscaled = torch.stack([dropout.dropout_without_rescale(weights, p, seed).sum(-1) for seed in range(1000)])
    assert abs(unscaled.mean().item() - (1 - p)) < 0.03
    assert torch.equal(dropout.attention_dropout(weights, 0.0, 7), weights)


def test_cached_attention_equals_full_recomputation():
    mha = PS6.question("multi_head_attention").reference
    # a whole sequence fed token by token through the reference's cache equals one full pass
    torch.manual_seed(0)
    b, t, d, h = 2, 6, 8, 2
    x = torch.randn(b, t, d)
    attn = Attention(AttentionConfig(d, h))
    w = [p.detach() for p in attn.weights().values()]
    full = mha(x, x, *w, h, torch.ones(t, t, dtype=torch.bool).tril())
    past_k = past_v = torch.zeros(b, h, 0, d // h)
    outs = []
    for i in range(t):
        outs.append(kv_cache.attend_with_cache(x[:, i : i + 1], past_k, past_v, *w, h))
        new_k = kv_cache._split(F.linear(x[:, i : i + 1], w[2], w[3]), h)
        new_v = kv_cache._split(F.linear(x[:, i : i + 1], w[4], w[5]), h)
        past_k, past_v = torch.cat([past_k, new_k], 2), torch.cat([past_v, new_v], 2)
    assert torch.allclose(torch.cat(outs, 1), full, atol=1e-5)
    # and solutions' Attention, fed the same way with its own cache, agrees
    cache, steps = {}, []
    with torch.no_grad():
        for i in range(t):
            steps.append(attn(x[:, i : i + 1], cache=cache, fast=False))
    assert torch.allclose(torch.cat(steps, 1), full, atol=1e-5)
    # a chunk of three new tokens over a cache of three, as the probes send
    chunk = kv_cache.attend_with_cache(x[:, 3:], past_k[:, :, :3], past_v[:, :, :3], *w, h)
    assert torch.allclose(chunk, full[:, 3:], atol=1e-5)


def test_ties_are_kept_together_at_the_top_k_cut_and_the_top_p_boundary():
    logits = torch.tensor([2.0, 1.0, 1.0, 0.0, -1.0])
    assert torch.isfinite(top_k_filter(logits, 2)).sum() == 3
    probs = logits.softmax(-1)
    kept = torch.isfinite(top_p_filter(logits, float(probs[0] + probs[1] / 2)))
    assert kept.tolist() == [True, True, True, False, False]
    assert kept.tolist() == (sampling.next_token_probs(logits, 1.0, None, float(probs[0] + probs[1] / 2)) > 0).tolist()
    # the hidden tie probes separate the rule from the tie-splitting mistakes
    q = PS6.question("next_token_probs")
    ties = [p for p in q.probes_for("s2", PS6) if "tie" in p.label]
    assert len(ties) == 2
    for probe, wrong in zip(ties, (sampling.probs_top_k_splits_ties, sampling.probs_nucleus_splits_ties)):
        args = as_args(probe.args, q.args_as)
        assert not torch.allclose(q.reference(*args), wrong(*args), atol=1e-4)


def test_zero_budgets_and_no_eos_are_probed():
    q = PS6.question("greedy_decode")
    probes = [as_args(p.args, q.args_as) for p in q.probes_for("s3", PS6)]
    zero = [a for a in probes if a[2] == 0]
    assert zero and q.reference(*zero[0]) == [int(t) for t in zero[0][1]]
    assert decoding.greedy_appends_before_checking_budget(*zero[0]) != q.reference(*zero[0])
    assert any(a[3] is None for a in probes)
    beam = PS6.question("beam_search")
    budgets = [(p.args[2], p.args[3]) for p in beam.probes_for("s3", PS6)]  # (beam_width, max_new_tokens)
    assert any(n == 0 for _, n in budgets) and any(w == 1 for w, _ in budgets)


def test_decoder_self_mask_is_the_reference_transformers_and_torchs_tgt_masks():
    """001's "Padding-Maske + Causal-Maske": the question's reference is the mask the reference
    model builds for a padded target, and it gives what nn.TransformerDecoderLayer gives with
    tgt_mask (causal) and tgt_key_padding_mask on the rows of real tokens."""
    from assignments.ps6_build import masks
    from solutions.interop import copy_decoder_layer
    from solutions.layers import DecoderLayer
    from solutions.model import DecoderOnlyTransformer, TransformerConfig

    tokens = torch.tensor([[5, 3, 7, 2, 4], [6, 1, 0, 0, 0], [2, 0, 3, 0, 8]])  # pad_id 0
    cfg = TransformerConfig(vocab_size=9, d_model=16, n_heads=2, n_layers=1, d_ff=32, pad_id=0)
    model_mask = DecoderOnlyTransformer(cfg).target_self_mask(tokens)
    assert torch.equal(model_mask, masks.decoder_self_mask((tokens == 0).numpy()))
    assert model_mask.shape == (3, 1, 5, 5) and not model_mask[1, 0, 4, 2] and model_mask[1, 0, 4, 1]

    torch.manual_seed(0)
    theirs = torch.nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
    ours = DecoderLayer(cfg, cross=True)
    copy_decoder_layer(ours, theirs)
    x, memory = torch.randn(3, 5, 16), torch.randn(3, 4, 16)
    theirs.train()
    expected = theirs(x, memory, tgt_mask=~torch.ones(5, 5, dtype=torch.bool).tril(), tgt_key_padding_mask=tokens == 0)
    got = ours(x, memory, model_mask, None)
    real = tokens != 0
    torch.testing.assert_close(got[real], expected[real], atol=1e-5, rtol=0)


def test_translation_steps_follow_torchs_causal_mask_and_document_001_is_named():
    blocked = torch.nn.Transformer.generate_square_subsequent_mask(4)  # −inf above the diagonal
    inputs, expected = translation_steps.DECODER_INPUT, translation_steps.translation_steps_001()
    for i, token in enumerate(translation_steps.TARGET):
        assert expected["may_attend"][token] == [inputs[j] for j in range(4) if blocked[i, j] == 0]
    assert expected["hidden_in_training"] == ["dich"]
    doc = misconception("translation_steps_001", "document_001").wrong()
    assert "liebe" not in doc["may_attend"]["dich"] and "liebe" in doc["hidden_in_training"]


def test_bank_layer_is_the_notebooks_and_the_verdicts_sit_far_from_the_tolerance():
    import json

    cells = json.loads((PS6.source_dir / PS6.notebook).read_text())["cells"]
    data = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "bank_data")
    assert "".join(data["source"]).strip() == bank_context.BANK_SOURCE.strip()
    for key, (a, b) in bank_context.bank_vectors().items():
        ratio = float((a - b).abs().max() / a.abs().max())
        tol = bank_context.RELATIVE_TOLERANCE
        assert ratio > 100 * tol or ratio < tol / 100, (key, ratio)  # float32 noise ~2e-7, changes > 0.2
        assert not torch.equal(a, b), key  # what float32_compared_exactly answers: every pair differs in a bit
    assert bank_context.bank_001() == {
        "context": True,
        "position": False,
        "context_with_pe": True,
        "position_with_pe": True,
    }
