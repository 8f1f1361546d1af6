"""Student ids from notebook file names: the default pattern of a flat folder (``alice.ipynb``,
``alice_ps1.ipynb``, ``ps1_attention-alice.ipynb`` -> ``alice``) and ``--id-pattern``'s check."""

from __future__ import annotations

import re
from pathlib import Path

from autograder.spec import Assignment


def default_id_pattern(assignment: Assignment) -> str:
    names = "|".join(
        re.escape(n)
        for n in sorted(
            {assignment.name, assignment.name.split("_", 1)[0], Path(assignment.notebook).stem}, key=len, reverse=True
        )
    )
    return (
        rf"(?:(?:{names})[_-])?(?P<id>[A-Za-z0-9][A-Za-z0-9.@+-]*(?:_[A-Za-z0-9.@+-]+)*?)"
        rf"(?:[_-](?:{names}))?\.ipynb"
    )


def compile_id_pattern(id_pattern: str) -> re.Pattern:
    """``--id-pattern``'s regular expression; ValueError (one line) when it cannot name an id."""
    try:
        pattern = re.compile(id_pattern)
    except re.error as exc:
        raise ValueError(f"--id-pattern {id_pattern!r} is not a regular expression: {exc}") from None
    if "id" not in pattern.groupindex and pattern.groups == 0:
        raise ValueError(f"--id-pattern {id_pattern!r} needs a group for the id: (?P<id>...)")
    return pattern
