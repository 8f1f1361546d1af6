"""The training questions, answered by students the grader's authors did not design for
(tests/assignments/training_students/, each written from the released notebook alone): their
own recipes are graded in the sandbox on the seeds drawn for them and get the points.

PS6 (copy and addition, ~40 CPU-s a student): torch's ``nn.Transformer`` with OneCycle, and the
notebook's recipe in the student's own classes and loop — both passed 20 grader seeds in 20 on
their first run. A hand-written Post-LN model with the original paper's schedule is fragile
(training.py's docstring): graded as student "s000" it passes under the policy of
``autograder.grading.second_run`` (on this project's machines its first addition run stalls and
its second passes; on another processor the first may pass).

PS7 (shift_generalises, ~1 CPU-s a student; not marked slow): Adam in a plain loop, AdamW with
warm-up, cosine decay and a plateau stop on batches of 32, and a functional ``torch.func`` loop
with a hand-written Adam — each with its own ``relative_bias`` (broadcast indexing, a loop over
rows, ``gather``), in the notebook's ``bias_impl`` cell, graded too. Swept over 100 grader seeds
each: no first run fell short.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.spec import load_assignment

STUDENTS = Path(__file__).parent / "training_students"
PS6_STUDENTS = {"indep-torch-nn": "ps6_torch_nn", "indep-recipe": "ps6_recipe", "s000": "ps6_handmade"}
PS7_STUDENTS = ("ps7_adam_loop", "ps7_sgd_schedule", "ps7_functional")


def _grade(assignment, grade_ids, notebooks: dict, tmp) -> dict:
    """Grade only ``grade_ids`` of each student's notebook (student -> solution cells replaced)."""
    subset = dataclasses.replace(assignment, questions=[assignment.question(g) for g in grade_ids])
    for student, cells in notebooks.items():
        write_submission(tmp / "submitted", student, assignment, make_notebook(assignment, cells))
    results = grade_cohort(subset, collect_folder(tmp / "submitted", subset), tmp / "out", progress=False)
    return results["students"]


@pytest.fixture(scope="module")
def ps7_graded(tmp_path_factory):
    notebooks = {}
    for name in PS7_STUDENTS:
        bias, shift = (STUDENTS / f"{name}.cell").read_text(encoding="utf-8").split("# %% shift_impl\n")
        notebooks[name.replace("_", "-")] = {"bias_impl": bias, "shift_impl": shift}
    ps7 = load_assignment("ps7_tasks")
    return _grade(ps7, ("relative_bias", "shift_generalises"), notebooks, tmp_path_factory.mktemp("ps7_training"))


@pytest.mark.parametrize("student", [n.replace("_", "-") for n in PS7_STUDENTS])
def test_independent_shift_students_get_the_points(ps7_graded, student):
    questions = ps7_graded[student]["questions"]
    assert {g: q["status"] for g, q in questions.items()} == {
        "relative_bias": "passed",
        "shift_generalises": "passed",
    }, {g: q["feedback"][:200] for g, q in questions.items()}


@pytest.fixture(scope="module")
def ps6_graded(tmp_path_factory):
    notebooks = {
        student: {
            "train_model": (STUDENTS / f"{cell}.cell").read_text(encoding="utf-8"),
            "train_impl": "# defined in the cell above\n",
        }
        for student, cell in PS6_STUDENTS.items()
    }
    ps6 = load_assignment("ps6_build")
    return _grade(ps6, ("train_copy", "train_addition"), notebooks, tmp_path_factory.mktemp("ps6_training"))


@pytest.mark.slow
@pytest.mark.parametrize("student", ["indep-torch-nn", "indep-recipe"])
def test_independent_recipes_get_the_training_points(ps6_graded, student):
    questions = ps6_graded[student]["questions"]
    assert {g: q["status"] for g, q in questions.items()} == {"train_copy": "passed", "train_addition": "passed"}, {
        g: q["feedback"][:200] for g, q in questions.items()
    }
    assert all(
        q["feedback"].startswith("correct") and "training run" not in q["feedback"] for q in questions.values()
    )  # on the first run


@pytest.mark.slow
def test_a_fragile_recipe_passes_under_the_policy(ps6_graded):
    """The hand-written Post-LN student (graded as "s000"): on this project's machines its first
    addition run stalled (57 % of sums) and its second passed; on another processor its first
    may pass. Either way the policy (up to three runs, ``autograder.grading.second_run``) gives
    the points — the policy itself is tested by construction in tests/grading/test_second_run.py,
    on runs made to stall, not on one processor's rounding."""
    for gid, q in ps6_graded["s000"]["questions"].items():
        assert q["status"] == "passed", (gid, q["feedback"][:300])
        assert q["feedback"].startswith("correct"), q["feedback"][:300]


# Student ids under which the notebook's own recipe (the instructor's solution) fell short on its
# first train_copy run on this project's machines — s076 stalled at chance, s054 learned part of
# it — found by `python -m autograder.proving.training_sweep ps6 --questions train_copy`.
FIRST_RUN_FELL_SHORT_HERE = ("s076", "s054")


@pytest.mark.slow
def test_the_notebooks_recipe_passes_for_ids_whose_first_run_fell_short(tmp_path):
    """Graded in the sandbox as the grader would: the points, on whatever run (on another
    processor the first may pass; the policy is what is asserted, not the rounding)."""
    ps6 = load_assignment("ps6_build")
    graded = _grade(ps6, ("train_copy",), {s: {} for s in FIRST_RUN_FELL_SHORT_HERE}, tmp_path)
    for student in FIRST_RUN_FELL_SHORT_HERE:
        copy = graded[student]["questions"]["train_copy"]
        assert copy["status"] == "passed" and copy["feedback"].startswith("correct"), (student, copy["feedback"][:300])
