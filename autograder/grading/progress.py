"""The progress line of ``autograder grade`` (``--quiet`` turns it off), on stderr only: stdout
carries the results table, which scripts and tests parse.

On a terminal it is tqdm's bar, redrawn in place. Anywhere else (a CI log, a file, a pipe) a
redrawn line would be a run of carriage returns, so about ten plain lines are written instead,
in the same format, with an ASCII bar.
"""

from __future__ import annotations

import sys
import threading
import time

from tqdm import tqdm

UNIT = "notebook"  # tqdm shows "2.10notebook/s", or "6.94s/notebook" when slower
LOG_LINES = 10  # lines written over a whole run when stderr is not a terminal
LOG_WIDTH = 80  # columns of a log line (a terminal's bar takes the width tqdm finds)


class Progress:
    """One tick per graded submission, from any grading thread."""

    def __init__(self, total: int, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.done = total, 0
        self._start = time.monotonic()
        self._lock = threading.Lock()
        self._bar = tqdm(total=total, file=self.stream, unit=UNIT) if self.stream.isatty() else None

    def tick(self, label: str = "") -> None:
        """One more submission graded (``label``: whose, shown beside the bar)."""
        with self._lock:
            self.done += 1
            if self._bar is not None:
                self._bar.set_postfix_str(label[:20], refresh=False)
                self._bar.update()
                if self.done >= self.total:
                    self._bar.close()  # the final state stays on screen, then a newline
            elif self.done >= self.total or self.done % max(1, self.total // LOG_LINES) == 0:
                elapsed = time.monotonic() - self._start
                line = tqdm.format_meter(
                    self.done, self.total, elapsed, ncols=LOG_WIDTH, unit=UNIT, postfix=label[:20], ascii=True
                )
                self.stream.write(line + "\n")
                self.stream.flush()
