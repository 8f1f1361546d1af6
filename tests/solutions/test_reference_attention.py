"""The reference attention against PyTorch's own: F.scaled_dot_product_attention and
nn.MultiHeadAttention with weights copied across. Tolerance: atol 1e-5 in float32."""

import pytest
import torch
import torch.nn.functional as F

from solutions.attention import (
    AttentionConfig,
    MultiHeadAttention,
    attention_weights,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
)

ATOL = 1e-5
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


def qkv(device, b=2, h=3, tq=5, tk=7, dk=8, dv=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    make = lambda *s: torch.randn(*s, generator=g).to(device)  # noqa: E731
    return make(b, h, tq, dk), make(b, h, tk, dk), make(b, h, tk, dv)


@pytest.mark.parametrize("fast", [True, False])
def test_matches_torch_sdpa_unmasked_and_masked(device, fast):
    q, k, v = qkv(device)
    torch.testing.assert_close(
        scaled_dot_product_attention(q, k, v, fast=fast), F.scaled_dot_product_attention(q, k, v), atol=ATOL, rtol=0
    )
    mask = torch.rand(2, 3, 5, 7, generator=torch.Generator().manual_seed(1)).to(device) > 0.3
    mask[..., 0] = True  # every query sees at least one key, so torch is defined too
    torch.testing.assert_close(
        scaled_dot_product_attention(q, k, v, mask, fast=fast),
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
        atol=ATOL,
        rtol=0,
    )


def test_causal_mask_matches_is_causal(device):
    q, k, v = qkv(device, tq=6, tk=6)
    ours = scaled_dot_product_attention(q, k, v, causal_mask(6, device=device))
    torch.testing.assert_close(ours, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=ATOL, rtol=0)


def test_causal_mask_for_a_kv_cache_is_aligned_to_the_end():
    m = causal_mask(2, 5)
    assert m.tolist() == [[True, True, True, True, False], [True, True, True, True, True]]


def test_fully_masked_row_is_zero_on_both_paths(device):
    q, k, v = qkv(device)
    mask = torch.ones(2, 3, 5, 7, dtype=torch.bool, device=device)
    mask[1, 2, 3] = False
    for fast in (True, False):
        out = scaled_dot_product_attention(q, k, v, mask, fast=fast)
        assert torch.isfinite(out).all()
        assert torch.count_nonzero(out[1, 2, 3]) == 0
    assert attention_weights(q, k, mask)[1, 2, 3].sum() == 0


def test_fast_and_math_paths_agree(device):
    q, k, v = qkv(device, seed=3)
    torch.testing.assert_close(
        scaled_dot_product_attention(q, k, v, fast=True),
        scaled_dot_product_attention(q, k, v, fast=False),
        atol=1e-6,
        rtol=0,
    )


@pytest.mark.parametrize("bias", [True, False])
def test_multi_head_attention_matches_nn_multiheadattention(device, bias):
    d, h = 16, 4
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(d, h, bias=bias, batch_first=True).to(device).eval()
    ours = MultiHeadAttention(AttentionConfig(d, h, bias=bias)).to(device).eval()
    w_q, w_k, w_v = theirs.in_proj_weight.chunk(3)
    with torch.no_grad():
        ours.q_proj.weight.copy_(w_q), ours.k_proj.weight.copy_(w_k), ours.v_proj.weight.copy_(w_v)
        ours.out_proj.weight.copy_(theirs.out_proj.weight)
        if bias:
            b_q, b_k, b_v = theirs.in_proj_bias.chunk(3)
            ours.q_proj.bias.copy_(b_q), ours.k_proj.bias.copy_(b_k), ours.v_proj.bias.copy_(b_v)
            ours.out_proj.bias.copy_(theirs.out_proj.bias)
    x = torch.randn(2, 5, d, device=device)
    memory = torch.randn(2, 7, d, device=device)
    expected, _ = theirs(x, x, x, need_weights=False)
    torch.testing.assert_close(ours(x), expected, atol=ATOL, rtol=0)
    # key padding (True = pad in torch) and a causal mask (True = blocked in torch)
    pad = torch.zeros(2, 7, dtype=torch.bool, device=device)
    pad[0, 5:] = True
    expected, _ = theirs(x, memory, memory, key_padding_mask=pad, need_weights=False)
    torch.testing.assert_close(ours(x, memory, mask=padding_mask(pad)), expected, atol=ATOL, rtol=0)
    blocked = ~causal_mask(5, device=device)
    expected, _ = theirs(x, x, x, attn_mask=blocked, need_weights=False)
    torch.testing.assert_close(ours(x, mask=causal_mask(5, device=device)), expected, atol=ATOL, rtol=0)


def test_parameter_count_matches_the_sympy_formula():
    from solutions.derivations import param_counts as pc
    from solutions.derivations.symbols import evaluate

    for d, h, bias in [(16, 4, True), (64, 8, False), (768, 12, True)]:
        module = MultiHeadAttention(AttentionConfig(d, h, bias=bias))
        assert sum(p.numel() for p in module.parameters()) == evaluate(pc.mha(bias=bias), d=d)


def test_fully_masked_row_has_finite_gradients_on_both_paths(device):
    mask = causal_mask(5, 7, device=device).clone()
    mask[2] = False
    for fast in (True, False):
        q, k, v = (t.requires_grad_() for t in qkv(device))
        scaled_dot_product_attention(q, k, v, mask, fast=fast).square().sum().backward()
        for t in (q, k, v):
            assert torch.isfinite(t.grad).all()
        assert torch.count_nonzero(q.grad[:, :, 2]) == 0


def test_explicit_scale_and_weights_match_the_formula(device):
    q, k, v = qkv(device, seed=5)
    mask = causal_mask(5, 7, device=device)
    scores = (q @ k.transpose(-2, -1) * 0.3).masked_fill(~mask, float("-inf"))
    expected = torch.softmax(scores, dim=-1)
    torch.testing.assert_close(attention_weights(q, k, mask, scale=0.3), expected, atol=1e-6, rtol=0)
    for fast in (True, False):
        torch.testing.assert_close(
            scaled_dot_product_attention(q, k, v, mask, scale=0.3, fast=fast), expected @ v, atol=ATOL, rtol=0
        )
    assert torch.allclose(attention_weights(q, k, mask).sum(-1), torch.ones(2, 3, 5, device=device))


def test_padding_mask_shape_and_convention():
    pad = torch.tensor([[False, False, True], [False, True, True]])
    m = padding_mask(pad)
    assert m.shape == (2, 1, 1, 3) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, False], [True, False, False]]


def test_functional_adapter_matches_the_module(device):
    from solutions.attention import multi_head_attention

    torch.manual_seed(1)
    module = MultiHeadAttention(AttentionConfig(12, 3, bias=False)).to(device).eval()
    x, mem = torch.randn(2, 4, 12, device=device), torch.randn(2, 6, 12, device=device)
    torch.testing.assert_close(multi_head_attention(x, mem, module.weights(), 3), module(x, mem), atol=ATOL, rtol=0)
    torch.testing.assert_close(module(x, mem, fast=False), module(x, mem), atol=ATOL, rtol=0)


def test_is_causal_equals_the_explicit_causal_mask(device):
    for tq, tk in ((5, 5), (3, 7)):
        q, k, v = qkv(device, tq=tq, tk=tk, seed=6)
        expected = scaled_dot_product_attention(q, k, v, causal_mask(tq, tk, device=device), fast=False)
        pad = torch.ones(2, 1, 1, tk, dtype=torch.bool, device=device)
        pad[0, ..., -1] = False
        for fast in (True, False):
            torch.testing.assert_close(
                scaled_dot_product_attention(q, k, v, is_causal=True, fast=fast), expected, atol=ATOL, rtol=0
            )
            torch.testing.assert_close(
                scaled_dot_product_attention(q, k, v, pad, is_causal=True, fast=fast),
                scaled_dot_product_attention(q, k, v, pad & causal_mask(tq, tk, device=device)),
                atol=ATOL,
                rtol=0,
            )
