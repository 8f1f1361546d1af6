"""The reference model against PyTorch's nn.Transformer (weights copied across), its KV cache
against full recomputation, and its fast (SDPA) path against the explicit-math path.
Tolerance: atol 1e-5 (rtol 0) in float32 unless a test says otherwise."""

import pytest
import torch
import torch.nn as nn

from solutions.attention import causal_mask, padding_mask
from solutions.interop import copy_decoder_layer, copy_encoder_layer, stacks_like_torch, torch_transformer_for
from solutions.layers import DecoderLayer, EncoderLayer
from solutions.model import (
    POSITIONS,
    DecoderOnlyTransformer,
    EncoderDecoderTransformer,
    TransformerConfig,
    sequence_loss,
)

ATOL = 1e-5


def cfg_for(**kw):
    base = dict(vocab_size=17, d_model=32, n_heads=4, n_layers=2, d_ff=64, pad_id=0)
    return TransformerConfig(**{**base, **kw})


def spread(model, std=0.3, seed=0):
    """Re-draw every weight with a large std so a wrong mask or offset changes the logits visibly."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * std)
    return model.eval()


def teacher_forced(model, src, tgt, **kw):
    """Logits for every target position: the decoder-only model reads the target alone."""
    return model(src, tgt, **kw) if isinstance(model, EncoderDecoderTransformer) else model(tgt, **kw)


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, activation):
    cfg = cfg_for(norm_first=norm_first, activation=activation)
    torch.manual_seed(0)
    theirs = nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    ).eval()
    ours = EncoderLayer(cfg).eval()
    copy_encoder_layer(ours, theirs)
    x = torch.randn(3, 9, 32)
    pad = torch.zeros(3, 9, dtype=torch.bool)
    pad[1, 6:] = True
    torch.testing.assert_close(ours(x), theirs(x), atol=ATOL, rtol=0)
    keep = ~pad  # torch's inference fast path may zero padded positions; compare the real ones
    torch.testing.assert_close(
        ours(x, padding_mask(pad))[keep], theirs(x, src_key_padding_mask=pad)[keep], atol=ATOL, rtol=0
    )


@pytest.mark.parametrize("norm_first", [True, False])
def test_decoder_layer_matches_torch(norm_first):
    cfg = cfg_for(norm_first=norm_first, activation="gelu")
    torch.manual_seed(1)
    theirs = nn.TransformerDecoderLayer(
        32, 4, 64, dropout=0.0, activation="gelu", batch_first=True, norm_first=norm_first
    ).eval()
    ours = DecoderLayer(cfg).eval()
    copy_decoder_layer(ours, theirs)
    x, mem = torch.randn(2, 6, 32), torch.randn(2, 8, 32)
    mem_pad = torch.zeros(2, 8, dtype=torch.bool)
    mem_pad[0, 5:] = True
    expected = theirs(x, mem, tgt_mask=~causal_mask(6), memory_key_padding_mask=mem_pad)
    torch.testing.assert_close(ours(x, mem, causal_mask(6), padding_mask(mem_pad)), expected, atol=ATOL, rtol=0)


@pytest.mark.parametrize("norm_first", [True, False])
def test_full_stack_matches_nn_transformer_forward_and_backward(norm_first):
    cfg = cfg_for(norm_first=norm_first, n_encoder_layers=2, n_decoder_layers=3)
    torch.manual_seed(2)
    theirs = torch_transformer_for(cfg)
    enc, dec = stacks_like_torch(theirs, cfg)
    src, tgt = torch.randn(3, 10, 32), torch.randn(3, 7, 32)
    src_pad = torch.zeros(3, 10, dtype=torch.bool)
    src_pad[2, 4:] = True
    theirs.train()  # training mode (dropout 0) keeps torch off its nested-tensor inference path
    expected = theirs(src, tgt, tgt_mask=~causal_mask(7), src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad)
    memory = enc(src, padding_mask(src_pad))
    ours = dec(tgt, memory, causal_mask(7), padding_mask(src_pad))
    torch.testing.assert_close(ours, expected, atol=ATOL, rtol=0)
    w = torch.randn_like(ours)
    (ours * w).sum().backward(), (expected * w).sum().backward()
    torch.testing.assert_close(
        enc.layers[0].self_attn.q_proj.weight.grad,
        theirs.encoder.layers[0].self_attn.in_proj_weight.grad[:32],
        atol=1e-4,
        rtol=0,
    )
    torch.testing.assert_close(
        dec.layers[2].ffn.linear1.weight.grad, theirs.decoder.layers[2].linear1.weight.grad, atol=1e-4, rtol=0
    )


def test_a_wrong_copy_is_caught():
    """The comparison can fail: swap q and k and the outputs differ."""
    cfg = cfg_for()
    torch.manual_seed(3)
    theirs = torch_transformer_for(cfg).train()
    enc, dec = stacks_like_torch(theirs, cfg)
    with torch.no_grad():
        q = enc.layers[0].self_attn.q_proj.weight.clone()
        enc.layers[0].self_attn.q_proj.weight.copy_(enc.layers[0].self_attn.k_proj.weight)
        enc.layers[0].self_attn.k_proj.weight.copy_(q)
    src, tgt = torch.randn(2, 5, 32), torch.randn(2, 4, 32)
    expected = theirs(src, tgt, tgt_mask=~causal_mask(4))
    assert not torch.allclose(dec(tgt, enc(src), causal_mask(4)), expected, atol=ATOL)


@pytest.mark.parametrize("pos", POSITIONS)
def test_kv_cache_gives_the_same_logits_as_recomputation(pos):
    cfg = cfg_for(pos=pos, rope_convention="interleaved" if pos == "rope" else "half")
    torch.manual_seed(4)
    src, tgt = torch.randint(1, 17, (2, 9)), torch.randint(1, 17, (2, 8))
    src[1, 6:] = 0  # padded source
    for model in (spread(EncoderDecoderTransformer(cfg)), spread(DecoderOnlyTransformer(cfg))):
        full = teacher_forced(model, src, tgt)
        state = model.start_state(src)
        chunks = [model.step(tgt[:, :3], state)] + [model.step(tgt[:, i : i + 1], state) for i in range(3, 8)]
        torch.testing.assert_close(torch.cat(chunks, dim=1), full, atol=ATOL, rtol=0)
        assert state["pos"] == 8


@pytest.mark.parametrize("pos", POSITIONS)
def test_fast_and_math_paths_agree_for_the_whole_model(pos):
    cfg = cfg_for(pos=pos)
    src, tgt = torch.randint(0, 17, (2, 9)), torch.randint(1, 17, (2, 8))
    tgt[0, 6:] = 0
    model = spread(EncoderDecoderTransformer(cfg), std=0.2)
    torch.testing.assert_close(model(src, tgt, fast=True), model(src, tgt, fast=False), atol=ATOL, rtol=0)


def test_padding_is_ignored_and_positions_matter():
    cfg = cfg_for(pos="sinusoidal")
    model = spread(EncoderDecoderTransformer(cfg), std=0.2)
    src, tgt = torch.randint(1, 17, (1, 8)), torch.randint(1, 17, (1, 5))
    padded = torch.cat([src, torch.zeros(1, 3, dtype=torch.long)], dim=1)
    torch.testing.assert_close(model(padded, tgt), model(src, tgt), atol=ATOL, rtol=0)
    assert not torch.allclose(model(src.flip(1), tgt), model(src, tgt), atol=1e-3)


def test_without_positions_the_encoder_is_permutation_equivariant():
    cfg = cfg_for(pos="none")
    model = spread(EncoderDecoderTransformer(cfg), std=0.2)
    src = torch.randint(1, 17, (2, 7))
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(0))
    mem, _ = model.encode(src)
    mem_p, _ = model.encode(src[:, perm])
    torch.testing.assert_close(mem_p, mem[:, perm], atol=ATOL, rtol=0)


def test_init_and_tying_are_as_documented():
    cfg = cfg_for(d_model=256, n_heads=4, d_ff=1024, n_layers=4)
    model = DecoderOnlyTransformer(cfg)
    assert model.lm_head.weight is model.tok_emb.weight
    layer = model.decoder.layers[0]
    assert abs(layer.self_attn.q_proj.weight.std().item() - 0.02) < 2e-3
    assert abs(layer.ffn.linear2.weight.std().item() - 0.02 / (2 * 4) ** 0.5) < 1e-3
    assert layer.self_attn.q_proj.bias.abs().max() == 0
    assert torch.all(layer.norm1.weight == 1)


def test_a_few_steps_of_training_reduce_the_loss():
    cfg = cfg_for(dropout=0.1, pos="rope")
    torch.manual_seed(5)
    model = DecoderOnlyTransformer(cfg).train()
    data = torch.arange(1, 17).repeat(4, 2)[:, :24]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(30):
        loss = sequence_loss(model(data[:, :-1]), data[:, 1:])
        opt.zero_grad(), loss.backward(), opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_bench_model_prints_the_ratio_last(capsys):
    from solutions.bench import bench_model

    result = bench_model(d_model=32, n_heads=4, n_layers=1, d_ff=64, batch=2, src_len=6, tgt_len=5, warmup=1, repeats=3)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == f"reference_over_torch: {result['ratio']:.3f}"
    assert result["max_abs_diff"] < ATOL


@pytest.mark.parametrize("pos", ["sinusoidal", "learned", "rope", "alibi", "t5"])
def test_model_to_device_moves_every_parameter_and_buffer(pos):
    """The caller picks the device (CUDA when present, else CPU); nothing stays behind."""
    from solutions.decoding import greedy

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = spread(DecoderOnlyTransformer(cfg_for(pos=pos))).to(device)
    tensors = list(model.parameters()) + list(model.buffers())
    assert tensors and all(t.device.type == device.type for t in tensors)
    prefix = torch.randint(1, 17, (2, 3), device=device)
    out = greedy(model, prefix, 4)
    assert out.device.type == device.type and out.shape == (2, 7)
    torch.testing.assert_close(out.cpu(), greedy(model.cpu(), prefix.cpu(), 4))


def _run_on_meta(model_cls, **cfg):
    """Forward (fast and math paths) and two KV-cached steps with model and inputs on the ``meta``
    device. A tensor the model makes without the input's device lands on the CPU, and mixing it
    with meta tensors raises: on a machine without a GPU this is how the CUDA path's placement is
    checked (a .cuda() inside, or a mask built on the CPU, fails here as it would on a GPU).
    No pad_id: finding padding asks whether any token is padding, a value meta tensors lack."""
    cfg = cfg_for(**cfg, pad_id=None)
    model = model_cls(cfg).to("meta")
    src = torch.zeros(2, 5, dtype=torch.long, device="meta")
    tgt = torch.zeros(2, 4, dtype=torch.long, device="meta")
    for fast in (True, False):
        out = teacher_forced(model, src, tgt, fast=fast)
        assert out.device.type == "meta" and out.shape == (2, 4, cfg.vocab_size)
    state = model.start_state(src)
    model.step(tgt, state)
    assert model.step(tgt[:, :1], state).shape == (2, 1, cfg.vocab_size)


@pytest.mark.parametrize("model_cls", [EncoderDecoderTransformer, DecoderOnlyTransformer])
@pytest.mark.parametrize("pos,convention", [(p, "half") for p in POSITIONS] + [("rope", "interleaved")])
def test_every_tensor_follows_the_callers_device(model_cls, pos, convention):
    _run_on_meta(model_cls, pos=pos, rope_convention=convention)


def test_the_device_check_catches_a_tensor_left_on_the_cpu(monkeypatch):
    """The check above can fail: an ALiBi bias built without the input's device is caught."""
    import solutions.model as model_module
    from solutions.positional import alibi_bias

    monkeypatch.setattr(model_module, "alibi_bias", lambda *a, device=None, **kw: alibi_bias(*a, **kw))
    with pytest.raises(RuntimeError, match="device"):
        _run_on_meta(DecoderOnlyTransformer, pos="alibi")


@pytest.mark.parametrize("masked", [False, True])
def test_ps6_reference_encoder_layer_is_torch_pre_ln(masked):
    """PS6's functional reference (the weights arrive as arrays) equals nn.TransformerEncoderLayer."""
    from autograder.spec import load_assignment

    question = load_assignment("ps6_build").question("encoder_layer")
    torch.manual_seed(6)
    theirs = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True).eval()
    x = torch.randn(2, 5, 8)
    is_pad = torch.tensor([[False] * 3 + [True] * 2, [False] * 5])
    w_q, w_k, w_v = theirs.self_attn.in_proj_weight.detach().chunk(3)
    b_q, b_k, b_v = theirs.self_attn.in_proj_bias.detach().chunk(3)
    p = {n: t.detach() for n, t in theirs.named_parameters()}
    got = question.reference(
        x,
        padding_mask(is_pad) if masked else None,
        2,
        p["norm1.weight"],
        p["norm1.bias"],
        w_q,
        b_q,
        w_k,
        b_k,
        w_v,
        b_v,
        p["self_attn.out_proj.weight"],
        p["self_attn.out_proj.bias"],
        p["norm2.weight"],
        p["norm2.bias"],
        p["linear1.weight"],
        p["linear1.bias"],
        p["linear2.weight"],
        p["linear2.bias"],
    )
    expected = theirs(x, src_key_padding_mask=is_pad if masked else None)
    torch.testing.assert_close(got, expected, atol=ATOL, rtol=0)
