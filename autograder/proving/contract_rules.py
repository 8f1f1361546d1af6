"""Coverage rules that the whole stated contract is probed (issue 27), derived from the reference's
signature and from trying the reference itself, per function question and self-test student:

* a parameter with a default is given a value other than its default by some hidden probe (the
  default being omitted by another is ``coverage``'s rule): a callee left at its own default passes
  otherwise;
* a tensor parameter (an array of 2 axes or more) that never changes its number of axes in the
  hidden probes, though the reference accepts it with an extra leading (batch) axis, gets a probe
  with one — the answer that indexes axis 0 (``X[p]`` for ``X[..., p, :]``) passes otherwise;
* an integer budget (``k``, ``max_new_tokens``, a beam width, a length: ``families.BUDGET_NAME``)
  is given its smallest value the reference accepts, 0 or else 1, by some probe — a loop that
  always runs once passes otherwise.

``None`` where the reference's default is ``None`` (an ``eos_id``, a mask) is ``coverage``'s rule
that every default is omitted by some probe.

The probes' own arguments and one call of the reference per rule that needs it tell everything;
where the text of the notebook does not allow what the reference accepts (a batch axis the
exercise does not ask for), ``Question.coverage_exempt = {parameter: reason}`` says so."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from autograder.proving.mutation.families import BUDGET_NAME
from autograder.spec import Probe, Question, as_args, to_plain


def _call(q: Question, args: tuple, kwargs: dict) -> Any:
    return to_plain(q.reference(*as_args(args, q.args_as), **kwargs))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), equal_nan=True))
    except (TypeError, ValueError):
        return a == b


def _accepts(q: Question, probe: Probe, index: int, value: Any) -> bool:
    args = list(probe.args)
    args[index] = value
    try:
        _call(q, tuple(args), probe.kwargs)
    except Exception:  # noqa: BLE001 - refused: not part of the contract
        return False
    return True


def _batches(q: Question, probe: Probe, tensors: list[int]) -> bool:
    """The reference run on every tensor argument stacked twice along a new leading axis returns
    its result stacked twice (or the same non-array value)."""
    args = list(probe.args)
    for i in tensors:
        args[i] = np.stack([args[i], args[i]])
    try:
        single, batched = _call(q, probe.args, probe.kwargs), _call(q, tuple(args), probe.kwargs)
    except Exception:  # noqa: BLE001
        return False
    if isinstance(single, (list, np.ndarray)) and np.ndim(single) >= 1:
        return np.shape(batched) == (2, *np.shape(single)) and _same(batched, np.stack([single, single]))
    return _same(batched, single)


def _positional(q: Question) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(q.reference).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def _given(probe: Probe, index: int, param: inspect.Parameter):
    if index < len(probe.args):
        return probe.args[index]
    return probe.kwargs.get(param.name, param.default)


def contract_problems(q: Question, student: str, probes: list[Probe]) -> list[str]:
    exempt = q.coverage_exempt
    params = _positional(q)
    problems = []
    full = [p for p in probes if len(p.args) == len(params)] or probes
    for index, param in enumerate(params):
        if param.name in exempt or not probes:
            continue
        values = [_given(p, index, param) for p in probes]
        if param.default is not inspect.Parameter.empty and all(_same_default(v, param.default) for v in values):
            problems.append(
                f"{q.grade_id}: no hidden probe of {student} gives `{param.name}` a value other than its default "
                f"{param.default!r} — an answer (or a callee) that always uses the default passes"
            )
        ints = [v for v in values if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))]
        if BUDGET_NAME.match(param.name) and ints and len(ints) == len(values) and index < len(full[0].args):
            smallest = next((s for s in (0, 1) if _accepts(q, full[0], index, s)), None)
            if smallest is not None and min(ints) > smallest:
                problems.append(
                    f"{q.grade_id}: no hidden probe of {student} gives the budget `{param.name}` its boundary "
                    f"value {smallest} (the reference accepts it) — a loop that always runs once passes"
                )
    problems += _batch_problems(q, student, probes, params)
    return problems


def _same_default(value, default) -> bool:
    if isinstance(value, np.ndarray) or isinstance(default, np.ndarray):
        return False
    return value is default or (type(value) is type(default) and value == default)


def _batch_problems(q: Question, student: str, probes: list[Probe], params) -> list[str]:
    tensors = [
        i
        for i, p in enumerate(params)
        if p.name not in q.coverage_exempt
        and any(i < len(pr.args) and isinstance(pr.args[i], np.ndarray) and pr.args[i].ndim >= 2 for pr in probes)
    ]
    unbatched = []
    for i in tensors:
        ranks = {pr.args[i].ndim for pr in probes if i < len(pr.args) and isinstance(pr.args[i], np.ndarray)}
        if len(ranks) == 1:
            unbatched.append(i)
    if not unbatched:
        return []
    first = next((pr for pr in probes if all(isinstance(pr.args[i], np.ndarray) for i in unbatched)), None)
    if first is None or not _batches(q, first, unbatched):
        return []
    names = ", ".join(f"`{params[i].name}`" for i in unbatched)
    return [
        f"{q.grade_id}: {names} always {'has' if len(unbatched) == 1 else 'have'} the same number of axes in the "
        f"hidden probes of {student}, though the reference accepts an extra leading (batch) axis — probe one "
        "(or exempt it in coverage_exempt if the notebook's text does not allow it)"
    ]
