"""The training questions, answered by students the grader's authors did not design for
(tests/assignments/training_students/, each written from the released notebook alone): their
own recipes are graded in the sandbox on the seeds drawn for them and get the points.

PS6 (copy and addition, ~40 CPU-s a student): torch's ``nn.Transformer`` with OneCycle, and the
notebook's recipe in the student's own classes and loop — both passed 20 grader seeds in 20 on
their first run. A hand-written Post-LN model with the original paper's schedule is fragile
(training.py's docstring): graded as student "s000", its first addition run stalls (57 % of sums)
and the second run, on another seed drawn for that student, passes — the policy of
``autograder.grading.second_run`` on a real student's code.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from autograder.grading.cohort import grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.spec import load_assignment

pytestmark = pytest.mark.slow

STUDENTS = Path(__file__).parent / "training_students"
PS6_STUDENTS = {"indep-torch-nn": "ps6_torch_nn", "indep-recipe": "ps6_recipe", "s000": "ps6_handmade"}


@pytest.fixture(scope="module")
def ps6_graded(tmp_path_factory):
    ps6 = load_assignment("ps6_build")
    training = dataclasses.replace(ps6, questions=[ps6.question("train_copy"), ps6.question("train_addition")])
    tmp = tmp_path_factory.mktemp("ps6_training")
    for student, cell in PS6_STUDENTS.items():
        code = (STUDENTS / f"{cell}.cell").read_text(encoding="utf-8")
        notebook = make_notebook(ps6, {"train_model": code, "train_impl": "# defined in the cell above\n"})
        write_submission(tmp / "submitted", student, ps6, notebook)
    results = grade_cohort(training, collect_folder(tmp / "submitted", training), tmp / "out", progress=False)
    return results["students"]


@pytest.mark.parametrize("student", ["indep-torch-nn", "indep-recipe"])
def test_independent_recipes_get_the_training_points(ps6_graded, student):
    questions = ps6_graded[student]["questions"]
    assert {g: q["status"] for g, q in questions.items()} == {"train_copy": "passed", "train_addition": "passed"}, {
        g: q["feedback"][:200] for g, q in questions.items()
    }
    assert all(q["feedback"] == "correct" for q in questions.values())  # on the first run


def test_a_fragile_recipe_stalled_on_its_first_seed_passes_on_its_second(ps6_graded):
    addition = ps6_graded["s000"]["questions"]["train_addition"]
    assert addition["status"] == "passed", addition["feedback"][:300]
    assert addition["feedback"].startswith("correct on a second training run")
