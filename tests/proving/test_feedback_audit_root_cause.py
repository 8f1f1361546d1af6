"""The feedback audit judges a mutant inside a dependency's answer as grading does: with root cause
(grading/root_cause.py). PS7's ``printed_tree`` calls ``linearise``; a wrong ``linearise`` fails its own
question, and the re-run with the reference ``linearise`` passes, so the student reads "fix
`linearise` first", not "does not match"."""

import dataclasses

from autograder.judging.instructor_answers import SELFTEST_STUDENTS
from autograder.proving.feedback_audit import FeedbackAudit, audit_mutants
from autograder.spec import load_assignment


def test_a_mutant_in_a_dependency_gets_the_root_cause():
    ps7 = load_assignment("ps7_tasks")
    both = dataclasses.replace(ps7, questions=[ps7.question("parser_linearise"), ps7.question("printed_tree")])
    audit = FeedbackAudit(ps7.name)
    audit_mutants(both, audit, SELFTEST_STUDENTS[:1])
    printed = [str(text) for gid, text in audit.texts if gid == "printed_tree"]
    assert sum("Fix `linearise` first" in text for text in printed) >= 8
    assert not [g for g in audit.generic if g.startswith("printed_tree") and ".linearise " in g]
