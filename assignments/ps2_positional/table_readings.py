"""Part 1's collected readings of the sinusoidal table: which entries of document 000's table
its cosine typo would change (1a′), how far below 1 the entry 000 prints as cos(1/10) = 1.0 is
(1a″), and the range of the wavelengths (1c′) — the references (computed from the formulas in
float64, never typed in), the known-wrong answers and their feedback."""

import math

import torch

from autograder.authoring import AllClose, Exact, Misconception, Question, Scalar

from .common import EXPONENT_SIGN, pe

# Document 000's setting: n = base = 100, d = 4, positions k = 0, 1, 2
DOC_000 = {"n_pos": 3, "d": 4, "base": 100.0}


def changed_entries(**pe_kw):
    """[k, column] of the entries of 000's table whose value changes (beyond rounding noise)
    when computed with ``pe``'s switches instead of the right formula, sorted."""
    diff = (pe(**DOC_000, **pe_kw) - pe(**DOC_000)).abs() > 1e-12
    return [[int(k), int(c)] for k, c in torch.nonzero(diff).tolist()]


def printed_changes(**pe_kw):
    """The same, but only entries whose two-decimal rounding changes."""
    diff = (pe(**DOC_000, **pe_kw) * 100).round() != (pe(**DOC_000) * 100).round()
    return [[int(k), int(c)] for k, c in torch.nonzero(diff).tolist()]


def typo_entries():
    return changed_entries(cos_typo=True)


def cos_one_tenth_gap(**pe_kw):
    """1 − PE[1, 3] in 000's setting (base 100, d = 4): how far below 1 the entry lies that
    document 000 prints as cos(1/10) = 1.0 (float64; ``pe``'s switches give the wrong tables')."""
    return float(1.0 - pe(**DOC_000, **pe_kw)[1, 3])


def _float32_gaps(*ulps):
    """A gap computed in float32: 1 minus a float32 number just below 1 is a whole number of its
    spacing there, 2^−24 (float32 cannot hold the float64 gaps of the small angles)."""
    return [n * 2.0**-24 for n in ulps]


def wavelength_range():
    """The shortest wavelength 2π (pair 0) and the bound 2π·10000 that the longest,
    2π·10000^((d−2)/d), approaches as d grows (base 10000)."""
    return [2 * math.pi, 2 * math.pi * 10000.0]


def _factor_bounds():
    """The factor's bounds as a student may give them for one even d: 1 and the largest factor
    10000^((d−2)/d) (4 ≤ d ≤ 4096)."""
    return [[1.0, 10000.0 ** ((d - 2) / d)] for d in range(4, 4098, 2)]


def _cos_columns(rows):
    return [[k, c] for k in rows for c in (1, 3)]


QUESTIONS = [
    Question(
        grade_id="typo_entries",
        answer="typo_entries",
        title="Which entries does document 000's typo change?",
        call=False,
        reference=typo_entries,
        compare=Exact(integers=True),
        misconceptions=(
            Misconception(
                "printed_digits_only",
                "You compared the two-decimal printouts. A value can change and still print the same "
                "at two decimals (0.995 and 0.99999992 both print as 1.0): the question asks which "
                "values change.",
                lambda: printed_changes(cos_typo=True),
            ),
            Misconception(
                "position_zero",
                "At k = 0 every cosine is cos(0) = 1, whatever its divisor: no typo in the divisor "
                "can change the first row.",
                lambda: _cos_columns((0, 1, 2)),
            ),
            Misconception(
                "sine_columns",
                "The sine formula sin(k / n^{2i/d}) is the one the table follows; the typo "
                "(n^{2i}/d: the /d outside the exponent) is in the other formula, so the other "
                "columns change.",
                lambda: [[k, c] for k in (1, 2) for c in (0, 2)],
            ),
            Misconception(
                "pair_zero_unchanged",
                "For i = 0 the typo's divisor is n^0/d, not n^0: the /d outside the exponent changes "
                "that pair's divisor too.",
                lambda: [[1, 3], [2, 3]],
            ),
        ),
    ),
    Question(
        grade_id="cos_one_tenth_gap",
        answer="cos_one_tenth_gap",
        title="How far below document 000's printed 1.0 is its entry cos(1/10)?",
        call=False,
        reference=cos_one_tenth_gap,
        # float32 work is off by about 1e-5 of the gap; 1e-9 keeps a gap of 0 apart from the typo's 8e-8
        compare=Scalar(atol=1e-9, rtol=2e-4),
        misconceptions=(
            Misconception(
                "document_000_rounded",
                "A gap of 0 is document 000's printout, cos(1/10) = 1.0, the same as cos(0) = 1 in the row "
                "above. 000 rounds to two decimals: cos x < 1 for every angle 0 < |x| < 2π, so the entry "
                "lies below 1 — compute it at full precision (in float64).",
                lambda: 0.0,
            ),
            Misconception(
                "cosine_typo",
                "Your gap is that of document 000's cosine formula as written, cos(k / (n^{2i}/d)), with "
                "its typo (the /d outside the exponent): here cos(1/2500). 000's table itself uses the "
                "divisor n^{2i/d} for both columns of pair i.",
                lambda: cos_one_tenth_gap(cos_typo=True),
                also_wrong=lambda: _float32_gaps(1, 2),
            ),
            Misconception(
                "degrees",
                "Your gap is that of the cosine of 1/10 of a degree: the angles k / n^{2i/d} are in "
                "radians (math.cos and torch.cos take radians; no conversion with math.radians).",
                lambda: 1.0 - math.cos(math.radians(0.1)),
                also_wrong=lambda: _float32_gaps(25, 26),
            ),
            Misconception(
                "entry_not_gap",
                "You gave the entry PE[1, 3] itself; the question asks how far below 1 it lies, 1 − PE[1, 3].",
                lambda: 1.0 - cos_one_tenth_gap(),
            ),
        ),
    ),
    Question(
        grade_id="wavelength_range",
        answer="wavelength_range",
        title="Between which values do the wavelengths lie?",
        call=False,
        reference=wavelength_range,
        compare=AllClose(atol=1e-3, rtol=1e-5),
        misconceptions=(
            Misconception(
                "factor_not_period",
                'These are the bounds of the factor base^(2i/d), which document 001 prints as the "period", '
                "not of the wavelengths: a wavelength is the number of positions after which a column "
                "repeats — work out how the two are related.",
                lambda: [1.0, 10000.0],
                also_wrong=lambda: _factor_bounds(),
            ),
            Misconception("exponent_sign", EXPONENT_SIGN, lambda: [2 * math.pi / 10000.0, 2 * math.pi]),
            Misconception(
                "frequencies",
                "These are bounds of the angular frequencies ω_i (radians per position); the "
                "wavelength is the number of positions for one full turn, 2π/ω_i.",
                lambda: [1 / 10000.0, 1.0],
            ),
        ),
    ),
]
