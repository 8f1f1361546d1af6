"""What one question's answer did in the sandbox: the judge's input, before any verdict.

The runner (``autograder.grading.runner``) builds it from the sandbox's reply; the self-test
builds it for an instructor's answer computed in the grader's process
(``autograder.judging.instructor_answers``). Plain data only: nothing here was made by
student code.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outcome:
    """What one question's answer did in the sandbox (before judging)."""

    status: str  # "returned" | "missing" | "error" | "timeout"
    results: list = field(default_factory=list)  # per probe: {"value": data} | {"error"} | {"timeout"}
    reason: str = ""
