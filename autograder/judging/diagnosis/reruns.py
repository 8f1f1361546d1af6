"""Diagnosis finders that re-run the reference: without, or with the inverse, mask; with the
softmax's scores scaled or over another axis, its weights rounded, LayerNorm over more axes
(``variants``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Case, Context, Diagnosis
from autograder.spec import Probe


def find_mask(ctx: Context) -> Diagnosis | None:
    def masks(probe: Probe) -> list[int]:
        return [i for i, a in enumerate(probe.args) if isinstance(a, np.ndarray) and a.dtype == bool]

    if not ctx.question.call or not all(masks(c.probe) for c in ctx.cases):
        return None

    def rerun(case: Case, change) -> Any:
        args = list(case.probe.args)
        for i in masks(case.probe):
            args[i] = change(args[i])
        return ctx.reference(tuple(args), case.probe.kwargs)

    if ctx.all_fit(lambda c: rerun(c, lambda m: ~m)):
        return Diagnosis(
            "mask_inverted",
            Message(
                "you apply the mask inverted: your output is the reference's for the "
                "opposite mask (allowed and blocked positions swapped)"
            ),
        )
    for drop in (lambda m: None, lambda m: np.ones_like(m)):
        if ctx.all_fit(lambda c, d=drop: rerun(c, d)):
            return Diagnosis(
                "mask_missing",
                Message(
                    "the mask has no effect in your answer: your output is the "
                    "reference's without any mask — masked positions must be excluded"
                ),
            )
    return None


def find_primitive_variants(ctx: Context) -> Diagnosis | None:
    """The reference re-run with one primitive it uses changed (``variants``): the softmax's
    scores scaled or over another axis, its own mask left out, inverted or transposed,
    LayerNorm over more axes."""
    from autograder.judging.diagnosis.variants import primitives_used

    if not ctx.question.call:
        return None
    first = ctx.cases[0].probe
    try:
        used = primitives_used(lambda: ctx.reference(first.args, first.kwargs))
    except Exception:  # noqa: BLE001
        return None

    def with_override(make):
        return ctx.all_fit(lambda c: ctx.reference(c.probe.args, c.probe.kwargs, make(c)))

    found = None
    if "softmax" in used:
        found = _softmax_variant(ctx, first, with_override)
    if found is None and "masked_fill" in used and not any(_is_mask(a) for a in first.args):
        found = _own_mask_variant(with_override)  # a mask the reference builds itself (causal)
    if found is None and "layer_norm" in used:
        found = _norm_variant(with_override)
    return found


def find_rounded_weights(ctx: Context) -> Diagnosis | None:
    """The reference re-run with its softmax's output (the attention weights) rounded to a few
    decimals gives what the answer returned — a function's or a value's (weights rounded as a
    printout shows them, then used)."""
    from autograder.judging.diagnosis.variants import Override, primitives_used

    first = ctx.cases[0].probe
    try:
        if "softmax" not in primitives_used(lambda: ctx.reference(first.args, first.kwargs)):
            return None
    except Exception:  # noqa: BLE001
        return None
    fitting = [
        n
        for n in range(1, 7)
        if ctx.all_fit(lambda c, n=n: ctx.reference(c.probe.args, c.probe.kwargs, Override(round_decimals=n)))
    ]
    if not fitting:
        return None
    places = f"{fitting[0]}" if len(fitting) == 1 else Message("{low} to {high}", low=fitting[0], high=fitting[-1])
    return Diagnosis(
        "rounded_weights",
        Message(
            "your values are what the attention weights give when they are rounded ({places} decimals give "
            "the same here) before they are used: keep the softmax's output at full precision — rounded, "
            "the smallest weights become 0 and every sum built on them moves",
            places=places,
        ),
    )


def _is_mask(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == bool


def _softmax_variant(ctx: Context, first: Probe, with_override) -> Diagnosis | None:
    from autograder.judging.diagnosis.variants import Override

    for label, _ in [n for n in ctx.factor_names(first) if n[0] not in ("10", "1/10")]:

        def make(case, label=label):
            return Override(scale=dict(ctx.factor_names(case.probe))[label])

        if with_override(make):
            return Diagnosis(
                "softmax_scale",
                Message(
                    "the scores going into your softmax are the reference's times {factor}: check the scaling "
                    "before the softmax",
                    factor=label,
                ),
            )
    for dim in (-2, -3, 0):
        if with_override(lambda c, d=dim: Override(softmax_dim=d)):
            return Diagnosis(
                "softmax_axis",
                Message(
                    "your softmax normalises over axis {axis} of the scores: each "
                    "distribution must run over the keys (the last axis)",
                    axis=dim,
                ),
            )
    return None


def _own_mask_variant(with_override) -> Diagnosis | None:
    """A mask the reference builds itself: left out, or applied the other way round."""
    from autograder.judging.diagnosis.variants import Override

    if with_override(lambda c: Override(masked_fill="skip")):
        return Diagnosis(
            "mask_missing",
            Message(
                "your output is the reference's without its mask: the positions "
                "the mask blocks (a query's later keys, for a causal mask) must "
                "be excluded before the softmax"
            ),
        )
    if with_override(lambda c: Override(masked_fill="invert")):
        return Diagnosis(
            "mask_inverted",
            Message(
                "your mask is inverted: your output is the reference's with the allowed and the blocked "
                "positions swapped"
            ),
        )
    if with_override(lambda c: Override(masked_fill="transpose")):
        return Diagnosis(
            "mask_transposed",
            Message(
                "your mask is the transpose of the right one: each query sees the "
                "keys from its own position on instead of those up to it (rows "
                "are queries, columns keys)"
            ),
        )
    return None


def _norm_variant(with_override) -> Diagnosis | None:
    from autograder.judging.diagnosis.variants import Override

    for axes in (2, 3):
        if with_override(lambda c, n=axes: Override(norm_axes=n)):
            return Diagnosis(
                "norm_axis",
                Message(
                    "you normalise over the last {n} axes together: normalise "
                    "each position over its own features (the last axis) only",
                    n=axes,
                ),
            )
    return None


def _argument_candidates(ctx: Context, index: int, name: str, default, value) -> list[tuple[Message, object]]:
    """(what the answer may have done, how to change the argument) for argument ``index``, whose
    value on the first failing probe is ``value``."""
    out = _unused_candidates(ctx, index, name, default)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        out += [
            (Message("your answer uses `{name}` off by one (as if it were `{name}` + 1)", name=name), lambda v: v + 1),
            (Message("your answer uses `{name}` off by one (as if it were `{name}` − 1)", name=name), lambda v: v - 1),
        ]
        # a size counted twice or halved (d where d/2 pairs belong, or pairs where d dimensions do);
        # an odd value cannot be halved, and a probe that cannot be re-run explains nothing
        out += [
            (Message("your answer behaves as if `{name}` were twice as large", name=name), lambda v: 2 * v),
            (
                Message("your answer behaves as if `{name}` were half as large", name=name),
                _half,
            ),
        ]
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.ndim >= 1:
        out += _index_array_candidates(name)
    if isinstance(value, str):  # an option: the answer does what another of its values asks
        out += _option_candidates(ctx, index, name, value)
    if isinstance(value, (float, np.floating)):
        out += [
            (Message("your answer uses 1/`{name}` where `{name}` belongs", name=name), lambda v: 1.0 / v if v else v)
        ]
    return out


def _negated_flag(name: str, values: list) -> Message:
    """Both values among the failing probes: a condition the wrong way round. One value only: what
    the answer does for it, no more (it may as well ignore the flag)."""
    if len({bool(v) for v in values}) == 2:
        return Message(
            "your answer does what `{name}` asks for the opposite value (as if it were `not {name}`): "
            "a condition on it the wrong way round",
            name=name,
        )
    return Message(
        "where `{name}` is {value}, your answer returns what `{name}` = {other} asks for: check how your "
        "code uses `{name}`",
        name=name,
        value=bool(values[0]),
        other=not values[0],
    )


def _half(value: int) -> int:
    if value % 2:
        raise ValueError("an odd size has no half")  # the re-run fails: this candidate explains nothing
    return value // 2


def _unused_candidates(ctx: Context, index: int, name: str, default) -> list[tuple[Message, object]]:
    """The argument ignored: always its default, or always the value a visible example shows."""
    import inspect

    out = []
    if default is not inspect.Parameter.empty:
        out.append(
            (
                Message(
                    "your answer does not use the argument `{name}`: it behaves as if `{name}` were always {value} "
                    "(its default)",
                    name=name,
                    value=repr(default),
                ),
                lambda v, d=default: d,
            )
        )
    shown = {
        repr(p.args[index]): p.args[index]
        for p in ctx.question.visible
        if index < len(p.args) and isinstance(p.args[index], (int, float)) and not isinstance(p.args[index], bool)
    }
    for text, v in shown.items():
        out.append(
            (
                Message(
                    "your answer does not use the argument `{name}`: it behaves as if `{name}` were always {value}",
                    name=name,
                    value=text,
                ),
                lambda _, v=v: v,
            )
        )
    return out


def _index_array_candidates(name: str) -> list[tuple[Message, object]]:
    """An integer array (positions, offsets): ignored, negated, or off by one."""
    return [
        (
            Message("your answer does not use `{name}`: it behaves as if `{name}` were 0, 1, …, T−1", name=name),
            lambda v: np.broadcast_to(np.arange(v.shape[-1]), v.shape).copy(),
        ),
        (
            Message(
                "your answer uses `{name}` with the opposite sign (a rotation or an offset taken the other way round)",
                name=name,
            ),
            lambda v: -v,
        ),
        (
            Message("your answer uses every entry of `{name}` off by one (as if it were `{name}` + 1)", name=name),
            lambda v: v + 1,
        ),
        (
            Message("your answer uses every entry of `{name}` off by one (as if it were `{name}` − 1)", name=name),
            lambda v: v - 1,
        ),
    ]


def _option_candidates(ctx: Context, index: int, name: str, value: str) -> list[tuple[Message, object]]:
    """A named option: always one of its values, or two options swapped."""
    options = {
        p.args[index]
        for p in [*ctx.question.visible, *(c.probe for c in ctx.cases)]
        if index < len(p.args) and isinstance(p.args[index], str)
    } | {value}
    out = [
        (
            Message(
                "your answer behaves as if `{name}` were always {option}: the option is not followed",
                name=name,
                option=repr(other),
            ),
            lambda v, o=other: o if v != o else None,
        )
        for other in sorted(options)
    ]
    if len(options) == 2:
        a, b = sorted(options)
        out.append(
            (
                Message(
                    "your answer treats each value of `{name}` as the other one: the options {a} and {b} are swapped",
                    name=name,
                    a=repr(a),
                    b=repr(b),
                ),
                lambda v, a=a, b=b: b if v == a else a,
            )
        )
    return out


def find_argument(ctx: Context) -> Diagnosis | None:
    """The reference with one argument replaced — by its default, the visible example's value, ± 1,
    positions 0..T-1 — gives what the answer returned."""
    import inspect

    if not ctx.question.call:
        return None
    try:
        params = [
            p
            for p in inspect.signature(ctx.question.reference).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return None
    n_args = min(len(c.probe.args) for c in ctx.cases)
    # every positional argument, those some probes leave at their default included
    usable = [(i, p) for i, p in enumerate(params) if i < n_args or p.default is not inspect.Parameter.empty]

    def value_of(case: Case, index: int, param):
        if index < len(case.probe.args):
            return case.probe.args[index]
        return case.probe.kwargs.get(param.name, param.default)

    for index, param in usable:
        values = [value_of(c, index, param) for c in ctx.cases]
        if any(v is None for v in values):
            continue
        if any(isinstance(v, (bool, np.bool_)) for v in values):
            if not all(isinstance(v, (bool, np.bool_)) for v in values):
                continue
            candidates = [(_negated_flag(param.name, values), lambda v: not v)]
        else:
            candidates = _argument_candidates(ctx, index, param.name, param.default, values[0])
        for text, change in candidates:

            def rerun(case: Case, change=change, index=index, param=param):
                args, kwargs = list(case.probe.args), dict(case.probe.kwargs)
                changed = change(value_of(case, index, param))
                if index < len(args):
                    args[index] = changed
                else:
                    kwargs[param.name] = changed
                return ctx.reference(tuple(args), kwargs)

            if ctx.all_fit(rerun):
                return Diagnosis("argument", text)
    return None
