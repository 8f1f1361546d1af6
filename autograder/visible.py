"""Visible checks: the code of the locked check cells a student runs before submitting.

They carry information without giving hidden answers away:

* a function question gets its worked examples (``Question.visible``), expected values
  computed from the reference at release time;
* a value printed in the source documents (``DOCUMENT_VALUES`` in ``questions.py``, grade_id
  -> which document) is checked against that value;
* a formula is checked to parse and to name only the symbols the question offers, with the
  grader's own grammar, shipped beside the notebook as ``formula_check.py``;
* any other value gets its structure checked: type, keys, shape, integrality, and — for a
  personal value, which depends on the student's parameters — its order of magnitude;
* every check cell first refuses an answer that is still the release's stub.

``visible_catches`` counts the known-wrong answers these checks already reject.
"""
from __future__ import annotations

import contextlib
import io
import sys
from typing import Any

import numpy as np

from autograder.judging.compare import AllClose, Formula
from autograder.spec import Assignment, FunctionSource, Question

HELPER_MODULE = "formula_check"  # released beside the notebook; source: autograder/formula_grammar.py
MAGNITUDE_SAMPLE = [f"student-{i:03d}" for i in range(40)]


# ---------------------------------------------------------------- literals

def _number(x, digits: int = 7) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "True" if x else "False"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if not np.isfinite(x):  # masked scores: a literal the student's cell can run
        return f"float('{float(x)}')"
    return format(float(x), f".{digits}g")


def nested(arr: np.ndarray, digits: int = 7) -> str:
    if arr.ndim == 0:
        return _number(arr.item(), digits)
    return "[" + ", ".join(nested(a, digits) for a in arr) + "]"


def array_literal(value, args_as: str) -> str:
    if isinstance(value, FunctionSource):
        return value.name
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    arr = np.asarray(value)
    if arr.dtype == bool:
        dtype = "torch.bool" if args_as == "torch" else "bool"
    elif arr.dtype.kind in "iu":  # positions, indices, token ids stay integers
        dtype = "torch.int64" if args_as == "torch" else "np.int64"
    else:
        dtype = "torch.float32" if args_as == "torch" else "np.float32"
    ctor = "torch.tensor" if args_as == "torch" else "np.array"
    return f"{ctor}({nested(arr, digits=9)}, dtype={dtype})"  # 9 digits: float32 round-trips


# ---------------------------------------------------------------- check kinds

def _worked_examples(question: Question) -> list[str]:
    lines = []
    for probe in question.visible:
        expected = question.expected(probe)
        lines.append("")
        if probe.note:
            lines.append(f"# {probe.note}")
        for arg in probe.args:
            if isinstance(arg, FunctionSource):
                lines.append(arg.source.strip())
        args = ", ".join([array_literal(a, question.args_as) for a in probe.args]
                         + [f"{k}={array_literal(v, question.args_as)}" for k, v in probe.kwargs.items()])
        lines.append(f"_got = {question.answer}({args})")
        if isinstance(question.compare, AllClose):
            lines.append("np.testing.assert_allclose(np.asarray(_got, dtype=np.float64),")
            lines.append(f"    {nested(np.asarray(expected, dtype=np.float64))},")
            lines.append(f"    rtol={question.compare.rtol:g}, atol={question.compare.atol:g},"
                         f" err_msg={probe.label!r})")
        elif hasattr(expected, "shape"):  # an array compared exactly (indices, token ids)
            lines.append(f"assert np.array_equal(np.asarray(_got), {nested(np.asarray(expected))}), "
                         f"{probe.label!r}")
        else:
            lines.append(f"assert _got == {expected!r}, {probe.label!r}")
    return lines


def _not_a_stub(name: str) -> list[str]:
    return ["import inspect",
            "try:",
            f"    _source = inspect.getsource({name})",
            "except (OSError, TypeError):",
            "    _source = ''",
            f"assert 'raise NotImplementedError' not in _source, '`{name}` is not implemented yet'"]


def _formula_check(question: Question) -> list[str]:
    symbols = tuple(question.compare.symbols)
    return [f"from {HELPER_MODULE} import check_formula",
            f"check_formula({question.answer}, {symbols!r})  # parses, and uses only these symbols"]


def _document_value(question: Question, document: str) -> list[str]:
    expected = question.expected(_value_probe(question, None))
    atol = max(getattr(question.compare, "atol", 1e-4), 1e-3)
    return [f"# the value {document} prints (to its printed precision)",
            f"np.testing.assert_allclose(np.asarray({question.answer}, dtype=np.float64),",
            f"    {nested(np.asarray(expected, dtype=np.float64), digits=5)}, rtol=1e-3, atol={atol:g},",
            f"    err_msg={question.answer + ' differs from ' + document!r})"]


def _value_probe(question: Question, assignment: Assignment | None, student: str = "selftest-a"):
    from autograder.spec import Probe

    params = assignment.params_for(student) if (assignment and question.personal) else {}
    return Probe((), kwargs=params)


def _bounds(question: Question, assignment: Assignment) -> list[Any]:
    return [question.expected(_value_probe(question, assignment, s)) for s in MAGNITUDE_SAMPLE]


def _structure(expr: str, value: Any, samples: list[Any] | None) -> list[str]:
    """Assert lines for the type / keys / shape / integrality of ``expr`` (and, with samples of
    the same value for other students, its order of magnitude)."""
    def check(condition: str, message: str) -> str:
        return f"assert {condition}, {f'{expr} {message}'!r}"

    if isinstance(value, dict):
        lines = [check(f"isinstance({expr}, dict)", "should be a dict"),
                 check(f"sorted(map(str, {expr})) == {sorted(map(str, value))!r}",
                       "should have the keys " + ", ".join(map(str, sorted(value))))]
        for key in value:
            lines += _structure(f"{expr}[{key!r}]", value[key], [s[key] for s in samples] if samples else None)
        return lines
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                for v in value):
        lines = [check(f"len({expr}) == {len(value)}", f"should have {len(value)} entries")]
        if all(isinstance(v, int) for v in value):
            lines.append(check(f"all(float(v) == int(v) for v in {expr})", "should hold whole numbers"))
        return lines
    if isinstance(value, np.ndarray):
        return [check(f"np.asarray({expr}).shape == {tuple(value.shape)!r}", f"should have shape {tuple(value.shape)}"),
                check(f"np.isfinite(np.asarray({expr}, dtype=np.float64)).all()", "should be finite")]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lines = [check(f"isinstance({expr}, (int, float, np.integer, np.floating)) and not isinstance({expr}, bool)",
                       "should be a number")]
        if isinstance(value, int):
            lines.append(check(f"float({expr}) == int({expr})", "should be a whole number"))
        if samples:
            lo, hi = min(samples) / 10, max(samples) * 10
            lines.append(check(f"{lo:.6g} <= {expr} <= {hi:.6g}", "is off by an order of magnitude or more"))
        return lines
    if isinstance(value, str):
        return [check(f"isinstance({expr}, str)", "should be a string")]
    return []


def _choice_lines(question: Question, expr: str) -> list[str]:
    options = getattr(question.compare, "options", ())
    if not options:
        return []
    message = f"{expr} should be one of " + ", ".join(options)
    return [f"assert ' '.join({expr}.strip().lower().split()) in {tuple(options)!r}, {message!r}"]


def visible_check_source(question: Question, assignment: Assignment | None = None,
                         documents: dict[str, str] | None = None) -> str:
    """The code of a released check cell."""
    lines = [f"# Visible checks for `{question.answer}`. The expected values were computed from the",
             "# course's reference implementation when this notebook was released. Passing them",
             "# does not guarantee full marks: the grader also uses hidden inputs drawn for you.",
             "import numpy as np"]
    if question.args_as == "torch":
        lines.append("import torch")
    lines.append(f"assert '{question.answer}' in globals(), 'define `{question.answer}` above'")
    if question.call:
        lines += _not_a_stub(question.answer) + _worked_examples(question)
    elif isinstance(question.compare, Formula):
        lines += _formula_check(question)
    elif documents and question.grade_id in documents:
        lines += _document_value(question, documents[question.grade_id])
    else:
        value = question.expected(_value_probe(question, assignment))
        samples = _bounds(question, assignment) if (question.personal and assignment) else None
        lines += _structure(question.answer, value, samples) + _choice_lines(question, question.answer)
    lines.append(f"print('visible checks passed for {question.answer}')")
    return "\n".join(lines)


# ---------------------------------------------------------------- what they catch

def _spec_attr(assignment: Assignment, name: str) -> dict:
    return getattr(sys.modules.get(f"_assignment_{assignment.name}"), name, {}) or {}


def document_values(assignment: Assignment) -> dict[str, str]:
    return _spec_attr(assignment, "DOCUMENT_VALUES")


def _rejects(source: str, question: Question, answer: Any, assignment: Assignment) -> bool:
    from autograder import formula_grammar
    from autograder.selftest import as_handed_in

    import torch

    if not question.call:
        answer = as_handed_in(answer)
        if isinstance(answer, np.ndarray) and question.args_as == "torch":
            answer = torch.from_numpy(answer)
    namespace = {question.answer: answer, "PARAMS": assignment.params_for("selftest-a")}
    saved = sys.modules.get(HELPER_MODULE)
    sys.modules[HELPER_MODULE] = formula_grammar
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, "<visible check>", "exec"), namespace)  # our generated check, trusted
    except Exception:  # noqa: BLE001 - any failure is a rejection, as in the student's kernel
        return True
    finally:
        if saved is None:
            sys.modules.pop(HELPER_MODULE, None)
        else:
            sys.modules[HELPER_MODULE] = saved
    return False


def reference_rejected(assignment: Assignment, question: Question) -> bool:
    """Does the question's own visible check reject the reference answer? (Must not.)"""
    source = visible_check_source(question, assignment, document_values(assignment))
    if question.call:
        return _rejects(source, question, question.reference, assignment)
    return _rejects(source, question, question.expected(_value_probe(question, assignment)), assignment)


def visible_catches(assignment: Assignment) -> tuple[int, int]:
    """(known-wrong answers some visible check rejects, all known-wrong answers)."""
    caught = total = 0
    documents = document_values(assignment)
    for q in assignment.questions:
        source = visible_check_source(q, assignment, documents)
        for mis in q.misconceptions:
            total += 1
            if q.call:
                answer = mis.wrong
            else:
                probe = _value_probe(q, assignment)
                try:
                    answer = mis.wrong(**probe.kwargs)
                except Exception:  # noqa: BLE001
                    caught += 1
                    continue
            caught += _rejects(source, q, answer, assignment)
    return caught, total
