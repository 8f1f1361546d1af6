"""Part 4d, document 000's own parameter count (its Q2.2) under stated conventions: the
corrected table (``doc000_counts``, from ``parameter_counts.model_counts``, checked against
``solutions.derivations.param_counts``' SymPy total) and which of 000's lines carry an error of
their own (``doc000_wrong_lines``, a choice); known-wrong answers and their feedback, each
naming the error of 000 it repeats."""

from autograder.authoring import Choice, Exact, Misconception, Question
from solutions.derivations import param_counts as pc

from .parameter_counts import model_counts

# 000's setting (12 encoder, 8 decoder layers, model width 1024, "/4 … * 4": 4 heads) and the
# conventions the notebook states for the correction.
DOC000_CONFIG = {
    "d_model": 1024,
    "n_heads": 4,
    "d_ff_factor": 4,
    "vocab": 32000,
    "n_enc_layers": 12,
    "n_dec_layers": 8,
}

# 000's lines, verbatim: "Attention: (768*1024+1024) + (1024*768/4+768/4) * 3 * 4 = … = 3149056",
# "FF: (1024*1024/2+1024/2) + (1024/2*1024+1024) = … = 1050112", "Add Norm: 1024*2 = 2048".
DOC000_ATTENTION = (768 * 1024 + 1024) + (1024 * 768 // 4 + 768 // 4) * 3 * 4
DOC000_FFN = (1024 * 1024 // 2 + 1024 // 2) + (1024 // 2 * 1024 + 1024)
DOC000_ADD_NORM = 1024 * 2

WRONG_LINES_OPTIONS = ("A", "B", "C", "D", "E")
WRONG_LINES_ANSWER = "B"  # Attention, FF and Total Params (Total Encoder/Decoder only inherit)


def corrected_counts():
    table = model_counts(**DOC000_CONFIG)
    d = DOC000_CONFIG["d_model"]
    exact = pc.encoder_decoder(
        d,
        DOC000_CONFIG["d_ff_factor"] * d,
        DOC000_CONFIG["n_enc_layers"],
        DOC000_CONFIG["n_dec_layers"],
        DOC000_CONFIG["vocab"],
        DOC000_CONFIG["vocab"],
        shared_embeddings=True,
        tie_output=True,
        final_norms=False,
    )
    assert table["total"] == int(exact), "model_counts must agree with the SymPy derivation"
    return {"attention": table["mha"], **{k: table[k] for k in ("ffn", "encoder_layer", "decoder_layer", "total")}}


def counts_with(attention=None, ffn=None, decoder_as_encoder=False, embeddings=1):
    """The corrected table with one of 000's errors put back."""
    mha = corrected_counts()["attention"] if attention is None else attention
    ffn_count = corrected_counts()["ffn"] if ffn is None else ffn
    ln = 2 * DOC000_CONFIG["d_model"]
    encoder_layer = mha + ffn_count + 2 * ln
    decoder_layer = 2 * mha + ffn_count + 3 * ln
    n_enc, n_dec = DOC000_CONFIG["n_enc_layers"], DOC000_CONFIG["n_dec_layers"]
    stacks = n_enc * encoder_layer + (n_enc * encoder_layer if decoder_as_encoder else n_dec * decoder_layer)
    table = {"attention": mha, "ffn": ffn_count, "encoder_layer": encoder_layer, "decoder_layer": decoder_layer}
    table["total"] = embeddings * DOC000_CONFIG["vocab"] * DOC000_CONFIG["d_model"] + stacks
    return table


def doc000_printed_totals():
    """000's per-layer sums and stacks, recomputed from its own lines (the tests check them)."""
    encoder_layer = DOC000_ATTENTION + DOC000_FFN + 2 * DOC000_ADD_NORM
    decoder_layer = 2 * DOC000_ATTENTION + DOC000_FFN + 3 * DOC000_ADD_NORM
    n_enc, n_dec = DOC000_CONFIG["n_enc_layers"], DOC000_CONFIG["n_dec_layers"]
    return {
        "encoder_layer": encoder_layer,
        "decoder_layer": decoder_layer,
        "total_encoder": n_enc * encoder_layer,
        "total_decoder": n_dec * decoder_layer,
        "total_params": n_enc * encoder_layer + n_dec * decoder_layer,
    }


def doc000_as_printed():
    totals = doc000_printed_totals()
    return {
        "attention": DOC000_ATTENTION,
        "ffn": DOC000_FFN,
        "encoder_layer": totals["encoder_layer"],
        "decoder_layer": totals["decoder_layer"],
        "total": totals["total_params"],
    }


QUESTIONS = [
    Question(
        grade_id="doc000_counts",
        answer="doc000_counts",
        title="Document 000's parameter count, corrected",
        call=False,
        reference=corrected_counts,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "doc000_attention_768",
                "Your attention term is document 000's: it projects to 768 in a 1024-wide model. "
                "Under the stated conventions every projection is d_model × d_model.",
                lambda: counts_with(attention=DOC000_ATTENTION),
            ),
            Misconception(
                "doc000_ffn_narrows",
                "Your FFN is document 000's, which narrows to d/2; the stated FFN widens to d_ff = 4·d_model.",
                lambda: counts_with(ffn=DOC000_FFN),
            ),
            Misconception(
                "doc000_encoder_plus_encoder",
                "Your total adds the encoder stack twice, as document 000's last line writes it "
                '("50439168 + 50439168"): the decoder stack has its own layer count and its own layers.',
                lambda: counts_with(decoder_as_encoder=True),
            ),
            Misconception(
                "doc000_no_embeddings",
                "Document 000 counts no embedding table; the stated model has one shared table.",
                lambda: counts_with(embeddings=0),
            ),
            Misconception(
                "doc000_untied_output",
                "Your total ignores the weight tying: the one stated table serves source, target and the "
                "output projection — an output projection of its own, or separate source and target "
                "tables, adds parameters this model does not have.",
                lambda: counts_with(embeddings=2),
                also_wrong=lambda: [counts_with(embeddings=3)],  # source, target and output apart
            ),
            Misconception(
                "doc000_as_printed",
                "These are document 000's own numbers: correct its terms under the stated conventions.",
                doc000_as_printed,
            ),
        ),
    ),
    Question(
        grade_id="doc000_wrong_lines",
        answer="doc000_wrong_lines",
        title="Which of document 000's lines carry an error of their own",
        call=False,
        reference=lambda: WRONG_LINES_ANSWER,
        compare=Choice(WRONG_LINES_OPTIONS),
        misconceptions=(
            Misconception(
                "total_line_missed",
                "Read 000's last line term by term: its label, the two numbers it adds and its result "
                "do not all agree.",
                lambda: "A",
            ),
            Misconception(
                "attention_line_missed",
                "Check 000's attention line against the stated width: every projection is d_model × d_model.",
                lambda: "C",
            ),
            Misconception(
                "inherited_errors",
                "Total Encoder and Total Decoder multiply their layer sums correctly; an error they "
                "carry comes from a line above them.",
                lambda: "D",
            ),
            Misconception(
                "ffn_judged_against_half",
                "Judge every line against this part's stated conventions: with d_ff = 4·d_model, an FF "
                "line that narrows to d/2 is a wrong term of its own, whatever 000's homework asked.",
                lambda: "E",
            ),
        ),
    ),
]
