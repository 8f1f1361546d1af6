"""A message with arguments: English as its text, its id and arguments kept for other languages.

``Message("`{answer}` on {where} raised {error}", answer="sdpa", where="a probe", error=...)`` is a
``str`` (the English, so code that prints, compares or stores feedback is unchanged) that also
knows how to say itself in another language: ``say(message, "de")``. An argument may itself be a
Message (a diagnosis inside the verdict's frame): it is translated too. Plain-string arguments
(code, names, numbers, an exception's own text) are shown as they are, in every language.

``domain`` names the catalogue: None for the engine's (``autograder``), a problem set's name for
its own texts (misconception feedback, written in the problem set, translated beside it).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

from autograder.i18n.catalogue import N_, gettext_for
from autograder.i18n.labels import say_label  # a probe label among the arguments: said in lang too

__all__ = ["N_", "PROBLEM_SET", "Message", "clauses", "placeholders", "say", "translate"]
_FIELDS = string.Formatter()
PROBLEM_SET = "problem-set"  # the domain of a text written in a problem set: the one being shown


def placeholders(text: str) -> set[str]:
    """The named fields of a message (``{question}``), as str.format reads them."""
    try:
        return {name for _, name, _, _ in _FIELDS.parse(text) if name}
    except ValueError:  # an unbalanced brace: no valid field set
        return {"<unbalanced braces>"}


class Message(str):
    msgid: str
    args: dict[str, Any]
    domain: str | None

    def __new__(cls, msgid: str, domain: str | None = None, **args: Any) -> Message:
        text = msgid.format_map({k: str(v) for k, v in args.items()}) if args else msgid
        self = super().__new__(cls, text)
        self.msgid, self.args, self.domain = msgid, args, domain
        return self

    def __reduce__(self):  # pickles (dask, process pools) as a Message, not a plain str
        return (_rebuild, (self.msgid, self.domain, self.args))

    def __deepcopy__(self, memo):  # dataclasses.asdict deep-copies field values
        return self

    def to_json(self) -> dict:
        data: dict[str, Any] = {"id": self.msgid}
        if self.args:
            data["args"] = {k: v.to_json() if isinstance(v, Message) else _stored(v) for k, v in self.args.items()}
        if self.domain:
            data["domain"] = self.domain
        return data

    @classmethod
    def from_json(cls, data: dict) -> Message:
        args = {k: cls.from_json(v) if isinstance(v, dict) else v for k, v in (data.get("args") or {}).items()}
        return cls(data["id"], data.get("domain"), **args)

    def map_text(self, change: Callable[[str], str]) -> Message:
        """The same message with ``change`` applied to every plain-string argument (hiding the
        names of hidden probes, ``judging.labels.without_hidden_names``)."""
        args = {
            k: v.map_text(change) if isinstance(v, Message) else (change(v) if isinstance(v, str) else v)
            for k, v in self.args.items()
        }
        return Message(self.msgid, self.domain, **args)


def _stored(value: Any) -> Any:
    """An argument as results.json stores it: JSON's own types as they are, anything else (a numpy
    dtype or scalar) as the text the message shows."""
    if value is None or isinstance(value, (str, int, float, bool, list, tuple, dict)):
        return value
    return str(value)


def _rebuild(msgid: str, domain: str | None, args: dict) -> Message:
    return Message(msgid, domain, **args)


def say(message: Message | dict | str, lang: str, problem_set: str | None = None) -> str:
    """``message`` in ``lang``: a Message, its stored form (results.json's ``message``) or a plain
    string (said as it is: text the engine has not made a message of). ``problem_set``: whose
    catalogue the texts written in a problem set come from (domain PROBLEM_SET) and whose probe
    labels a plain-string argument may be (``labels.say_label``: translated by their template)."""
    if isinstance(message, dict):
        message = Message.from_json(message)
    if not isinstance(message, Message):
        return str(message)
    args = {
        k: say(v, lang, problem_set) if isinstance(v, Message) else say_label(str(v), lang, problem_set)
        for k, v in message.args.items()
    }
    domain = problem_set if message.domain == PROBLEM_SET else message.domain
    if message.domain == PROBLEM_SET and not problem_set:
        return message.msgid.format_map(args) if args else message.msgid
    text = gettext_for(lang, domain)(message.msgid)
    try:
        return text.format_map(args) if args else text
    except (KeyError, IndexError, ValueError):  # a broken translation: the English says it right
        return message.msgid.format_map(args) if args else message.msgid


def translate(message_id: str, lang: str, domain: str | None = None, **args) -> str:
    """``message_id`` (the English, named placeholders) in ``lang``, its placeholders filled:
    ``translate("Score set by a grader (the autograder gave {points}).", "de", points=3)``."""
    return say(Message(message_id, domain, **args), lang)


# how clauses are joined: each joint a message, so a language may say it its own way
JOINTS = {"; ": N_("{said}; {clause}"), " — ": N_("{said} — {clause}"), ", ": N_("{said}, {clause}")}


def clauses(parts: list, joint: str = "; ") -> Message | str:
    """Clauses one after another, each said in the page's language, ``joint`` between them:
    "; " for findings ("missing entries: a; not right: b"), " — " for notes after "correct",
    ", " for a list of names ("cell a, cell b")."""
    if not parts:
        return ""
    said = parts[0]
    for part in parts[1:]:
        said = Message(JOINTS[joint], said=said, clause=part)
    return said
