"""Part 5a, document 001's "bank" (``bank_001``): after adding the positional encoding 001 says
that "bank" can have different final vectors *depending on its position in the sentence*, so as to
tell its senses "Bank" (money) and "Ufer" (river bank) apart. The sense comes from the words around
"bank", which attention mixes into its vector; a position vector only tells places apart, the
same for either sense. Measured with the student's own ``encoder_layer`` on a fixed layer and
fixed word vectors (the notebook's locked cell ``bank_data``, whose source is ``BANK_SOURCE``):
does bank's output vector differ between two sentences with other words around it, and between
two orders of the same words — without and with a sinusoidal encoding added?

"Differ" is judged against the vector's size (largest |a − b| > 1e-4 · largest |a|): in float32
the reordered sentence's sums change bank's vector by ~2e-7 of its size (no encoding), the other
words by ~0.66, and the encoding moves it by ~0.24 and ~0.73 — margins of three orders of
magnitude on either side of the threshold. Byte-for-byte equality (``torch.equal``) calls the
reordered vectors different (under the default and the avx2 kernels alike): a named mistake, its
answer every pair "different"."""

import numpy as np
import torch

from autograder.authoring import Exact, Misconception, Question

from .encoder_layer import encoder_layer

# The notebook's locked cell ``bank_data`` holds exactly this source (a content test checks it).
BANK_SOURCE = '''\
# Part 5a: a fixed encoder layer (d = 8, 2 heads, d_ff = 16) and fixed word vectors, drawn from a
# seeded generator. Call it as encoder_layer(x, None, *BANK_LAYER).
_bank_rng = np.random.default_rng(83)


def _bank_draw(*shape, scale=1.0):
    return torch.tensor(scale * _bank_rng.standard_normal(shape), dtype=torch.float32)


BANK_EMB = {w: _bank_draw(8) for w in ["the", "bank", "lent", "us", "money", "of", "river"]}
BANK_LAYER = (
    2,  # n_heads
    _bank_draw(8, scale=0.1) + 1, _bank_draw(8, scale=0.1),  # ln1_g, ln1_b
    # w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o
    *(a for _ in range(4) for a in (_bank_draw(8, 8, scale=8 ** -0.5), _bank_draw(8, scale=0.1))),
    _bank_draw(8, scale=0.1) + 1, _bank_draw(8, scale=0.1),  # ln2_g, ln2_b
    _bank_draw(16, 8, scale=8 ** -0.5), _bank_draw(16, scale=0.1),  # w1, b1
    _bank_draw(8, 16, scale=16 ** -0.5), _bank_draw(8, scale=0.1),  # w2, b2
)
BANK_SENTENCES = {
    "money": ["the", "bank", "lent", "us", "money"],
    "river": ["the", "bank", "of", "the", "river"],
    "moved": ["money", "lent", "us", "the", "bank"],
}


def bank_positions(t, d=8):
    """The sinusoidal encoding (base 10000) of positions 0 … t-1: a (t, d) float32 tensor."""
    pos = torch.arange(t, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.zeros(t, d, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return pe.float()
'''

PAIRS = {  # key -> (sentence, other sentence, positional encoding added)
    "context": ("money", "river", False),
    "position": ("money", "moved", False),
    "context_with_pe": ("money", "river", True),
    "position_with_pe": ("money", "moved", True),
}
RELATIVE_TOLERANCE = 1e-4


def fixed_layer() -> dict:
    """The locked cell's names, as the notebook defines them."""
    namespace = {"np": np, "torch": torch}
    exec(compile(BANK_SOURCE, "<bank_data>", "exec"), namespace)
    return namespace


def bank_vectors(layer_output: bool = True) -> dict:
    """key -> (bank's vector in the first sentence, in the second): the encoder layer's output row at
    bank's place (the reference layer), or with ``layer_output=False`` the layer's input row."""
    ns = fixed_layer()
    out = {}
    for key, (first, second, with_pe) in PAIRS.items():
        vectors = []
        for name in (first, second):
            words = ns["BANK_SENTENCES"][name]
            x = torch.stack([ns["BANK_EMB"][w] for w in words])[None]
            if with_pe:
                x = x + ns["bank_positions"](len(words))
            y = encoder_layer(x, None, *ns["BANK_LAYER"]) if layer_output else x
            vectors.append(y[0, words.index("bank")])
        out[key] = tuple(vectors)
    return out


def differ(a, b) -> bool:
    return bool((a - b).abs().max() > RELATIVE_TOLERANCE * a.abs().max())


def bank_001():
    return {key: differ(a, b) for key, (a, b) in bank_vectors().items()}


QUESTIONS = [
    Question(
        grade_id="bank_001",
        answer="bank_001",
        title='Document 001\'s "bank": position or context?',
        call=False,
        reference=bank_001,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "sense_from_position",
                "That is document 001's claim, that bank's place in the sentence tells its senses apart. "
                "Measure it: run the four pairs through your encoder_layer and compare bank's output "
                "rows with the stated tolerance. A position vector is the same for either sense at one "
                "place; what differs between the senses is the words around bank.",
                lambda: {"context": False, "position": True, "context_with_pe": False, "position_with_pe": True},
            ),
            Misconception(
                "inputs_compared",
                "You compared the layer's inputs (word vector plus position: 001's 'final embedding'). "
                "The words around bank reach its vector only through attention: compare the rows of "
                "encoder_layer's output.",
                lambda: {key: differ(a, b) for key, (a, b) in bank_vectors(layer_output=False).items()},
            ),
            Misconception(
                "float32_compared_exactly",
                "Compare float32 vectors with a tolerance against their size, as stated, not byte for "
                "byte (==, torch.equal): a sum taken in another order changes the last of float32's "
                "~7 significant digits.",
                lambda: dict.fromkeys(PAIRS, True),  # every pair differs in some bit (content test)
            ),
            Misconception(
                "no_context_without_positions",
                "Attention without positions is blind to the order of the words, not to which words are "
                "there: measure each pair with your encoder_layer.",
                lambda: {"context": False, "position": False, "context_with_pe": True, "position_with_pe": True},
            ),
        ),
    ),
]
