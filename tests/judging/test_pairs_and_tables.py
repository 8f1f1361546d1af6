"""Engine diagnoses of issue 36 (round 6): a pair's coordinates read with a wrong index, both parts
of a pair written to the same positions (``diagnosis/pair_entries.py``), a lookup into an input
table at the wrong row (``diagnosis/table_lookup.py``) and rows mixed with the wrong weight
(``diagnosis/between_rows.py``) — each on the problem set's own probes, with no misconception to
name it first."""

import dataclasses

import numpy as np
import torch

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment

STUDENT = "pairs-student"


def _verdict(ps: str, grade_id: str, wrong):
    assignment = load_assignment(ps)
    question = dataclasses.replace(assignment.question(grade_id), misconceptions=())
    probes = question.probes_for(STUDENT, assignment)
    return judge(question, probes, known_wrong_outcome(question, probes, wrong))


def test_a_pair_read_with_its_second_coordinate_twice_names_the_argument_and_the_slice():
    def angles(x, y):
        x, y = torch.as_tensor(x, dtype=torch.float64), torch.as_tensor(y, dtype=torch.float64)
        x0, x1, y0, y1 = x[..., 1::2], x[..., 1::2], y[..., 0::2], y[..., 1::2]  # x0: 1::2 for 0::2
        return torch.atan2(x0 * y1 - x1 * y0, x0 * y0 + x1 * y1)

    res = _verdict("ps3_rope", "rotation_angles", angles)
    assert res.diagnosis == "misread_pairs", res.feedback
    assert "`x` holds its second entry twice" in res.feedback and "first coordinate" in res.feedback, res.feedback


def test_both_parts_written_to_the_even_columns():
    from assignments.ps2_positional.encodings import sinusoidal_pe

    def overwritten(n_pos, d, base=10000.0):
        right = torch.as_tensor(sinusoidal_pe(n_pos, d, base))
        out = torch.zeros_like(right)
        out[:, 0::2] = right[:, 1::2]  # sin written to 0::2, then cos over it; 1::2 never written
        return out

    res = _verdict("ps2_positional", "sinusoidal_pe", overwritten)
    assert res.diagnosis == "pair_overwritten" and "odd positions are all 0" in res.feedback, res.feedback


def test_a_lookup_at_the_wrong_row_and_rows_mixed_with_the_wrong_weight():
    from assignments.ps2_positional.t5_buckets import t5_bucket

    def summed_positions(table, t_q, t_k, bidirectional=True):
        table = torch.as_tensor(table)
        rel = torch.arange(t_k)[None, :] + torch.arange(t_q)[:, None]  # j + i for j − i
        return table[t5_bucket(rel, bidirectional, table.shape[0])].permute(2, 0, 1)

    res = _verdict("ps2_positional", "t5_bias", summed_positions)
    assert res.diagnosis == "table_lookup" and "right column of `table` but from another row" in res.feedback

    def fraction_slip(table, n_new):
        table = torch.as_tensor(table).to(torch.float64)
        n = table.shape[0]
        x = torch.arange(n_new, dtype=torch.float64) * n / n_new
        lo = x.floor().long().clamp(max=n - 1)
        hi = (lo + 1).clamp(max=n - 1)
        frac = (x + lo).clamp(max=1.0)[:, None]  # + for −
        return table[lo] + frac * (table[hi] - table[lo])

    res = _verdict("ps2_positional", "interpolate", fraction_slip)
    assert res.diagnosis == "interpolation_weight" and "the weight it gives the second" in res.feedback, res.feedback


def test_the_table_lookup_needs_every_entry_from_the_table():
    def noisy(table, t_q, t_k, bidirectional=True):
        from assignments.ps2_positional.t5_buckets import t5_bias

        out = torch.as_tensor(t5_bias(table, t_q, t_k, bidirectional)).clone()
        return out + 0.5 * torch.as_tensor(np.arange(out.numel()).reshape(out.shape) % 2)

    res = _verdict("ps2_positional", "t5_bias", noisy)
    assert res.diagnosis != "table_lookup", res.feedback
