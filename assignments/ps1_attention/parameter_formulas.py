"""Part 4a, parameter formulas in d, h and d_ff (multi-head attention with and without biases,
the feed-forward block, an encoder layer, a decoder layer): each expected formula is
``solutions.derivations.param_counts``'s SymPy expression, graded by CAS equivalence; the
known-wrong formulas and their feedback."""

from solutions.derivations import param_counts as pc
from solutions.derivations.symbols import d, d_ff, h

from .common import formula

# The symbols part 4 offers (h cancels out of every count).
PARAM_SYMBOLS = ("d", "h", "d_ff")

QUESTIONS = [
    formula(
        "mha_params_formula",
        "Parameters of multi-head attention (with biases)",
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
        concept="count the learned maps of multi-head attention and, for each, its weights and its biases.",
    ),
    formula(
        "mha_params_no_bias_formula",
        "Parameters of multi-head attention (no biases)",
        pc.mha(bias=False),
        PARAM_SYMBOLS,
        [
            ("biases_counted", 4 * d**2 + 4 * d, "This part has no biases: count the weight matrices only."),
        ],
        concept="count the learned weight matrices of multi-head attention and the entries of each.",
    ),
    formula(
        "ffn_params_formula",
        "Parameters of the feed-forward block",
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
