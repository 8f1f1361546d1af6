"""The functions the released visible checks hand to the student's testers: small plain
attentions of their own, written out in full. The hidden subjects (``subjects.py``,
``causal_subjects.py``) share a fixture whose keyword arguments would list every variation the
hidden probes try (positions, RoPE, fixed queries, a mask off by one, a mask after the softmax);
pasting it into a released notebook would hand those over, so the visible checks use these."""

from autograder.authoring import FunctionSource

_ATTENTION = """
def {name}(X):
    X = torch.as_tensor(X).double()
    d = X.shape[-1]
    g = torch.Generator().manual_seed(7)
    W_q, W_k, W_v = (torch.randn(d, d, generator=g).double() / d ** 0.5 for _ in range(3))
    scores = (X @ W_q) @ (X @ W_k).transpose(-2, -1) / d ** 0.5
{mask}    return {output}
"""

_CAUSAL_MASK = """    t = X.shape[-2]
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
"""


def visible_attention(name: str, *, causal: bool = False, pooled: bool = False) -> FunctionSource:
    """Single-head self-attention without positions (float64, fixed weights), with a causal mask
    or mean-pooled over the tokens (shape (1, d)) where asked."""
    output = "torch.softmax(scores, -1) @ (X @ W_v)"
    if pooled:
        output = f"({output}).mean(-2, keepdim=True)"
    source = _ATTENTION.format(name=name, mask=_CAUSAL_MASK if causal else "", output=output)
    return FunctionSource(source, name)


VISIBLE_SUBJECTS = {
    "attention_no_position": visible_attention("attention_no_position"),
    "attention_causal": visible_attention("attention_causal", causal=True),
    "mean_pooled": visible_attention("mean_pooled", pooled=True),
    "causal_attention": visible_attention("causal_attention", causal=True),
    "bidirectional_attention": visible_attention("bidirectional_attention"),
}
