"""Part 4b, the parameter counts of the student's own encoder-decoder (per block, per layer and
in total): the count table (checked against ``solutions.derivations.param_counts``' SymPy
total), the known-wrong tables and their feedback."""

from autograder.authoring import Exact, Misconception, Question
from solutions.derivations import param_counts as pc
from solutions.derivations.symbols import evaluate


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
    extra_tables=None,
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
    tables = (2 if untied else 1) if extra_tables is None else 1 + extra_tables
    total = tables * vocab * d_model + n_enc_layers * enc + n_dec * dec
    return {"mha": mha, "ffn": ffn, "encoder_layer": enc, "decoder_layer": dec, "total": total}


def derived_total(params, final_norms=False) -> int:
    """The student's model's total from the SymPy derivation: one shared, tied vocabulary table;
    ``final_norms`` adds a LayerNorm after each stack (Pre-LN)."""
    d_model = params["d_model"]
    return int(
        pc.encoder_decoder(
            d_model,
            params["d_ff_factor"] * d_model,
            params["n_enc_layers"],
            params["n_dec_layers"],
            params["vocab"],
            params["vocab"],
            shared_embeddings=True,
            tie_output=True,
            final_norms=final_norms,
        )
    )


def _counts_reference(**params):
    table = model_counts(**params)
    assert table["total"] == derived_total(params), "model_counts must agree with the SymPy derivation"
    return table


QUESTIONS = [
    Question(
        grade_id="param_counts",
        answer="param_counts",
        title="Parameter counts for your configuration",
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
                "Your total ignores the weight tying: one embedding table serves source, target and "
                "the output projection (stated above) — an output projection of its own, or separate "
                "source and target tables, adds parameters this model does not have.",
                lambda **p: model_counts(**p, untied=True),
                also_wrong=lambda **p: [model_counts(**p, extra_tables=2)],  # source, target and output apart
            ),
        ),
    ),
]
