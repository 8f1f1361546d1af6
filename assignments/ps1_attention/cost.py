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
                "In the 2mnp convention a multiply-add counts 2 FLOPs: you counted each multiply-add once.",
            ),
            (
                "heads_multiply",
                2 * h * T**2 * d,
                "Each head works on d/h dimensions, so the head count cancels: h heads of d/h dimensions each.",
            ),
        ],
    ),
    formula(
        "weighted_sum_flops_formula",
        "FLOPs of the weighted sum A·V",
        derived_cost.weighted_sum_flops(B=1),
        COST_SYMBOLS,
        [
            ("weighted_sum_without_factor_2", T**2 * d, "Count 2 FLOPs per multiply-add: you counted each once."),
        ],
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
    ),
    Question(
        grade_id="growth_when_T_doubles",
        answer="growth_when_T_doubles",
        call=False,
        title="Growth of the score cost when T doubles",
        compare=AllClose(atol=1e-9, rtol=0),
        reference=lambda: float(derived_cost.growth(derived_cost.qk_flops(B=1))),
        misconceptions=(
            Misconception("linear_growth", "QKᵀ is quadratic in T: doubling T multiplies it by 4, not 2.", lambda: 2.0),
        ),
    ),
]
