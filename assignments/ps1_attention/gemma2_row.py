"""Part 4e, document 001's Gemma-2 row ("Nur-Decoder · - · 18-36 · 2B-27B"): 18 and 28 layers are
Gemma 1's (2B, 7B); Gemma-2's checkpoints have 26, 42 and 46. The notebook gives Gemma-2's published
configurations (``config.json``: width, query and key/value heads, head width, FFN width) and the
parameter totals of its checkpoints, not the layer counts: the student counts one decoder layer
(grouped-query attention, GeGLU, four RMSNorms, no biases) and reads the number of layers off each
total (``gemma2_001``). A student who copies 001's row, or counts a layer with a slip, loses the
points; with a slip the totals do not divide into whole layers, which the notebook says."""

from autograder.authoring import Exact, Misconception, Question

VOCAB = 256_000
# name -> (d, query heads, key/value heads, head width, d_ff, parameters in the checkpoint)
GEMMA2 = {
    "2b": (2304, 8, 4, 256, 9216, 2_614_341_888),
    "9b": (3584, 16, 8, 256, 14336, 9_241_705_984),
    "27b": (4608, 32, 16, 128, 36864, 27_227_128_320),
}
DOCUMENT_001_LAYERS = [18, 36]  # its row's "18-36"


def layer_params(d, h, h_kv, d_h, d_ff, *, grouped=True, ffn_matrices=3, norms=4, biases=False, square=False):
    """One Gemma-2 decoder layer: Q, K, V, O without bias, a gated FFN (gate, up, down), four
    RMSNorm gains. The keywords are the known slips: K/V with as many heads as Q (``grouped=False``),
    ``ffn_matrices`` FFN matrices, ``norms`` norms, biases on every linear map, d × d projections."""
    h_kv = h_kv if grouped else h
    q_width, kv_width = (d, d * h_kv // h) if square else (h * d_h, h_kv * d_h)
    attention = 2 * d * q_width + 2 * d * kv_width
    ffn = ffn_matrices * d * d_ff
    bias = (q_width + 2 * kv_width + d + (ffn_matrices - 1) * d_ff + d) if biases else 0
    return attention + ffn + norms * d + bias


def layers_from_total(total, d, per_layer, tables=1, rounding=round):
    """How many layers a total holds once the embedding table(s) and the final norm are taken off."""
    return rounding((total - tables * VOCAB * d - d) / per_layer)


def gemma2_counts(tables=1, rounding=round, document_layers=False, **slip):
    """The answer's dict; ``slip``: ``layer_params``' keywords; ``tables``: embedding tables taken
    off each total; ``rounding``: what a student does with layer counts that are not whole."""
    per_layer = {name: layer_params(*cfg[:5], **slip) for name, cfg in GEMMA2.items()}
    layers = [layers_from_total(cfg[5], cfg[0], per_layer[name], tables, rounding) for name, cfg in GEMMA2.items()]
    layer_range = list(DOCUMENT_001_LAYERS) if document_layers else [min(layers), max(layers)]
    return {"per_layer": per_layer, "layers": layer_range}


def gemma2_001():
    exact = gemma2_counts(rounding=lambda x: x)["layers"]
    assert all(float(n).is_integer() for n in exact), "the totals must hold whole layers"
    return gemma2_counts()


SLIPS = {  # name -> (gemma2_counts' keywords, feedback)
    "document_001_row": (
        dict(document_layers=True),
        "Your layer range is document 001's row: 18 (and 28) are the layers of Gemma 1's 2B (and 7B), "
        "not of Gemma-2. Read each model's layers off its total.",
    ),
    "kv_heads_as_query_heads": (
        dict(grouped=False),
        "Gemma-2 uses grouped-query attention: W_K and W_V have only h_kv heads of width d_h, "
        "fewer than the query heads.",
    ),
    "ffn_without_gate": (
        dict(ffn_matrices=2),
        "Gemma-2's FFN is gated (GeGLU): a gate and an up projection d → d_ff, then the down "
        "projection — three matrices, not two.",
    ),
    "two_norms_per_layer": (
        dict(norms=2),
        "Each Gemma-2 layer normalises before and after the attention and before and after the FFN: "
        "count every RMSNorm's gain.",
    ),
    "biases_counted": (
        dict(biases=True),
        "Gemma-2 has no biases: this question's conventions replace part 4's 'every linear map has a bias'.",
    ),
    "projections_d_by_d": (
        dict(square=True),
        "In Gemma-2 the query heads times their width is not the model width d: W_Q maps d to h·d_h "
        "(and W_K, W_V to h_kv·d_h), so the projections are not d × d.",
    ),
    "untied_head": (
        dict(tables=2),
        "Gemma-2's output head is tied to its embedding table (stated above): one table of "
        "vocabulary × d comes off each total, not two.",
    ),
}


def _misconception(name, spec, feedback):
    """A slip's answer with its layers rounded; also as they come out (not whole) or cut down."""
    also = None
    if name != "document_001_row":
        also = lambda: [gemma2_counts(**spec, rounding=lambda x: x), gemma2_counts(**spec, rounding=int)]  # noqa: E731
    return Misconception(name, feedback, lambda: gemma2_counts(**spec), also_wrong=also)


QUESTIONS = [
    Question(
        grade_id="gemma2_001",
        answer="gemma2_001",
        title="Document 001's Gemma-2 row",
        call=False,
        reference=gemma2_001,
        compare=Exact(),
        misconceptions=tuple(_misconception(name, spec, feedback) for name, (spec, feedback) in SLIPS.items()),
    ),
]
