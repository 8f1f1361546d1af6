"""Rate limits: at most N gradings per student and problem set in a sliding window.

Like Otter's grading-service plugin (``N per hour``), but counted from the journal's accepted
submissions, so a restart does not hand everyone a fresh allowance. Refused submissions are
not counted. ``parse_rate("10/h")`` -> (10, 3600); ``0`` or ``none`` switches the limit off.
Instructors are not limited (the app does not ask for them).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


def parse_rate(text: str) -> tuple[int, float]:
    text = text.strip().lower()
    if text in ("0", "none", "off", "unlimited"):
        return 0, 3600.0
    m = re.fullmatch(r"(\d+)\s*(?:/|per)\s*(\d*)\s*([a-z]+)", text)
    if not m or m.group(3) not in UNITS:
        raise ValueError(f"rate {text!r}: expected e.g. 10/h, 3/min, 20/day, 5/30m or 0 (no limit)")
    return int(m.group(1)), float(m.group(2) or 1) * UNITS[m.group(3)]


@dataclass
class Verdict:
    allowed: bool
    retry_after: float = 0.0  # seconds until the oldest counted submission leaves the window
    used: int = 0
    limit: int = 0


class RateLimiter:
    def __init__(self, journal, limit: int, window_s: float = 3600.0):
        self.journal, self.limit, self.window_s = journal, limit, window_s

    def check(self, student: str, ps: str, now: float | None = None) -> Verdict:
        if self.limit <= 0:
            return Verdict(True)
        now = time.time() if now is None else now
        times = self.journal.received_since(student, ps, now - self.window_s)
        if len(times) < self.limit:
            return Verdict(True, used=len(times), limit=self.limit)
        oldest_counted = times[len(times) - self.limit]
        return Verdict(
            False, retry_after=max(1.0, oldest_counted + self.window_s - now), used=len(times), limit=self.limit
        )

    def describe(self) -> str:
        if self.limit <= 0:
            return "no limit"
        return (
            f"{self.limit} per {self.window_s / 3600:g} h"
            if self.window_s >= 3600
            else f"{self.limit} per {self.window_s:g} s"
        )
