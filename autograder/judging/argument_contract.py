"""The in-place contract: a function question's answer must not modify its arguments.

The sandbox compares every argument with a copy taken before the call
(``autograder/sandbox/argument_changes.py``) and reports the first one that changed as data:
{"arg": position or keyword, "name": the student's parameter name, "path": steps into it, "kind":
tensor | array | list | tuple | dict, "change": what changed}. :func:`read_modified` validates
that report (it comes from the student's process); :func:`modified_feedback` says it to the
student: which argument, how it changed, what to do — never a value.

**The rule, the same for every problem set.** Every function question's probes are checked, a
training question's (seed, budget, held-out inputs) too: a function may change its own local
tensors (a clone, its result, a model it builds and trains) but nothing it was handed. Arguments
that are functions (PS5's subjects, PS6's ``tiny_lm``) are code, compiled afresh for every call,
and are not compared; numbers and strings cannot change in place. No question hands a student's
function a module: the wire carries data and code only, so a training function trains a model
of its own. A question whose function should update an argument (a model, a cache filled in
place) would have to say so and be exempted from this rule; none does.
"""

from __future__ import annotations

import inspect
import re

from autograder.i18n import Message
from autograder.i18n.message import N_

KINDS = ("tensor", "array", "list", "tuple", "dict")
CHANGES = ("values", "shape", "dtype", "length", "items", "keys")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,59}(\[\d{1,4}\])?")
_KEY = re.compile(r"[\w .\-]{1,40}")

_FRAMES = {
    "tensor": N_(
        "`{answer}` modifies its argument `{name}` in place ({change}); the caller's tensor changes — "
        "compute into a new tensor instead"
    ),
    "array": N_(
        "`{answer}` modifies its argument `{name}` in place ({change}); the caller's array changes — "
        "compute into a new array instead"
    ),
    "list": N_(
        "`{answer}` modifies its argument `{name}` in place ({change}); the caller's list changes — "
        "build a new list instead"
    ),
    "dict": N_(
        "`{answer}` modifies its argument `{name}` in place ({change}); the caller's dict changes — "
        "build a new dict instead"
    ),
}
_CHANGES = {
    "values": N_("its values changed"),
    "shape": N_("its shape changed"),
    "dtype": N_("its dtype changed"),
    "length": N_("items were added or removed"),
    "items": N_("an item was replaced"),
    "keys": N_("keys were added or removed"),
}


def read_modified(raw) -> dict | None:
    """The sandbox's report of a changed argument, checked; None when it is not one."""
    if not isinstance(raw, dict) or raw.get("kind") not in KINDS or raw.get("change") not in CHANGES:
        return None
    arg = raw.get("arg")
    if not ((type(arg) is int and 0 <= arg < 64) or (isinstance(arg, str) and _NAME.fullmatch(arg))):
        return None
    name = raw.get("name")
    path = raw.get("path") if isinstance(raw.get("path"), list) else []
    steps = []
    for step in path[:8]:
        if isinstance(step, list) and len(step) == 2 and step[0] == "int" and type(step[1]) is int:
            steps.append(f"[{step[1]}]")
        elif isinstance(step, list) and len(step) == 2 and step[0] == "str" and isinstance(step[1], str):
            steps.append(f"[{step[1]!r}]" if _KEY.fullmatch(step[1]) else "[…]")
    return {
        "arg": arg,
        "name": name if isinstance(name, str) and _NAME.fullmatch(name) else None,
        "path": "".join(steps),
        "kind": raw["kind"],
        "change": raw["change"],
    }


def _argument_name(question, modified: dict) -> str:
    """The student's own name for the argument; else the reference's; else its position."""
    if modified["name"]:
        return modified["name"]
    arg = modified["arg"]
    if isinstance(arg, str):
        return arg
    try:
        params = [
            p.name
            for p in inspect.signature(question.reference).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    return params[arg] if arg < len(params) else f"#{arg + 1}"


def modified_feedback(question, modified: dict) -> Message:
    """The verdict's words for an argument changed in place."""
    kind = "list" if modified["kind"] == "tuple" else modified["kind"]  # a tuple changes only in its items
    return Message(
        _FRAMES[kind],
        answer=question.answer,
        name=_argument_name(question, modified) + modified["path"],
        change=Message(_CHANGES[modified["change"]]),
    )


def first_modified(results: list) -> dict | None:
    """The first probe's report of a changed argument (the runner has checked it), if any."""
    return next((item["modified"] for item in results if isinstance(item, dict) and item.get("modified")), None)
