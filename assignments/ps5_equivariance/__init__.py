"""PS5 — permutation equivariance: the problem set the kit imports.

The student's testers are graded by running them, in the sandbox, on the grader's own
functions (sent as source, compiled there): the expected verdict for each function comes from
the reference testers in ``solutions/equivariance.py``. Document 000 (Q5.4) claims the output
"stays the same" for a reordered input: the ``invariance_claim`` misconception names that.
Part 1 (softmax commutes with permutations, 3 points) is a proof graded by hand; its rubric is
in the source notebook.

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``equivariance_tester`` part 2, the equivariance tester (``is_permutation_equivariant``)
* ``invariance_tester``   part 2, the invariance tester (``is_permutation_invariant``)
* ``permuted_output``     part 3, equivariant or invariant? (multiple choice, the rows as values,
                          six functions classified)
* ``multi_head``          part 3 (d), multi-head attention on a reordered input (``multi_head_reordered``),
                          000 Q5.4's concatenation and W_O
* ``causal_tester``       part 4, the causality tester (``is_causal``)

Shared by the permutation testers: ``subjects`` (the functions they classify and the hidden
probes built from them) and ``weak_testers`` (the classic weak testers the hidden probes must
reject); the causality tester's layers are in ``causal_subjects``; the visible checks hand the
testers the small attentions of ``visible_subjects`` (the hidden subjects' fixture would list
what the hidden probes vary).

Points come from the notebook's grade cells.
"""

from autograder.authoring import Assignment

from . import causal_tester, equivariance_tester, invariance_tester, multi_head, permuted_output

ASSIGNMENT = Assignment(
    name="ps5_equivariance",
    notebook="ps5_equivariance.ipynb",
    questions=[
        *equivariance_tester.QUESTIONS,
        *invariance_tester.QUESTIONS,
        *permuted_output.QUESTIONS,
        *multi_head.QUESTIONS,
        *causal_tester.QUESTIONS,
    ],
)
