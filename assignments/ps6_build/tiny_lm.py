"""The tiny fixed language model that greedy decoding and beam search are graded on: one causal
attention layer and an output head, its weights drawn from a seeded generator, so that the
sandbox, the grader and the notebook compute the same numbers. It reaches the student's code as
a probe argument (source compiled in the sandbox), so it is kept as source, seed filled in."""

from autograder.authoring import FunctionSource

VOCAB = 12  # tokens 0 … 11; an eos_id of 12 or more is never generated

_SOURCE = '''
def tiny_lm(tokens):
    """tokens: a sequence of ints in [0, 12) -> logits (len(tokens), 12), position t predicts t+1."""
    g = torch.Generator().manual_seed({seed})
    vocab, d, max_len = 12, 16, 32
    emb = torch.randn(vocab, d, generator=g)
    pos = 0.5 * torch.randn(max_len, d, generator=g)
    w_q, w_k, w_v = (torch.randn(d, d, generator=g) / d ** 0.5 for _ in range(3))
    w_out = torch.randn(d, vocab, generator=g)
    ids = torch.as_tensor([int(t) for t in tokens], dtype=torch.long)
    h = emb[ids] + pos[: len(ids)]
    scores = (h @ w_q) @ (h @ w_k).T / d ** 0.5
    allowed = torch.ones(len(ids), len(ids), dtype=torch.bool).tril()
    h = h + torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ (h @ w_v)
    return h @ w_out / d ** 0.5
'''


def tiny_lm(seed: int) -> FunctionSource:
    """The model with the weights of ``seed``, as the source the sandbox compiles."""
    return FunctionSource(_SOURCE.replace("{seed}", str(int(seed))), "tiny_lm")
