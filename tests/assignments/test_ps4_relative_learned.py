"""PS4 part 9, document 001's learned relative positions: the references against a computation
written independently (a loop over query–key pairs, Python's own min/max for the clipping), 001's
own formulas lose the point with feedback that names them, and the visible checks give nothing of
the table's reading away (zero tables)."""

import json
import math

import numpy as np
import pytest
import torch

from autograder.spec import REPO_ROOT, as_args, load_assignment

ASSIGNMENT = load_assignment("ps4_alibi")
RELEASE = json.loads((REPO_ROOT / "release/ps4_alibi/ps4_alibi.ipynb").read_text())
TEXT = "".join("".join(c["source"]) for c in RELEASE["cells"])


def _row(offset, clip):
    """Row of the table for key minus query ``offset`` (Shaw et al., T5), clipped to [−K, K]."""
    return max(-clip, min(clip, offset)) + clip


def pairwise_scores(q, k, table, *, vectors):
    """The scores one query–key pair at a time, in float64."""
    q, k, table = (torch.as_tensor(x, dtype=torch.float64) for x in (q, k, table))
    clip, (t, d) = (table.shape[0] - 1) // 2, q.shape[-2:]
    out = torch.empty(*q.shape[:-1], t, dtype=torch.float64)
    for i in range(t):
        for j in range(t):
            row = table[_row(j - i, clip)]
            if vectors:
                out[..., i, j] = (q[..., i, :] * (k[..., j, :] + row)).sum(-1) / math.sqrt(d)
            else:
                out[..., i, j] = (q[..., i, :] * k[..., j, :]).sum(-1) / math.sqrt(d) + row
    return out


@pytest.mark.parametrize("grade_id, vectors", [("relative_key_scores", True), ("clipped_bias_scores", False)])
def test_the_reference_is_the_pairwise_computation_on_every_probe_of_five_ids(grade_id, vectors):
    q = ASSIGNMENT.question(grade_id)
    for student in [f"student-{i}" for i in range(5)]:
        for probe in q.probes_for(student, ASSIGNMENT):
            expected = pairwise_scores(*probe.args, vectors=vectors)
            got = q.reference(*as_args(probe.args, "torch"))
            assert got.dtype == torch.float32
            torch.testing.assert_close(got.double(), expected, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "grade_id, names",
    [
        ("relative_key_scores", ("query_minus_key", "index_without_offset")),
        ("clipped_bias_scores", ("document_001_bias_divided", "query_minus_key", "index_without_offset")),
    ],
)
def test_001s_formulas_as_written_lose_the_point_on_every_id(grade_id, names):
    """001's i − j, its b_clip(i−j) used as an index, and its bias inside the division by √d."""
    q = ASSIGNMENT.question(grade_id)
    wrong = {m.name: m for m in q.misconceptions}
    assert "001" in wrong["query_minus_key"].feedback and "001" in wrong["index_without_offset"].feedback
    for student in [f"student-{i}" for i in range(20)]:
        probes = q.probes_for(student, ASSIGNMENT)
        for name in names:
            m = wrong[name]
            spellings = [m.wrong, *([] if m.also_wrong is None else [lambda *a, m=m: m.also_wrong(*a)[0]])]
            for spelling in spellings:
                answers = [spelling(*as_args(p.args, "torch")) for p in probes]
                assert not all(q.compare(a, q.expected(p)).ok for a, p in zip(answers, probes)), (student, name)


def test_the_visible_checks_use_zero_tables_and_the_text_quotes_001_without_judging_it():
    for grade_id in ("relative_key_scores", "clipped_bias_scores"):
        (probe,) = ASSIGNMENT.question(grade_id).visible
        assert not np.asarray(probe.args[2]).any()
    assert "ein lernbarer Vektor für die relative Position" in TEXT and "b_{\\text{clip}(i-j)}" in TEXT
    part = TEXT[TEXT.index("## 9.") :]
    assert "wrong" not in part and "error" not in part
