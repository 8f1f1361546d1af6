"""A training question's verdict is a function of the student's code and the probe, not of load.

PS6's reference solution is run through the sandbox twice — on an idle machine, then with
every core saturated by busy processes this test starts — and must return the same
predictions (bit for bit) and get the same score. The probe fixes the seed and a budget in
optimiser steps; the sandbox is single-threaded; time is only a CPU-clock safety cap.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

from autograder.grading.notebook import read_notebook
from autograder.grading.runner import execute
from autograder.judging.verdict import judge
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import load_assignment

pytestmark = pytest.mark.slow


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    return a == b


def _grade(worker, notebook, assignment, probes):
    run = execute(worker, notebook, assignment, probes, "load-test")
    verdicts = {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id]) for q in assignment.questions}
    return run, verdicts


def test_reference_solution_is_graded_the_same_idle_and_saturated(tmp_path):
    # the training questions: the ones whose cost is real work (the others' verdicts are checked
    # under load by the cohort tests, which grade on every core at once)
    full = load_assignment("ps6_build")
    ps6 = dataclasses.replace(full, questions=[full.question("train_copy"), full.question("train_addition")])
    path = write_submission(tmp_path, "load-test", ps6, make_notebook(ps6))
    notebook = read_notebook(path)
    probes = {q.grade_id: q.probes_for("load-test", ps6) for q in ps6.questions}
    worker = Worker(0, SandboxConfig())
    try:
        idle_run, idle = _grade(worker, notebook, ps6, probes)
        # each in a session of its own: the sandbox runs in a new session, and with the kernel's
        # autogroup scheduling busy processes that share one session would share one CPU share
        busy = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(os.cpu_count() or 2)  # one per core: every core is busy
        ]
        try:
            busy_run, saturated = _grade(worker, notebook, ps6, probes)
        finally:
            for proc in busy:
                proc.kill()
                proc.wait()
    finally:
        worker.stop()
    assert all(v.status == "passed" for v in idle.values()), {g: v.feedback for g, v in idle.items() if v.score == 0}
    assert {g: (v.status, v.score) for g, v in saturated.items()} == {g: (v.status, v.score) for g, v in idle.items()}
    for gid in ("train_copy", "train_addition"):
        assert _same(idle_run.outcomes[gid].results, busy_run.outcomes[gid].results), f"{gid}: predictions differ"
    # the saturated run really was slower: the verdict held although the machine was loaded
    assert busy_run.seconds > idle_run.seconds
