"""Helpers the service's tests share: a submission's bytes, waiting on a condition."""

from __future__ import annotations

import time

import nbformat

from autograder.releasing.sample_submissions import make_notebook


def notebook_bytes(assignment, replace=None, slow_s: float = 0.0) -> bytes:
    """The released notebook solved (answers in ``replace`` swapped in) as uploaded bytes;
    ``slow_s`` puts a first cell that sleeps (so the queue is still full when something is killed)."""
    nb = make_notebook(assignment, replace)
    if slow_s:
        nb.cells.insert(0, nbformat.v4.new_code_cell(f"import time\ntime.sleep({slow_s})"))
    return nbformat.writes(nb).encode()


def wait_until(predicate, timeout: float, what: str):
    """predicate()'s first truthy value, polled every 0.1 s; fails the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
