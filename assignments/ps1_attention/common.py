"""Shared by the question modules: the student's configuration (parts 3 and 4 are graded at
each student's own sizes) and the builder of a formula question (parts 4–6: a SymPy expression
graded by CAS equivalence after a safe parse, its known-wrong expressions beside it)."""

from autograder.authoring import Formula, Misconception, Question


def student_params(student_id):
    """Your configuration: the seed homework used batch 32, length 2048, d_model 1024."""
    import hashlib

    digest = hashlib.sha256(f"ps1-config:{student_id}".encode()).digest()
    pick = lambda i, options: options[digest[i] % len(options)]  # noqa: E731
    n_heads = pick(0, [8, 12, 16])
    return {
        "batch": pick(1, [16, 32, 64]),
        "src_len": pick(2, [512, 1024, 2048]),
        "tgt_len": pick(3, [256, 384, 768]),
        "d_model": n_heads * pick(4, [64, 96, 128]),
        "n_heads": n_heads,
        "d_ff_factor": 4,
        "vocab": pick(5, [16000, 32000, 37000]),
        "n_enc_layers": pick(6, [6, 12]),
        "n_dec_layers": pick(7, [6, 8]),
    }


def formula(grade_id, title, reference, symbols, misconceptions, concept=""):
    """A formula question answered in the variable ``grade_id``: ``misconceptions`` are
    (name, wrong expression, feedback) triples; ``concept`` is what another wrong answer of one or
    two terms is told to revisit (never the step that fixes it)."""
    return Question(
        grade_id=grade_id,
        answer=grade_id,
        title=title,
        call=False,
        reference=lambda: reference,
        compare=Formula(tuple(symbols), concept=concept),
        misconceptions=tuple(Misconception(n, f, (lambda e=e: e)) for n, e, f in misconceptions),
    )
