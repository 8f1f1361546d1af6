"""PS6's references for the decoder layer, sampling and beam search, checked against PyTorch
and against first principles (exhaustive search, sampling frequencies). Tolerances: 1e-5 for
the layer against nn.TransformerDecoderLayer (float32), 1e-6 for probabilities. The references
written out self-contained for root cause (attention, the causal mask, next_token_probs) are
checked against ``solutions/`` bit for bit."""

import itertools

import pytest
import torch
import torch.nn as nn

from autograder.spec import FunctionSource, as_args, load_assignment
from solutions.attention import causal_mask, multi_head_attention, padding_mask
from solutions.decoding import top_k_filter, top_p_filter

ATOL = 1e-5


def reference(grade_id):
    return load_assignment("ps6_build").question(grade_id).reference


def _solutions_attention(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    weights = {"w_q": w_q, "b_q": b_q, "w_k": w_k, "b_k": b_k, "w_v": w_v, "b_v": b_v, "w_o": w_o, "b_o": b_o}
    return multi_head_attention(x_q, x_kv, weights, n_heads, mask, fast=False)


def _solutions_next_token_probs(logits, temperature, top_k, top_p):
    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).float()
    return top_p_filter(top_k_filter(logits / temperature, top_k), top_p).softmax(-1)


SOLUTIONS = {
    "multi_head_attention": _solutions_attention,
    "causal_mask": lambda t: causal_mask(int(t)),
    "next_token_probs": _solutions_next_token_probs,
}


@pytest.mark.parametrize("grade_id", list(SOLUTIONS))
def test_the_self_contained_references_are_solutions_bit_for_bit(grade_id):
    """What the grader compares with and the sandbox binds (one function, its source derived)
    computes exactly what ``solutions/`` does, on every hidden and visible probe."""
    assignment = load_assignment("ps6_build")
    q = assignment.question(grade_id)
    assert q.reference_source.source == FunctionSource.of(q.reference).source and q.reference_source.name == q.answer
    probes = [p for student in ("s1", "s2", "s3") for p in q.probes_for(student, assignment)] + list(q.visible)
    for probe in probes:
        got = q.reference(*as_args(probe.args, q.args_as))
        want = SOLUTIONS[grade_id](*as_args(probe.args, q.args_as))
        assert got.dtype == want.dtype and torch.equal(got, want), (grade_id, probe.label)


def _attention_weights(attn):
    w = attn.in_proj_weight.detach().chunk(3)
    b = attn.in_proj_bias.detach().chunk(3)
    return (w[0], b[0], w[1], b[1], w[2], b[2], attn.out_proj.weight.detach(), attn.out_proj.bias.detach())


@pytest.mark.parametrize("masked", [False, True])
def test_ps6_decoder_layer_is_torch_pre_ln(masked):
    torch.manual_seed(6)
    theirs = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True).eval()
    p = {n: t.detach() for n, t in theirs.named_parameters()}
    x, memory = torch.randn(2, 4, 8), torch.randn(2, 6, 8)
    memory_is_pad = torch.tensor([[False] * 4 + [True] * 2, [False] * 6])
    got = reference("decoder_layer")(
        x,
        memory,
        padding_mask(memory_is_pad) if masked else None,
        2,
        p["norm1.weight"],
        p["norm1.bias"],
        *_attention_weights(theirs.self_attn),
        p["norm2.weight"],
        p["norm2.bias"],
        *_attention_weights(theirs.multihead_attn),
        p["norm3.weight"],
        p["norm3.bias"],
        p["linear1.weight"],
        p["linear1.bias"],
        p["linear2.weight"],
        p["linear2.bias"],
    )
    expected = theirs(
        x,
        memory,
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(4),
        tgt_is_causal=True,
        memory_key_padding_mask=memory_is_pad if masked else None,
    )
    torch.testing.assert_close(got, expected, atol=ATOL, rtol=0)


def test_next_token_probs_from_first_principles():
    probs = torch.tensor([0.05, 0.5, 0.15, 0.3])
    logits = probs.log()
    next_token_probs = reference("next_token_probs")
    torch.testing.assert_close(next_token_probs(logits, 1.0, None, None), probs)
    # nucleus: the tokens ranked above the crossing token do not reach p, so it stays
    for top_p, kept in ((0.4, [1]), (0.7, [1, 3]), (0.85, [1, 3, 2]), (0.99, [1, 3, 2, 0])):
        expected = torch.zeros(4)
        expected[kept] = probs[kept] / probs[kept].sum()
        torch.testing.assert_close(next_token_probs(logits, 1.0, None, top_p), expected, atol=1e-6, rtol=0)
    top2 = torch.tensor([0.0, 0.5, 0.0, 0.3]) / 0.8
    torch.testing.assert_close(next_token_probs(logits, 1.0, 2, None), top2, atol=1e-6, rtol=0)
    # temperature T: p_i^(1/T) renormalised; T = 0 is the argmax
    sharp = probs**2 / (probs**2).sum()
    torch.testing.assert_close(next_token_probs(logits, 0.5, None, None), sharp, atol=1e-6, rtol=0)
    assert next_token_probs(logits, 0.0, None, None).tolist() == [0.0, 1.0, 0.0, 0.0]


def test_sample_tokens_is_seeded_and_draws_the_distribution():
    sample_tokens = reference("sample_tokens")
    logits = torch.tensor([1.0, 0.0, -1.0, 2.0, 0.5])
    assert sample_tokens(logits, 1.0, None, None, 3, 50) == sample_tokens(logits, 1.0, None, None, 3, 50)
    assert sample_tokens(logits, 1.0, None, None, 3, 50) != sample_tokens(logits, 1.0, None, None, 4, 50)
    draws = torch.tensor(sample_tokens(logits, 1.0, 3, None, 0, 6000))
    assert set(draws.tolist()) <= {0, 3, 4}  # top-3 only
    kept = logits[[0, 3, 4]].softmax(0)
    freq = torch.stack([(draws == t).float().mean() for t in (0, 3, 4)])
    assert torch.allclose(freq, kept, atol=0.03)  # > 5 standard errors at n = 6000


def _exhaustive_best(model, prompt, n_new, vocab=12):
    def score(seq):
        total, tokens = 0.0, list(prompt)
        for token in seq:
            total += torch.log_softmax(model(tokens)[-1], -1)[token].item()
            tokens.append(token)
        return total

    return list(prompt) + list(max(itertools.product(range(vocab), repeat=n_new), key=score))


def _ps6_decoding():
    """PS6's decoding module: the greedy and beam-search references and the tiny model they run on."""
    from autograder.spec import problem_set_module

    return problem_set_module(load_assignment("ps6_build")).decoding


def test_beam_search_wide_enough_is_exhaustive_and_width_one_is_greedy():
    ref = _ps6_decoding()
    for seed in (1, 2):
        model = ref.tiny_lm(seed).compile()
        # width 12² keeps every sequence of 3 new tokens: beam search is then exact
        assert ref.beam_search(model, [3, 1], 144, 3, None) == _exhaustive_best(model, [3, 1], 3)
        for eos in (None, ref.greedy_decode(model, [3, 1], 6, None)[4]):
            assert ref.beam_search(model, [3, 1], 1, 6, eos) == ref.greedy_decode(model, [3, 1], 6, eos)


def test_beam_search_beats_greedy_on_the_textbook_example():
    """After token 0: P(1) = 0.5, P(2) = 0.4; after 1 every token has 1/3; after 2, token 0 has 0.9.
    Greedy takes 1 (total 0.5 · 1/3 ≈ 0.17); a beam of 2 finds 2, 0 (0.4 · 0.9 = 0.36)."""
    table = torch.tensor([[0.1, 0.5, 0.4], [1 / 3, 1 / 3, 1 / 3], [0.9, 0.05, 0.05]]).log()

    def model(tokens):
        return table[torch.tensor(tokens)]

    ref = _ps6_decoding()
    assert ref.greedy_decode(model, [0], 2, None) == [0, 1, 0]
    assert ref.beam_search(model, [0], 2, 2, None) == [0, 2, 0] == _exhaustive_best(model, [0], 2, vocab=3)
    # with eos = 1 the one-token hypothesis [0, 1] (0.5) is finished and beats [0, 2, 0] (0.36)
    assert ref.beam_search(model, [0], 2, 2, 1) == [0, 1]
