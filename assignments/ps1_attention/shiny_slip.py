"""Part 1, where document 003's printed context vector of "shiny" slips: 003 prints its nine
products weight × embedding entry, then their sums; ``shiny_products_off`` asks which printed
products differ from the exact ones rounded to 003's four decimals. Answered from the weights
and embeddings (not from ``context_shiny``), so a mistake there is not charged twice. The
reference, the known-wrong answers and their feedback."""

import numpy as np

from autograder.authoring import Exact, Misconception, Question

from .by_hand import E_003

PRINTED_DECIMALS = 4  # 003 prints its products to four decimals
# 003: "bağlam vektörü=[0.0779+0.2156+0.1057, 0.0504+0.1382+0.1972, 0.1237+0.3983+0.3390]":
# row c = embedding dimension, column j = word (Hello, shiny, sun).
PRINTED_PRODUCTS_003 = ((0.0779, 0.2156, 0.1057), (0.0504, 0.1382, 0.1972), (0.1237, 0.3983, 0.3390))


def shiny_weights():
    scores = E_003.astype(np.float64) @ E_003[1].astype(np.float64)
    return np.exp(scores) / np.exp(scores).sum()


def products_off(weights=None, decimals=PRINTED_DECIMALS):
    """3×3 booleans, row c = dimension, column j = word: does 003's printed w_j·E[j, c] differ
    from the exact product rounded to ``decimals``?"""
    w = shiny_weights() if weights is None else weights
    exact = np.round((w[:, None] * E_003.astype(np.float64)).T, decimals)
    printed = np.round(np.array(PRINTED_PRODUCTS_003), decimals)
    return (~np.isclose(printed, exact, rtol=0.0, atol=10.0 ** -(decimals + 2))).tolist()


def only_where_sums_differ():
    """The slips marked only in the sums whose printed total differs from the exact entry
    rounded to four decimals (the third sum's two slips cancel)."""
    exact_sums = np.round(shiny_weights() @ E_003.astype(np.float64), PRINTED_DECIMALS)
    printed_sums = np.round(np.array(PRINTED_PRODUCTS_003).sum(axis=1), PRINTED_DECIMALS)
    differs = ~np.isclose(printed_sums, exact_sums, rtol=0.0, atol=1e-6)
    return [[bool(off and differs[c]) for off in row] for c, row in enumerate(products_off())]


QUESTIONS = [
    Question(
        grade_id="shiny_products_off",
        answer="shiny_products_off",
        title="Where document 003's printed products slip",
        call=False,
        reference=products_off,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "all_products_off",
                "Round each exact product to the four decimals 003 prints before comparing: not "
                "every printed product differs at that precision.",
                lambda: [[True] * 3] * 3,
            ),
            Misconception(
                "no_product_off",
                "At four decimals the printed products and the exact ones do not agree everywhere.",
                lambda: [[False] * 3] * 3,
            ),
            Misconception(
                "compared_at_three_decimals",
                "Compare at the four decimals 003 prints: rounded to three, a slip in the fourth "
                "decimal can disappear.",
                lambda: products_off(decimals=3),
            ),
            Misconception(
                "rounded_weights",
                "Compare with the exact products (full-precision weights), not with products of "
                "weights rounded to three decimals.",
                lambda: products_off(weights=np.round(shiny_weights(), 3)),
            ),
            Misconception(
                "only_where_sums_differ",
                "A printed sum that matches the exact entry can still hold slips that cancel: "
                "compare every product of every sum, not only those of the sums that differ.",
                lambda: only_where_sums_differ(),
            ),
            Misconception(
                "products_transposed",
                "Rows are the three sums 003 prints (one per embedding dimension), columns the "
                "words Hello, shiny, sun: yours are transposed.",
                lambda: np.array(products_off()).T.tolist(),
            ),
        ),
    ),
]
