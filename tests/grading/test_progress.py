"""The progress line of `autograder grade`: tqdm's bar redrawn in place on a terminal; in a log
(stderr not a terminal) about ten plain lines and no carriage return; never on stdout."""

from __future__ import annotations

import io
import threading

from autograder.grading.progress import LOG_LINES, Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_about_ten_plain_lines_ending_at_the_total(capsys):
    log = io.StringIO()
    bar = Progress(37, log)
    for i in range(37):
        bar.tick(f"student{i}")
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    assert LOG_LINES <= len(lines) <= LOG_LINES + 3
    assert "37/37" in lines[-1] and "student36" in lines[-1]
    assert capsys.readouterr().out == ""


def test_a_terminal_gets_one_line_redrawn_then_a_newline(capsys):
    screen = Terminal()
    bar = Progress(4, screen)
    threads = [threading.Thread(target=bar.tick, args=(f"s{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shown = screen.getvalue()
    assert "\r" in shown and shown.endswith("\n") and shown.count("\n") == 1
    assert "4/4" in shown.rsplit("\r", 1)[-1]
    assert capsys.readouterr().out == ""
