"""A second training run: a model that falls short by chance of its seed ("undertrained") is
trained once more on an independent draw (another seed) and the better run counts; a real
mistake is not re-run; both draws are a function of the student's id."""

import dataclasses

import numpy as np
import pytest

from autograder.grading.notebook import read_notebook
from autograder.grading.runner import execute
from autograder.grading.second_run import apply_second_runs, better_of_two, to_rerun
from autograder.judging.verdict import QuestionResult, judge
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import load_assignment

# the reference recipe, then — for odd seeds only — 15 % of the positions' logits replaced by
# noise: a model that learned most of the task and gets too few rows exactly right
SEED_SENSITIVE = """
class _Unlucky(nn.Module):
    def __init__(self, model, seed):
        super().__init__()
        self.model, self.seed = model, seed

    def forward(self, tokens):
        logits = self.model(tokens)
        g = torch.Generator().manual_seed(self.seed)
        hit = torch.rand(logits.shape[:-1], generator=g) < 0.15
        return torch.where(hit[..., None], 100 * torch.randn(logits.shape, generator=g), logits)


def train_shift(seed, max_steps):
    torch.manual_seed(seed)
    model = ShiftModel("relative")
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(min(max_steps, 400)):
        tokens = torch.randint(0, SHIFT_VOCAB, (64, SHIFT_TRAIN_LEN), generator=generator)
        logits = model(tokens)[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, SHIFT_VOCAB), tokens[:, :-1].reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return _Unlucky(model, seed) if seed % 2 else model
"""


@pytest.fixture(scope="module")
def ps7():
    return load_assignment("ps7_tasks")


def _seeds(q, assignment, student):
    return q.probes_for(student, assignment)[0].args[0], q.second_run_probes(student, assignment)[0].args[0]


def _student(q, assignment, first_odd, second_odd):
    for i in range(200):
        first, second = _seeds(q, assignment, f"st{i}")
        if (first % 2, second % 2) == (first_odd, second_odd):
            return f"st{i}"
    raise AssertionError("no such student id among 200")


def test_every_training_question_reruns_only_on_its_own_symptoms():
    listed = {}
    for name in ("ps6_build", "ps7_tasks"):
        for q in load_assignment(name).questions:
            if q.second_run_on:
                assert set(q.second_run_on) <= {m.name for m in q.misconceptions}, q.grade_id
                listed[q.grade_id] = q.second_run_on
    assert listed == {
        "train_copy": ("undertrained",),
        "train_addition": ("undertrained",),
        "shift_generalises": ("undertrained",),
    }


def test_the_second_draw_is_the_students_own_and_independent(ps7):
    q = ps7.question("shift_generalises")
    first, second = q.probes_for("ada", ps7)[0], q.second_run_probes("ada", ps7)[0]
    assert first.args[0] != second.args[0] and not np.array_equal(first.args[2], second.args[2])
    again = q.second_run_probes("ada", ps7)[0]
    assert again.args[0] == second.args[0] and np.array_equal(again.args[3], second.args[3])
    assert q.second_run_probes("bob", ps7)[0].args[0] != second.args[0]


def test_only_listed_symptoms_are_rerun(ps7):
    def res(status, mis=None):
        return QuestionResult(0.0 if status != "passed" else 3.0, 3.0, status, "x", mis)

    results = {q.grade_id: res("passed") for q in ps7.questions}
    assert to_rerun(ps7, results) == []
    for mistake in ("current_token", "absolute_positions", "untrained", None):
        results["shift_generalises"] = res("failed", mistake)
        assert to_rerun(ps7, results) == [], mistake
    results["shift_generalises"] = res("timeout")
    assert to_rerun(ps7, results) == []
    results["shift_generalises"] = res("failed", "undertrained")
    assert [q.grade_id for q in to_rerun(ps7, results)] == ["shift_generalises"]


def test_the_better_of_two_runs_counts():
    first = QuestionResult(0.0, 4.0, "failed", "Your model learned part of the task.", "undertrained")
    won = better_of_two(first, QuestionResult(4.0, 4.0, "passed", "correct"))
    assert (won.status, won.score, won.misconception) == ("passed", 4.0, None)
    assert "second training run" in won.feedback and "learned part of the task" in won.feedback
    lost = better_of_two(first, QuestionResult(0.0, 4.0, "failed", "other", "undertrained"))
    assert (lost.status, lost.score, lost.misconception) == ("failed", 0.0, "undertrained")
    assert lost.feedback.startswith(first.feedback) and "fell short too" in lost.feedback


@pytest.mark.parametrize("second_odd", [False, True], ids=["second-seed-lucky", "second-seed-unlucky-too"])
def test_a_seed_sensitive_model_is_trained_again_in_the_sandbox(ps7, tmp_path, second_odd):
    q = ps7.question("shift_generalises")
    student = _student(q, ps7, first_odd=True, second_odd=second_odd)
    path = write_submission(tmp_path, student, ps7, make_notebook(ps7, {"shift_impl": SEED_SENSITIVE}))
    subset = dataclasses.replace(ps7, questions=[q])
    probes = {q.grade_id: q.probes_for(student, ps7)}
    notebook = read_notebook(path)
    worker = Worker(0, SandboxConfig())
    try:
        run = execute(worker, notebook, subset, probes, student)
        results = {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id])}
        assert (results[q.grade_id].status, results[q.grade_id].misconception) == ("failed", "undertrained")
        seconds = apply_second_runs(worker, notebook, subset, student, results)
    finally:
        worker.stop()
    verdict = results[q.grade_id]
    assert seconds > 0
    if second_odd:
        assert (verdict.status, verdict.score) == ("failed", 0.0) and "fell short too" in verdict.feedback
    else:
        assert (verdict.status, verdict.score) == ("passed", verdict.max_score)
        assert "second training run" in verdict.feedback
