"""Questions that train a model: time and CPU limits, and PS6's training feedback.

* A question's own ``timeout_s`` bounds it: a training function that runs past it (politely, or
  ignoring the soft alarm) costs that question only, with a message naming the limit; the
  other questions of the same notebook are still graded. A question with ``cpu_limit_s`` is
  stopped on the process's CPU clock instead (the same verdict on any load), with the wall
  clock only as a net for a run that stops using CPU.
* ``Assignment.cpu_s`` replaces the sandbox's RLIMIT_CPU for the notebook's process, and a
  process that burns through it costs the question it was in, with a message that says so.
* PS6 part 7: real flawed models (untrained, decoder without the causal mask, loss against
  the unshifted target) land in the symptom class of their simulated known-wrong answers.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.grading.notebook import StudentNotebook
from autograder.grading.runner import execute
from autograder.judging.compare.comparators import Exact
from autograder.judging.verdict import judge
from autograder.proving.training_sweep import notebook_namespace
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import Assignment, Misconception, Probe, Question, load_assignment, to_plain

CELLS = [
    "import resource\nimport time\n",
    "def quick(x):\n    return x + 1\n",
    # a training loop that never checks its budget: the soft alarm stops it
    "def train_forever(seed, time_budget_s):\n    while True:\n        time.sleep(0.01)\n",
    # swallows the soft alarm too: the zygote kills the process, the notebook is run again
    "def train_stubbornly(seed, time_budget_s):\n    while True:\n        try:\n            time.sleep(10)\n"
    "        except BaseException:\n            pass\n",
    "def cpu_limit():\n    return resource.getrlimit(resource.RLIMIT_CPU)[0]\n",
    "def burn_cpu():\n    while True:\n        pass\n",
    "def burn_cpu_politely(seed, max_steps):\n    while True:\n        pass\n",
    "def sleep_politely(seed, max_steps):\n    time.sleep(3600)\n",
    "def quick_again(x):\n    return x * 2\n",
]


def _question(grade_id, answer, reference, args=(), timeout_s=10.0, cpu_limit_s=None):
    return Question(
        grade_id=grade_id,
        answer=answer,
        points=1,
        reference=reference,
        probes=lambda rng: [Probe(args, f"{answer} probe")],
        compare=Exact(),
        timeout_s=timeout_s,
        cpu_limit_s=cpu_limit_s,
        misconceptions=(Misconception("never", "-", lambda *a: None),),
    )


CPU_S = 4
ASSIGNMENT = Assignment(
    name="limits",
    notebook="limits.ipynb",
    cpu_s=CPU_S,
    questions=[
        _question("quick", "quick", lambda x: x + 1, (1,)),
        _question("train_forever", "train_forever", lambda s, b: 0, (0, 1.0), timeout_s=1.5),
        _question("train_stubbornly", "train_stubbornly", lambda s, b: 0, (0, 1.0), timeout_s=1.0),
        _question("cpu_limit", "cpu_limit", lambda: CPU_S),
        _question("cpu_clock", "burn_cpu_politely", lambda s, n: 0, (0, 10), timeout_s=20.0, cpu_limit_s=1.0),
        _question("cpu_clock_sleeper", "sleep_politely", lambda s, n: 0, (0, 10), timeout_s=1.5, cpu_limit_s=1.0),
        _question("burn_cpu", "burn_cpu", lambda: 0, timeout_s=30.0),
        _question("quick_again", "quick_again", lambda x: 2 * x, (3,)),
    ],
)


@pytest.fixture(scope="module")
def graded():
    nb = StudentNotebook(
        path=Path("limits.ipynb"),
        cells=CELLS,
        labels=[f"cell {i}" for i in range(len(CELLS))],
        grade_ids=[],
        sources={},
    )
    probes = {q.grade_id: q.probes_for("student", ASSIGNMENT) for q in ASSIGNMENT.questions}
    worker = Worker(0, SandboxConfig())
    started = time.monotonic()
    try:
        run = execute(worker, nb, ASSIGNMENT, probes, "student")
    finally:
        worker.stop()
    results = {q.grade_id: judge(q, probes[q.grade_id], run.outcomes[q.grade_id]) for q in ASSIGNMENT.questions}
    return results, time.monotonic() - started


def test_the_other_questions_are_still_graded(graded):
    results, _ = graded
    for gid in ("quick", "quick_again"):
        assert results[gid].status == "passed", results[gid]


def test_training_past_its_time_limit_costs_that_question_only(graded):
    results, _ = graded
    r = results["train_forever"]
    assert (r.status, r.score) == ("timeout", 0.0)
    assert "`train_forever` on train_forever probe: ran past the 1.5 s limit" == r.feedback


def test_ignoring_the_soft_alarm_is_killed_and_reported_as_a_timeout(graded):
    results, _ = graded
    r = results["train_stubbornly"]
    assert (r.status, r.score) == ("timeout", 0.0)
    assert "ran past the time limit (3 s)" in r.feedback  # timeout_s + the 2 s grace


def test_a_cpu_limited_question_stops_on_the_cpu_clock(graded):
    results, _ = graded
    r = results["cpu_clock"]
    assert (r.status, r.score) == ("timeout", 0.0)
    assert r.feedback.endswith("used more than 1 CPU-seconds (this question's limit)"), r.feedback
    assert r.misconception is None


def test_a_cpu_limited_question_that_sleeps_meets_the_wall_clock_net(graded):
    results, _ = graded
    r = results["cpu_clock_sleeper"]
    assert (r.status, r.score) == ("timeout", 0.0)
    assert "ran past the time limit (3.5 s)" in r.feedback  # timeout_s + the 2 s grace


def test_the_assignment_cpu_limit_reaches_the_sandbox(graded):
    results, _ = graded
    assert results["cpu_limit"].status == "passed", results["cpu_limit"]


def test_burning_through_the_cpu_limit_costs_that_question_with_a_clear_message(graded):
    results, _ = graded
    r = results["burn_cpu"]
    assert (r.status, r.score) == ("error", 0.0)
    # killed by RLIMIT_CPU (the message says CPU time), not by the question's 30 s wall limit —
    # which a wall-clock bound on this test's duration could not tell on a loaded machine
    assert "CPU time" in r.feedback and "thread" in r.feedback and "time limit" not in r.feedback, r.feedback


# ---------------------------------------------------------------- PS6: real flawed models


@pytest.fixture(scope="module")
def ps6():
    return load_assignment("ps6_build")


def _train_copy_steps(ns, steps):
    """The solution's train_copy with its own number of steps, whatever budget it is handed."""

    def train_copy(seed, max_steps):
        import torch

        torch.manual_seed(seed)
        model = ns["Seq2Seq"](ns["COPY_VOCAB"], d=64, n_heads=2, d_ff=128)
        return ns["train_seq2seq"](model, ns["copy_data"], seed, steps, lr=2e-3, warmup=50)

    return train_copy


def _judge_task(ps6, ns, task, student="flawed"):
    q = ps6.question(f"train_{task}")
    probes = q.probes_for(student, ps6)
    seed, _, *data = probes[0].args
    import torch

    value = ns[f"{task}_task"](seed, 0, *(torch.from_numpy(np.asarray(a)) for a in data))
    from autograder.judging.outcome import Outcome

    return judge(q, probes, Outcome("returned", [{"value": to_plain(value)}]))


def test_an_untrained_model_gets_the_untrained_feedback(ps6):
    """A loop that computes the loss but never steps the optimiser: the parameters the model ran
    with are the ones it returns (the notebook's ``watched_training`` sees it), so the model was
    not trained — not a stalled run, and not re-run."""
    import torch

    ns = notebook_namespace(ps6)

    def train_copy(seed, max_steps):
        torch.manual_seed(seed)
        model = ns["Seq2Seq"](ns["COPY_VOCAB"], d=64, n_heads=2, d_ff=128)
        optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3)
        for _ in range(3):
            src, tgt = ns["copy_data"](64)
            logits = model(src, tgt[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))
            optimiser.zero_grad()
            loss.backward()  # ... and no optimiser.step()
        return model

    ns["train_copy"] = train_copy
    res = _judge_task(ps6, ns, "copy")
    assert (res.status, res.misconception) == ("failed", "untrained"), res
    assert "did not change" in res.feedback


def test_a_model_that_trained_and_stalled_at_chance_is_stalled_not_untrained(ps6):
    """Parameters that changed while training, predictions at chance: a stalled run, which the
    policy trains again on another seed (``second_run_on``), never the untrained verdict."""
    import torch

    ns = notebook_namespace(ps6)

    def train_copy(seed, max_steps):
        torch.manual_seed(seed)
        model = ns["Seq2Seq"](ns["COPY_VOCAB"], d=64, n_heads=2, d_ff=128)
        src, tgt = ns["copy_data"](2)
        model(src, tgt[:, :-1])  # it runs ...
        with torch.no_grad():
            for p in model.parameters():
                p.add_(1e-3 * torch.randn_like(p))  # ... and changes, learning nothing
        return model

    ns["train_copy"] = train_copy
    res = _judge_task(ps6, ns, "copy")
    assert (res.status, res.misconception) == ("failed", "stalled"), res
    assert "stalled" in ps6.question("train_copy").second_run_on


def test_a_decoder_without_the_causal_mask_gets_its_feedback(ps6):
    import torch

    ns = notebook_namespace(ps6)
    ns["causal_mask"] = lambda t: torch.ones(t, t, dtype=torch.bool)  # sees the whole target
    ns["train_copy"] = _train_copy_steps(ns, 300)  # ~15 s: teacher-forced accuracy ~99.9 %, generation ~0 %
    res = _judge_task(ps6, ns, "copy")
    assert (res.status, res.misconception) == ("failed", "no_causal_mask"), res


def test_a_model_short_of_training_is_not_told_it_lacks_the_causal_mask(ps6):
    """An honest model that stalled (the reference at lr 5e-3 on one student's seed: 74 % of sums
    exact, no better with teacher forcing) generates as well as it predicts: the symptom is
    undertraining; the causal mask is for a model right only while it sees the answer."""
    import torch

    q = ps6.question("train_addition")
    seed, steps, *data = q.probes_for("stalled", ps6)[0].args
    truth = q.reference(seed, steps, *(torch.as_tensor(np.asarray(a)) for a in data))
    g = torch.Generator().manual_seed(0)

    def stalled(x):  # about one digit in fifteen wrong, whether generating or teacher-forced
        return torch.where(torch.rand(x.shape, generator=g) < 0.07, (x + 1) % 10, x).numpy()

    got = {"generated": stalled(truth["generated"]), "teacher_forced": stalled(truth["teacher_forced"])}
    assert not q.compare(got, truth).ok
    assert q.compare.symptom(got, truth) == "undertrained"


def test_a_loss_against_the_unshifted_target_gets_its_feedback(ps6):
    ns = notebook_namespace(ps6)
    nb = nbformat.read(ps6.source_dir / ps6.notebook, as_version=4)
    source = next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "train_model")
    assert "tgt[:, 1:].reshape(-1)" in source
    exec(compile(source.replace("tgt[:, 1:].reshape(-1)", "tgt[:, :-1].reshape(-1)"), "<flawed>", "exec"), ns)
    ns["train_copy"] = _train_copy_steps(ns, 150)
    res = _judge_task(ps6, ns, "copy")
    assert (res.status, res.misconception) == ("failed", "unshifted_targets"), res


def test_the_notebook_states_the_budgets_the_grader_gives(ps6):
    import re

    nb = nbformat.read(ps6.source_dir / ps6.notebook, as_version=4)
    helpers = next(c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "train_helpers")
    steps = dict(
        zip(
            ("train_copy", "train_addition"),
            map(int, re.search(r"COPY_STEPS, ADDITION_STEPS = (\d+), (\d+)", helpers).groups()),
        )
    )
    cpu = dict(
        zip(
            ("train_copy", "train_addition"),
            map(int, re.search(r"COPY_CPU_S, ADDITION_CPU_S = (\d+), (\d+)", helpers).groups()),
        )
    )
    assert {gid: ps6.question(gid).probes_for("anyone", ps6)[0].args[1] for gid in steps} == steps
    assert {gid: ps6.question(gid).cpu_limit_s for gid in cpu} == cpu
    for gid in steps:  # the wall clock is only a net behind the CPU limit, far above it
        assert ps6.question(gid).timeout_s >= 3 * ps6.question(gid).cpu_limit_s
    # one sandboxed run holds every question and cell: its CPU limit covers the questions' limits
    assert ps6.cpu_s >= sum(q.cpu_limit_s or q.timeout_s for q in ps6.questions) + 60


def test_the_notebook_states_the_thresholds_the_grader_applies(ps6):
    import re

    nb = nbformat.read(ps6.source_dir / ps6.notebook, as_version=4)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in nb.cells}
    stated = [int(x) for x in re.findall(r"at least (\d+) %\*\*\s+of \d+ (?:copy sequences|sums)", cells["train_text"])]
    assert stated == [round(100 * ps6.question(g).compare.threshold) for g in ("train_copy", "train_addition")]
    for gid in ("train_copy", "train_addition"):  # and the grade cell's comment says the same
        assert f">= {round(100 * ps6.question(gid).compare.threshold)} %" in cells[gid]


def test_probe_labels_show_no_seed(ps6):
    for gid in ("train_copy", "train_addition"):
        probe = ps6.question(gid).probes_for("anyone", ps6)[0]
        assert str(probe.args[0]) not in probe.label and "seed" not in probe.label
