"""PS2 (positional encodings) graded end to end: T5 buckets are checked at every offset in
[−300, 300], bidirectional and causal: an independently written correct bucket function
passes, a boundary off-by-one is rejected and named. (Document 000's errors about sinusoidal
encodings are in tests/assignments/test_seed_errors.py.)"""

import numpy as np
import pytest

from autograder.grading.cohort import grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.spec import load_assignment, problem_set_module, resolve_name

EVERY = np.arange(-300, 301)

# A correct bucket function written differently from the reference: one offset at a time,
# Python's float64 math.log, explicit branches.
BUCKET_LOOP = """
def t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
    flat = [int(r) for r in torch.as_tensor(rel_pos).reshape(-1).tolist()]
    out = []
    for r in flat:
        half = num_buckets // 2 if bidirectional else num_buckets
        offset = half if (bidirectional and r > 0) else 0
        n = abs(r) if bidirectional else max(-r, 0)
        exact = half // 2
        if n < exact:
            b = n
        else:
            b = min(exact + int(math.log(n / exact) / math.log(max_distance / exact) * (half - exact)), half - 1)
        out.append(offset + b)
    return torch.tensor(out, dtype=torch.long).reshape(torch.as_tensor(rel_pos).shape)
"""


def _bucket_with(old, new):
    src = solution_sources(load_assignment("ps2"))["bucket_impl"]
    assert old in src
    return src.replace(old, new)


CASES = {
    # student -> {cell: source}, the question that must fail (None: all pass), misconception, words
    "bucket_loop": ({"bucket_impl": BUCKET_LOOP}, None, None, ()),
    "exact_range_ends_early": (
        {"bucket_impl": _bucket_with("torch.where(n < max_exact,", "torch.where(n < max_exact - 1,")},
        "t5_bucket",
        "log_boundary_off_by_one",
        ("Off by one at the log boundary",),
    ),
    "last_bucket_overflows": (
        {"bucket_impl": _bucket_with("clamp(max=num_buckets - 1)", "clamp(max=num_buckets)")},
        "t5_bucket",
        "last_bucket_off_by_one",
        ("Off by one at the far end",),
    ),
    "query_minus_key": (
        {
            "bucket_impl": _bucket_with(
                "rel_pos = torch.as_tensor(rel_pos).long()", "rel_pos = -torch.as_tensor(rel_pos).long()"
            )
        },
        "t5_bucket",
        "sign_convention",
        ("memory − query",),
    ),
}


DEPENDENT = {"t5_bucket": {"t5_bias"}}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ps2")
    assignment = load_assignment("ps2")
    for student, (cells, *_rest) in CASES.items():
        write_submission(tmp / "in", student, assignment, make_notebook(assignment, cells))
    return grade_cohort(assignment, collect_folder(tmp / "in", assignment), tmp / "out", workers=2, progress=False)[
        "students"
    ]


def test_short_name_resolves():
    assert resolve_name("ps2") == "ps2_positional"
    assert load_assignment("ps2").name == "ps2_positional"


@pytest.mark.parametrize("student", ["selftest-a", "alice", "bob"])
def test_bucket_probes_cover_every_offset_both_ways(student):
    assignment = load_assignment("ps2")
    probes = assignment.question("t5_bucket").probes_for(student, assignment)
    full = {p.args[1] for p in probes if np.array_equal(p.args[0], EVERY) and len(p.args) == 2}
    assert full == {True, False}


def test_independent_correct_bucket_function_passes_at_every_offset(graded):
    res = graded["bucket_loop"]
    assert res["questions"]["t5_bucket"]["status"] == "passed", res["questions"]["t5_bucket"]
    assert res["score"] == res["max_score"]


@pytest.mark.parametrize("student", [s for s, case in CASES.items() if case[1]])
def test_wrong_answer_is_rejected_and_named(graded, student):
    _cells, question, misconception, words = CASES[student]
    res = graded[student]["questions"][question]
    assert res["status"] == "failed" and res["score"] == 0, res
    assert res["misconception"] == misconception, res
    for w in words:
        assert w in res["feedback"], (w, res["feedback"])
    assert "Traceback" not in res["feedback"]
    others = {
        gid: q
        for gid, q in graded[student]["questions"].items()
        if gid != question and q["status"] not in ("passed", "pending")
    }
    # t5_bias uses the student's t5_bucket: the error may cost the dependent question too, and
    # is named there (as itself or as coming from 1a)
    assert set(others) <= DEPENDENT[question], others
    for q in others.values():
        assert q["misconception"] and q["misconception"].endswith(misconception), q
        if misconception == "last_bucket_off_by_one":  # a bucket past the last cannot index the table:
            assert q["status"] == "error" and "IndexError" in q["feedback"], q  # named with its error


def test_the_boundary_off_by_one_differs_from_the_reference_at_one_offset_pair_only():
    """Why every offset matters: ending the exact range one early changes the buckets of ±7 only."""

    from solutions.positional import t5_relative_bucket

    wrong = problem_set_module(load_assignment("ps2")).t5_buckets
    for bidirectional, where in ((True, [-7, 7]), (False, [-15])):
        off = wrong.bucket(EVERY, bidirectional, exact_end=-1) != t5_relative_bucket(EVERY, bidirectional)
        assert EVERY[off.numpy()].tolist() == where
