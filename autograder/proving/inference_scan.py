"""Nothing inferred: does the answer FOLLOW from the feedback on a wrong answer?

``leak_scan`` looks for the expected value or formula written in a feedback text. A text can give
the answer away without writing it: "your result has the opposite sign" told to m·i, or "your
term has the wrong sign; −m·j is not part of the answer" told to m·(i − j), each leaves one step
to −m·i. This scan reads what a feedback text tells the student to do — negate (a word about the
sign), scale (too small / too large / twice / a factor), drop a term (one "not part of the
answer", "left over", "too many"), add or take away a term or number it names — applies it (and
any two such steps in a row) to the wrong answer the text was given for, and reports a leak when
that yields the expected answer. Feedback for such answers must name the concept to revisit, not
the operation that fixes it.

Scanned, for every value and formula question: each misconception's own wrong answer and each
typical wrong answer (``leak_scan.wrong_answers``: 0, −x, 2x, a term added, dropped or with its
sign flipped), judged with the question's misconceptions and without them.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable

import numpy as np
import sympy

from autograder.spec import Assignment

SCALES = (2, 3, 4, sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Rational(1, 4))
SIGN_WORDS = r"\bsigns?\b|opposite|negat|flipped"
# a size with a direction: any small factor is a guess away
SCALE_DIRECTION = r"too (small|large|big|few|many)|twice|\bhalf\b|double|halve|\bonce\b"
# a factor: the numbers the text names
SCALE_NAMED = r"factor|\btimes\b|multipl(y|ied|ies) (it )?by|divid(e|ed|es) (it )?by|\bcounts? \d"
DROP_WORDS = r"not part of|left over|too many|extra term|drop|remove"
ADD_WORDS = r"missing|\badd\b|\bplus\b|left out|forg[oe]t|off by"
MAX_CANDIDATES = 4000


@dataclasses.dataclass(frozen=True)
class Step:
    """One thing a feedback text tells the student to do to their answer."""

    kind: str  # negate | scale | drop | add
    amount: object = None  # a scale factor, a term to add, a term to drop (None: any one)


def steps_in(text: str, terms_named: Iterable, numbers_named: Iterable[float]) -> list[Step]:
    """What ``text`` says to do: the steps its words name. ``terms_named`` are the single terms
    (monomials) written in it, ``numbers_named`` its numbers."""
    low = re.sub(r"`[^`]*`", "", text).lower()  # an answer's name (`growth_when_T_doubles`) is no word
    steps: list[Step] = []
    if re.search(SIGN_WORDS, low):
        steps.append(Step("negate"))
    named = [f for n in numbers_named if n not in (0, 1) for f in (n, 1 / n)]
    if re.search(SCALE_DIRECTION, low):
        steps += [Step("scale", f) for f in [*SCALES, *named]]
    elif re.search(SCALE_NAMED, low):
        steps += [Step("scale", f) for f in named]
    if re.search(DROP_WORDS, low):
        steps.append(Step("drop"))
        steps += [Step("drop", t) for t in terms_named]
    if re.search(ADD_WORDS, low):
        steps += [Step("add", s * t) for t in [*terms_named, *numbers_named] for s in (1, -1) if t != 0]
    return steps


def _terms(expr) -> list:
    return list(sympy.Add.make_args(sympy.expand(expr))) if isinstance(expr, sympy.Expr) else [expr]


def apply(step: Step, answer) -> list:
    """Every answer the step can turn ``answer`` into (a step on one term or on the whole)."""
    terms = _terms(answer)
    whole = []
    if step.kind == "negate":
        whole = [-answer] + [answer - 2 * t for t in terms if len(terms) > 1]
    elif step.kind == "scale":
        whole = [answer * step.amount] + [answer + (step.amount - 1) * t for t in terms if len(terms) > 1]
    elif step.kind == "drop":
        if step.amount is None:
            whole = [answer - t for t in terms if len(terms) > 1]
        else:
            whole = [answer - t for t in terms if _same(t, step.amount)]
    elif step.kind == "add":
        whole = [answer + step.amount]
    return whole


def _same(a, b) -> bool:
    try:
        return bool(sympy.expand(a - b) == 0)
    except (TypeError, ValueError):
        return False


def _points(symbols: Iterable[sympy.Symbol], n: int = 3) -> list[dict]:
    rng = np.random.default_rng(0)
    return [{s: sympy.Rational(int(rng.integers(3, 40)), int(rng.integers(1, 7))) for s in symbols} for _ in range(n)]


def _equal(candidate, expected, points) -> bool:
    """Numerically the same at a few positive points (exact for the polynomials of the formula
    questions, close enough for the rest), or the same number."""
    try:
        if isinstance(expected, sympy.Expr):
            for p in points:
                a, b = complex(sympy.N(candidate.subs(p))), complex(sympy.N(expected.subs(p)))
                if abs(a - b) > 1e-9 * (1 + abs(b)):
                    return False
            return True
        return bool(np.isclose(float(candidate), float(expected), rtol=1e-6, atol=1e-12))
    except (TypeError, ValueError, AttributeError):
        return False


def follows(answer, text: str, expected, symbols: tuple[str, ...] = ()) -> object | None:
    """The expected answer, when one or two of the steps ``text`` names take ``answer`` to it."""
    from autograder.proving.leak_scan import monomials_in, numbers_in

    terms, numbers = (monomials_in(text, symbols), []) if symbols else ([], numbers_in(text))
    steps = steps_in(text, terms, numbers)
    if not steps:
        return None
    points = _points(expected.free_symbols) if isinstance(expected, sympy.Expr) else None
    seen = 0
    for first in steps:
        for once in apply(first, answer):
            if _equal(once, expected, points):
                return once
            for second in steps:
                for twice in apply(second, once):
                    seen += 1
                    if seen > MAX_CANDIDATES:
                        return None
                    if _equal(twice, expected, points):
                        return twice
    return None


def answered_wrong(assignment: Assignment, student: str) -> list[tuple[str, object, str]]:
    """(grade_id, wrong answer, feedback it gets) for every value and formula question: each
    misconception's answer and each typical wrong answer, judged with and without the
    question's misconceptions."""
    from autograder.judging.outcome import Outcome
    from autograder.judging.verdict import judge
    from autograder.proving.leak_scan import value_questions, wrong_answers

    out = []
    for q, value in value_questions(assignment, student):
        if not isinstance(value, (sympy.Expr, int, float, np.integer, np.floating)) or isinstance(value, bool):
            continue
        probes = q.probes_for(student, assignment)
        answers = list(wrong_answers(q, value))
        for mis in q.misconceptions:
            try:
                answers.append(mis.wrong(**probes[0].kwargs))
            except Exception:  # noqa: BLE001
                continue
        for judged in (q, dataclasses.replace(q, misconceptions=())):
            for wrong in answers:
                handed = str(wrong) if isinstance(value, sympy.Expr) else wrong
                result = judge(judged, probes, Outcome("returned", [{"value": handed} for _ in probes]))
                if result.status != "passed":
                    out.append((q.grade_id, wrong, result.feedback))
    return list(dict.fromkeys(out))


def inferred_leaks(assignment: Assignment, student: str | None = None) -> list[str]:
    """One line per feedback text from which its question's expected answer follows."""
    from autograder.judging.compare.symbolic import FormulaError, parse_formula
    from autograder.judging.instructor_answers import SELFTEST_STUDENTS
    from autograder.proving.leak_scan import expected_value

    student = student or SELFTEST_STUDENTS[0]
    found = []
    for gid, wrong, text in answered_wrong(assignment, student):
        q = assignment.question(gid)
        expected = expected_value(q, assignment, student)
        symbols = tuple(getattr(q.compare, "symbols", ()))
        if isinstance(expected, sympy.Expr):
            try:
                wrong = parse_formula(str(wrong), symbols) if not isinstance(wrong, sympy.Expr) else wrong
            except FormulaError:
                continue
            unify = {s: sympy.Symbol(str(s), positive=True) for s in wrong.free_symbols | expected.free_symbols}
            wrong, expected = wrong.xreplace(unify), expected.xreplace(unify)
        elif not isinstance(wrong, (int, float, np.integer, np.floating)):
            continue
        reached = follows(wrong, text, expected, symbols)
        if reached is not None:
            found.append(f"{gid}: the answer follows from the feedback on {wrong} ({reached}) in: {text}")
    return found


def pair_leaks(question, pairs: Iterable[tuple[object, str]], expected) -> list[tuple[object, str]]:
    """(answer, text) pairs — any text applied to any answer, as a student holding several
    feedback texts would — from which ``expected`` follows."""
    symbols = tuple(getattr(question.compare, "symbols", ()))
    pairs = list(pairs)
    texts = list(dict.fromkeys(t for _, t in pairs))
    return [
        (a, t)
        for a, t in itertools.product(list(dict.fromkeys(a for a, _ in pairs)), texts)
        if follows(a, t, expected, symbols) is not None
    ]
