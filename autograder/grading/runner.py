"""Run one student's notebook in a sandboxed worker and collect what their answers returned.

The job sent into the sandbox holds the notebook's code cells and, per question, the probe
inputs as plain data. What comes back is validated (``wire.decode_value``) before anything
else looks at it. If the child dies or hangs, only the cell or question it was in is lost: the
notebook is run again without the poisoned cell, or with the remaining questions only.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from autograder.grading.notebook import StudentNotebook
from autograder.i18n import Message
from autograder.judging.argument_contract import read_modified
from autograder.judging.outcome import Outcome
from autograder.judging.verdict import QuestionResult, judge
from autograder.sandbox import wire
from autograder.sandbox.pool import Worker
from autograder.spec import Assignment, FunctionSource, Probe


@dataclass
class Execution:
    outcomes: dict[str, Outcome]
    cell_errors: dict[int, str]
    seconds: float
    output: str
    attempts: int
    cpu_seconds: float = 0.0  # CPU time of the sandboxed processes (every attempt)


def _encode_arg(arg):
    if isinstance(arg, FunctionSource):
        return {"$fn": arg.source, "name": arg.name}
    return wire.encode_value(arg)


def _encode_probe(probe: Probe) -> dict:
    return {"args": [_encode_arg(a) for a in probe.args], "kwargs": wire.encode_value(dict(probe.kwargs))}


def build_job(
    notebook: StudentNotebook,
    assignment: Assignment,
    probes: dict[str, list[Probe]],
    pending: list[str],
    skip_cells: set[int],
    student: str,
) -> dict:
    questions = []
    for grade_id in pending:
        q = assignment.question(grade_id)
        questions.append(
            {
                "id": grade_id,
                "answer": q.answer,
                "call": q.call,
                "args_as": q.args_as,
                "timeout_s": q.timeout_s,
                "cpu_s": q.cpu_limit_s,
                "probes": [_encode_probe(p) for p in probes[grade_id]] if q.call else [],
            }
        )
        if q.rebind:  # root cause: names bound to reference functions while this question is asked
            questions[-1]["rebind"] = {name: _encode_arg(fn) for name, fn in q.rebind}
    job = {
        "cells": notebook.cells,
        "skip_cells": sorted(skip_cells),
        "questions": questions,
        "env": {"JUPYTERHUB_USER": student, "AUTOGRADER_STUDENT_ID": student},
        "cell_timeout_s": assignment.cell_timeout_s,
        "question_timeouts": {q["id"]: q["timeout_s"] for q in questions},
    }
    if assignment.cpu_s is not None:
        job["cpu_s"] = int(assignment.cpu_s)  # replaces the sandbox's default RLIMIT_CPU
    return job


_NOT_DEFINED = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)` is not defined in the notebook")


def _cell_place(notebook: StudentNotebook, frame) -> dict | None:
    """One [cell index, function, line] frame from the sandbox, checked, as the student finds it."""
    if not (isinstance(frame, list) and len(frame) == 3):
        return None
    cell, function, line = frame
    if type(cell) is not int or not 0 <= cell < len(notebook.cells) or not isinstance(function, str):
        return None
    locked = cell < len(notebook.locked) and notebook.locked[cell]
    return {
        "cell": notebook.labels[cell],
        "function": function[:80],
        "line": line if type(line) is int else 0,
        "locked": locked,
    }


def where_raised(notebook: StudentNotebook | None, trace) -> dict | None:
    """Where an answer's exception was raised among the notebook's cells: the innermost cell frame
    (``raised_in``) and, when that is given code, the innermost frame of the student's own code
    that called it (``fed_by``, None when none was running)."""
    if notebook is None or not isinstance(trace, list):
        return None
    places = [p for p in (_cell_place(notebook, f) for f in trace[:8]) if p is not None]
    if not places:
        return None
    raised_in = places[-1]
    fed_by = next((p for p in reversed(places) if not p["locked"]), None) if raised_in["locked"] else None
    return {"raised_in": raised_in, "fed_by": fed_by}


def _decode_results(event: dict, n_probes: int, notebook: StudentNotebook | None = None) -> Outcome:
    if "missing" in event:
        reason = str(event["missing"])[:300]
        named = _NOT_DEFINED.fullmatch(reason)  # the harness's sentence: said again as a message
        return Outcome(
            "missing", reason=Message("`{name}` is not defined in the notebook", name=named[1]) if named else reason
        )
    raw = event.get("results")
    if not isinstance(raw, list) or len(raw) != n_probes:
        return Outcome("error", reason="the sandbox returned a malformed answer")
    results = []
    for item in raw:
        if isinstance(item, dict) and "value" in item:
            try:
                results.append({"value": wire.decode_value(item["value"])})
            except (wire.WireError, ValueError) as exc:
                results.append({"error": f"returned data could not be read ({exc})"})
                continue
            modified = read_modified(item.get("modified"))  # an argument changed in place
            if modified is not None:
                results[-1]["modified"] = modified
        elif isinstance(item, dict) and "timeout" in item:
            results.append({"timeout": str(item["timeout"])[:300]})
        else:
            results.append(
                {"error": str(item.get("error", "no result") if isinstance(item, dict) else "no result")[:500]}
            )
            where = where_raised(notebook, item.get("trace")) if isinstance(item, dict) else None
            if where is not None:
                results[-1]["where"] = where
    status = "timeout" if results and all("timeout" in r for r in results) else "returned"
    return Outcome(status, results)


def execute(
    worker: Worker, notebook: StudentNotebook, assignment: Assignment, probes: dict[str, list[Probe]], student: str
) -> Execution:
    pending = [q.grade_id for q in assignment.questions]
    n_probes = {gid: (len(probes[gid]) if assignment.question(gid).call else 1) for gid in pending}
    outcomes: dict[str, Outcome] = {}
    cell_errors: dict[int, str] = {}
    skip: set[int] = set()
    seconds, cpu_seconds, output, attempts = 0.0, 0.0, "", 0
    while pending and attempts <= len(notebook.cells) + len(assignment.questions):
        attempts += 1
        reply = worker.run(build_job(notebook, assignment, probes, pending, skip, student))
        seconds += float(reply.get("seconds", 0.0))
        cpu_seconds += float(reply.get("cpu_s", 0.0))
        output = output or str(reply.get("output", ""))
        open_phase = None
        for event in reply.get("events", []):
            if not isinstance(event, dict):
                continue
            if "cell" in event:
                index = event["cell"]
                if type(index) is not int or not 0 <= index < len(notebook.cells):
                    continue
                open_phase = ("cell", index) if event.get("status") == "start" else None
                if event.get("status") in ("error", "timeout"):
                    cell_errors[index] = str(event.get("error"))[:500]
            elif isinstance(event.get("q"), str) and event["q"] in n_probes:
                gid = event["q"]
                if event.get("status") == "start":
                    open_phase = ("question", gid)
                elif open_phase == ("question", gid):  # an answer only for the question asked now:
                    outcomes[gid] = _decode_results(event, n_probes[gid], notebook)  # a frame forged by a
                    open_phase = None  # cell arrives out of turn and is ignored
        reason = reply.get("reason")
        pending = [gid for gid in pending if gid not in outcomes]
        if reason is None or not pending:
            break
        if open_phase and open_phase[0] == "cell":
            skip.add(open_phase[1])
            cell_errors[open_phase[1]] = _human(reason)
        elif open_phase:
            status = "timeout" if "no progress" in reason else "error"
            outcomes[open_phase[1]] = Outcome(status, reason=_human(reason))
        else:  # died before running anything: nothing more to learn by retrying
            for gid in pending:
                outcomes[gid] = Outcome("error", reason=_human(reason))
        pending = [gid for gid in pending if gid not in outcomes]
    for gid in pending:
        outcomes[gid] = Outcome("error", reason="the notebook could not be run to this question")
    return Execution(outcomes, cell_errors, seconds, output, attempts, round(cpu_seconds, 4))


def ask_again(
    worker, notebook: StudentNotebook, assignment: Assignment, questions, probes: dict[str, list[Probe]], student: str
) -> tuple[dict[str, QuestionResult], float]:
    """Run the notebook again for ``questions`` only (the policies after the verdict: a second
    training run, root cause) and judge them: grade id -> verdict, and the sandbox seconds."""
    run = execute(worker, notebook, dataclasses.replace(assignment, questions=list(questions)), probes, student)
    return {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id]) for q in questions}, run.seconds


def _human(reason: str) -> str:
    if "no progress" in reason:
        seconds = reason.split("no progress for ", 1)[-1].split(" s", 1)[0]
        return f"stopped: it ran past the time limit ({seconds} s)"
    if "SIGXCPU" in reason:
        return (
            "the Python process was stopped: it used up the sandbox's CPU time for this notebook "
            "(more CPU seconds than wall seconds means more than one thread: keep torch single-threaded)"
        )
    if "SIGKILL" in reason or "SIGSEGV" in reason or "crashed" in reason:
        return f"the Python process {reason.replace('crashed: ', '')} (a crash, e.g. out of memory or a segfault)"
    if reason.startswith("exited"):
        return f"the notebook stopped the Python process ({reason}); do not call exit() or os._exit()"
    return reason
