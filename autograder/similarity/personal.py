"""Personal answers: did a student hand in values computed for someone else's parameters?

Questions marked ``personal`` (``Question.personal``) expect a value that depends on the
student's own parameters (``Assignment.student_params``). When grading, the value each such
question returned is kept in the per-submission record (``autograder.grading.kept_answers``: the
wire's own lossless JSON encoding, a few hundred bytes; larger values are not kept). Afterwards the value
is compared, with the question's own comparator, against the reference computed for every
classmate's parameters and for the release's example id — the id a notebook falls back to when
it runs outside JupyterHub. A student whose answer is wrong for their own parameters but right
for a classmate's is flagged with that classmate's id.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.grading.kept_answers import personal_questions
from autograder.sandbox import wire
from autograder.spec import Assignment, Probe, Question

# The id the released notebook uses when JUPYTERHUB_USER is not set (autograder/releasing/stages.py).
EXAMPLE_STUDENT_ID = "your-student-id"


@dataclass(frozen=True)
class PersonalFlag:
    student: str
    grade_id: str
    matches: tuple[str, ...]  # whose parameters the answer fits (classmates, or the example id)

    @property
    def example_id(self) -> bool:
        return self.matches == (EXAMPLE_STUDENT_ID,)

    def text(self) -> str:
        if self.example_id:
            return (
                f"{self.student}: `{self.grade_id}` fits the parameters of the release's example id "
                f"'{EXAMPLE_STUDENT_ID}', not their own (the notebook ran outside JupyterHub?)"
            )
        return f"{self.student}: `{self.grade_id}` fits the parameters of {', '.join(self.matches)}, not their own"


def _expected(question: Question, assignment: Assignment, student: str):
    return question.expected(Probe((), kwargs=assignment.params_for(student)))


def _matches(question: Question, got, expected) -> bool:
    try:
        return question.compare.matches(got, expected)
    except Exception:  # noqa: BLE001 - an unreadable answer matches nobody
        return False


def check_personal(assignment: Assignment, answers: dict[str, dict]) -> list[PersonalFlag]:
    """``answers``: student -> {grade_id: wire-encoded value}. Returns one flag per (student,
    question) whose value is wrong for the student but right for another id of the cohort."""
    flags = []
    cohort = sorted(answers)
    candidates = cohort + ([EXAMPLE_STUDENT_ID] if EXAMPLE_STUDENT_ID not in answers else [])
    for q in personal_questions(assignment):
        expected: dict[str, object] = {}  # computed lazily, once per id

        def expected_for(student: str):
            if student not in expected:
                expected[student] = _expected(q, assignment, student)
            return expected[student]

        for student in cohort:
            if q.grade_id not in answers[student]:
                continue
            try:
                got = wire.decode_value(answers[student][q.grade_id])
            except (wire.WireError, ValueError):
                continue
            if _matches(q, got, expected_for(student)):
                continue  # right for their own parameters (and for anyone who shares them)
            others = tuple(c for c in candidates if c != student and _matches(q, got, expected_for(c)))
            if others:
                flags.append(PersonalFlag(student, q.grade_id, others))
    return flags
