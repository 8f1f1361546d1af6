import pytest

from autograder.selftest import selftest
from autograder.spec import list_assignments, load_assignment


@pytest.mark.parametrize("name", list_assignments())
def test_selftest(name):
    assert selftest(load_assignment(name)) == []
