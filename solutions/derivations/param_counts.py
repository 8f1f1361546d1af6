"""Parameter counts of Transformer blocks and of whole models, as SymPy expressions.

Conventions (the same as PyTorch's modules, which the tests count against):

* A linear map R^a → R^b has a·b weights plus b biases when ``bias`` is on.
* Multi-head attention projects queries, keys and values (d → h·d_k, h·d_k, h·d_v) and maps the
  concatenated heads back (h·d_v → d). With d_k = d_v = d/h this is 4d² weights + 4d biases;
  the number of heads then does not appear at all.
* LayerNorm has a gain and a bias per feature (2d), or the gain only (d) with ``bias=False``
  — PyTorch's ``nn.TransformerEncoderLayer(bias=False)`` drops the LayerNorm biases too.
* FFN: d → d_ff → d, two linear maps: 2·d·d_ff weights + d_ff + d biases.
* Encoder layer = self-attention + FFN + 2 LayerNorms; decoder layer = self-attention +
  cross-attention + FFN + 3 LayerNorms. Pre-LN and Post-LN have the same count.
* Sinusoidal positions and RoPE have no parameters; a learned table has P·d.
"""

from __future__ import annotations

import sympy

from solutions.derivations.symbols import L_dec, L_enc, V, V_src, V_tgt, d, d_ff, d_k, h

__all__ = [
    "linear",
    "mha",
    "mha_heads",
    "mha_pytorch",
    "ffn",
    "layer_norm",
    "embedding",
    "encoder_layer",
    "decoder_layer",
    "encoder_decoder_terms",
    "encoder_decoder",
    "bert",
    "gpt2",
    "transformer_base",
    "TRANSFORMER_BASE_ASSUMPTIONS",
]

One = sympy.Integer(1)


def _b(flag: bool) -> sympy.Integer:
    return One if flag else sympy.Integer(0)


def linear(n_in=d, n_out=d, *, bias: bool = True) -> sympy.Expr:
    """``nn.Linear(n_in, n_out, bias)``: n_in·n_out + n_out."""
    return n_in * n_out + _b(bias) * n_out


def mha(d=d, *, bias: bool = True) -> sympy.Expr:
    """Standard multi-head attention with d_k = d_v = d/h: 4d² + 4d (bias) or 4d²."""
    return sympy.expand(4 * linear(d, d, bias=bias))


def mha_heads(d=d, h=h, d_k=d_k, d_v=None, *, bias: bool = True) -> sympy.Expr:
    """Multi-head attention whose heads need not split d: h heads of width d_k (queries and
    keys) and d_v (values, default d_k). Q, K: d → h·d_k; V: d → h·d_v; output h·d_v → d.
    Reduces to :func:`mha` when h·d_k = h·d_v = d."""
    d_v = d_k if d_v is None else d_v
    return sympy.expand(
        2 * linear(d, h * d_k, bias=bias) + linear(d, h * d_v, bias=bias) + linear(h * d_v, d, bias=bias)
    )


def mha_pytorch(d=d, kdim=None, vdim=None, *, bias: bool = True, add_bias_kv: bool = False) -> sympy.Expr:
    """``nn.MultiheadAttention(d, h, bias=..., add_bias_kv=..., kdim=..., vdim=...)``:
    keys and values may come from inputs of width kdim / vdim (projected to d);
    ``add_bias_kv`` appends one learned key and one learned value row (2d)."""
    kdim = d if kdim is None else kdim
    vdim = d if vdim is None else vdim
    weights = d * d + d * kdim + d * vdim + d * d
    return sympy.expand(weights + _b(bias) * 4 * d + _b(add_bias_kv) * 2 * d)


def ffn(d=d, d_ff=d_ff, *, bias: bool = True) -> sympy.Expr:
    """Position-wise feed-forward d → d_ff → d: 2·d·d_ff + d_ff + d (bias) or 2·d·d_ff."""
    return sympy.expand(linear(d, d_ff, bias=bias) + linear(d_ff, d, bias=bias))


def layer_norm(d=d, *, bias: bool = True) -> sympy.Expr:
    """``nn.LayerNorm(d, bias=...)``: gain + bias = 2d, gain only = d."""
    return (1 + _b(bias)) * d


def embedding(V=V, d=d) -> sympy.Expr:
    """A token (or learned position) table: V·d."""
    return V * d


def encoder_layer(d=d, d_ff=d_ff, *, bias: bool = True) -> sympy.Expr:
    """Self-attention + FFN + 2 LayerNorms — ``nn.TransformerEncoderLayer(d, h, d_ff, bias=)``."""
    return sympy.expand(mha(d, bias=bias) + ffn(d, d_ff, bias=bias) + 2 * layer_norm(d, bias=bias))


def decoder_layer(d=d, d_ff=d_ff, *, bias: bool = True) -> sympy.Expr:
    """Masked self-attention + cross-attention + FFN + 3 LayerNorms —
    ``nn.TransformerDecoderLayer(d, h, d_ff, bias=)``."""
    return sympy.expand(2 * mha(d, bias=bias) + ffn(d, d_ff, bias=bias) + 3 * layer_norm(d, bias=bias))


def encoder_decoder_terms(
    d=d,
    d_ff=d_ff,
    L_enc=L_enc,
    L_dec=L_dec,
    V_src=V_src,
    V_tgt=V_tgt,
    *,
    bias: bool = True,
    shared_embeddings: bool = False,
    tie_output: bool = True,
    output_bias: bool = False,
    learned_positions=None,
    final_norms: bool = True,
) -> dict[str, sympy.Expr]:
    """Every parameter group of an encoder-decoder Transformer, by name.

    * ``shared_embeddings``: source and target use one table (one vocabulary; V_src is used
      and must equal V_tgt).
    * ``tie_output``: the output projection d → V_tgt reuses the target embedding's weights
      (no extra weights); untied it adds V_tgt·d.
    * ``output_bias``: a bias of V_tgt on the output projection (tied or not).
    * ``learned_positions``: None for sinusoidal/RoPE (no parameters), or the number of rows P
      of a learned table; the encoder and the decoder each get one.
    * ``final_norms``: a LayerNorm after each stack (Pre-LN models, and ``nn.Transformer``).
    Groups that are zero under the chosen flags are left out.
    """
    terms = {
        "source embedding": embedding(V_src, d),
        "target embedding": 0 if shared_embeddings else embedding(V_tgt, d),
        "encoder layers": L_enc * encoder_layer(d, d_ff, bias=bias),
        "decoder layers": L_dec * decoder_layer(d, d_ff, bias=bias),
        "final norms": 2 * layer_norm(d, bias=bias) if final_norms else 0,
        "output projection": 0 if tie_output else V_tgt * d,
        "output bias": V_tgt if output_bias else 0,
        "positional tables": 2 * learned_positions * d if learned_positions is not None else 0,
    }
    return {name: sympy.sympify(value) for name, value in terms.items() if value != 0}


def encoder_decoder(*args, **kwargs) -> sympy.Expr:
    """Total of :func:`encoder_decoder_terms` (same arguments)."""
    return sympy.expand(sum(encoder_decoder_terms(*args, **kwargs).values()))


def bert(V=30522, P=512, token_types=2, L=12, d=768, d_ff=3072, *, pooler: bool = True) -> sympy.Expr:
    """BERT's encoder (``BertModel``), without the pre-training heads.

    Embeddings: token V·d + learned positions P·d + token types·d, then a LayerNorm (2d);
    L Post-LN encoder layers with biases everywhere (each = :func:`encoder_layer`);
    pooler: one d → d linear with bias (on the [CLS] vector). BERT-base (the defaults):
    109,482,240.
    """
    embeddings = (V + P + token_types) * d + layer_norm(d)
    pool = linear(d, d) if pooler else 0
    return sympy.expand(embeddings + L * encoder_layer(d, d_ff) + pool)


def gpt2(V=50257, P=1024, L=12, d=768, d_ff=None, *, tied_head: bool = True) -> sympy.Expr:
    """GPT-2 (``GPT2LMHeadModel``): token table V·d, learned positions P·d, L Pre-LN decoder-only
    blocks (self-attention + FFN + 2 LayerNorms = :func:`encoder_layer`, biases everywhere,
    d_ff = 4d by default), a final LayerNorm, and an LM head d → V without bias whose weights are
    the token table when ``tied_head`` (no extra parameters). GPT-2 small (defaults): 124,439,808.
    """
    d_ff = 4 * d if d_ff is None else d_ff
    head = 0 if tied_head else V * d
    return sympy.expand((V + P) * d + L * encoder_layer(d, d_ff) + layer_norm(d) + head)


TRANSFORMER_BASE_ASSUMPTIONS = """\
Transformer-base of "Attention is all you need" (Vaswani et al. 2017), as counted here:
d_model = 512, d_ff = 2048, h = 8 (d_k = d_v = 64), 6 encoder and 6 decoder layers;
one shared byte-pair vocabulary of 37000 tokens (the paper's English-German setting) with ONE
embedding matrix used for the source embedding, the target embedding and the pre-softmax
projection (paper, section 3.4), and no bias on that projection; biases on every attention and
feed-forward linear map; LayerNorm with gain and bias after each sub-layer (Post-LN), and no
extra LayerNorm at the end of either stack; sinusoidal positions (no parameters).
The paper's Table 3 reports "65 × 10^6" for the base model without saying how it counted;
under these assumptions the count is 63,082,496 (about 63.1 M). Adding nn.Transformer's two
final LayerNorms gives 63,084,544; untying the output projection would add 18,944,000."""


def transformer_base(*, final_norms: bool = False, V=37000) -> sympy.Expr:
    """Parameter count of the base Transformer; see ``TRANSFORMER_BASE_ASSUMPTIONS``."""
    return encoder_decoder(
        512,
        2048,
        6,
        6,
        V,
        V,
        shared_embeddings=True,
        tie_output=True,
        output_bias=False,
        learned_positions=None,
        final_norms=final_norms,
    )
