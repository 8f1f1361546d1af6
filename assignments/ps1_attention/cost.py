"""Part 5, the cost of attention for one sequence: FLOPs of QKᵀ and of the weighted sum, the
entries of the score tensor (formulas from ``solutions.derivations.cost``, graded by CAS
equivalence), the growth when T doubles; the known-wrong answers and their feedback."""

from autograder.authoring import AllClose, Misconception, Question
from solutions.derivations import cost as derived_cost
from solutions.derivations.symbols import T, d, h

from .common import formula

COST_SYMBOLS = ("T", "d", "h")

QUESTIONS = [
    formula(
        "qk_flops_formula",
        "FLOPs of QKᵀ (one sequence, all heads)",
        derived_cost.qk_flops(B=1),
        COST_SYMBOLS,
        [
            (
                "flops_without_factor_2",
                T**2 * d,
                "You counted multiply-adds, not FLOPs: convert them with the notebook's FLOP convention (2mnp).",
            ),
            (
                "heads_multiply",
                2 * h * T**2 * d,
                "Each head works on d/h dimensions, so the head count cancels: h heads of d/h dimensions each.",
            ),
        ],
        concept="count the multiply-adds of QKᵀ over all heads (each head is d/h wide), then convert them "
        "to FLOPs with the notebook's convention.",
    ),
    formula(
        "weighted_sum_flops_formula",
        "FLOPs of the weighted sum A·V",
        derived_cost.weighted_sum_flops(B=1),
        COST_SYMBOLS,
        [
            (
                "weighted_sum_without_factor_2",
                T**2 * d,
                "You counted multiply-adds, not FLOPs: convert them with the notebook's FLOP convention (2mnp).",
            ),
        ],
        concept="count the multiply-adds of A·V over all heads (each head is d/h wide), then convert them "
        "to FLOPs with the notebook's convention.",
    ),
    formula(
        "score_entries_formula",
        "Entries of the score tensor (one sequence)",
        derived_cost.score_elements(B=1),
        COST_SYMBOLS,
        [
            ("scores_without_heads", T**2, "Every head has its own T×T score matrix: count them all."),
            (
                "scores_times_width",
                T**2 * d,
                "The scores are one number per (head, query, key): the width d does not enter.",
            ),
        ],
        concept="count the score matrices of one sequence and the entries of each.",
    ),
    Question(
        grade_id="growth_when_T_doubles",
        answer="growth_when_T_doubles",
        call=False,
        title="Growth of the score cost when T doubles",
        compare=AllClose(atol=1e-9, rtol=0),
        reference=lambda: float(derived_cost.growth(derived_cost.qk_flops(B=1))),
        misconceptions=(
            Misconception(
                "linear_growth",
                "The cost of QKᵀ is quadratic in T, not linear: work out what doubling T does to T².",
                lambda: 2.0,
            ),
        ),
    ),
]
