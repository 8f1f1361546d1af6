import pytest

from autograder.selftest import selftest
from autograder.spec import list_assignments, load_assignment


def _training_marked_slow(names):
    """PS6 trains models (and its mutation analysis takes minutes): `-m "not slow"` leaves it out."""
    return [pytest.param(n, marks=pytest.mark.slow) if n == "ps6_build" else n for n in names]


@pytest.mark.parametrize("name", _training_marked_slow(list_assignments()))
def test_selftest(name):
    assert selftest(load_assignment(name)) == []
