"""Stored English recognised as a message, to be said in another language.

Some texts reach a page as plain English stored in results.json: a record's flags (a modified
locked cell, code that reassigns a checking function, a sandbox wall hit), its notes (the LMS's
late marker, a penalty), the reason a notebook was not graded, and the shipped formula grammar's
syntax errors (``formula_check.py`` raises English: it ships to students standard-library only).
The stored data stays as it is — scripts and LMS exports read those strings, and a results.json
written before this change is said in every language too. Instead, each such text is a msgid in
the engine's catalogue (``RECORD_TEXTS``, ``formula_messages``) whose English is exactly what the
grader writes; ``recognise`` matches a stored text against them (placeholders match any text, and
what a placeholder matched is recognised again: a flag's reason is itself a message) and gives the
Message back, which ``say`` translates. tests/i18n checks that every flag the grader can write is
recognised, so a reworded flag without its msgid is caught.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from autograder.i18n.message import N_, Message, placeholders, say

# integrity flags (grading/integrity.py, grading/notebook.py, grading/submission.py)
FLAGS = (
    N_("locked cell {cell} was deleted"),
    N_("locked cell {cell} was modified"),
    N_("cell {cell} appears {count} times"),
    N_("none of this problem set's cells were found: is this the notebook of another assignment?"),
    N_("another assignment's notebook: {reason}"),
    N_("the notebook's kernel is {kernel}, not Python: it was run as Python"),
    N_("code reassigns a checking function ({name})"),
    N_("code modifies Python's builtins"),
    N_("code edits sys.modules"),
    N_("code inspects the interpreter's frames or objects"),
    N_("code writes to raw file descriptors"),
    N_("code defines a custom __eq__"),
    N_("code refers to the course's private files"),
    N_("tried to read or write a file outside its sandbox"),
    N_("tried to import the grader's reference code"),
    N_("tried to use the network"),
    N_("wrote malformed data into the result channel"),
)
# why a notebook is another assignment's, could not be read, or is not there (a flag's reason, an error)
REASONS = (
    N_("{file} is the {other} notebook, not {this}'s: {held}"),
    N_("none of {this}'s graded cells is in it"),
    N_("it holds {count} of {this}'s {total} graded cells"),
    N_("{file} holds none of {this}'s cells and scored 0: another assignment's?"),
    N_("cannot read {file} ({detail})"),
    N_("{file} is {size} MiB; notebooks over {limit} MiB are not graded (clear large outputs)"),
    N_("{file} is empty"),
    N_("{file} is not valid notebook JSON (it is not UTF-8 text)"),
    N_("{file} is not valid notebook JSON (broken at line {line}: it ends too early, a truncated file)"),
    N_("{file} is not valid notebook JSON (broken at line {line})"),
    N_("{file} is JSON but not a Jupyter notebook (it has no nbformat and cells)"),
    N_("{file} could not be read as a notebook ({detail})"),
    N_("expected one notebook named {file} in the submission, found {count}: {found}"),
    N_("no notebook was submitted (expected {file})"),  # intake: why there is no notebook (a record's error)
    N_("expected {file}, found {count} notebooks ({found})"),
    N_("no {folder}/ folder was submitted"),
)
# a record's notes (outputs/exports.record_notes)
NOTES = (
    N_("handed in late (the LMS marked this submission LATE)"),
    N_("flagged {flag}: {reason}"),
    N_("flagged {flag}"),
    N_("late-submission penalty: −{points} points"),
)
RECORD_TEXTS = FLAGS + REASONS + NOTES


@cache
def _pattern(msgid: str) -> re.Pattern:
    parts = re.split(r"(\{\w+\})", msgid)
    return re.compile(
        "".join(f"(?P<{p[1:-1]}>.+?)" if re.fullmatch(r"\{\w+\}", p) else re.escape(p) for p in parts), re.S
    )


def _by_specificity(msgids: Iterable[str]) -> tuple[str, ...]:
    """Most literal text first: "unknown symbol {name}: use none" before "… use {allowed}"."""
    return tuple(sorted(msgids, key=lambda m: -len(re.sub(r"\{\w+\}", "", m))))


def recognise(text: str, msgids: Iterable[str] = RECORD_TEXTS, depth: int = 2) -> Message | None:
    """``text`` as the Message whose English it is (its arguments recognised too), or None."""
    if not isinstance(text, str) or isinstance(text, Message) or len(text) > 2000:
        return None
    msgids = _by_specificity(msgids)
    for msgid in msgids:
        if not placeholders(msgid):
            if text == msgid:
                return Message(msgid)
            continue
        match = _pattern(msgid).fullmatch(text)
        if match:
            args = {
                name: (recognise(value, msgids, depth - 1) if depth else None) or value
                for name, value in match.groupdict().items()
            }
            return Message(msgid, **args)
    return None


def say_record_text(text: str, lang: str, msgids: Iterable[str] = RECORD_TEXTS) -> str:
    """A stored flag, note or reason in ``lang`` (as it is when it is none the engine knows)."""
    if lang == "en" or not text:
        return text
    if isinstance(text, Message):
        return say(text, lang)
    found = recognise(text, msgids)
    return say(found, lang) if found is not None else text
