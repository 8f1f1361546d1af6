"""What the intake hands to grading: one student's notebook, or why there is none."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Submission:
    student: str
    notebook: Path | None  # None: nothing gradable was found
    problem: str = ""  # why there is no notebook (what the student's feedback says)
    late: bool = False  # the LMS marked it late (Canvas's ``late_`` in the file name)
