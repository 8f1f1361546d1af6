"""Nothing given away: the feedback the self-test produces for every known-wrong answer of every
problem set (and for its killed mutants) never contains the expected value of a value
question, the expected formula, the name of a hidden probe function or a seed; question titles
contain no expected formula either."""

import re

import numpy as np
import pytest
import sympy
from conftest import problem_set_params

from autograder.judging.instructor_answers import SELFTEST_STUDENTS
from autograder.proving.feedback_audit import FeedbackAudit, audit_known_wrong, audit_mutants
from autograder.spec import FunctionSource, list_assignments, load_assignment

STUDENT = SELFTEST_STUDENTS[0]


def squash(text: str) -> str:
    """One spelling for formulas: no spaces or multiplication signs, powers as superscripts."""
    text = text.replace("**", "^").replace("·", "").replace("*", "").replace("×", "").replace(" ", "")
    text = text.replace("−", "-")
    return re.sub(r"\^(\d)", lambda m: "⁰¹²³⁴⁵⁶⁷⁸⁹"[int(m.group(1))], text)


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


def expected_forms(question, assignment) -> set[str]:
    probe = question.probes_for(STUDENT, assignment)[0]
    value = question.reference(**probe.kwargs) if question.personal else question.reference()
    if isinstance(value, sympy.Expr):
        return {squash(str(value)), squash(str(sympy.expand(value)))}
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


def hidden_function_names(assignment) -> set[str]:
    visible = {a.name for q in assignment.questions for p in q.visible for a in p.args if isinstance(a, FunctionSource)}
    hidden = set()
    for q in assignment.questions:
        if q.call and q.probes is not None:
            for s in SELFTEST_STUDENTS:
                hidden |= {a.name for p in q.probes_for(s, assignment) for a in p.args if isinstance(a, FunctionSource)}
    return hidden - visible


def public_labels(assignment) -> dict[str, list[str]]:
    """Per question, the probe labels feedback may show (``public_label``: no seed, no hidden name) —
    by design, not a leak: "base = 100" in a label is the probe's own argument, not an answer."""
    from autograder.judging.verdict import public_label

    out = {}
    for q in assignment.questions:
        if q.call and q.probes is not None:
            out[q.grade_id] = sorted(
                {public_label(p, i) for s in SELFTEST_STUDENTS for i, p in enumerate(q.probes_for(s, assignment))},
                key=len,
                reverse=True,
            )
    return out


def leaks(assignment, texts: list[tuple[str, str]]) -> list[str]:
    value_forms = {q.grade_id: expected_forms(q, assignment) for q in assignment.questions if not q.call}
    names = hidden_function_names(assignment)
    labels = public_labels(assignment)
    found = []
    for gid, text in texts:
        for label in labels.get(gid, ()):
            if len(label) > 8:  # a short label ("probe 3") could hide a real leak in a longer text
                text = text.replace(label, "‹label›")
        squashed = squash(text)
        for vid, forms in value_forms.items():
            for form in forms:
                if (
                    (form in squashed)
                    if not form.replace(",", "").replace(".", "").lstrip("-").isdigit()
                    else re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d,]|\.\d)", text)
                ):
                    found.append(f"{gid}: the expected value of {vid} ({form}) in: {text}")
        found += [f"{gid}: hidden probe function {n!r} in: {text}" for n in names if re.search(rf"\b{n}\b", text)]
        if re.search(r"\bseeds?\s*=?\s*\d", text):
            found.append(f"{gid}: a seed in: {text}")
    return found


@pytest.mark.parametrize("name", list_assignments())
def test_known_wrong_feedback_gives_nothing_away(name):
    assignment = load_assignment(name)
    audit = FeedbackAudit(assignment.name)
    audit_known_wrong(assignment, audit, STUDENT)
    assert audit.texts
    assert leaks(assignment, audit.texts) == []


@pytest.mark.parametrize("name", list_assignments())
def test_titles_hold_no_expected_formula(name):
    assignment = load_assignment(name)
    titles = [(q.grade_id, q.title) for q in assignment.questions]
    formulas = [
        q for q in assignment.questions if not q.call and not q.personal and isinstance(q.reference(), sympy.Expr)
    ]
    for gid, title in titles:
        for q in formulas:
            assert not any(form in squash(title) for form in expected_forms(q, assignment)), (gid, title)


@pytest.mark.parametrize("name", problem_set_params())
def test_killed_mutants_feedback_gives_nothing_away(name):
    """Every problem set's mutants that the first self-test student's probes reject (a superset of
    the killed ones), with the crash and automatic diagnoses they get."""
    assignment = load_assignment(name)
    audit = FeedbackAudit(assignment.name)
    audit_mutants(assignment, audit, SELFTEST_STUDENTS[:1])
    assert audit.total > 0
    assert leaks(assignment, audit.texts) == []


def test_the_scan_finds_a_leak():
    """The scan is not vacuous: an expected count, a formula, a hidden name and a seed are found."""
    ps1, ps5 = load_assignment("ps1_attention"), load_assignment("ps5_equivariance")
    bert = ps1.question("real_models").reference()["bert_base"]
    texts = [
        ("real_models", f"BERT-base has {bert:,} parameters"),
        ("qk_flops_formula", "count 2 FLOPs per multiply-add: 2·T²·d"),
        ("x", "on probe 3 (seed 1234): wrong"),
    ]
    found = leaks(ps1, texts)
    assert {f.split(":")[0] for f in found} == {"real_models", "qk_flops_formula", "x"}, found
    assert leaks(ps5, [("equivariance_tester", "first_token_special: True is not the expected value")])
