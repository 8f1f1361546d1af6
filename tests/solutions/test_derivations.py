"""Each SymPy derivation behind an expected value is itself checked: parameter counts against
real torch modules' sum(p.numel()), the papers' model sizes, cost formulas against counted
matmuls, and the permutation identities exactly."""

import pytest
import sympy
import torch
from torch import nn

from solutions.derivations import cost
from solutions.derivations import param_counts as pc
from solutions.derivations.softmax_permutation import prove_softmax_permutation
from solutions.derivations.symbols import evaluate


def n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("d,h,bias", [(16, 4, True), (16, 4, False), (512, 8, True), (96, 12, False)])
def test_mha_formula_matches_nn_multiheadattention(d, h, bias):
    assert evaluate(pc.mha(bias=bias), d=d) == n_params(nn.MultiheadAttention(d, h, bias=bias))


@pytest.mark.parametrize("d,d_ff", [(16, 64), (512, 2048)])
def test_ffn_and_layer_norm(d, d_ff):
    ffn = nn.Sequential(nn.Linear(d, d_ff), nn.ReLU(), nn.Linear(d_ff, d))
    assert evaluate(pc.ffn(), d=d, d_ff=d_ff) == n_params(ffn)
    assert evaluate(pc.layer_norm(), d=d) == n_params(nn.LayerNorm(d))


@pytest.mark.parametrize("d,h,d_ff,bias", [(16, 4, 64, True), (64, 8, 256, True), (32, 4, 48, False)])
def test_encoder_and_decoder_layers_match_pytorch(d, h, d_ff, bias):
    enc = nn.TransformerEncoderLayer(d, h, d_ff, batch_first=True, bias=bias)
    dec = nn.TransformerDecoderLayer(d, h, d_ff, batch_first=True, bias=bias)
    assert evaluate(pc.encoder_layer(bias=bias), d=d, d_ff=d_ff) == n_params(enc)
    assert evaluate(pc.decoder_layer(bias=bias), d=d, d_ff=d_ff) == n_params(dec)


def test_encoder_decoder_matches_nn_transformer_plus_embeddings():
    d, h, d_ff, L_enc, L_dec, V = 32, 4, 64, 3, 2, 100
    model = nn.Transformer(d, h, L_enc, L_dec, d_ff, batch_first=True)
    embedding = nn.Embedding(V, d)  # shared by source, target and the tied output projection
    expected = pc.encoder_decoder(
        d, d_ff, L_enc, L_dec, V, V, shared_embeddings=True, tie_output=True, final_norms=True
    )
    assert int(expected) == n_params(model) + n_params(embedding)
    untied = pc.encoder_decoder(
        d, d_ff, L_enc, L_dec, V, V, shared_embeddings=False, tie_output=False, final_norms=True
    )
    assert int(untied) == int(expected) + 2 * V * d


def test_real_models_line_up_with_their_papers():
    assert int(pc.bert()) == 109_482_240  # BERT-base, the paper's "110M"
    assert int(pc.gpt2()) == 124_439_808  # GPT-2 small, "124M"
    assert 60e6 < int(pc.transformer_base()) < 66e6  # the paper's "65M", assumptions stated
    assert "37000" in pc.TRANSFORMER_BASE_ASSUMPTIONS


def test_cost_formulas_count_the_matmuls():
    from torch.utils.flop_counter import FlopCounterMode

    B, T, d, h = 2, 6, 16, 4
    q, k, v = (torch.randn(B, h, T, d // h) for _ in range(3))
    with FlopCounterMode(display=False) as counter:
        scores = q @ k.transpose(-2, -1)
    assert counter.get_total_flops() == evaluate(cost.qk_flops(), B=B, T=T, d=d)
    with FlopCounterMode(display=False) as counter:
        torch.softmax(scores, -1) @ v
    assert counter.get_total_flops() == evaluate(cost.weighted_sum_flops(), B=B, T=T, d=d)
    assert scores.numel() == evaluate(cost.score_elements(), B=B, T=T, h=h)
    assert cost.growth(cost.qk_flops()) == 4
    assert cost.growth(cost.projection_flops()) == 2


def test_softmax_commutes_with_permutations_3x3():
    assert prove_softmax_permutation(3)


def test_formulas_are_polynomials_in_named_symbols():
    assert {str(s) for s in pc.mha().free_symbols} == {"d"}
    assert (
        sympy.expand(
            pc.mha()
            - (
                4 * sympy.Symbol("d", positive=True, integer=True) ** 2
                + 4 * sympy.Symbol("d", positive=True, integer=True)
            )
        )
        == 0
    )
