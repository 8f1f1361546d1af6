"""The mutation operator families of issue 27, each on a small function: every site it fits gets
its mutant, and the mutant makes the mistake it names (batch axis, default argument ignored,
do-while loop, boundary budget)."""

import numpy as np
import torch

from autograder.proving.mutation.operators import source_mutants


def permute_positions(x, p):
    return x[..., p, :]


def last_two_swapped(x):
    return x.transpose(-2, -1).sum(-3)


def bucket(rel, num_buckets=32):
    return rel % num_buckets


def bias(table, rel, num_buckets=8):
    return table[bucket(rel, num_buckets)]


def bias_by_keyword(table, rel, num_buckets=8):
    return table[bucket(rel, num_buckets=num_buckets)]


def append_tokens(start, max_new_tokens):
    out = [start]
    for _ in range(max_new_tokens):
        out.append(out[-1] + 1)
    return out


def count_down(n):
    out = []
    while n > 0:
        out.append(n)
        n -= 1
    return out


def top_k(values, k):
    order = sorted(values, reverse=True)
    return order[:k]


def below(values, k):
    return [v for v in values if v < k]


def mutants_named(function, words):
    return {m.description: m.function for m in source_mutants(function) if words in m.description}


def test_batch_axis_reads_the_leading_axis():
    x, p = torch.arange(24.0).reshape(2, 3, 4), torch.tensor([2, 0, 1])
    found = mutants_named(permute_positions, "batch axis")
    assert {d.split(" ", 2)[2] for d in found} == {
        "batch axis: the ... dropped from an index",
        "batch axis: X[..., i, :] read as X[i]",
    }
    for mutant in found.values():
        try:
            got = mutant(x, p)
        except (IndexError, RuntimeError):
            continue  # axis 0 has 2 entries: the index 2 is out of range, also a mistake caught
        assert not torch.equal(got, permute_positions(x, p))
    axes = mutants_named(last_two_swapped, "batch axis: axis")
    assert len(axes) == 2  # -2 in transpose, -3 in sum
    y = torch.arange(48.0).reshape(2, 2, 3, 4)  # 4 axes: -3 is not axis 0
    assert all(not torch.equal(m(y), last_two_swapped(y)) for m in axes.values())


def test_default_argument_ignored_uses_the_callees_default():
    table, rel = torch.arange(40.0), torch.tensor([3, 9, 17])
    for function in (bias, bias_by_keyword):
        found = mutants_named(function, "default argument ignored")
        assert len(found) == 1, found
        (mutant,) = found.values()
        assert torch.equal(mutant(table, rel), table[rel % 32])  # the callee's own 32
        assert not torch.equal(mutant(table, rel), function(table, rel))


def test_do_while_runs_the_body_once():
    found = mutants_named(append_tokens, "do-while")
    assert len(found) == 1
    (mutant,) = found.values()
    assert append_tokens(5, 0) == [5] and mutant(5, 0) == [5, 6]  # one token appended for a budget of 0
    assert mutant(5, 3) == append_tokens(5, 3)
    (loop,) = mutants_named(count_down, "do-while").values()
    assert count_down(0) == [] and loop(0) == [0]
    assert loop(3) == count_down(3)


def test_boundary_budget_is_off_by_one():
    values = [5, 1, 4, 2, 3]
    cut = mutants_named(top_k, "boundary budget")
    assert len(cut) == 2
    assert sorted(len(m(values, 2)) for m in cut.values()) == [1, 3]
    compare = mutants_named(below, "boundary budget")
    assert len(compare) == 2
    assert {tuple(m(values, 3)) for m in compare.values()} == {(1,), (1, 2, 3)}
    assert below(values, 3) == [1, 2] and np.all(np.array(below(values, 4)) < 4)
