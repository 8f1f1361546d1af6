"""The reference testers agree with what each PS5 subject function is, by construction."""

import numpy as np
import pytest
import torch

from autograder.spec import load_assignment, problem_set_module
from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

EQUIVARIANT = {"attention_no_position", "tanh_projection"}
# sorted rows: one multiset; mean_pooled_flat: pooled without keepdim
INVARIANT = {"mean_pooled", "mean_pooled_flat", "cross_attention_fixed_queries", "sorted_rows"}


@pytest.mark.parametrize("t", [4, 5, 7])
def test_reference_testers_know_every_subject(t):
    subjects = problem_set_module(load_assignment("ps5_equivariance")).subjects
    X = torch.from_numpy(np.random.default_rng(t).standard_normal((t, 8)).astype(np.float32))
    for name, source in subjects.SUBJECTS.items():
        f = source.compile()
        assert is_permutation_equivariant(f, X) == (name in EQUIVARIANT), name
        assert is_permutation_invariant(f, X) == (name in INVARIANT), name


def test_first_token_special_is_missed_by_a_single_late_swap():
    module = problem_set_module(load_assignment("ps5_equivariance"))
    X = torch.randn(6, 8)
    f = module.subjects.SUBJECTS["first_token_special"].compile()
    assert module.equivariance_tester.only_swaps_the_last_two(f, X) is True  # the adversary fools a lazy tester
    assert is_permutation_equivariant(f, X) is False
