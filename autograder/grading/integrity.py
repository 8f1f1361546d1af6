"""Flags for the instructor: signs that a submission tried to game the grader.

Nothing here affects a score — the verdict never depends on the student's process — but an
instructor wants to know who tried. Two sources: the student's code as text (read, never run)
and what the sandbox reported (cells that hit the sandbox's walls).
"""

from __future__ import annotations

import re

CODE_PATTERNS = [
    (
        r"\b(torch|np|numpy|math)\s*\.\s*(allclose|isclose|testing\s*\.\s*assert_\w+|array_equal)\s*=(?!=)",
        "reassigns a checking function ({0})",
    ),
    (r"\bbuiltins\s*\.\s*\w+\s*=(?!=)|__builtins__\s*\[", "modifies Python's builtins"),
    (r"\bsys\s*\.\s*modules\s*\[", "edits sys.modules"),
    (
        r"\bsys\s*\.\s*_getframe\b|\bgc\s*\.\s*get_objects\b|\binspect\s*\.\s*stack\b",
        "inspects the interpreter's frames or objects",
    ),
    (r"\bos\s*\.\s*(write|dup2?|fdopen)\s*\(", "writes to raw file descriptors"),
    (r"def\s+__eq__\s*\(", "defines a custom __eq__"),
    (r"\b(assignments|problem_sets|source|solutions|release)/|gradebook\.db", "refers to the course's private files"),
]

WALL_PATTERNS = [
    (r"Permission denied|Read-only file system", "tried to read or write a file outside its sandbox"),
    (r"No module named '(solutions|autograder)", "tried to import the grader's reference code"),
    (
        r"Connection refused|Network is unreachable|Name or service not known|unknown encoding: idna",
        "tried to use the network",
    ),
    (r"result channel carried malformed data", "wrote malformed data into the result channel"),
]


def code_flags(cells: list[str]) -> list[str]:
    text = "\n".join(cells)
    found = []
    for pattern, message in CODE_PATTERNS:
        match = re.search(pattern, text)
        if match:
            found.append("code " + message.format(match.group(0).split("=")[0].strip()))
    return found


def wall_flags(messages: list[str]) -> list[str]:
    text = "\n".join(messages)
    return [message for pattern, message in WALL_PATTERNS if re.search(pattern, text)]
