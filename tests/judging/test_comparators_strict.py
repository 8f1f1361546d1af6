"""Where the notebook asks for a type, a right value of the wrong type does not pass.

Found by students written from the release alone: `apply_rope` / `alibi_attention` returning
float64 for a float32 input ("same shape and dtype" in the notebook), a 0/1 int mask where a
bool mask is asked for, a decoder returning float tensors where "a list of ints" is asked for.
"""

import numpy as np

from autograder.judging.compare.comparators import AllClose, Exact
from autograder.spec import load_assignment


def test_same_dtype_rejects_a_promoted_float_and_an_int_mask():
    assert not AllClose(same_dtype=True)(np.ones(3), np.ones(3, np.float32)).ok
    assert "float64 where float32" in AllClose(same_dtype=True)(np.ones(3), np.ones(3, np.float32)).message
    assert not AllClose(0.0, 0.0, same_dtype=True)(np.ones(3, np.int64), np.ones(3, bool)).ok
    assert AllClose(same_dtype=True)(np.ones(3, np.float32), np.ones(3, np.float32)).ok
    assert AllClose()(np.ones(3), np.ones(3, np.float32)).ok  # not asked: any float dtype will do


def test_a_known_mistake_is_recognised_whatever_its_simulations_dtype():
    assert AllClose(same_dtype=True).matches(np.full(3, 2.0, np.float32), np.full(3, 2.0))


def test_integers_rejects_float_tokens_and_accepts_integer_scalars():
    assert not Exact(integers=True)([1, 2.0, 3], [1, 2, 3]).ok
    assert not Exact(integers=True)([1, np.array(2.0, np.float32)], [1, 2]).ok
    assert Exact(integers=True)([1, np.array(2, np.int64), np.int32(3)], [1, 2, 3]).ok  # argmax() tensors
    assert Exact()([1, 2.0], [1, 2]).ok  # not asked


def test_the_specs_ask_for_the_types_their_notebooks_state():
    ps3, ps4, ps6 = (load_assignment(n) for n in ("ps3", "ps4", "ps6"))
    assert ps3.question("apply_rope").compare.same_dtype and ps4.question("alibi_attention").compare.same_dtype
    assert ps6.question("causal_mask").compare.same_dtype and ps6.question("padding_mask").compare.same_dtype
    for gid in ("greedy_decode", "sample_tokens", "beam_search"):
        assert ps6.question(gid).compare.integers
