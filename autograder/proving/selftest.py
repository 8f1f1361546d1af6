"""The self-test behind `autograder selftest`: prove each problem set's grading before students see it.

For every problem set:
1. the instructor's solution, handed in as a student would, scores full marks (sandbox path);
2. the unmodified release scores zero on every autograded item;
3. every question rejects each of its known-wrong answers on several students' probes, and
   the feedback given is that misconception's own text; a question without a known-wrong
   answer fails the self-test; no misconception text, nor the diagnosis of a typical wrong
   answer to a value or formula question, holds an expected value or formula (``leak_scan``),
   nor tells a step that takes the wrong answer to the expected one (``inference_scan``);
4. the hidden probes follow the coverage rules (``autograder.proving.coverage``) and kill every
   non-equivalent mutant of each function question's reference (``autograder.proving.mutation.analysis``);
5. (reported) how many known-wrong answers the visible checks already catch.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.judging.instructor_answers import SELFTEST_STUDENTS, known_wrong_outcome

if TYPE_CHECKING:  # the grading modules are imported when a self-test runs, not for `--help`
    from autograder.spec import Assignment


def check_misconceptions(assignment: Assignment) -> list[str]:
    from autograder.judging.verdict import judge

    problems = []
    for q in assignment.questions:
        if not q.misconceptions:
            problems.append(f"{q.grade_id}: no known-wrong answer to prove the check rejects anything")
        for mis in q.misconceptions:
            for student in SELFTEST_STUDENTS:
                probes = q.probes_for(student, assignment)
                res = judge(q, probes, known_wrong_outcome(q, probes, mis.wrong))
                if res.status == "passed":
                    problems.append(f"{q.grade_id}: known-wrong answer {mis.name!r} PASSED for {student}")
                elif res.misconception != mis.name:
                    problems.append(
                        f"{q.grade_id}: {mis.name!r} was rejected but its feedback was not given "
                        f"({res.misconception or 'generic'}: {res.feedback[:80]})"
                    )
    return problems


def check_leaks(assignment: Assignment) -> list[str]:
    from autograder.proving.inference_scan import inferred_leaks
    from autograder.proving.leak_scan import judged_wrong_texts, leaks

    written = leaks(assignment, judged_wrong_texts(assignment, SELFTEST_STUDENTS[0]))
    return [f"feedback gives the answer away: {x}" for x in written] + [
        f"the answer follows from the feedback: {x}" for x in inferred_leaks(assignment, SELFTEST_STUDENTS[0])
    ]


def check_solution_and_release(assignment: Assignment, sandbox=None) -> list[str]:
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, write_submission

    problems = []
    with tempfile.TemporaryDirectory(prefix="autograder-selftest-") as tmp:
        subs = Path(tmp) / "submitted"
        write_submission(subs, "solution", assignment, make_notebook(assignment))
        write_submission(subs, "release", assignment, make_notebook(assignment, solved=False))
        submissions = collect_folder(subs, assignment)
        results = grade_cohort(assignment, submissions, Path(tmp) / "out", workers=2, sandbox=sandbox, progress=False)
    sol, rel = results["students"]["solution"], results["students"]["release"]
    if sol["score"] != sol["max_score"]:
        bad = {g: q["feedback"] for g, q in sol["questions"].items() if q["status"] != "passed"}
        problems.append(f"the solution scored {sol['score']:g}/{sol['max_score']:g}: {bad}")
    if rel["score"] != 0:
        bad = [g for g, q in rel["questions"].items() if q["score"]]
        problems.append(f"the unmodified release scored {rel['score']:g} (on {', '.join(bad)})")
    return problems


def check_probes(assignment: Assignment) -> tuple[list[str], list]:
    """Coverage rules and mutation analysis of the hidden probes: (problems, mutation results)."""
    from autograder.proving import coverage
    from autograder.proving.mutation import analysis as mutation

    questions = mutation.function_questions(assignment)
    problems = coverage.coverage_problems(assignment, questions, SELFTEST_STUDENTS)
    results = mutation.analyse(assignment)
    for r in results:
        problems += r.problems()
    return problems, results


@dataclass
class SelftestReport:
    problems: list[str] = field(default_factory=list)
    mutation: list = field(default_factory=list)  # MutationResult per function question
    visible_caught: tuple[int, int] = (0, 0)  # known-wrong answers the visible checks reject / all


def run_selftest(assignment: Assignment, sandbox=None, *, sandboxed: bool = True) -> SelftestReport:
    from autograder.releasing.visible_checks import visible_catches

    report = SelftestReport(check_misconceptions(assignment) + check_leaks(assignment))
    probe_problems, report.mutation = check_probes(assignment)
    report.problems += probe_problems
    report.visible_caught = visible_catches(assignment)
    if sandboxed:
        report.problems += check_solution_and_release(assignment, sandbox)
    return report


def selftest(assignment: Assignment, sandbox=None) -> list[str]:
    return run_selftest(assignment, sandbox).problems
