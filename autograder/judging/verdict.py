"""The verdict, reached in the trusted process from returned data and the reference.

A question passes when every probe's returned value matches ``reference(*probe.args)`` under
the question's comparator (all-or-nothing per question, as nbgrader grades a test cell). A
failing answer is compared with each known-wrong implementation; when one reproduces what the
student returned, the feedback names that misconception instead of a bare "wrong"; when none
does, ``judging.diagnosis.diagnose`` looks for how the values relate to the reference (a factor,
a sign, axes, a shift, a mask, …). An answer that modified an argument in place fails whatever
it returned (``judging.argument_contract``: the argument is named). Nothing a student reads names
a hidden probe function or a seed (``public_label``, ``without_hidden_names``).

Every verdict's feedback is an ``autograder.i18n.Message``: English text that keeps its message id
and arguments (the misconception's own text, from the problem set's catalogue; a diagnosis; the
exception), so the feedback page says it in the student's language. ``to_json`` stores both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from autograder.i18n import Message
from autograder.i18n.message import PROBLEM_SET, clauses
from autograder.judging.argument_contract import first_modified, modified_feedback
from autograder.judging.labels import public_label, without_hidden_names
from autograder.judging.outcome import Outcome
from autograder.spec import Probe, Question, as_args, to_plain


@dataclass
class QuestionResult:
    score: float
    max_score: float
    status: str  # passed | failed | error | timeout | missing
    feedback: str
    misconception: str | None = None
    diagnosis: str | None = None  # the kind found by judging.diagnosis.diagnose when no misconception matched
    root_cause: str | None = None  # passed only with these dependencies replaced (autograder.grading.root_cause)

    def to_json(self) -> dict:
        data = asdict(self)
        data["feedback"] = str(self.feedback)
        if isinstance(self.feedback, Message):
            data["message"] = self.feedback.to_json()
        return data


def _error_type(text: str) -> str:
    return text.split(":", 1)[0].strip()


def _reproduces(question: Question, mis, probe: Probe, item: dict) -> bool | None:
    """Does the known-wrong answer do on this probe what the student's did — return a matching
    value, or raise the same kind of exception? None: no evidence either way — the known-wrong
    answer is undefined here (NaN where the student's value is finite: log of a negative logit is
    NaN with ``+ 1e-10``, −27.6 with ``clamp_min(1e-12)``: the same mistake spelled another way)."""
    try:
        wrong = to_plain(mis.wrong(*as_args(probe.args, question.args_as), **probe.kwargs))
    except Exception as exc:  # noqa: BLE001 - the wrong answer's own failure is the signal
        return "error" in item and _error_type(item["error"]) == type(exc).__name__
    try:
        if "value" in item and question.compare.matches(item["value"], wrong):
            return True
    except Exception:  # noqa: BLE001 - a known-wrong answer the comparator cannot read matches nothing
        return False
    if "value" in item and _has_nan(wrong) and not _has_nan(item["value"]):
        return None
    return "value" in item and _another_spelling(question, mis, probe, item["value"])


def _another_spelling(question: Question, mis, probe: Probe, value) -> bool:
    """The student's value is one of the misconception's other spellings (``also_wrong``)."""
    if mis.also_wrong is None:
        return False
    try:
        others = mis.also_wrong(*as_args(probe.args, question.args_as), **probe.kwargs)
        return any(question.compare.matches(value, to_plain(other)) for other in others)
    except Exception:  # noqa: BLE001 - a spelling that cannot be built or read matches nothing
        return False


def _has_nan(value) -> bool:
    import numpy as np

    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return bool(np.isnan(arr).any())


def matching_misconception(question: Question, probes: list[Probe], items: list[dict]):
    """The first known-wrong answer that reproduces the outcome of every probe, else the first that
    reproduces it on every probe where it is defined (and on one at least), if any. ``items`` are
    the returned outcomes ({"value": …} or {"error": "Type: message"}); plain values are accepted too."""
    items = [
        item if isinstance(item, dict) and ("value" in item or "error" in item) else {"value": item} for item in items
    ]
    partial = None  # reproduced wherever it is defined, but undefined on some probe
    for mis in question.misconceptions:
        seen = [_reproduces(question, mis, p, item) for p, item in zip(probes, items)]
        if False not in seen and True in seen:
            if None not in seen:  # one that reproduces every probe comes first (NaN may be its own mistake)
                return mis
            partial = partial or mis
    return partial


def judge(question: Question, probes: list[Probe], outcome: Outcome) -> QuestionResult:
    points = float(question.points)
    modified = first_modified(outcome.results)  # the in-place contract (judging.argument_contract)

    def result(status: str, feedback: str, mis=None, diagnosis=None) -> QuestionResult:
        if modified is not None and status == "passed":  # right values, but the caller's argument changed
            status, feedback, diagnosis = "failed", modified_feedback(question, modified), "modifies_argument"
        elif modified is not None and status == "failed":
            feedback = Message(
                "{verdict} — besides, {modified}", verdict=feedback, modified=modified_feedback(question, modified)
            )
        score = points if status == "passed" else 0.0
        if isinstance(feedback, Message):
            feedback = feedback.map_text(lambda text: without_hidden_names(text, probes))
        else:
            feedback = without_hidden_names(feedback, probes)
        return QuestionResult(score, points, status, feedback, mis, diagnosis)

    if outcome.status in ("missing", "error", "timeout") and not outcome.results:
        return result(outcome.status, outcome.reason)
    values, failures, notes = [], [], []
    for index, (probe, item) in enumerate(zip(probes, outcome.results)):
        where = public_label(probe, index)
        if "timeout" in item:
            return result(
                "timeout",
                Message("`{answer}` on {where}: {reason}", answer=question.answer, where=where, reason=item["timeout"]),
            )
        if "error" in item:
            if item["error"].startswith("NotImplementedError"):
                return result(
                    "error",
                    Message(
                        "`{answer}` is not implemented yet: replace the release's `raise NotImplementedError()` "
                        "with your code",
                        answer=question.answer,
                    ),
                )
            raised = Message(
                "`{answer}` on {where} raised {error}",
                answer=question.answer,
                where=where,
                error=item["error"].rstrip(": "),  # "AssertionError: "
            )
            mis = matching_misconception(question, probes, outcome.results[: len(probes)])
            if mis is not None:  # a known mistake that crashes (an index past the table, …)
                return result("error", Message("{mistake} ({raised})", mistake=_named(mis), raised=raised), mis.name)
            found = _crash_diagnosis(question, probes, outcome.results)
            if found is not None:
                return result(
                    "error",
                    Message("{raised} — {diagnosis}", raised=raised, diagnosis=found.feedback),
                    diagnosis=found.kind,
                )
            return result("error", raised)
        check = question.compare(item["value"], question.expected(probe))
        values.append(item)
        if not check.ok:
            failures.append(Message("{where}: {problem}", where=where, problem=check.message))
        elif check.message:  # passed, with a word for the student (a trained model near its bar)
            notes.append(check.message)
    if not failures:
        if not notes:
            return result("passed", Message("correct"))
        return result("passed", Message("correct — {notes}", notes=clauses(notes, " — ")))
    mis = matching_misconception(question, probes, values)
    if mis is not None:
        return result("failed", _named(mis), mis.name)
    found = _diagnosis(question, probes, values)
    if found is not None:
        if found.kind == "formula_terms":
            lead = Message(
                "`{answer}` is not equivalent to the expected formula: {diagnosis}",
                answer=question.answer,
                diagnosis=found.feedback,
            )
        else:
            lead = Message(
                "`{answer}` does not match the reference: {diagnosis}", answer=question.answer, diagnosis=found.feedback
            )
        return result("failed", lead, diagnosis=found.kind)
    shown = clauses(failures[:3])
    if len(failures) > 3:
        return result(
            "failed",
            Message(
                "`{answer}` does not match the reference — {failures} (and {more} more)",
                answer=question.answer,
                failures=shown,
                more=len(failures) - 3,
            ),
        )
    return result(
        "failed",
        Message("`{answer}` does not match the reference — {failures}", answer=question.answer, failures=shown),
    )


def _named(mis) -> Message:
    """A misconception's feedback, written in its problem set (translated in the set's catalogue)."""
    return Message(mis.feedback, PROBLEM_SET)


def _diagnosis(question: Question, probes: list[Probe], items: list[dict]):
    from autograder.judging.diagnosis.diagnose import diagnose

    return diagnose(question, probes, [item["value"] for item in items])


def _crash_diagnosis(question: Question, probes: list[Probe], items: list[dict]):
    """When it raises: on which kind of input (judging.diagnosis.crashes), or what the exception's shapes say."""
    from autograder.judging.diagnosis.crashes import diagnose_crash

    if not question.call:
        return None
    try:
        return diagnose_crash(question, probes, items)
    except Exception:  # noqa: BLE001 - a diagnosis that cannot be made is no diagnosis
        return None
