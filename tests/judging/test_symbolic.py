"""Formula answers: equivalent forms accepted, near-misses and code rejected, fast."""

import contextlib
import resource
import time

import pytest
import sympy

from autograder.judging.compare.comparators import Formula
from autograder.judging.compare.symbolic import FormulaError, equivalent, parse_formula

d, h = sympy.symbols("d h")
MHA = 4 * d**2 + 4 * d


@pytest.mark.parametrize(
    "text", ["4*d*(d+1)", "4*d**2+4*d", "4 * d^2 + 4*d", "(2*d)**2 + 2*2*d", "4·d·(d+1)", "d*(4*d + 4)", "4*(d**2 + d)"]
)
def test_equivalent_forms_are_accepted(text):
    assert equivalent(parse_formula(text, ["d"]), MHA)


@pytest.mark.parametrize("text", ["4*d**2", "4*d**2 + d", "3*d**2 + 3*d", "4*d**2 + 4*d + 1", "4*d*(d-1)"])
def test_near_misses_are_rejected(text):
    assert not equivalent(parse_formula(text, ["d"]), MHA)


def test_formula_comparator_names_the_problem():
    check = Formula(("d",))
    assert check("4*d*(d+1)", MHA).ok
    assert "unknown symbol 'x'" in check("4*x**2", MHA).message
    assert "explicitly" in check("4d^2 + 4d", MHA).message
    assert "string" in check(42, MHA).message


@pytest.mark.parametrize(
    "text,words",
    [
        ("__import__('os').system('touch /tmp/pwned')", "not allowed"),
        ("d.__class__", "attribute"),
        ("[d][0]", "indexing"),
        ("[d, h]", "a list"),
        ("'4*d'", "not a number"),
        ("lambda: d", "lambda"),
        ("open('x')", "not allowed"),
        ("d if d else h", "if/else"),
        ("x + 1", "unknown symbol"),
    ],
)
def test_code_and_strange_input_is_rejected_without_running(tmp_path, text, words):
    marker = tmp_path / "pwned"
    with pytest.raises(FormulaError, match=words):
        parse_formula(text.replace("/tmp/pwned", str(marker)), ["d", "h"])
    assert not marker.exists()


@pytest.mark.parametrize(
    "text", ["9**9**9", "d**100000", "(d+1)**(10**6)", "d" + "+d" * 600, "-" * 100 + "d", "((d+1)**64)**64"]
)
def test_pathological_input_is_refused_quickly(text):
    started = time.monotonic()
    with pytest.raises(FormulaError):
        parse_formula(text, ["d"])
    assert time.monotonic() - started < 1.0


def test_deep_parentheses_are_harmless():
    started = time.monotonic()
    expr = parse_formula("(" * 150 + "d" + ")" * 150, ["d"])
    assert str(expr) == "d" and time.monotonic() - started < 1.0


def test_non_polynomial_equivalence_and_time_limit():
    T = sympy.Symbol("T")
    assert equivalent(parse_formula("sqrt(4*d)", ["d"]), 2 * sympy.sqrt(d))
    assert not equivalent(parse_formula("sqrt(d)", ["d"]), 2 * sympy.sqrt(d))
    started = time.monotonic()
    equivalent(parse_formula("log(T**2)", ["T"]), 2 * sympy.log(T), timeout_s=1.0)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize(
    "text,words",
    [
        ("d**d**d", "within 1 CPU-s"),  # 500**(500**500): an integer with 10^1349 digits
        ("2**2**2**d", "within 1 CPU-s"),
        ("exp(exp(exp(d)))", "OverflowError"),  # overflows when compared at a sample point
    ],
)
def test_formulas_that_cannot_be_evaluated_cost_the_answer_not_the_run(text, words):
    """Well-formed formulas whose evaluation is unbounded: the check is time- and memory-limited
    in a child process, so the student gets a message and the grader goes on."""
    before = _children_cpu()
    check = Formula(("d",), timeout_s=1.0)(text, MHA)
    assert not check.ok and words in check.message, check
    assert "plain expression" in check.message
    assert _children_cpu() - before < 1.5  # stopped on the CPU clock: the same on a loaded machine
    assert Formula(("d",), timeout_s=1.0)("4*d*(d+1)", MHA).ok  # and the next answer is graded


def test_a_known_wrong_formula_may_be_written_as_text():
    """Known-wrong answers in a spec may return text, as a student would; they still match."""
    assert Formula(("d",))("4*d*d", "4*d**2").ok
    assert not Formula(("d",))("4*d*d", "4*d**2 + 4*d").ok


def _check_in_daemon(queue):
    d = sympy.Symbol("d", positive=True)
    queue.put(
        (
            equivalent(parse_formula("4*d^2 + 4*d", ["d"]), 4 * d * (d + 1), ["d"]),
            equivalent(parse_formula("4*d^2", ["d"]), 4 * d * (d + 1), ["d"]),
        )
    )


def test_formula_check_works_inside_a_daemonic_worker():
    """Dask (and multiprocessing pools) grade in daemonic processes, which multiprocessing
    forbids to have children: the formula check must still run there."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    worker = ctx.Process(target=_check_in_daemon, args=(queue,), daemon=True)
    worker.start()
    assert queue.get(timeout=30) == (True, False)
    worker.join(10)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _sleep_then_report(seconds, report):
    time.sleep(seconds)
    report(("final", True))


def _spin(report):
    while True:
        pass


def test_the_formula_limit_runs_on_the_cpu_clock():
    """The same verdict on a quiet and a saturated machine: a check is stopped after its
    CPU-seconds, not its wall seconds — a child that waits 1.5 s (as one starved of CPU by a
    saturated machine would) still reports under a 1 s limit; one that computes is killed."""
    from autograder.judging.compare.symbolic import reports_from_fork, wall_net

    with contextlib.closing(reports_from_fork(_sleep_then_report, (1.5,), 1.0)) as reports:
        assert list(reports) == [("final", True)]
    before, started = _children_cpu(), time.monotonic()
    with contextlib.closing(reports_from_fork(_spin, (), 1.0)) as reports:
        assert list(reports) == []
    assert time.monotonic() - started < wall_net(1.0)
    # killed by the 1 CPU-s limit, not the 20 s wall net: rusage's tick-sampled CPU time reads
    # below the kernel's exact count on a saturated, virtualised machine (0.76 s was seen)
    assert 0.5 < _children_cpu() - before < 1.5
