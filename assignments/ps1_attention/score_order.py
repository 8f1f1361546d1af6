"""Part 2c, document 001's claim that QKᵀ may be replaced by KQᵀ ("mathematisch erhalten wir
die gleiche Ähnlichkeitsmatrix"): the weights softmax(KQᵀ) on document 002's example, what
W_Q = W_K would force (a choice), and the largest rank of QKᵀ for given shapes; references,
known-wrong answers and their feedback."""

from autograder.authoring import AllClose, Choice, Exact, Misconception, Question
from solutions.attention import attention_weights

from .by_hand import K_002, Q_002

# (T, d_k) pairs for the rank question: T > d_k, T < d_k, a model-sized case.
RANK_SHAPES = ((10, 4), (3, 64), (512, 64))

# What W_Q = W_K (one shared projection W) forces for every input X, as offered in the notebook.
SHARED_PROJECTION_OPTIONS = ("A", "B", "C", "D")
SHARED_PROJECTION_ANSWER = "A"  # A: S = Sᵀ. B (weights symmetric), C (argmax on the diagonal) can fail.


def _weights(q, k):
    import torch

    return attention_weights(torch.from_numpy(q), torch.from_numpy(k), scale=1.0).double().numpy()


def kq_weights():
    """softmax(K Qᵀ) row by row (no scaling, as document 002's example)."""
    return _weights(K_002, Q_002)


def largest_rank(shapes=RANK_SHAPES):
    return [min(t, dk) for t, dk in shapes]


QUESTIONS = [
    Question(
        grade_id="kq_weights_002",
        answer="kq_weights_002",
        title="Document 002's example with KQᵀ in place of QKᵀ",
        call=False,
        reference=kq_weights,
        compare=AllClose(atol=1e-6, rtol=1e-3),
        misconceptions=(
            Misconception(
                "kq_same_weights",
                "KQᵀ is the transpose of QKᵀ, not the same matrix: each row now belongs to a key, "
                "so the rows the softmax normalises are different.",
                lambda: _weights(Q_002, K_002),
            ),
            Misconception(
                "kq_transposed_weights",
                "The softmax normalises rows: transposing the scores before it is not transposing "
                "the weights after it (the columns of softmax(QKᵀ) do not sum to 1).",
                lambda: _weights(Q_002, K_002).T,
            ),
        ),
    ),
    Question(
        grade_id="shared_projection",
        answer="shared_projection",
        title="What one shared projection W_Q = W_K forces",
        call=False,
        reference=lambda: SHARED_PROJECTION_ANSWER,
        compare=Choice(SHARED_PROJECTION_OPTIONS),
        misconceptions=(
            Misconception(
                "weights_symmetric",
                "Symmetric scores do not give symmetric weights: each row is normalised by its own "
                "sum, and those sums differ from row to row.",
                lambda: "B",
            ),
            Misconception(
                "diagonal_wins",
                "s_ii = |x_i W|² does not beat every s_ij: a token j whose projection is longer and "
                "points the same way scores higher (Cauchy–Schwarz bounds s_ij by √(s_ii·s_jj), "
                "not by s_ii).",
                lambda: "C",
            ),
            Misconception(
                "nothing_forced",
                "Write s_ij with one W for queries and keys and swap i and j: one property then holds for every input.",
                lambda: "D",
            ),
        ),
    ),
    Question(
        grade_id="scores_rank",
        answer="scores_rank",
        title="The largest possible rank of QKᵀ",
        call=False,
        reference=largest_rank,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "rank_is_length",
                "QKᵀ is T×T, but it is a product through d_k columns: its rank cannot exceed d_k.",
                lambda: [t for t, _ in RANK_SHAPES],
            ),
            Misconception(
                "rank_is_dk",
                "The rank of a T×T matrix cannot exceed T either.",
                lambda: [dk for _, dk in RANK_SHAPES],
            ),
        ),
    ),
]


def shared_projection_demo():
    """A check the tests run: with one shared W the scores are symmetric, the weights are not,
    and the diagonal need not win (options B and C fail on this input)."""
    import torch

    x = torch.tensor([[1.0, 0.0], [3.0, 0.5], [-1.0, 2.0]], dtype=torch.float64)
    w = torch.tensor([[1.0, 0.2], [0.0, 1.0]], dtype=torch.float64)
    scores = (x @ w) @ (x @ w).T
    weights = torch.softmax(scores, dim=-1)
    return {
        "scores_symmetric": bool(torch.allclose(scores, scores.T)),
        "weights_symmetric": bool(torch.allclose(weights, weights.T)),
        "diagonal_always_wins": bool((scores.argmax(dim=-1) == torch.arange(3)).all()),
    }
