"""Whose code raised it (issue 36): the sandbox reports the notebook cell of every frame an
answer's exception passed through, and the verdict tells an assert in a locked (given) cell —
the notebook's own check of what the student's code passed it, with the student's line that
called it — from an assert of the student's own."""

from pathlib import Path

import numpy as np

from autograder.grading.notebook import StudentNotebook
from autograder.grading.runner import execute
from autograder.judging.verdict import judge
from autograder.spec import Assignment, Probe, Question

GIVEN = (
    "class Model:\n"
    "    def __init__(self, scheme):\n"
    "        assert scheme in ('learned', 'relative')\n"
    "        self.scheme = scheme\n"
    "\n"
    "def task(x):\n"
    "    return train(x)\n"
)
STUDENT = "def train(x):\n    model = Model('relativ')  # a typo\n    return x\n"
OWN_ASSERT = "def own(x):\n    assert x.sum() > 1e9\n    return x\n"

TASK = Question(grade_id="task", answer="task", reference=lambda x: x, points=1)
OWN = Question(grade_id="own", answer="own", reference=lambda x: x, points=1)
PROBES = {gid: [Probe((np.arange(3.0),)), Probe((np.ones(2),))] for gid in ("task", "own")}


def test_an_assert_in_a_locked_cell_is_the_notebooks_check_and_names_the_students_line():
    from autograder.sandbox.pool import SandboxConfig, Worker

    notebook = StudentNotebook(
        Path("unit.ipynb"),
        [GIVEN, STUDENT, OWN_ASSERT],
        ["cell shift_model", "cell shift_impl", "cell 5"],
        [],
        {},
        locked=(True, False, False),
    )
    assignment = Assignment(name="unit", notebook="unit.ipynb", questions=[TASK, OWN])
    worker = Worker(0, SandboxConfig())
    try:
        run = execute(worker, notebook, assignment, PROBES, "ana")
    finally:
        worker.stop()
    task = judge(TASK, PROBES["task"], run.outcomes["task"])
    assert task.status == "error" and task.diagnosis == "locked_cell_assert", task
    assert "the notebook's own check in a locked cell rejected the value your code passed it" in task.feedback
    assert "`Model.__init__` (cell shift_model, line 3)" in task.feedback
    assert "your `train` (cell shift_impl, line 2) passed it the value" in task.feedback
    assert "of your own" not in task.feedback
    own = judge(OWN, PROBES["own"], run.outcomes["own"])
    assert own.diagnosis == "crash_assert" and "locked" not in own.feedback, own
    assert "an `assert` of your own, in `own` (cell 5, line 2)" in own.feedback
