"""Visible checks: the code of the locked check cells a student runs before submitting.

They carry information without giving hidden answers away:

* a function question gets its worked examples (``Question.visible``), expected values
  computed from the reference at release time;
* a value printed in the source documents (``Question.document_value`` names the document)
  is checked against that value;
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
import tokenize
from typing import Any

import numpy as np

from autograder.judging.compare.check_code import nested
from autograder.judging.compare.comparators import FORMULA_HELPER_MODULE
from autograder.releasing.float64 import release_expected
from autograder.spec import Assignment, FunctionSource, Question

HELPER_MODULE = FORMULA_HELPER_MODULE
MAGNITUDE_SAMPLE = [f"student-{i:03d}" for i in range(40)]


# ---------------------------------------------------------------- literals


def array_literal(value, args_as: str) -> str:
    if isinstance(value, FunctionSource):
        return value.name
    if value is None or isinstance(value, (bool, int, float, str, dict)):
        return repr(value)
    if isinstance(value, (list, tuple)) and not _numeric(value):
        return repr(value)  # plain data that is not an array: words, merges, nested lists of strings
    arr = np.asarray(value)
    if arr.dtype == bool:
        dtype = "torch.bool" if args_as == "torch" else "bool"
    elif arr.dtype.kind in "iu":  # positions, indices, token ids stay integers
        dtype = "torch.int64" if args_as == "torch" else "np.int64"
    else:
        dtype = "torch.float32" if args_as == "torch" else "np.float32"
    ctor = "torch.tensor" if args_as == "torch" else "np.array"
    return f"{ctor}({nested(arr, digits=9)}, dtype={dtype})"  # 9 digits: float32 round-trips


def _numeric(value) -> bool:
    """A list (nested) of numbers only, which the released check writes as an array."""
    if isinstance(value, (list, tuple)):
        return all(_numeric(v) for v in value)
    return isinstance(value, (bool, int, float, np.number))


# ---------------------------------------------------------------- check kinds


def _worked_examples(question: Question) -> list[str]:
    lines = []
    pasted = set()  # a function several examples share (a fixed model) is defined once per cell
    for probe in question.visible:
        expected = release_expected(question, probe)
        lines.append("")
        if probe.note:
            lines.append(f"# {probe.note}")
        for arg in probe.args:
            if isinstance(arg, FunctionSource) and arg.source not in pasted:
                pasted.add(arg.source)
                lines.append(arg.source.strip())
        args = ", ".join(
            [array_literal(a, question.args_as) for a in probe.args]
            + [f"{k}={array_literal(v, question.args_as)}" for k, v in probe.kwargs.items()]
        )
        lines.append(f"_got = {question.answer}({args})")
        lines += question.compare.example_lines(expected, probe.label)
    return lines


def _not_a_stub(name: str) -> list[str]:
    return [
        "import inspect",
        "try:",
        f"    _source = inspect.getsource({name})",
        "except (OSError, TypeError):",
        "    _source = ''",
        f"assert 'raise NotImplementedError' not in _source, '`{name}` is not implemented yet'",
    ]


def _document_value(question: Question, document: str) -> list[str]:
    expected = release_expected(question, _value_probe(question, None))
    atol = max(getattr(question.compare, "atol", 1e-4), 1e-3)
    return [
        f"# the value {document} prints (to its printed precision)",
        f"np.testing.assert_allclose(np.asarray({question.answer}, dtype=np.float64),",
        f"    {nested(np.asarray(expected, dtype=np.float64), digits=5)}, rtol=1e-3, atol={atol:g},",
        f"    err_msg={question.answer + ' differs from ' + document!r})",
    ]


def _value_probe(question: Question, assignment: Assignment | None, student: str = "selftest-a"):
    from autograder.spec import Probe

    params = assignment.params_for(student) if (assignment and question.personal) else {}
    return Probe((), kwargs=params)


def _bounds(question: Question, assignment: Assignment) -> list[Any]:
    return [release_expected(question, _value_probe(question, assignment, s)) for s in MAGNITUDE_SAMPLE]


def visible_check_source(question: Question, assignment: Assignment | None = None) -> str:
    """The code of a released check cell. Its imports and names stay inside a function the cell
    calls and then deletes, so the student's namespace is what their own cells made of it: an
    answer that uses ``torch`` without importing it fails here as it fails in the grader."""
    body = ["import numpy as np"]
    if question.args_as == "torch":
        body.append("import torch")
    body.append(f"assert '{question.answer}' in globals(), 'define `{question.answer}` above'")
    if question.call:
        body += _not_a_stub(question.answer) + _worked_examples(question)
    elif question.document_value:
        body += _document_value(question, question.document_value)
    else:
        value = release_expected(question, _value_probe(question, assignment))
        samples = _bounds(question, assignment) if (question.personal and assignment) else None
        body += question.compare.value_lines(question.answer, value, samples)
    body.append(f"print('visible checks passed for {question.answer}')")
    check = f"_visible_checks_{question.answer}"
    return "\n".join(
        [
            f"# Visible checks for `{question.answer}`. The expected values were computed from the",
            "# course's reference implementation when this notebook was released. Passing them",
            "# does not guarantee full marks: the grader also uses hidden inputs drawn for you.",
            "# They run inside a function: nothing they import or define stays in your notebook.",
            f"def {check}():",
            *as_function_body(body),
            "",
            "",
            f"{check}()",
            f"del {check}",
        ]
    )


def as_function_body(lines: list[str]) -> list[str]:
    """``lines`` as a function body; a string literal spanning lines would change if indented."""
    source = "\n".join(lines) + "\n"
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and "\n" in token.string:
            raise ValueError(f"a visible check holds a string over several lines: {token.string[:60]!r}")
    return [f"    {line}" if line.strip() else "" for line in source.splitlines()]


# ---------------------------------------------------------------- what they catch


def check_rejects(source: str, question: Question, answer: Any, assignment: Assignment) -> bool:
    """Does this visible check (its source, as released) fail on ``answer``, run as the student's
    kernel would run it?"""
    import torch

    from autograder.judging.compare import formula_grammar
    from autograder.judging.instructor_answers import as_handed_in

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
    source = visible_check_source(question, assignment)
    if question.call:
        return check_rejects(source, question, question.reference, assignment)
    return check_rejects(source, question, question.expected(_value_probe(question, assignment)), assignment)


def visible_catches(assignment: Assignment) -> tuple[int, int]:
    """(known-wrong answers some visible check rejects, all known-wrong answers)."""
    caught = total = 0
    for q in assignment.questions:
        source = visible_check_source(q, assignment)
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
            caught += check_rejects(source, q, answer, assignment)
    return caught, total
