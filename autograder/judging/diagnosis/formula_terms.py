"""Term-by-term comparison of a wrong polynomial formula with the expected one.

"Your d², d_ff terms agree; your d term (8·d) does not count what it should; a term of the
answer is missing." The text names the student's own terms only, and no direction: which of
them agree or are off, how many of the answer's terms are missing, whether the formula counts
something the answer does not — never a term the student does not have, nor an expected
coefficient (issue 27: "a term in m·i is missing" beside an answer of 0 gives the answer away),
nor "too small", "the wrong sign" or "this term is not part of it", from which the answer follows
in one step (issue 36, ``proving.inference_scan``). An answer of one or two terms gets its
question's concept to revisit (``Formula.concept``) instead. The comparison runs in a forked
child with a time limit (an answer such as (d + h)**60 expands slowly), through ``symbolic``'s
own fork helper."""

from __future__ import annotations

import contextlib
import functools

import sympy

from autograder.i18n import Message
from autograder.i18n.message import PROBLEM_SET, clauses
from autograder.judging.diagnosis.base import Diagnosis

SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
MAX_TERMS = 40
# An answer of one or two terms gets the question's concept only: "your term has the wrong sign",
# "is too large" or "one of your terms is not part of it" each leave one step to the answer
SMALL_ANSWER = 2
CONCEPT = "\0concept"


def _monomial(symbols, powers) -> str:
    parts = [s + (str(p).translate(SUPERSCRIPTS) if p > 1 else "") for s, p in zip(symbols, powers) if p]
    return "·".join(parts) or "constant"


def _own_term(symbols, powers, coefficient) -> str:
    monomial = _monomial(symbols, powers)
    if monomial == "constant":
        return str(coefficient)
    if coefficient == 1:
        return monomial
    if coefficient == -1:
        return "−" + monomial
    return f"{coefficient}·{monomial}"


def _compare(student, expected, symbols, report) -> None:
    """Child side: report ("text", message or None)."""
    syms = [sympy.Symbol(name, positive=True) for name in symbols]
    unify = {s: sympy.Symbol(str(s), positive=True) for s in student.free_symbols | expected.free_symbols}
    student, expected = student.xreplace(unify), expected.xreplace(unify)
    try:
        mine = sympy.Poly(sympy.expand(student), *syms).as_dict()
        theirs = sympy.Poly(sympy.expand(expected), *syms).as_dict()
    except sympy.PolynomialError:
        report(("text", None))
        return
    if (
        len(mine) > MAX_TERMS
        or len(theirs) > MAX_TERMS
        or not all(c.is_rational for c in [*mine.values(), *theirs.values()])
    ):
        report(("text", None))
        return
    if len(theirs) <= SMALL_ANSWER:  # any word about its terms is one step from the answer
        report(("text", CONCEPT))
        return
    agree, wrong, missing, extra = [], [], [], []
    for powers in sorted(set(mine) | set(theirs), key=lambda p: (-sum(p), p)):
        name = _monomial(symbols, powers)
        a, b = mine.get(powers), theirs.get(powers)
        if a == b:
            agree.append(name)
        elif a is None:
            missing.append(name)
        elif b is None:
            extra.append(name)
        else:  # no direction: "too small" or "wrong sign" is one step from the answer (issue 36)
            wrong.append(
                Message(
                    "your {term} term ({own}) does not count what it should",
                    term=name,
                    own=_own_term(symbols, powers, a),
                )
            )
    parts = []
    if agree and not extra:  # beside extra terms, the agreeing ones would name the extras
        if len(agree) > 1:
            parts.append(Message("your {terms} terms agree", terms=", ".join(agree)))
        else:
            parts.append(Message("your {term} term agrees", term=agree[0]))
    parts += wrong
    if missing:  # never named: "a term in m·i is missing" next to an answer of 0 is the answer
        parts.append(
            Message("a term of the answer is missing (one your formula has no term like)")
            if len(missing) == 1
            else Message("{n} terms of the answer are missing (ones your formula has no term like)", n=len(missing))
        )
    if extra:  # neither named nor counted: "drop one of your terms" would be the fix
        parts.append(Message("your formula counts something the answer does not"))
    report(("text", clauses(parts) if parts else None))


@functools.lru_cache(maxsize=2048)  # a cohort hands in the same few wrong formulas many times
def compare_terms(text: str, expected: sympy.Expr, symbols: tuple[str, ...], timeout_s: float = 2.0) -> str | None:
    from autograder.judging.compare.symbolic import FormulaError, parse_formula, reports_from_fork

    try:
        student = parse_formula(text, symbols)
    except FormulaError:
        return None
    with contextlib.closing(reports_from_fork(_compare, (student, expected, symbols), timeout_s)) as reports:
        for kind, value in reports:
            if kind == "text":
                return value
    return None


def formula_diagnosis(question, got) -> Diagnosis | None:
    if not isinstance(got, str):
        return None
    expected = question.reference()  # formula questions are constants: reference() is the expression
    if not isinstance(expected, sympy.Expr):
        return None
    try:
        text = compare_terms(got, expected, tuple(question.compare.symbols))
    except Exception:  # noqa: BLE001 - no comparison, no diagnosis
        return None
    if text == CONCEPT:
        concept = getattr(question.compare, "concept", "")
        return Diagnosis("formula_terms", Message(concept, PROBLEM_SET) if concept else GENERIC_CONCEPT)
    return Diagnosis("formula_terms", Message("{clauses}.", clauses=text)) if text else None


GENERIC_CONCEPT = Message("build it again from the definitions, one factor for each thing it counts.")
