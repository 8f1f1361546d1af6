"""PS6 — self-contained sources of the references that other answers call (root cause across
questions). When a student's ``layer_norm`` fails and their ``encoder_layer`` fails too, the
grader re-asks ``encoder_layer`` in the sandbox with ``layer_norm`` bound to the function below
(compiled there like a probe function, with only ``torch``, ``np`` and ``math`` in scope): if it
passes then, the encoder layer is right and the feedback points at ``layer_norm``.

Each source must compute exactly what ``ps6_reference`` does; tests/grading/test_root_cause.py checks
them against it on the hidden probes.
"""

from autograder.authoring import FunctionSource

LAYER_NORM = FunctionSource(
    """
def layer_norm(x, gamma, beta, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps)
""",
    "layer_norm",
)

FEED_FORWARD = FunctionSource(
    """
def feed_forward(x, w1, b1, w2, b2):
    F = torch.nn.functional
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
""",
    "feed_forward",
)

MULTI_HEAD_ATTENTION = FunctionSource(
    """
def multi_head_attention(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    F = torch.nn.functional
    n_heads = int(n_heads)

    def split(x):
        b, t, d = x.shape
        return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)

    q = split(F.linear(x_q, w_q, b_q))
    k, v = split(F.linear(x_kv, w_k, b_k)), split(F.linear(x_kv, w_v, b_v))
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    out = weights @ v
    b, h, t, d_head = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, h * d_head), w_o, b_o)
""",
    "multi_head_attention",
)

CAUSAL_MASK = FunctionSource(
    """
def causal_mask(t):
    t = int(t)
    return torch.ones(t, t, dtype=torch.bool).tril()
""",
    "causal_mask",
)

NEXT_TOKEN_PROBS = FunctionSource(
    """
def next_token_probs(logits, temperature, top_k, top_p):
    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).float()
    logits = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
        probs = sorted_logits.softmax(dim=-1)
        drop_sorted = probs.cumsum(dim=-1) - probs >= top_p
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        logits = logits.masked_fill(drop, float("-inf"))
    return logits.softmax(-1)
""",
    "next_token_probs",
)
