"""Part 5, Pre-LN against Post-LN, measured (Xiong et al. 2020, "On Layer Normalization in the
Transformer Architecture"). Document 001 builds every layer Pre-LN and says so of "Transformers"
in general (*"In Transformers wird die Pre-LN-Methode verwendet"*), lists Pre-LayerNorm beside
learning-rate warm-up among the techniques that made deeper models trainable, and never
measures either; the original Transformer (Vaswani et al. 2017, 000's "Add Norm") is Post-LN.

(a) ``layer_grad_norms(seed, depth, arm)``: the student builds the notebook's stack of
``depth`` residual feed-forward blocks, Post-LN (``h = LN(h + F(h))``) or Pre-LN
(``h = h + F(LN(h))``, one final LN), from the locked ``norm_stack(seed, depth)`` (float64
numpy arrays), and returns each layer's gradient norm at initialisation,
sqrt(|dL/dW1|² + |dL/dW2|²), for the mean cross-entropy of the readout. Hidden probes: seeds and
depths 6–12 drawn per student id, both arms. Float32 noise: a float32 forward and backward
through 12 layers agrees with the float64 reference to ~1e-6 relative; the tolerance is 1e-4
relative (+1e-7), and every named mistake moves some layer by more than 1 % on every probe.

(b) ``norm_order_reading``: what the measurement (means over seeds 0–19, the notebook's stack)
shows, and what follows from it: Post-LN's gradients grow toward the output and are larger at
the last layer (the reason it needs a warm-up, Xiong et al.); Pre-LN's shrink toward the output
and shrink as the stack gets deeper. A student who believes 001 (Pre-LN as *the* Transformer's
order, warm-up for both) loses the point.
"""

import itertools

import numpy as np
import torch

from autograder.authoring import AllClose, Exact, Misconception, Probe, Question

POST, PRE, BOTH, NEITHER = "post-ln", "pre-ln", "both", "neither"
ARMS = (POST, PRE)
READING_OPTIONS = (POST, PRE, BOTH, NEITHER)
LN_EPS = 1e-5


# The notebook's locked cell ``norm_stack`` holds exactly this source (a content test checks it). It is
# compiled from this string, not defined in the module, so the mutation analysis does not take the
# drawing of the probe's stack (its sizes, scales, labels) for the student's work: the student calls
# the locked function as given.
NORM_STACK_SOURCE = '''\
def norm_stack(seed, depth):
    """The deep stack at initialisation, drawn from seed: float64 numpy arrays."""
    import numpy as np

    rng = np.random.default_rng(seed)
    d, d_ff, n, vocab = 32, 64, 32, 10
    return {
        "x": rng.standard_normal((n, d)),  # n token vectors entering layer 1
        "w1": rng.standard_normal((depth, d, d_ff)) / np.sqrt(d),  # layer l: F(h) = relu(h @ w1[l]) @ w2[l]
        "w2": rng.standard_normal((depth, d_ff, d)) / np.sqrt(d_ff),
        "w_out": rng.standard_normal((d, vocab)) / np.sqrt(d),  # logits = final h @ w_out
        "labels": rng.integers(0, vocab, n),  # the loss: mean cross-entropy of the logits
    }
'''


def _locked_norm_stack():
    namespace = {}
    exec(compile(NORM_STACK_SOURCE, "<norm_stack>", "exec"), namespace)
    return namespace["norm_stack"]


norm_stack = _locked_norm_stack()


def _layer_norm(h, unbiased=False):
    """torch's LayerNorm without scale and shift (biased variance); ``unbiased``: var over d − 1."""
    if not unbiased:
        return torch.nn.functional.layer_norm(h, h.shape[-1:], eps=LN_EPS)
    return (h - h.mean(-1, keepdim=True)) / torch.sqrt(h.var(-1, keepdim=True) + LN_EPS)


def _measured(
    seed, depth, arm, block=None, final_norm=None, both_matrices=True, unbiased=False, summed=False, per_layer=None
):
    """Each layer's gradient norm (float64); the keywords build the named mistakes (``per_layer``: what
    is made of the two gradients, (depth, d, d_ff) and (depth, d_ff, d), instead of the norms)."""
    stack = norm_stack(int(seed), int(depth))
    x = torch.tensor(stack["x"])
    w1 = torch.tensor(stack["w1"], requires_grad=True)
    w2 = torch.tensor(stack["w2"], requires_grad=True)

    def norm(h):
        return _layer_norm(h, unbiased)

    def sublayer(h, layer):
        return torch.relu(h @ w1[layer]) @ w2[layer]

    blocks = {
        POST: lambda h, layer: norm(h + sublayer(h, layer)),
        PRE: lambda h, layer: h + sublayer(norm(h), layer),
        "norm_before_add": lambda h, layer: h + norm(sublayer(h, layer)),
        "normed_residual": lambda h, layer: norm(h) + sublayer(norm(h), layer),
    }
    h = x
    for layer in range(int(depth)):
        h = blocks[block or arm](h, layer)
    if final_norm if final_norm is not None else arm == PRE:
        h = norm(h)
    logits = h @ torch.tensor(stack["w_out"])
    loss = torch.nn.functional.cross_entropy(
        logits, torch.tensor(stack["labels"]), reduction="sum" if summed else "mean"
    )
    loss.backward()
    if per_layer is not None:
        return per_layer(w1.grad, w2.grad)
    squares = w2.grad.pow(2).sum((1, 2)) + (w1.grad.pow(2).sum((1, 2)) if both_matrices else 0)
    return squares.sqrt().numpy()


def layer_grad_norms(seed, depth, arm):
    """(depth,): sqrt(|dL/dW1|^2 + |dL/dW2|^2) of each layer at initialisation, layer 1 first."""
    return _measured(seed, depth, arm)


def grad_probes(rng):
    probes = []
    depths = sorted(int(d) for d in rng.choice(np.arange(6, 13), 4, replace=False))
    for depth, arm in zip(depths, (POST, PRE, PRE, POST)):
        seed = int(rng.integers(0, 2**31 - 1))
        probes.append(Probe((seed, depth, arm), f"norm_stack({seed}, {depth}), {arm!r}"))
    return probes


# ---- another norm of the same two gradients: each matrix reduced by one of these (per layer), the two
# added or subtracted under one square root; or the two norms added, or the square root left out
MATRIX_REDUCTIONS = {
    "squares summed": lambda g: g.pow(2).sum((1, 2)),
    "squares averaged": lambda g: g.pow(2).mean((1, 2)),
    "entries summed": lambda g: g.sum((1, 2)),
    "absolute values summed": lambda g: g.abs().sum((1, 2)),
    "cubes summed": lambda g: g.pow(3).sum((1, 2)),
    "fourth powers summed": lambda g: g.pow(4).sum((1, 2)),
    "left out": lambda g: torch.zeros(g.shape[0], dtype=g.dtype),
}


def _other_norms(g1, g2):
    first = {name: reduce(g1) for name, reduce in MATRIX_REDUCTIONS.items()}
    second = {name: reduce(g2) for name, reduce in MATRIX_REDUCTIONS.items()}
    right = first["squares summed"] + second["squares summed"]
    out = [right, first["squares summed"].sqrt() + second["squares summed"].sqrt()]
    for a, b in itertools.product(MATRIX_REDUCTIONS, repeat=2):
        for total in (first[a] + second[b], first[a] - second[b], second[b] - first[a]):
            if {a, b} != {"left out"} and (total >= 0).all() and not torch.allclose(total, right, rtol=1e-3, atol=0):
                out.append(total.sqrt())
    return [o.numpy() for o in out]


def mean_of_squares(seed, depth, arm):
    """The two matrices' squared entries averaged (torch's ``.pow(2).mean()``) instead of summed."""
    reduce = MATRIX_REDUCTIONS["squares averaged"]
    return _measured(seed, depth, arm, per_layer=lambda g1, g2: (reduce(g1) + reduce(g2)).sqrt().numpy())


def another_norm(seed, depth, arm):
    return _measured(seed, depth, arm, per_layer=_other_norms)


def arms_swapped(seed, depth, arm):
    return _measured(seed, depth, PRE if arm == POST else POST)


# ---- (b) reading the measurement
MEASURED = {
    "grows_toward_output": POST,  # mean over seeds: last layer's norm above the first layer's
    "larger_last_layer_gradient": POST,  # at depth 12, mean over seeds
    "shrinks_with_depth": PRE,  # the last layer's mean norm at depth 24 below depth 6
    "needs_warmup": POST,  # Xiong et al.: large output-side gradients with a large learning rate
    "vaswani_2017": POST,  # the original Transformer: LayerNorm after each residual add ("Add & Norm")
}
MEASURED_KEYS = ("grows_toward_output", "larger_last_layer_gradient", "shrinks_with_depth")


def norm_order_reading():
    return dict(MEASURED)


def reading_with(**changed):
    return {**MEASURED, **changed}


def reading_swapped():
    swap = {POST: PRE, PRE: POST}
    return {k: swap[v] if k in MEASURED_KEYS else v for k, v in MEASURED.items()}


QUESTIONS = [
    Question(
        grade_id="layer_grad_norms",
        answer="layer_grad_norms",
        title="Each layer's gradient norm at initialisation, Post-LN and Pre-LN",
        reference=layer_grad_norms,
        probes=grad_probes,
        compare=AllClose(atol=1e-7, rtol=1e-4),
        visible=[Probe((7, 2, POST), "norm_stack(7, 2), 'post-ln'")],
        misconceptions=(
            Misconception(
                "arms_swapped",
                "Your two arms are exchanged: Post-LN normalises after the residual add, "
                "h = LN(h + F(h)); Pre-LN normalises the sub-layer's input and adds to the raw "
                "stream, h = h + F(LN(h)), with one LayerNorm after the last layer.",
                arms_swapped,
            ),
            Misconception(
                "norm_before_add",
                "Post-LN normalises the sum, after the residual add: h = LN(h + F(h)). "
                "Normalising the sub-layer's output before adding it (h + LN(F(h))) is another network.",
                lambda seed, depth, arm: _measured(seed, depth, arm, block="norm_before_add" if arm == POST else None),
            ),
            Misconception(
                "normed_residual",
                "In Pre-LN the residual path carries the raw stream: h = h + F(LN(h)). Adding the "
                "sub-layer's output to LN(h) normalises the stream in every layer.",
                lambda seed, depth, arm: _measured(seed, depth, arm, block="normed_residual" if arm == PRE else None),
            ),
            Misconception(
                "final_norm_missing",
                "A Pre-LN stack ends with one more LayerNorm after its last layer (001's "
                "TransformerEncoder and TransformerDecoder: return self.norm(x)); without it the "
                "readout sees the raw, growing stream.",
                lambda seed, depth, arm: _measured(seed, depth, arm, final_norm=False if arm == PRE else None),
            ),
            Misconception(
                "unbiased_variance",
                "LayerNorm divides by the biased variance (the mean of the squared deviations, "
                "over d); torch.var's default divides by d − 1.",
                lambda seed, depth, arm: _measured(seed, depth, arm, unbiased=True),
            ),
            Misconception(
                "second_matrix_only",
                "Each layer's norm counts the gradients of both its matrices, W1 and W2: sqrt(|dL/dW1|² + |dL/dW2|²).",
                lambda seed, depth, arm: _measured(seed, depth, arm, both_matrices=False),
            ),
            Misconception(
                "another_norm",
                "Each layer's number is one Frobenius norm of its two gradients together: every entry of "
                "dL/dW1 and of dL/dW2 squared, all of them summed (a sum, not a mean) and one square root "
                "taken of the total. Yours is another function of the same gradients: check the power, the "
                "reduction, how the two matrices are combined and the square root.",
                mean_of_squares,
                also_wrong=another_norm,
            ),
            Misconception(
                "summed_loss",
                "The loss is the mean cross-entropy over the tokens, not their sum: a sum "
                "multiplies every gradient by the number of tokens.",
                lambda seed, depth, arm: _measured(seed, depth, arm, summed=True),
            ),
        ),
    ),
    Question(
        grade_id="norm_order_reading",
        answer="norm_order_reading",
        title="Pre-LN against Post-LN: what the measurement shows",
        call=False,
        reference=norm_order_reading,
        compare=Exact(values_in=READING_OPTIONS),
        misconceptions=(
            Misconception(
                "arms_swapped",
                "Label your arms again: Post-LN is h = LN(h + F(h)), Pre-LN h = h + F(LN(h)). "
                "Measure which arm's gradients grow toward the output.",
                reading_swapped,
            ),
            Misconception(
                "original_was_pre_ln",
                'Document 001\'s "In Transformers wird die Pre-LN-Methode verwendet" describes its own '
                "code, not the 2017 paper: look at where the original Transformer's \"Add & Norm\" (000's "
                '"Add Norm") puts the LayerNorm, before or after the residual add.',
                lambda: reading_with(vaswani_2017=PRE),
            ),
            Misconception(
                "warmup_for_both",
                "001 lists Pre-LayerNorm beside learning-rate warm-up among the techniques for deeper "
                "models; that does not make both orders need the warm-up. It serves the arm whose last "
                "layers get large gradients at initialisation: read your measurement.",
                lambda: reading_with(needs_warmup=BOTH),
            ),
            Misconception(
                "pre_ln_needs_warmup",
                "Read your measurement again: the arm whose last layers get the large gradients at "
                "initialisation is the one that needs a small learning rate at first.",
                lambda: reading_with(needs_warmup=PRE),
            ),
            Misconception(
                "depth_independent",
                "Measure the last layer at depths 6, 12 and 24: in one arm the final LayerNorm "
                "divides by a stream that grows with every layer added.",
                lambda: reading_with(shrinks_with_depth=NEITHER),
            ),
        ),
    ),
]
