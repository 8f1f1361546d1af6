"""One submission, graded: its notebook run in a warm sandboxed worker, each question judged,
root causes across questions applied, the record that the store keeps.

The cohort (``autograder.grading.cohort``) and the cluster (``autograder.grading.cluster``) both call
``grade_one``; it knows nothing of either.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from autograder.course import find_course
from autograder.grading.hand_graded import UNANSWERED, autograded, pending_entries
from autograder.grading.integrity import code_flags, wall_flags
from autograder.grading.kept_answers import personal_answers
from autograder.grading.notebook import NotebookError, foreign_notebook, integrity_flags, read_notebook
from autograder.grading.root_cause import apply_root_causes
from autograder.grading.runner import execute
from autograder.grading.second_run import apply_second_runs
from autograder.i18n import Message
from autograder.i18n.message import clauses
from autograder.intake.submission import Submission
from autograder.judging.verdict import QuestionResult, judge
from autograder.sandbox.pool import Worker
from autograder.spec import Assignment


def _released(assignment: Assignment) -> Path:
    """The notebook the course released (``release/<ps>/``): a submission's locked cells are
    compared with it. The course's layout says where it is; the releasing wing writes it there."""
    return find_course().release / assignment.name / assignment.notebook


def _unanswered(assignment: Assignment, status: str, reason: str) -> dict:
    return {q.grade_id: QuestionResult(0.0, float(q.points), status, reason).to_json() for q in assignment.questions}


def _why_missing(reason: str, nb, cell_errors: dict[int, str], answer: str) -> Message:
    """The missing answer's reason, with why: the first failed cell that names the answer (its own
    cell, which may not compile), else the cells still unanswered, else the first that failed."""
    named = re.compile(rf"\b{re.escape(answer.split('.')[0])}\b")
    own = [i for i in sorted(cell_errors) if named.search(nb.cells[i])]
    failed = own[:1] or sorted(cell_errors)
    unanswered = [nb.labels[i] for i in failed if cell_errors[i].startswith("NotImplementedError")]
    if unanswered:
        return Message(
            "{reason} — still `raise NotImplementedError()` in: {cells}", reason=reason, cells=clauses(unanswered, ", ")
        )
    first = failed[0]
    return Message("{reason} ({cell} failed: {error})", reason=reason, cell=nb.labels[first], error=cell_errors[first])


def grade_one(worker: Worker, assignment: Assignment, sub: Submission) -> dict:
    started = time.monotonic()
    record = {
        "student": sub.student,
        "assignment": assignment.name,
        "sandbox": worker.mode,
        "max_score": assignment.max_score,
        "late": sub.late,
    }
    nb = None
    if sub.notebook is None:
        questions = _unanswered(assignment, "missing", sub.problem)
        record["error"] = sub.problem
    else:
        record["notebook"] = str(sub.notebook)  # where `autograder similarity` finds the code
        stamp = sub.notebook.parent / "timestamp.txt"  # written by `nbgrader collect`
        if stamp.is_file():
            record["submitted_at"] = stamp.read_text(encoding="utf-8", errors="replace").strip()[:64]
        try:
            nb = read_notebook(sub.notebook)
        except NotebookError as exc:
            nb, questions = None, _unanswered(assignment, "error", f"not graded: {exc.reason}")
            record.update(flag="unreadable", flag_reason=str(exc), error=str(exc))
        foreign = foreign_notebook(nb, _released(assignment)) if nb is not None else None
        if foreign:
            nb, questions = None, _unanswered(assignment, "missing", f"not graded: not the {assignment.name} notebook")
            record.update(flag="wrong_assignment", flag_reason=foreign, error=foreign)
            record["flags"] = [f"another assignment's notebook: {foreign}"]
        if nb is not None:
            flags = integrity_flags(nb, _released(assignment))
            if nb.foreign_kernel:  # the course's sandbox runs Python whatever the notebook says
                flags.append(f"the notebook's kernel is {nb.foreign_kernel}, not Python: it was run as Python")
            if flags:
                record["flags"] = flags
            probes = {q.grade_id: q.probes_for(sub.student, assignment) for q in assignment.questions}
            run = execute(worker, nb, assignment, probes, sub.student)
            verdicts = {}
            for q in assignment.questions:
                res = judge(q, probes[q.grade_id], run.outcomes[q.grade_id])
                if res.status == "missing" and run.cell_errors:
                    res.feedback = _why_missing(res.feedback, nb, run.cell_errors, q.answer)
                verdicts[q.grade_id] = res
            run.seconds += apply_second_runs(worker, nb, assignment, sub.student, verdicts)
            run.seconds += apply_root_causes(worker, nb, assignment, probes, sub.student, verdicts)
            questions = {gid: res.to_json() for gid, res in verdicts.items()}
            record.update(
                sandbox_seconds=run.seconds,
                sandbox_cpu_seconds=run.cpu_seconds,
                attempts=run.attempts,
                cell_errors={str(k): v for k, v in sorted(run.cell_errors.items())},
            )
            personal = personal_answers(assignment, run.outcomes)  # for `autograder similarity`
            if personal:
                record["personal_answers"] = personal
            walls = [
                *run.cell_errors.values(),
                *(o.reason for o in run.outcomes.values()),
                *(r.get("error", "") for o in run.outcomes.values() for r in o.results),
            ]
            suspicious = code_flags(nb.cells) + wall_flags(walls)
            if suspicious:
                record["flags"] = record.get("flags", []) + suspicious
    record["questions"] = {
        **questions,
        **pending_entries(assignment, sub.notebook),
    }  # hand-graded: pending, or unanswered (0)
    record["score"] = float(sum(q["score"] for q in autograded(record["questions"]).values()))
    if nb is not None and record["score"] == 0 and not set(nb.grade_ids) & set(record["questions"]):
        reason = f"{sub.notebook.name} holds none of {assignment.name}'s cells and scored 0: another assignment's?"
        record.update(flag="wrong_assignment", flag_reason=reason)
    if record.get("flag"):  # nothing for a grader to read: 0, out of formgrader's manual queue
        said = Message("not graded: {reason}", reason=record["flag_reason"])
        for gid in pending_entries(assignment):
            record["questions"][gid].update(score=0.0, status=UNANSWERED, feedback=str(said), message=said.to_json())
    record["seconds"] = round(time.monotonic() - started, 4)
    return record


def single_threaded_reference() -> None:
    """The reference runs on tiny probe tensors; torch's thread pool would only contend with
    the sandboxed workers for the same cores (measured: 8 ms instead of 0.1 ms per call)."""
    import torch

    torch.set_num_threads(1)
