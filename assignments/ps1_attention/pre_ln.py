"""Part 4e, Pre-LN and the final LayerNorm (document 001: "In Transformers wird die
Pre-LN-Methode verwendet", its TransformerEncoder and TransformerDecoder each end in
``self.norm``): the student's model counted as a Pre-LN encoder-decoder with one LayerNorm
after each stack. The reference is ``solutions.derivations.param_counts`` (``final_norms``);
known-wrong tables and their feedback."""

from autograder.authoring import Exact, Misconception, Question
from solutions.derivations import param_counts as pc

from .parameter_counts import model_counts


def pre_ln_counts(*, norms_per_stack=1, norm_size=2, extra_norm_per_layer=False, **params):
    """The table with the stated conventions; the keywords put a known mistake back."""
    post = model_counts(**params)
    d = params["d_model"]
    extra_layer = 2 * d if extra_norm_per_layer else 0
    encoder_layer, decoder_layer = post["encoder_layer"] + extra_layer, post["decoder_layer"] + extra_layer
    total = (
        params["vocab"] * d
        + params["n_enc_layers"] * encoder_layer
        + params["n_dec_layers"] * decoder_layer
        + 2 * norms_per_stack * norm_size * d
    )
    return {"encoder_layer": encoder_layer, "decoder_layer": decoder_layer, "total": total}


def pre_ln_reference(**params):
    table = pre_ln_counts(**params)
    d = params["d_model"]
    exact = pc.encoder_decoder(
        d,
        params["d_ff_factor"] * d,
        params["n_enc_layers"],
        params["n_dec_layers"],
        params["vocab"],
        params["vocab"],
        shared_embeddings=True,
        tie_output=True,
        final_norms=True,
    )
    assert table["total"] == int(exact), "pre_ln_counts must agree with the SymPy derivation"
    return table


QUESTIONS = [
    Question(
        grade_id="pre_ln_counts",
        answer="pre_ln_counts",
        title="Your model as Pre-LN with final LayerNorms",
        call=False,
        personal=True,
        reference=pre_ln_reference,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "post_ln_total",
                "This is the Post-LN total: the Pre-LN model of this part has a LayerNorm after each "
                "stack as well (001's self.norm), and it has parameters.",
                lambda **p: pre_ln_counts(**p, norms_per_stack=0),
            ),
            Misconception(
                "final_norms_undercounted",
                "The final LayerNorms add too little here: both stacks end in their own LayerNorm "
                "(001's TransformerEncoder and TransformerDecoder each have a self.norm), and each "
                "has a gain and a bias per feature.",
                lambda **p: pre_ln_counts(**p, norm_size=1),
            ),
            Misconception(
                "pre_ln_adds_norms",
                "Moving each LayerNorm in front of its sub-layer does not add one: a Pre-LN layer "
                "has as many LayerNorms as a Post-LN layer.",
                lambda **p: pre_ln_counts(**p, extra_norm_per_layer=True),
            ),
        ),
    ),
]
