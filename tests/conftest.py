import pytest

from autograder.spec import load_assignment


@pytest.fixture(scope="session")
def ps1():
    return load_assignment("ps1_attention")


@pytest.fixture(scope="session")
def demo_results(ps1, tmp_path_factory):
    """The demo's sample cohort, graded once through the real sandbox."""
    from autograder.demo import make_samples
    from autograder.grade import grade_cohort

    root = tmp_path_factory.mktemp("demo")
    make_samples(root / "in")
    return grade_cohort(ps1, root / "in", root / "out", workers=2, progress=False)
