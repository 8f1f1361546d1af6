import pytest
from conftest import problem_set_params

from autograder.proving.selftest import selftest
from autograder.spec import load_assignment


@pytest.mark.parametrize("name", problem_set_params())
def test_selftest(name):
    assert selftest(load_assignment(name)) == []
