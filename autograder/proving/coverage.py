"""Coverage rules for hidden probes, checked by the self-test for every function question.

On each self-test student's probes:

* every parameter takes at least two values (an omitted argument counts as its default) — an
  answer that ignores an argument which never changes would pass;
* every parameter with a default is omitted by at least one call — the default is exercised;
* a parameter that carries positions is not only 0..T-1 in every probe;
* array arguments take at least one shape the visible examples do not show;
* the combinations a question declares as interacting (top-k with top-p, EOS inside and
  outside the vocabulary, ...) each occur in some probe: ``Question.coverage_together =
  {description: predicate(arguments by name) -> bool}``;
* the ranges the question's text names (``Question.stated_ranges``) are probed at their ends,
  inside and past them where the text allows it, and every argument the text bounds has one
  (``stated_ranges``).

A parameter can be exempted from the first three rules, with the reason, in
``Question.coverage_exempt = {parameter: reason}``. ``contract_rules`` adds the rules that the whole
stated contract is probed (a non-default value for each default, a batch axis the reference
accepts, a budget's boundary value, ``None`` where the reference accepts it); the same exemption
applies.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from autograder.proving.contract_rules import contract_problems
from autograder.proving.stated_ranges import notebook_text_problems, range_problems
from autograder.spec import Assignment, FunctionSource, Probe, Question

_OMITTED = object()


def value_key(value: Any):
    """A hashable identity for a probe argument (arrays by shape, dtype and bytes)."""
    if isinstance(value, FunctionSource):
        return ("function", value.source)
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype), value.tobytes())
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(value_key(v) for v in value))
    return ("scalar", repr(value))


def _parameters(q: Question) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(q.reference).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def arguments(q: Question, probe: Probe) -> dict[str, Any]:
    """The probe's arguments by parameter name; an omitted one is ``_OMITTED``."""
    named = {}
    for i, p in enumerate(_parameters(q)):
        if i < len(probe.args):
            named[p.name] = probe.args[i]
        else:
            named[p.name] = probe.kwargs.get(p.name, _OMITTED)
    return named


def _is_positions(name: str) -> bool:
    return "position" in name


def _consecutive(value) -> bool:
    arr = np.asarray(value)
    if arr.ndim == 0 or arr.dtype.kind not in "iu":
        return False
    return bool((arr == np.arange(arr.shape[-1])).all())


def question_problems(
    q: Question,
    probes_by_student: dict[str, list[Probe]],
) -> list[str]:
    exempt, together = q.coverage_exempt, q.coverage_together
    problems = []
    params = _parameters(q)
    visible_shapes = {p.name: set() for p in params}
    for probe in q.visible:
        for name, value in arguments(q, probe).items():
            if isinstance(value, np.ndarray):
                visible_shapes[name].add(value.shape)
    for student, probes in probes_by_student.items():
        calls = [arguments(q, probe) for probe in probes]
        for p in params:
            if p.name in exempt:
                continue
            given = [c[p.name] for c in calls]
            values = [p.default if v is _OMITTED else v for v in given]
            if len({value_key(v) for v in values}) < 2:
                problems.append(
                    f"{q.grade_id}: argument `{p.name}` takes one value in all hidden probes "
                    f"of {student} — an answer that ignores `{p.name}` passes"
                )
            if p.default is not inspect.Parameter.empty and all(v is not _OMITTED for v in given):
                problems.append(
                    f"{q.grade_id}: no hidden probe of {student} omits `{p.name}` — its default is never exercised"
                )
            if _is_positions(p.name) and all(v is None or _consecutive(v) for v in values):
                problems.append(f"{q.grade_id}: argument `{p.name}` is 0..T-1 in every hidden probe of {student}")
            shown = visible_shapes.get(p.name)
            shapes = {v.shape for v in values if isinstance(v, np.ndarray)}
            if shown and shapes and shapes <= shown:
                problems.append(
                    f"{q.grade_id}: argument `{p.name}` has only the visible examples' "
                    f"shapes in the hidden probes of {student}"
                )
        problems += contract_problems(q, student, probes)
        problems += range_problems(q, student, [{p.name: _or_default(c[p.name], p) for p in params} for c in calls])
        for description, holds in together.items():
            if not any(_holds(holds, c) for c in calls):
                problems.append(f"{q.grade_id}: no hidden probe of {student} has {description}")
    return problems


def _or_default(value, param: inspect.Parameter):
    return param.default if value is _OMITTED else value


def _holds(predicate, call: dict) -> bool:
    try:
        return bool(predicate({k: (None if v is _OMITTED else v) for k, v in call.items()}))
    except Exception:  # noqa: BLE001 - a predicate that cannot read this call does not hold
        return False


def coverage_problems(assignment: Assignment, questions: list[Question], students) -> list[str]:
    problems = notebook_text_problems(assignment, questions)
    for q in questions:
        probes = {s: q.probes_for(s, assignment) for s in students}
        problems += question_problems(q, probes)
    return problems
