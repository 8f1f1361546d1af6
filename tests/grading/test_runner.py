"""The runner (autograder/grading/runner.py), unit-tested with a stub worker instead of a sandbox:
what it sends (the job), and the Outcome it makes of each reply — values decoded, a missing
answer, a crash or a hang in a cell (the cell is skipped and the notebook run again), in a
question (that question alone is lost), before anything ran (every question lost), forged or
malformed answers, and a worker that never gets anywhere (the retries end)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from autograder.grading.notebook import StudentNotebook
from autograder.grading.runner import Outcome, build_job, execute
from autograder.sandbox import wire
from autograder.spec import Assignment, FunctionSource, Probe, Question

CELLS = ["import torch", "def f(x):\n    return x", "v = 3"]
FN = Question(grade_id="fn", answer="f", reference=lambda x: x, points=2, timeout_s=7.0)
VALUE = Question(grade_id="val", answer="v", reference=lambda: 3, points=1, call=False)
PROBES = {"fn": [Probe((np.arange(3.0),)), Probe((np.ones((2, 2), np.float32),), kwargs={"scale": 2})], "val": []}


def assignment(**changes) -> Assignment:
    return replace(Assignment(name="unit", notebook="unit.ipynb", questions=[FN, VALUE], cell_timeout_s=4.0), **changes)


def notebook(cells=CELLS) -> StudentNotebook:
    labels = [f"cell {i}" for i in range(len(cells))]
    return StudentNotebook(Path("unit.ipynb"), list(cells), labels, [], {})


class StubWorker:
    """Answers each job with the next scripted reply (a function of the job); records the jobs."""

    def __init__(self, *replies):
        self.replies, self.jobs = list(replies), []

    def run(self, job):
        self.jobs.append(job)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return reply(job) if callable(reply) else reply


def cells_ran(n: int | None = None):
    """Events of the first n cells (all by default) starting and finishing."""
    indices = range(len(CELLS) if n is None else n)
    return [{"cell": i, "status": status} for i in indices for status in ("start", "ok")]


def answered(gid, results):
    return [{"q": gid, "status": "start"}, {"q": gid, "results": results}]


def value(v):
    return {"value": wire.encode_value(v)}


def everything_answered(job):
    """A well-behaved sandbox: every cell runs, every question asked returns its probes' inputs."""
    events = cells_ran()
    for q in job["questions"]:
        events += answered(q["id"], [{"value": p["args"][0]} for p in q["probes"]] or [value(3)])
    return {"events": events, "seconds": 0.5, "cpu_s": 0.25, "output": "printed\n"}


def run(worker, cells=CELLS, **changes):
    return execute(worker, notebook(cells), assignment(**changes), PROBES, "ana")


def test_the_job_carries_cells_probes_as_data_and_the_student():
    job = build_job(notebook(), assignment(), PROBES, ["fn", "val"], {1}, "ana")
    assert job["cells"] == CELLS and job["skip_cells"] == [1] and job["cell_timeout_s"] == 4.0
    assert job["env"] == {"JUPYTERHUB_USER": "ana", "AUTOGRADER_STUDENT_ID": "ana"}
    fn, val = job["questions"]
    assert (fn["id"], fn["answer"], fn["call"], fn["timeout_s"]) == ("fn", "f", True, 7.0)
    assert val["probes"] == [] and job["question_timeouts"] == {"fn": 7.0, "val": VALUE.timeout_s}
    np.testing.assert_array_equal(wire.decode_value(fn["probes"][0]["args"][0]), np.arange(3.0))
    assert wire.decode_value(fn["probes"][1]["kwargs"]) == {"scale": 2}
    assert "cpu_s" not in job and "rebind" not in fn
    wire.dumps(job)  # plain JSON all through: nothing else crosses into the sandbox


def test_the_job_carries_a_cpu_limit_and_rebound_functions_when_set():
    source = FunctionSource("def g(x):\n    return x\n", "g")
    rebound = Question(grade_id="fn", answer="f", reference=lambda x: x, points=2, rebind=(("g", source),))
    job = build_job(notebook(), assignment(cpu_s=90.5, questions=[rebound]), {"fn": []}, ["fn"], set(), "ana")
    assert job["cpu_s"] == 90 and job["questions"][0]["rebind"] == {"g": {"$fn": source.source, "name": "g"}}


def test_answers_are_decoded_into_returned_outcomes():
    worker = StubWorker(everything_answered)
    result = run(worker)
    assert result.attempts == 1 and result.cell_errors == {}
    assert (result.seconds, result.cpu_seconds, result.output) == (0.5, 0.25, "printed\n")
    fn = result.outcomes["fn"]
    assert fn.status == "returned" and len(fn.results) == 2
    np.testing.assert_array_equal(fn.results[1]["value"], np.ones((2, 2), np.float32))
    assert result.outcomes["val"] == Outcome("returned", [{"value": 3}])


def test_a_missing_answer_is_an_outcome_not_an_error():
    reply = {"events": cells_ran() + [{"q": "fn", "status": "start"}, {"q": "fn", "missing": "f is not defined"}]}
    reply["events"] += answered("val", [value(3)])
    result = run(StubWorker(reply))
    assert result.outcomes["fn"] == Outcome("missing", reason="f is not defined")
    assert result.outcomes["val"].status == "returned" and result.attempts == 1


def test_a_cell_that_crashes_the_process_is_skipped_and_the_notebook_run_again():
    dies_in_cell_1 = {"events": cells_ran(1) + [{"cell": 1, "status": "start"}], "reason": "crashed: SIGSEGV"}
    worker = StubWorker(dies_in_cell_1, everything_answered)
    result = run(worker)
    assert [job["skip_cells"] for job in worker.jobs] == [[], [1]]
    assert "segfault" in result.cell_errors[1] and "SIGSEGV" in result.cell_errors[1]
    assert {gid: o.status for gid, o in result.outcomes.items()} == {"fn": "returned", "val": "returned"}
    assert result.attempts == 2


def test_a_cell_error_reported_by_the_sandbox_is_kept_per_cell():
    reply = everything_answered({"questions": []})
    reply["events"][3] = {"cell": 1, "status": "error", "error": "NameError: x"}
    reply["events"] += answered("fn", [value(1), value(2)]) + answered("val", [value(3)])
    result = run(StubWorker(reply))
    assert result.cell_errors == {1: "NameError: x"} and result.attempts == 1


@pytest.mark.parametrize(
    "reason,status,words",
    [
        ("no progress for 7 s", "timeout", "ran past the time limit (7 s)"),
        ("crashed: SIGKILL", "error", "a crash, e.g. out of memory"),
        ("killed by SIGXCPU", "error", "CPU time"),
    ],
)
def test_a_question_that_hangs_or_crashes_loses_only_itself(reason, status, words):
    stuck = {"events": cells_ran() + [{"q": "fn", "status": "start"}], "reason": reason}
    worker = StubWorker(stuck, everything_answered)
    result = run(worker)
    assert result.outcomes["fn"].status == status and words in result.outcomes["fn"].reason
    assert [q["id"] for q in worker.jobs[1]["questions"]] == ["val"]  # asked again without it
    assert result.outcomes["val"].status == "returned" and result.attempts == 2


@pytest.mark.parametrize(
    "reason,words",
    [("exited with status 0", "do not call exit() or os._exit()"), ("the sandbox could not start", "could not start")],
)
def test_a_process_that_dies_before_anything_ran_fails_every_question_at_once(reason, words):
    worker = StubWorker({"events": [], "reason": reason})
    result = run(worker)
    assert result.attempts == 1 and len(worker.jobs) == 1  # nothing more to learn by retrying
    assert all(o.status == "error" and words in o.reason for o in result.outcomes.values())


def test_an_answer_sent_out_of_turn_is_ignored():
    """A cell that forges a result frame is not the question asked: its 'answer' does not count."""
    forged = {"events": [{"cell": 0, "status": "start"}, {"q": "fn", "results": [value(1), value(2)]}]}
    forged["events"] += [{"q": "val", "status": "start"}, {"q": "fn", "results": [value(1), value(2)]}]
    forged["events"] += [{"q": "val", "results": [value(3)]}]
    result = run(StubWorker(forged))
    assert result.outcomes["fn"] == Outcome("error", reason="the notebook could not be run to this question")
    assert result.outcomes["val"].status == "returned"


def test_events_that_are_not_well_formed_are_ignored():
    reply = everything_answered({"questions": []})
    reply["events"] = ["junk", {"cell": "0", "status": "error"}, {"cell": 99, "status": "error"}] + reply["events"]
    reply["events"] += [{"q": 5, "status": "start"}, {"q": "unknown", "status": "start"}]
    reply["events"] += answered("fn", [value(1), value(2)]) + answered("val", [value(3)])
    result = run(StubWorker(reply))
    assert result.cell_errors == {} and {o.status for o in result.outcomes.values()} == {"returned"}


@pytest.mark.parametrize(
    "results,status,per_probe",
    [
        ([value(1)], "error", None),  # one result for two probes
        ("not a list", "error", None),
        ([{"value": {"$nd": "object", "shape": [1], "b64": ""}}, value(2)], "returned", "could not be read"),
        ([{"timeout": "7 s"}, {"timeout": "7 s"}], "timeout", "7 s"),
        ([{"timeout": "7 s"}, value(2)], "returned", "7 s"),
        ([{"error": "ZeroDivisionError"}, value(2)], "returned", "ZeroDivisionError"),
        ([5, value(2)], "returned", "{'error': 'no result'}"),
    ],
)
def test_malformed_or_partial_answers_are_read_safely(results, status, per_probe):
    reply = {"events": cells_ran() + answered("fn", results) + answered("val", [value(3)])}
    fn = run(StubWorker(reply)).outcomes["fn"]
    assert fn.status == status, fn
    if per_probe is None:
        assert fn.reason == "the sandbox returned a malformed answer"
    else:
        assert per_probe in str(fn.results[0]) and len(fn.results) == 2


def test_a_worker_that_never_gets_anywhere_is_given_up_on():
    """Every run dies in cell 0 (already skipped or not): the retries are bounded."""
    worker = StubWorker({"events": [{"cell": 0, "status": "start"}], "reason": "crashed: SIGKILL"})
    result = run(worker)
    assert result.attempts == len(CELLS) + 2 + 1 == len(worker.jobs)
    assert all(o.reason == "the notebook could not be run to this question" for o in result.outcomes.values())
