"""Decoding with the reference models: greedy, beam, top-k, nucleus, temperature; KV cache on/off."""

import itertools

import pytest
import torch

from solutions.decoding import beam_search, generate, greedy, sample, sample_next, top_k_filter, top_p_filter
from solutions.model import DecoderOnlyTransformer, EncoderDecoderTransformer, TransformerConfig

INF = float("-inf")


def model_pair(pos="rope", seed=0, vocab=7):
    cfg = TransformerConfig(vocab_size=vocab, d_model=32, n_heads=4, n_layers=2, d_ff=64, pos=pos)
    g = torch.Generator().manual_seed(seed)
    models = EncoderDecoderTransformer(cfg), DecoderOnlyTransformer(cfg)
    for m in models:
        with torch.no_grad():
            for p in m.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)
        m.eval()
    return models


def test_top_k_and_top_p_filters_on_hand_examples():
    logits = torch.tensor([[1.0, 3.0, 2.0, 0.0]])
    assert top_k_filter(logits, 2).tolist() == [[INF, 3.0, 2.0, INF]]
    assert top_k_filter(logits, 4).tolist() == logits.tolist()
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    # cumulative 0.5, 0.8, 0.95: p = 0.8 keeps the first two, p = 0.81 the first three
    assert torch.isfinite(top_p_filter(probs.log(), 0.8)).tolist() == [[True, True, False, False]]
    assert torch.isfinite(top_p_filter(probs.log(), 0.81)).tolist() == [[True, True, True, False]]
    assert torch.isfinite(top_p_filter(probs.log()[:, [3, 1, 0, 2]], 0.5)).tolist() == [[False, False, True, False]]
    assert torch.isfinite(top_p_filter(probs.log(), 0.01)).sum() == 1  # the top token always survives


def test_sampling_is_reproducible_and_respects_the_filters():
    logits = torch.tensor([[0.0, 1.0, 2.0, 3.0]]).repeat(4000, 1)
    draw = lambda **kw: sample_next(logits, generator=torch.Generator().manual_seed(7), **kw)  # noqa: E731
    assert torch.equal(draw(), draw())
    assert set(draw(top_k=2).tolist()) == {2, 3}
    assert set(draw(top_p=0.85).tolist()) == {2, 3}  # softmax: .032 .087 .237 .644
    assert set(draw(top_p=0.9).tolist()) == {1, 2, 3}
    freq = torch.bincount(draw(), minlength=4) / 4000
    torch.testing.assert_close(freq, logits[0].softmax(-1), atol=0.03, rtol=0)
    cold = torch.bincount(draw(temperature=0.1), minlength=4)
    assert cold[3] > 3900
    assert torch.equal(sample_next(logits, temperature=0), torch.full((4000,), 3))


@pytest.mark.parametrize("pos", ["sinusoidal", "rope", "alibi", "t5"])
def test_greedy_with_and_without_the_cache_agree(pos):
    encdec, gpt = model_pair(pos)
    src = torch.randint(0, 7, (3, 6), generator=torch.Generator().manual_seed(1))
    bos = torch.zeros(3, 1, dtype=torch.long)
    assert torch.equal(greedy(encdec, bos, 10, src=src), greedy(encdec, bos, 10, src=src, use_cache=False))
    prompt = torch.randint(0, 7, (3, 4), generator=torch.Generator().manual_seed(2))
    out = greedy(gpt, prompt, 10)
    assert out.shape == (3, 14) and torch.equal(out[:, :4], prompt)
    assert torch.equal(out, greedy(gpt, prompt, 10, use_cache=False))


def test_greedy_picks_the_argmax_of_full_recomputation():
    _, gpt = model_pair()
    seq = torch.tensor([[1, 2, 3]])
    out = greedy(gpt, seq, 5)
    for t in range(3, 8):
        assert out[0, t] == gpt(out[:, :t])[0, -1].argmax()


def test_seeded_sampling_is_reproducible_with_and_without_cache():
    encdec, _ = model_pair()
    src, bos = torch.randint(0, 7, (4, 5)), torch.zeros(4, 1, dtype=torch.long)
    run = lambda cache: sample(
        encdec,
        bos,
        8,
        src=src,
        temperature=0.8,
        top_k=5,
        top_p=0.9,  # noqa: E731
        generator=torch.Generator().manual_seed(3),
        use_cache=cache,
    )
    assert torch.equal(run(True), run(True))
    assert torch.equal(run(True), run(False))
    assert torch.equal(sample(encdec, bos, 8, src=src, top_k=1), greedy(encdec, bos, 8, src=src))


def test_eos_stops_and_pads():
    _, gpt = model_pair(vocab=5)
    prompt = torch.tensor([[1], [2]])
    out = generate(gpt, prompt, 12, eos_id=3)
    for row in out.tolist():
        if 3 in row[1:]:
            first = row.index(3, 1)
            assert set(row[first:]) == {3}


def sequence_logprob(model, prefix, continuations, src=None):
    """log p(continuation | prefix) for each row of continuations (N, n); prefix (1, T0)."""
    n = continuations.shape[0]
    full = torch.cat([prefix.expand(n, -1), continuations], dim=1)
    logits = model(src.expand(n, -1), full[:, :-1]) if src is not None else model(full[:, :-1])
    logp = logits.log_softmax(-1)[:, prefix.shape[1] - 1 :]
    return logp.gather(-1, continuations[..., None]).squeeze(-1).sum(-1)


def test_beam_search_with_a_wide_beam_finds_the_exhaustive_optimum():
    encdec, gpt = model_pair(vocab=5, seed=3)
    src, bos = (
        torch.randint(0, 5, (1, 4), generator=torch.Generator().manual_seed(4)),
        torch.zeros(1, 1, dtype=torch.long),
    )
    every = torch.tensor(list(itertools.product(range(5), repeat=3)))
    for model, kw in ((encdec, {"src": src}), (gpt, {})):
        seqs, score = beam_search(model, bos, 3, beam_size=25, **kw)  # 25 = 5^2 beams: nothing is pruned
        with torch.no_grad():
            logp = sequence_logprob(model, bos, every, kw.get("src"))
        assert seqs[0, 1:].tolist() == every[logp.argmax()].tolist()
        assert score.item() == pytest.approx(logp.max().item(), abs=1e-4)


def test_beam_of_one_is_greedy_and_a_wider_beam_is_never_worse():
    encdec, _ = model_pair(seed=5)
    src, bos = torch.randint(0, 7, (3, 6)), torch.zeros(3, 1, dtype=torch.long)
    one, _ = beam_search(encdec, bos, 6, src=src, beam_size=1)
    assert torch.equal(one, greedy(encdec, bos, 6, src=src))
    _, s1 = beam_search(encdec, bos, 6, src=src, beam_size=1)
    _, s4 = beam_search(encdec, bos, 6, src=src, beam_size=4)
    assert torch.all(s4 >= s1 - 1e-5)
    cached, _ = beam_search(encdec, bos, 6, src=src, beam_size=4)
    assert torch.equal(cached, beam_search(encdec, bos, 6, src=src, beam_size=4, use_cache=False)[0])


def test_beam_search_returns_finished_hypotheses():
    _, gpt = model_pair(vocab=5, seed=7)
    seqs, scores = beam_search(gpt, torch.tensor([[1, 2]]), 8, beam_size=3, eos_id=4)
    assert seqs[0].tolist()[:3] == [1, 2, 4]  # this model ends at once, then pads
    assert set(seqs[0, 2:].tolist()) == {4}
    with torch.no_grad():
        ref = sequence_logprob(gpt, torch.tensor([[1, 2]]), torch.tensor([[4]]))
    assert scores.item() == pytest.approx(ref.item(), abs=1e-4)


def test_beam_search_with_eos_matches_the_exhaustive_optimum():
    _, gpt = model_pair(vocab=5, seed=8)
    prefix, eos = torch.tensor([[1, 2]]), 3
    best, best_seq = float("-inf"), None
    for length in (1, 2, 3):
        cands = [
            c for c in itertools.product(range(5), repeat=length) if eos not in c[:-1] and (c[-1] == eos or length == 3)
        ]
        with torch.no_grad():
            logp = sequence_logprob(gpt, prefix, torch.tensor(cands))
        if logp.max().item() > best:
            best, best_seq = logp.max().item(), list(cands[logp.argmax()])
    seqs, score = beam_search(gpt, prefix, 3, beam_size=25, eos_id=eos)
    assert score.item() == pytest.approx(best, abs=1e-4)
    assert seqs[0, 2 : 2 + len(best_seq)].tolist() == best_seq
