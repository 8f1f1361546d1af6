"""The re-run diagnoses of batches and arguments (issue 36): "every sequence of the batch gets the
first one's inputs" (a PS6 `attend_with_cache` that indexes `past_k[0]` was told the probe list,
earlier an odd width), established by re-running the reference with those arguments' entry 0
shared, never guessed; an argument left out (a bias), by re-running it with that argument all zeros."""

import torch

from autograder.judging.diagnosis.base import Case, Context
from autograder.judging.diagnosis.batch_elements import find_first_entry_shared
from autograder.judging.diagnosis.diagnose import diagnose
from autograder.judging.diagnosis.ignored_argument import find_ignored_argument
from autograder.spec import as_args, load_assignment, to_plain


def _first_sequence_cache(reference):
    def answer(x_new, past_k, past_v, *rest):
        past_k, past_v = torch.as_tensor(past_k), torch.as_tensor(past_v)
        b = x_new.shape[0]
        return reference(x_new, past_k[:1].expand(b, *past_k.shape[1:]), past_v[:1].expand(b, *past_v.shape[1:]), *rest)

    return answer


def _diagnosis(question, probes, answer):
    values = [to_plain(answer(*as_args(p.args, question.args_as))) for p in probes]
    return diagnose(question, probes, values)


def test_past_k0_for_the_whole_batch_is_named_by_its_arguments():
    ps6 = load_assignment("ps6")
    question = ps6.question("attend_with_cache")
    for student in ("batch-a", "batch-b"):
        found = _diagnosis(question, question.probes_for(student, ps6), _first_sequence_cache(question.reference))
        assert found is not None and found.kind == "first_entry_shared", found
        text = str(found.feedback)
        assert "`past_k`, `past_v`" in text and "`past_k[0]`" in text and "batch of one" in text
        assert "odd" not in text and "cached" not in text  # no circumstance of the drawn probes


def test_a_mistake_of_another_kind_is_not_called_a_shared_first_entry():
    ps6 = load_assignment("ps6")
    question = ps6.question("attend_with_cache")
    probes = question.probes_for("batch-a", ps6)
    ignored = next(m.wrong for m in question.misconceptions if m.name == "cache_ignored")
    cases = [Case(p, to_plain(ignored(*as_args(p.args, question.args_as))), question.expected(p)) for p in probes]
    cases = [c for c in cases if not question.compare.matches(c.got, c.expected)]
    assert cases and find_first_entry_shared(Context(question, cases)) is None


def test_a_bias_left_out_is_named_by_its_argument():
    ps6 = load_assignment("ps6")
    question = ps6.question("multi_head_attention")

    def no_output_bias(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
        full = question.reference(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask)
        return full - b_o  # the output projection without its bias: F.linear(out, w_o)

    found = _diagnosis(question, question.probes_for("bias-a", ps6), no_output_bias)
    assert found is not None and found.kind == "ignored_argument", found
    assert "`b_o` is all zeros" in str(found.feedback)


def test_a_verdict_is_never_explained_by_an_argument_left_out():
    ps5 = load_assignment("ps5")
    question = ps5.question("equivariance_tester")
    probes = question.probes_for("bias-a", ps5)
    cases = [Case(p, True, question.expected(p)) for p in probes]  # a tester that says True to everything
    cases = [c for c in cases if not question.compare.matches(c.got, c.expected)]
    assert cases and find_ignored_argument(Context(question, cases)) is None
