"""Part 4b, Pre-LN and the final LayerNorm (document 001: "In Transformers wird die
Pre-LN-Methode verwendet", its TransformerEncoder and TransformerDecoder each end in
``self.norm``): how many parameters the student's model gains when it is built Pre-LN with one
LayerNorm after each stack instead of Post-LN. Asked as a difference, so a mistake in
``param_counts`` is not charged again here. The reference is the difference of
``solutions.derivations.param_counts`` totals (``final_norms``); known-wrong answers and their
feedback."""

from autograder.authoring import Exact, Misconception, Question

from .parameter_counts import derived_total


def pre_ln_extra(**params):
    """Pre-LN minus Post-LN, in total."""
    return derived_total(params, final_norms=True) - derived_total(params)


def extra_with(norms_per_stack=1, norm_size=2, norm_per_layer=False):
    """The table with a known mistake put back (the keywords)."""

    def wrong(**params):
        d = params["d_model"]
        layer = 2 * d if norm_per_layer else 0
        stacks = (params["n_enc_layers"] + params["n_dec_layers"]) * layer
        return stacks + 2 * norms_per_stack * norm_size * d

    return wrong


QUESTIONS = [
    Question(
        grade_id="pre_ln_extra",
        answer="pre_ln_extra",
        title="What Pre-LN with final LayerNorms adds to your model",
        call=False,
        personal=True,
        reference=pre_ln_extra,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "final_norms_missing",
                "The Pre-LN model of this part has a LayerNorm after each stack (001's self.norm), "
                "and a LayerNorm has parameters.",
                extra_with(norms_per_stack=0),
            ),
            Misconception(
                "final_norms_undercounted",
                "The final LayerNorms add too little here: both stacks end in their own LayerNorm "
                "(001's TransformerEncoder and TransformerDecoder each have a self.norm), and each "
                "has a gain and a bias per feature.",
                extra_with(norm_size=1),
            ),
            Misconception(
                "post_minus_pre",
                "Read the question's order: it asks what the Pre-LN model has beyond the Post-LN "
                "one (Pre-LN minus Post-LN): recheck the order of your difference.",
                lambda **p: -pre_ln_extra(**p),
            ),
            Misconception(
                "pre_ln_adds_norms",
                "Moving each LayerNorm in front of its sub-layer does not add one: a Pre-LN layer "
                "has as many LayerNorms as a Post-LN layer.",
                extra_with(norm_per_layer=True),
            ),
        ),
    ),
]
