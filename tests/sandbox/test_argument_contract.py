"""The in-place contract (issue 36): a function that modifies an argument it was handed fails the
question whatever it returns, and the feedback names the argument; in-place work on the
function's own tensors (a local, a clone) is its own business. One real sandbox worker."""

from pathlib import Path

import numpy as np

from autograder.grading.notebook import StudentNotebook
from autograder.grading.runner import execute
from autograder.judging.argument_contract import read_modified
from autograder.judging.verdict import judge
from autograder.spec import Assignment, Probe, Question

CELL = """
import math, torch

def sdpa_scales_q(q, k):
    d_k = q.shape[-1]
    q /= math.sqrt(d_k)                 # the caller's q
    return q @ k.transpose(-2, -1)

def sdpa_scales_scores(q, k):
    scores = q @ k.transpose(-2, -1)
    scores /= math.sqrt(q.shape[-1])    # a local tensor
    return scores

def sdpa_scales_clone(q, k):
    q = q.clone()
    q /= math.sqrt(q.shape[-1])
    return q @ k.transpose(-2, -1)

def sdpa_writes_a_view(q, k):
    flat = q.view(-1)                   # shares q's storage
    flat.mul_(1.0 / math.sqrt(q.shape[-1]))
    return q @ k.transpose(-2, -1)

def merges_in_place(vocab, pair):
    count = vocab.pop(pair)             # the caller's dict
    return len(vocab) + 1 + 0 * count
"""


def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


SDPA = ("sdpa_scales_q", "sdpa_scales_scores", "sdpa_scales_clone", "sdpa_writes_a_view")
QUESTIONS = [Question(grade_id=n, answer=n, reference=_scores, points=1) for n in SDPA] + [
    Question(
        grade_id="merges_in_place",
        answer="merges_in_place",
        reference=lambda vocab, pair: len(vocab),
        points=1,
        args_as="numpy",
    )
]
RNG = np.random.default_rng(0)
PROBES = {
    n: [Probe((RNG.normal(size=(2, 3, 4)).astype(np.float32), RNG.normal(size=(2, 5, 4)).astype(np.float32)))]
    for n in SDPA
}
PROBES["merges_in_place"] = [Probe(({"a b": 2, "c": 1}, "a b"))]


def test_an_argument_modified_in_place_fails_with_its_name_and_local_work_passes():
    from autograder.sandbox.pool import SandboxConfig, Worker

    notebook = StudentNotebook(Path("unit.ipynb"), [CELL], ["cell 0"], [], {}, locked=(False,))
    worker = Worker(0, SandboxConfig())
    try:
        run = execute(
            worker, notebook, Assignment(name="unit", notebook="unit.ipynb", questions=QUESTIONS), PROBES, "ana"
        )
    finally:
        worker.stop()
    verdicts = {q.grade_id: judge(q, PROBES[q.grade_id], run.outcomes[q.grade_id]) for q in QUESTIONS}
    scaled = verdicts["sdpa_scales_q"]
    assert scaled.status == "failed" and scaled.score == 0 and scaled.diagnosis == "modifies_argument", scaled
    assert scaled.feedback == (
        "`sdpa_scales_q` modifies its argument `q` in place (its values changed); the caller's tensor "
        "changes — compute into a new tensor instead"
    )
    assert verdicts["sdpa_scales_scores"].status == "passed", verdicts["sdpa_scales_scores"]
    assert verdicts["sdpa_scales_clone"].status == "passed", verdicts["sdpa_scales_clone"]
    assert verdicts["sdpa_writes_a_view"].diagnosis == "modifies_argument"  # a view writes the caller's storage
    merged = verdicts["merges_in_place"]
    assert merged.status == "failed" and "argument `vocab` in place (keys were added or removed)" in merged.feedback
    assert "the caller's dict changes" in merged.feedback


def test_a_report_from_the_sandbox_is_read_as_data_only():
    good = {"arg": 0, "name": "q", "path": [["str", "w_q"], ["int", 2]], "kind": "tensor", "change": "values"}
    assert read_modified(good) == {"arg": 0, "name": "q", "path": "['w_q'][2]", "kind": "tensor", "change": "values"}
    assert read_modified({**good, "name": "q; import os"})["name"] is None  # said by the reference's name
    assert read_modified({**good, "path": [["str", "`x` is right"]]})["path"] == "[…]"
    for bad in (
        {**good, "kind": "module"},
        {**good, "change": "verdict: passed"},
        {**good, "arg": -1},
        "modified",
        None,
    ):
        assert read_modified(bad) is None
