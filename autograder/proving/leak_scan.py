"""Nothing given away: scan feedback texts for the expected value of a value question, the expected
formula of a formula question (in any spelling: each run of words that SymPy reads as the same
expression, so "−m·i" is found for −i·m), the name of a hidden probe function or a seed.

Used by the self-test (``feedback_audit``: every misconception text, every diagnosis a known-wrong
answer, a killed mutant or a wrong formula gets) and by tests/proving/test_feedback_leaks.py."""

from __future__ import annotations

import functools
import re

import numpy as np
import sympy

from autograder.spec import Assignment, FunctionSource

SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
MAX_WINDOW = 12  # words per candidate formula


def squash(text: str) -> str:
    """One spelling for formulas: no spaces or multiplication signs, powers as superscripts."""
    text = text.replace("**", "^").replace("·", "").replace("*", "").replace("×", "").replace(" ", "")
    text = text.replace("−", "-")
    return re.sub(r"\^(\d)", lambda m: SUPERSCRIPT_DIGITS[int(m.group(1))], text)


def number_forms(value) -> set[str]:
    """How an expected number could be printed (only numbers specific enough to be an answer)."""
    forms = set()
    if isinstance(value, (bool, np.bool_)) or value is None:
        return forms
    if isinstance(value, (int, np.integer)) or (isinstance(value, float) and float(value).is_integer()):
        v = int(value)
        if abs(v) >= 100:
            forms |= {str(v), f"{v:,}", f"{v:_}"}
        return forms
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != 0 and 1e-6 < abs(v) < 1e9:
            forms |= {f"{v:.4f}", f"{v:.3g}" if abs(v) < 1 else f"{v:.4g}"}
    return {f for f in forms if len(f.strip("-0.")) >= 3}


def expected_value(question, assignment: Assignment, student: str):
    if question.personal:
        return question.reference(**question.probes_for(student, assignment)[0].kwargs)
    return question.reference()


def value_questions(assignment: Assignment, student: str):
    """(question, expected value) for every value or formula question (not a function) whose
    expected value can be read for ``student``."""
    for q in assignment.questions:
        if q.call:
            continue
        try:
            value = expected_value(q, assignment, student)
        except Exception:  # noqa: BLE001 - a question without a readable expected value
            continue
        yield q, value


def value_forms(value) -> set[str]:
    forms: set[str] = set()

    def walk(v):
        if isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, (list, tuple)):
            for item in v:
                walk(item)
        elif hasattr(v, "detach"):
            walk(v.detach().cpu().numpy())
        elif isinstance(v, np.ndarray):
            for item in v.ravel().tolist()[:64]:
                walk(item)
        else:
            forms.update(number_forms(v))

    walk(value)
    return forms


def _readable(text: str) -> str:
    text = re.sub(f"[{SUPERSCRIPT_DIGITS}]+", lambda m: "**" + m.group(0).translate(_FROM_SUPERSCRIPT), text)
    return text.replace("×", "*").replace("√", "sqrt").strip(" .,;:")


_FROM_SUPERSCRIPT = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")


def _formula_word(word: str, names: frozenset) -> bool:
    """A word a formula may hold: its identifiers all symbols or functions, or none at all."""
    return all(name in names for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", word))


@functools.lru_cache(maxsize=65536)
def _read(candidate: str, symbols: tuple[str, ...]):
    from autograder.judging.compare.symbolic import FormulaError, parse_formula

    try:
        return parse_formula(candidate, symbols)
    except (FormulaError, SyntaxError, ValueError, TypeError, RecursionError):
        return None


def _formula_runs(text: str, symbols: tuple[str, ...]):
    """Each run of words in ``text`` that reads as a formula over ``symbols``: (as written, parsed)."""
    from autograder.judging.compare.formula_grammar import FUNCTIONS as FORMULA_FUNCTIONS

    names = frozenset(symbols) | frozenset(FORMULA_FUNCTIONS)
    for piece in re.split(r"[=:;,—–?!]|\. ", text):
        runs, run = [], []
        for word in [*piece.split(), ""]:
            if word and _formula_word(word, names):
                run.append(word)
            elif run:
                runs.append(run)
                run = []
        for words in runs:
            for start in range(len(words)):
                for stop in range(start + 1, min(len(words), start + MAX_WINDOW) + 1):
                    candidate = _readable(" ".join(words[start:stop]))
                    if candidate and any(s in candidate for s in symbols):
                        parsed = _read(candidate, symbols)
                        if parsed is not None:
                            yield candidate, parsed


def formula_in(text: str, expected: sympy.Expr, symbols: tuple[str, ...]) -> str | None:
    """A run of words in ``text`` that reads as ``expected`` (or its expanded form), or None. Read
    as written — SymPy's own ordering, no simplification — so the question's statement
    (m·(j − i) − m·j) is not its answer (−m·i). Only runs of words made of the question's symbols,
    numbers and operators are read."""
    # the symbols as the parser makes them (positive), whatever the reference declared
    expected = expected.xreplace({s: sympy.Symbol(str(s), positive=True) for s in expected.free_symbols})
    targets = {expected, sympy.expand(expected)}
    for candidate, parsed in _formula_runs(text, symbols):
        if parsed in targets:
            return candidate
    return None


def monomials_in(text: str, symbols: tuple[str, ...]) -> list[sympy.Expr]:
    """The single terms (a product of the question's symbols and numbers) ``text`` writes."""
    found = {}
    for _, parsed in _formula_runs(text, symbols):
        if parsed.free_symbols and not isinstance(parsed, sympy.Add):
            found[parsed] = None
    return list(found)


def numbers_in(text: str) -> list[float]:
    """The numbers ``text`` writes (1,024 and 1_024 read as 1024; a sign is the text's own word)."""
    out = []
    for m in re.finditer(r"(?<![\w.])\d[\d,_]*(\.\d+)?(e-?\d+)?(?![\w])", text):
        try:
            out.append(float(m.group(0).replace(",", "").replace("_", "")))
        except ValueError:
            continue
    return list(dict.fromkeys(out))


def answer_forms(assignment: Assignment, student: str) -> tuple[dict, dict]:
    """(grade_id -> printed forms of an expected value, grade_id -> (expected formula, symbols)) for
    the questions whose answer is a value or a formula. A bare symbol or number is no formula leak."""
    numbers, formulas = {}, {}
    for q, value in value_questions(assignment, student):
        if isinstance(value, sympy.Expr):
            if value.count_ops() >= 1 and hasattr(q.compare, "symbols"):
                formulas[q.grade_id] = (value, tuple(q.compare.symbols))
        else:
            numbers[q.grade_id] = value_forms(value)
    return numbers, formulas


def hidden_function_names(assignment: Assignment, students: tuple[str, ...]) -> set[str]:
    visible = {a.name for q in assignment.questions for p in q.visible for a in p.args if isinstance(a, FunctionSource)}
    hidden = set()
    for q in assignment.questions:
        if q.call and q.probes is not None:
            for s in students:
                hidden |= {a.name for p in q.probes_for(s, assignment) for a in p.args if isinstance(a, FunctionSource)}
    return hidden - visible


def public_labels(assignment: Assignment, students: tuple[str, ...]) -> dict[str, list[str]]:
    """Per question, the probe labels feedback may show (no seed, no hidden name): "base = 100" in a
    label is the probe's own argument, not an answer."""
    from autograder.judging.verdict import public_label

    out = {}
    for q in assignment.questions:
        if q.call and q.probes is not None:
            out[q.grade_id] = sorted(
                {public_label(p, i) for s in students for i, p in enumerate(q.probes_for(s, assignment))},
                key=len,
                reverse=True,
            )
    return out


def leaks(assignment: Assignment, texts: list[tuple[str, str]], students: tuple[str, ...] | None = None) -> list[str]:
    """Every leak in ``texts`` ((grade_id, feedback) pairs), one line each."""
    from autograder.judging.instructor_answers import SELFTEST_STUDENTS

    students = students or SELFTEST_STUDENTS
    numbers, formulas = answer_forms(assignment, students[0])
    names = hidden_function_names(assignment, students)
    labels = public_labels(assignment, students)
    found = []
    for gid, text in dict.fromkeys(texts):
        for label in labels.get(gid, ()):
            if len(label) > 8:  # a short label ("probe 3") could hide a real leak in a longer text
                text = text.replace(label, "‹label›")
        squashed = squash(text)
        for vid, forms in numbers.items():
            for form in forms:
                if (
                    (form in squashed)
                    if not form.replace(",", "").replace(".", "").lstrip("-").isdigit()
                    else re.search(rf"(?<![\d.,\-−]){re.escape(form)}(?![\d,]|\.\d)", text)
                ):
                    found.append(f"{gid}: the expected value of {vid} ({form}) in: {text}")
        for fid, (expr, symbols) in formulas.items():
            written = formula_in(text, expr, symbols)
            if written is not None:
                found.append(f"{gid}: the expected formula of {fid} ({written}) in: {text}")
        found += [f"{gid}: hidden probe function {n!r} in: {text}" for n in names if re.search(rf"\b{n}\b", text)]
        if re.search(r"\bseeds?\s*=?\s*\d", text):
            found.append(f"{gid}: a seed in: {text}")
    return found


def wrong_answers(question, value) -> list:
    """Typical wrong answers to a value or formula question (0, the opposite sign, twice the answer,
    a term left out, a term too many): what the leak scan judges, misconceptions removed, so that
    every diagnosis such an answer can get is scanned."""
    if isinstance(value, sympy.Expr):
        terms = sympy.Add.make_args(sympy.expand(value))
        extra = sympy.Symbol(question.compare.symbols[0], positive=True)
        forms = [sympy.Integer(0), -value, 2 * value, value + extra, value - extra]
        forms += [sympy.expand(value) - t for t in terms if len(terms) > 1]
        return [str(f) for f in forms]
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return [0, -value, 2 * value, value + 1]
    return []


def judged_wrong_texts(assignment: Assignment, student: str) -> list[tuple[str, str]]:
    """(grade_id, feedback) for every misconception text as written, and for the verdict on each
    typical wrong answer of every value or formula question with its misconceptions removed (the
    diagnosis speaks)."""
    key = (id(assignment), assignment.name, student)
    if key not in _JUDGED:  # the self-test's check and its feedback audit scan the same texts
        _JUDGED.clear()
        _JUDGED[key] = _judge_wrong_texts(assignment, student)
    return list(_JUDGED[key])


_JUDGED: dict = {}


def _judge_wrong_texts(assignment: Assignment, student: str) -> list[tuple[str, str]]:
    import dataclasses

    from autograder.judging.outcome import Outcome
    from autograder.judging.verdict import judge

    texts = [(q.grade_id, m.feedback) for q in assignment.questions for m in q.misconceptions]
    for q, value in value_questions(assignment, student):
        bare = dataclasses.replace(q, misconceptions=())
        probes = q.probes_for(student, assignment)
        for wrong in wrong_answers(q, value):
            result = judge(bare, probes, Outcome("returned", [{"value": wrong} for _ in probes]))
            if result.status != "passed":
                texts.append((q.grade_id, result.feedback))
    return texts
