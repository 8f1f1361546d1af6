"""A mutant that allocates without end is rejected by a MemoryError, not by the machine's OOM
killer taking the self-test with it (a budget mutant made one allocate 23 GB)."""

import numpy as np
import pytest

from autograder.proving.mutation.analysis import memory_limit


def test_an_allocation_past_the_headroom_raises_and_the_limit_is_lifted_after():
    with memory_limit(headroom=256 << 20), pytest.raises(MemoryError):
        np.ones(1 << 30)  # 8 GiB of float64
    assert np.ones(64 << 20, dtype=np.uint8).sum() == 64 << 20  # 64 MiB: the limit is gone again
