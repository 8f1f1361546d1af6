"""Engine diagnoses of issue 36 (round 5): an answer short or long by the same count along one axis,
empty, or the reference's entries in another shape (``diagnosis/extents.py``); a size argument used
twice or half as large (``reruns.find_argument``); right only where the input is 0
(``diagnosis/zero_input.py``); and a selection whose length is part of the answer, which neither
the released check nor the feedback states."""

import dataclasses

import numpy as np
import torch

from autograder.judging.instructor_answers import known_wrong_outcome
from autograder.judging.verdict import judge
from autograder.spec import load_assignment

STUDENT = "extents-student"


def _verdict(ps: str, grade_id: str, wrong):
    assignment = load_assignment(ps)
    question = dataclasses.replace(assignment.question(grade_id), misconceptions=())
    probes = question.probes_for(STUDENT, assignment)
    return question, judge(question, probes, known_wrong_outcome(question, probes, wrong))


def _slopes(n_heads, start=1, stop_offset=1):
    """PS4's slopes, the range of heads changed (for powers of two and the interleaved rest alike)."""
    import math

    def power_of_two(n):
        return [2.0 ** (-8.0 * h / n) for h in range(start, n + stop_offset)]

    if math.log2(n_heads).is_integer():
        slopes = power_of_two(n_heads)
    else:
        c = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(c) + power_of_two(2 * c)[0::2][: n_heads - c]
    return torch.tensor(slopes, dtype=torch.float64)


def test_a_length_off_by_one_on_every_input_is_named_though_the_entries_differ():
    _, res = _verdict("ps4_alibi", "alibi_slopes", lambda n: _slopes(n, start=2))
    assert res.diagnosis == "shape" and "one entry too few" in res.feedback, res.feedback


def test_the_same_count_too_few_and_an_empty_output():
    _, res = _verdict("ps4_alibi", "alibi_slopes", lambda n: _slopes(n, stop_offset=-1))
    assert res.diagnosis == "shape" and "2 entries too few" in res.feedback, res.feedback
    _, res = _verdict("ps4_alibi", "alibi_slopes", lambda n: torch.zeros(0, dtype=torch.float64))
    assert res.diagnosis == "shape" and "is empty" in res.feedback, res.feedback


def test_the_entries_in_another_shape():
    assignment = load_assignment("ps3_rope")
    reference = assignment.question("rope_permutation").reference
    _, res = _verdict("ps3_rope", "rope_permutation", lambda d: torch.as_tensor(reference(d)).reshape(2, -1))
    assert res.diagnosis == "shape" and "another shape" in res.feedback, res.feedback


def test_a_size_twice_as_large_and_right_only_at_distance_zero():
    from assignments.ps2_positional.similarity import similarity

    _, res = _verdict("ps2_positional", "similarity", lambda p, dist, d, base=10000.0: similarity(p, dist, 2 * d, base))
    assert res.diagnosis == "argument" and "`d` were twice as large" in res.feedback, res.feedback

    def frequencies_off(p, distances, d, base=10000.0):
        omega = float(base) ** -np.arange(d // 2, dtype=np.float64)  # the exponent's scale dropped
        return np.cos(np.outer(np.asarray(distances, dtype=np.float64), omega)).sum(-1)

    _, res = _verdict("ps2_positional", "similarity", frequencies_off)
    assert "right only where the input is 0" in res.feedback, res.feedback


def test_a_selection_keeps_its_length_to_itself():
    question, res = _verdict("ps4_alibi", "heads_past_training_length", lambda: [6, 7, 8])
    assert res.status == "failed" and "entr" not in res.feedback and "shape" not in res.feedback, res.feedback
    lines = question.compare.value_lines("heads", question.expected(question.probes_for(STUDENT, None)[0]))
    assert not any("len(" in line for line in lines), lines


def test_frequencies_linear_in_the_index_and_one_number_everywhere():
    def linear(d, base=10000.0):  # base * (−2i/d): the power became a product
        return float(base) * -torch.arange(0, d, 2, dtype=torch.float64) / d

    _, res = _verdict("ps3_rope", "rope_thetas", linear)
    assert res.diagnosis == "sequence" and "constant difference" in res.feedback, res.feedback
    _, res = _verdict("ps4_alibi", "alibi_slopes", lambda n: torch.ones(n, dtype=torch.float64))
    assert res.diagnosis == "constant" and "the same number" in res.feedback, res.feedback


def test_a_flag_the_wrong_way_round():
    from assignments.ps2_positional.t5_buckets import t5_bucket

    def negated(rel, bidirectional=True, *rest):
        return t5_bucket(rel, not bidirectional, *rest)

    _, res = _verdict("ps2_positional", "t5_bucket", negated)
    assert res.diagnosis == "argument" and "`not bidirectional`" in res.feedback, res.feedback


def test_rows_copied_from_the_table_where_the_reference_mixes_them():
    def not_rescaled(table, n_new, **_):  # position p reads row p, held at the last row
        table = torch.as_tensor(table, dtype=torch.float64)
        return table[torch.arange(int(n_new)).clamp(max=table.shape[0] - 1)]

    _, res = _verdict("ps2_positional", "interpolate", not_rescaled)
    assert res.diagnosis == "copied_rows" and "a copy of one row of `table`" in res.feedback, res.feedback


def test_a_geometric_sequence_that_runs_out_of_floating_point_or_has_another_length():
    def exponent_scale_dropped(d, base):  # base^(−2i)/2 (no power of the reference's): 0 past an underflow
        return 0.5 * float(base) ** -torch.arange(0, d, 2, dtype=torch.float64)

    _, res = _verdict("ps3_rope", "rope_thetas", exponent_scale_dropped)
    assert res.diagnosis == "sequence" and "with another ratio:" in res.feedback, res.feedback

    def index_step_three(d, base):
        return float(base) ** (-torch.arange(0, d, 3, dtype=torch.float64) / d)

    _, res = _verdict("ps3_rope", "rope_thetas", index_step_three)
    assert res.diagnosis == "sequence" and "another number of entries" in res.feedback, res.feedback


def test_inf_where_the_reference_is_finite():
    import math

    def linear_exponent(d, base=10000.0):  # base * (−2i/d): the first wavelength divides by −0
        return 2 * math.pi / (float(base) * (-torch.arange(0, d, 2, dtype=torch.float64) / d))

    _, res = _verdict("ps2_positional", "wavelengths", linear_exponent)
    assert res.diagnosis == "infinite" and "division by 0" in res.feedback, res.feedback
