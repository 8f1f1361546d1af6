"""A reference that root cause sends into the sandbox is one self-contained function in its
question module: the grader compares with it, and its source (``FunctionSource.of``) is what the
sandbox compiles. Being a copy, it must compute exactly what ``solutions/`` computes — the
library the derivations and tests stand on — bit for bit, on every hidden and visible probe.
(tests/grading/test_root_cause.py checks that the compiled source computes the reference.)"""

import pytest
import torch

from autograder.proving.mutation.mutants import mutation_targets
from autograder.spec import REPO_ROOT, as_args, load_assignment
from solutions.encodings import alibi_causal_bias
from solutions.positional import alibi_slopes, apply_rope, rope_matrix, sinusoidal_encoding, t5_relative_bucket

SOLUTIONS = {
    ("ps2_positional", "sinusoidal_pe"): sinusoidal_encoding,
    ("ps2_positional", "t5_bucket"): t5_relative_bucket,
    ("ps3_rope", "rope_matrix"): rope_matrix,
    ("ps3_rope", "apply_rope"): apply_rope,
    ("ps4_alibi", "alibi_slopes"): alibi_slopes,
    ("ps4_alibi", "alibi_causal_bias"): alibi_causal_bias,
}


@pytest.mark.parametrize(("name", "grade_id"), list(SOLUTIONS))
def test_the_reference_is_solutions_bit_for_bit(name, grade_id):
    assignment = load_assignment(name)
    q = assignment.question(grade_id)
    assert q.reference_source.name == q.reference.__name__ and q.reference_source.compile().__name__ == q.answer
    solution = SOLUTIONS[name, grade_id]
    probes = [p for student in ("s1", "s2", "s3") for p in q.probes_for(student, assignment)] + list(q.visible)
    for probe in probes:
        got = q.reference(*as_args(probe.args, q.args_as), **probe.kwargs)
        want = solution(*as_args(probe.args, q.args_as), **probe.kwargs)
        assert got.dtype == want.dtype and torch.equal(got, want), (grade_id, probe.label)


def test_every_reference_source_is_derived_from_its_reference():
    """No hand-kept copy: each reference source of PS2–PS4 is its question's reference's own
    source. Self-contained, it calls no other course function: the mutation analysis (which
    takes a name in its body that a module-level function of the problem set also has for a
    call) mutates it alone."""
    import inspect
    import textwrap

    for name in ("ps2_positional", "ps3_rope", "ps4_alibi"):
        assignment = load_assignment(name)
        roots = (REPO_ROOT / "solutions", assignment.source_dir.resolve())
        for q in assignment.questions:
            if q.reference_source is not None:
                assert (name, q.grade_id) in SOLUTIONS
                assert q.reference_source.source == textwrap.dedent(inspect.getsource(q.reference)), q.grade_id
                assert mutation_targets(q.reference, roots) == [q.reference], q.grade_id
