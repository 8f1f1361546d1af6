"""PS1 parts 4-6 — parameter counts, cost, attention as a dense layer: question specs.

Every expected value comes from ``solutions/derivations`` (SymPy), evaluated at the student's
own configuration; formulas are graded by CAS equivalence after a safe parse.
"""

import sympy

from autograder.authoring import AllClose, Exact, Formula, Misconception, Question
from solutions.derivations import cost
from solutions.derivations import param_counts as pc
from solutions.derivations.symbols import T, d, d_ff, evaluate, h

D, N = sympy.symbols("D N", positive=True, integer=True)


def formula(grade_id, title, points, reference, symbols, misconceptions):
    return Question(
        grade_id=grade_id,
        answer=grade_id,
        title=title,
        points=points,
        call=False,
        reference=lambda: reference,
        compare=Formula(tuple(symbols)),
        misconceptions=tuple(Misconception(n, f, (lambda e=e: e)) for n, e, f in misconceptions),
    )


# The symbols part 4 offers (h cancels out of every count).
PARAM_SYMBOLS = ("d", "h", "d_ff")

FORMULAS = [
    formula(
        "mha_params_formula",
        "Parameters of multi-head attention (with biases)",
        1,
        pc.mha(bias=True),
        PARAM_SYMBOLS,
        [
            (
                "biases_missing",
                4 * d**2,
                "You counted the weight matrices only — each of the four projections has a bias vector too.",
            ),
            (
                "output_projection_missing",
                3 * d**2 + 3 * d,
                "Multi-head attention has four d×d maps: W_Q, W_K, W_V and the output projection W_O.",
            ),
            (
                "full_width_per_head",
                4 * h * d**2 + 4 * h * d,
                "The heads split d (d_k = d/h): the head count does not multiply the parameters.",
            ),
        ],
    ),
    formula(
        "mha_params_no_bias_formula",
        "Parameters of multi-head attention (no biases)",
        1,
        pc.mha(bias=False),
        PARAM_SYMBOLS,
        [
            ("biases_counted", 4 * d**2 + 4 * d, "This part has no biases: count the weight matrices only."),
        ],
    ),
    formula(
        "ffn_params_formula",
        "Parameters of the feed-forward block",
        1,
        pc.ffn(),
        PARAM_SYMBOLS,
        [
            ("ffn_biases_missing", 2 * d * d_ff, "Both linear maps have biases: one per output unit of each."),
            ("ffn_one_layer", d * d_ff + d_ff, "The FFN has two linear maps, d → d_ff and d_ff → d."),
        ],
    ),
    formula(
        "encoder_layer_formula",
        "Parameters of an encoder layer",
        1,
        pc.encoder_layer(),
        PARAM_SYMBOLS,
        [
            (
                "layer_norms_missing",
                pc.mha() + pc.ffn(),
                "Each of the two sub-layers has a LayerNorm with a gain and a bias per feature: count them.",
            ),
        ],
    ),
    formula(
        "decoder_layer_formula",
        "Parameters of a decoder layer",
        1,
        pc.decoder_layer(),
        PARAM_SYMBOLS,
        [
            (
                "cross_attention_missing",
                pc.encoder_layer(),
                "A decoder layer has a second attention block — cross-attention over the encoder output — "
                "and a third LayerNorm.",
            ),
        ],
    ),
]


def model_counts(
    d_model,
    n_heads,
    d_ff_factor,
    vocab,
    n_enc_layers,
    n_dec_layers,
    *,
    ffn_width=None,
    attention_width=None,
    decoder_as_encoder=False,
    untied=False,
    **_,
):
    """The count table for a student's configuration (conventions stated in the notebook)."""
    width = d_ff_factor * d_model if ffn_width is None else ffn_width
    a = attention_width or d_model
    mha = evaluate(pc.mha(), d=a) if attention_width else evaluate(pc.mha(), d=d_model)
    ffn = evaluate(pc.ffn(), d=d_model, d_ff=width)
    ln = evaluate(pc.layer_norm(), d=d_model)
    enc = mha + ffn + 2 * ln
    dec = enc if decoder_as_encoder else 2 * mha + ffn + 3 * ln
    n_dec = n_enc_layers if decoder_as_encoder else n_dec_layers
    total = vocab * d_model + n_enc_layers * enc + n_dec * dec + (vocab * d_model if untied else 0)
    return {"mha": mha, "ffn": ffn, "encoder_layer": enc, "decoder_layer": dec, "total": total}


def _counts_reference(**params):
    d_model = params["d_model"]
    table = model_counts(**params)
    exact = int(
        pc.encoder_decoder(
            d_model,
            params["d_ff_factor"] * d_model,
            params["n_enc_layers"],
            params["n_dec_layers"],
            params["vocab"],
            params["vocab"],
            shared_embeddings=True,
            tie_output=True,
            final_norms=False,
        )
    )
    assert table["total"] == exact, "model_counts must agree with the SymPy derivation"
    return table


COUNTS = Question(
    grade_id="param_counts",
    answer="param_counts",
    title="Parameter counts for your configuration",
    points=3,
    call=False,
    personal=True,
    reference=_counts_reference,
    compare=Exact(),
    misconceptions=(
        Misconception(
            "encoder_plus_encoder",
            'Your total counts the encoder twice ("encoder + encoder", as document 000 writes): '
            "the decoder stack has its own layer count and each decoder layer has cross-attention "
            "and a third LayerNorm.",
            lambda **p: model_counts(**p, decoder_as_encoder=True),
        ),
        Misconception(
            "ffn_narrows_counts",
            "The FFN widens to d_ff = 4·d_model; it does not narrow to d/2.",
            lambda **p: model_counts(**p, ffn_width=p["d_model"] // 2),
        ),
        Misconception(
            "mixed_widths",
            "The attention term uses another width than the model (document 000 "
            "mixes 768 and 1024): every projection here is d_model × d_model.",
            lambda **p: model_counts(**p, attention_width=768 if p["d_model"] != 768 else 1024),
        ),
        Misconception(
            "untied_output",
            "This model ties the output projection to the shared embedding (stated above): it adds no parameters.",
            lambda **p: model_counts(**p, untied=True),
        ),
    ),
)

REAL_MODELS = Question(
    grade_id="real_models",
    answer="real_models",
    title="Real models against their papers",
    points=2,
    call=False,
    compare=Exact(),
    reference=lambda: {
        "bert_base": int(pc.bert()),
        "gpt2_small": int(pc.gpt2()),
        "transformer_base": int(pc.transformer_base()),
    },
    misconceptions=(
        Misconception(
            "bert_without_pooler",
            "BERT-base's 110M includes the pooler (a d×d linear with bias on [CLS]): count it.",
            lambda: {
                "bert_base": int(pc.bert(pooler=False)),
                "gpt2_small": int(pc.gpt2()),
                "transformer_base": int(pc.transformer_base()),
            },
        ),
        Misconception(
            "gpt2_untied_head",
            "GPT-2 ties its LM head to the token embedding: no extra V·d.",
            lambda: {
                "bert_base": int(pc.bert()),
                "gpt2_small": int(pc.gpt2(tied_head=False)),
                "transformer_base": int(pc.transformer_base()),
            },
        ),
    ),
)

COST = [
    formula(
        "qk_flops_formula",
        "FLOPs of QKᵀ (one sequence, all heads)",
        1,
        cost.qk_flops(B=1),
        ("T", "d", "h"),
        [
            (
                "flops_without_factor_2",
                T**2 * d,
                "In the 2mnp convention a multiply-add counts 2 FLOPs: you counted each multiply-add once.",
            ),
            (
                "heads_multiply",
                2 * h * T**2 * d,
                "Each head works on d/h dimensions, so the head count cancels: h heads of d/h dimensions each.",
            ),
        ],
    ),
    formula(
        "weighted_sum_flops_formula",
        "FLOPs of the weighted sum A·V",
        1,
        cost.weighted_sum_flops(B=1),
        ("T", "d", "h"),
        [
            ("weighted_sum_without_factor_2", T**2 * d, "Count 2 FLOPs per multiply-add: you counted each once."),
        ],
    ),
    formula(
        "score_entries_formula",
        "Entries of the score tensor (one sequence)",
        1,
        cost.score_elements(B=1),
        ("T", "d", "h"),
        [
            ("scores_without_heads", T**2, "Every head has its own T×T score matrix: count them all."),
            (
                "scores_times_width",
                T**2 * d,
                "The scores are one number per (head, query, key): the width d does not enter.",
            ),
        ],
    ),
    Question(
        grade_id="growth_when_T_doubles",
        answer="growth_when_T_doubles",
        points=1,
        call=False,
        title="Growth of the score cost when T doubles",
        compare=AllClose(atol=1e-9, rtol=0),
        reference=lambda: float(cost.growth(cost.qk_flops(B=1))),
        misconceptions=(
            Misconception("linear_growth", "QKᵀ is quadratic in T: doubling T multiplies it by 4, not 2.", lambda: 2.0),
        ),
    ),
]

DENSE = [
    formula(
        "dense_layer_params_formula",
        "A dense layer on the flattened sequence (with bias)",
        1,
        (N * D) ** 2 + N * D,
        ("N", "D"),
        [
            ("dense_without_bias", (N * D) ** 2, "With a bias: one per output."),
            (
                "dense_per_token",
                D**2 + D,
                "The dense layer maps the whole flattened sequence (N·D numbers) "
                "to N·D numbers: (ND)² weights, not D² per token.",
            ),
        ],
    ),
    Question(
        grade_id="attention_sparsity",
        answer="attention_sparsity",
        points=1,
        call=False,
        title="Is softmax attention sparse?",
        compare=Exact(),
        reference=lambda: "B",
        misconceptions=(
            Misconception(
                "softmax_is_sparse",
                "Softmax weights are all strictly positive (e^x > 0): attention is "
                "dense, though often concentrated on a few keys.",
                lambda: "A",
            ),
        ),
    ),
]
