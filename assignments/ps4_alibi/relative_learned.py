"""Part 9, document 001's learned relative positions (deep dive, "relative positionale Encodings"):
a learned vector per clipped offset added to the keys (``relative_key_scores``; 001: "a_{i−j} ∈ R^d
ein lernbarer Vektor für die relative Position i−j", the scheme of Shaw, Uszkoreit & Vaswani 2018)
and a learned scalar per clipped offset (``clipped_bias_scores``; 001's "vereinfachte Version von
T5": e_ij = (x_iW^Q(x_jW^K)^T + b_clip(i−j))/√d, b ∈ R^{2k+1}).

The notebook hands over trained tables stored the way Shaw et al. and T5 measure the offset, key
minus query j − i, clipped to [−K, K], row r for offset r − K; the bias b is an offset of the
logits, added after the 1/√d scaling as ALiBi's is (T5 adds its bias to logits it never divides).
A student who reads the tables the way 001 writes them — offset i − j, b inside the division by √d
— loses the point (``query_minus_key``, ``document_001_bias_divided``). References: here."""

import functools
import math

import numpy as np
import torch

from autograder.authoring import AllClose, Misconception, Probe, Question


# ---- the references: scores (..., T, T) before the causal mask or the softmax, dtype of q
def relative_key_scores(q, k, a):
    clip = (a.shape[0] - 1) // 2
    t, d = q.shape[-2], q.shape[-1]
    offset = torch.arange(t)[None, :] - torch.arange(t)[:, None]  # j − i
    rows = a.to(torch.float64)[offset.clamp(-clip, clip) + clip]  # (T, T, d)
    qd = q.to(torch.float64)
    scores = qd @ k.to(torch.float64).transpose(-2, -1) + torch.einsum("...id,ijd->...ij", qd, rows)
    return (scores / math.sqrt(d)).to(q.dtype)


def clipped_bias_scores(q, k, b):
    clip = (b.shape[0] - 1) // 2
    t, d = q.shape[-2], q.shape[-1]
    offset = torch.arange(t)[None, :] - torch.arange(t)[:, None]  # j − i
    bias = b.to(torch.float64)[offset.clamp(-clip, clip) + clip]  # (T, T)
    content = q.to(torch.float64) @ k.to(torch.float64).transpose(-2, -1) / math.sqrt(d)
    return (content + bias).to(q.dtype)


# ---- probes, drawn per student: T > K + 1 (both ends clip) and T ≤ 3K + 2 (an index that is
# clipped on one side only still lands in the table, counted from its end), T ≠ d ≠ 2K + 1
def _randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _sizes(rng, clip):
    t = int(rng.integers(clip + 3, 3 * clip + 3))
    d = int(rng.choice([n for n in (4, 6, 8) if n not in (t, 2 * clip + 1)]))
    return t, d


def _probes(rng, table):
    """table(rng, K, d) -> the (2K + 1, …) table of one probe."""
    clip_a, clip_b = (int(c) for c in rng.choice([2, 3], 2))
    probes = []
    for lead, clip in (((), clip_a), ((2, 3), clip_b)):
        t, d = _sizes(rng, clip)
        shape = "(T, d)" if not lead else "(B, H, T, d)"
        probes.append(
            Probe((_randn(rng, *lead, t, d), _randn(rng, *lead, t, d), table(rng, clip, d)), f"{shape}, K = {clip}")
        )
    t, d = int(rng.integers(2, 4)), 4
    probes.append(Probe((_randn(rng, t, d), _randn(rng, t, d), table(rng, 4, d)), "T ≤ K: nothing clipped"))
    return probes


def key_probes(rng):
    return _probes(rng, lambda rng, clip, d: _randn(rng, 2 * clip + 1, d))


def bias_probes(rng):
    return _probes(rng, lambda rng, clip, d: _randn(rng, 2 * clip + 1))


# ---- known-wrong reads of the table: index(j − i, K) -> row (may be negative: counted from the end)
def query_minus_key(offset, clip):
    return (-offset).clamp(-clip, clip) + clip


def without_offset(offset, clip):
    return offset.clamp(-clip, clip)


def document_001_index(offset, clip):
    """001's b_clip(i−j) as an array index: the sign of 001 and no + K."""
    return (-offset).clamp(-clip, clip)


def one_sided(offset, clip):
    """min(j − i, K) + K: keys more than K back give a negative index (counted from the end)."""
    return offset.clamp(max=clip) + clip


def distance_only(offset, clip):
    """One entry per distance |j − i| (a table of K + 1 entries read as 2K + 1 = its length)."""
    return offset.abs().clamp(max=2 * clip)


def _rows(table, offset, index):
    clip = (table.shape[0] - 1) // 2
    return table.to(torch.float64)[index(offset, clip) % table.shape[0]]


def _terms(q, k, table, rows):
    """(q_i·k_j, the table's term of each pair) in float64, and √d."""
    qd, kd = q.to(torch.float64), k.to(torch.float64)
    content = qd @ kd.transpose(-2, -1)
    relative = torch.einsum("...id,ijd->...ij", qd, rows) if rows.dim() == 3 else rows
    return content, relative, math.sqrt(q.shape[-1])


def _right_index(offset, clip):
    return offset.clamp(-clip, clip) + clip


def key_variant(index=_right_index, *, scale_relative=True, on_query=False):
    def wrong(q, k, a):
        t = q.shape[-2]
        offset = torch.arange(t)[None, :] - torch.arange(t)[:, None]
        rows = _rows(a, offset, index)
        content, relative, root_d = _terms(q, k, a, rows)
        if on_query:  # (q_i + a_ij)·k_j
            relative = torch.einsum("ijd,...jd->...ij", rows, k.to(torch.float64))
        return (content / root_d + relative / (root_d if scale_relative else 1.0)).to(q.dtype)

    return wrong


def bias_variant(index=_right_index, *, bias_divided=False, content_scaled=True):
    def wrong(q, k, b):
        t = q.shape[-2]
        offset = torch.arange(t)[None, :] - torch.arange(t)[:, None]
        content, bias, root_d = _terms(q, k, b, _rows(b, offset, index))
        if bias_divided:  # 001: (q·k + b)/√d
            return ((content + bias) / root_d).to(q.dtype)
        return (content / (root_d if content_scaled else 1.0) + bias).to(q.dtype)

    return wrong


def _also(variant, index):
    def others(q, k, table):
        return [variant(index)(q, k, table)]

    return others


# ---- general relations, for slips no single name covers: (1) each pair reads one row of the
# table, but another row than its offset's (the offset, its clipping or the shift by K computed
# wrong, K read wrong from the table's length); (2) the two terms are combined with other weights.
@functools.lru_cache(maxsize=64)
def row_maps(t, length):
    """Every row index (T, T) of the forms clip(o, −c, c) + s, min(o, c) + s, max(o, −c) + s that
    stays inside the table (a negative index counted from its end), o an offset built from i, j."""
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    zero = torch.zeros(t, t, dtype=torch.long)
    offsets = (j - i, i - j, j + zero, i + zero, -j + zero, -i + zero, i + j, zero)
    seen, maps = set(), []
    for o in offsets:
        for c in range(max(length, t)):
            for clipped in (o.clamp(-c, c), o.clamp(max=c), o.clamp(min=-c)):
                for s in range(-(length - 1), length):
                    index = clipped + s
                    if index.min() < -length or index.max() >= length:
                        continue
                    key = tuple((index % length).flatten().tolist())
                    if key not in seen:
                        seen.add(key)
                        maps.append(index % length)
    return tuple(maps)


def misread_rows(q, k, table):
    """The right formula with every row map of ``row_maps`` at once: the content term computed once."""
    maps = torch.stack(row_maps(q.shape[-2], table.shape[0]))  # (M, T, T)
    qd, root_d = q.to(torch.float64), math.sqrt(q.shape[-1])
    content = qd @ k.to(torch.float64).transpose(-2, -1) / root_d
    rows = table.to(torch.float64)[maps]  # (M, T, T, d): vectors a; (M, T, T): scalars b
    if rows.dim() == 4:
        terms = torch.einsum("...id,mijd->m...ij", qd, rows) / root_d
    else:
        terms = rows.reshape(rows.shape[0], *([1] * (q.dim() - 2)), *rows.shape[1:])
    return list((content + terms).to(q.dtype))


def clip_one_less(offset, clip):
    """K taken one too small (len // 2 − 1): the clipping and the shift both one short."""
    return offset.clamp(-(clip - 1), clip - 1) + clip - 1


def right_terms(q, k, table):
    """(q_i·k_j, the table's term of each pair as the formula reads the table, √d), float64."""
    t = q.shape[-2]
    offset = torch.arange(t)[None, :] - torch.arange(t)[:, None]
    return _terms(q, k, table, _rows(table, offset, _right_index))


def weighted(content_weight, relative_weight):
    """content·w_c + table term·w_r, each weight a power of √d (0: the term left out), signs ±."""

    def wrong(q, k, table):
        content, relative, root_d = right_terms(q, k, table)
        return (content * content_weight(root_d) + relative * relative_weight(root_d)).to(q.dtype)

    return wrong


WEIGHTS = {
    "0": lambda r: 0.0,
    "1": lambda r: 1.0,
    "-1": lambda r: -1.0,
    "1/√d": lambda r: 1 / r,
    "-1/√d": lambda r: -1 / r,
    "√d": lambda r: r,
    "1/d": lambda r: 1 / r**2,
}
OTHER_SIZES = (lambda q: q.shape[-2], lambda q: q.shape[0])  # T, or the first axis, read as d


def reweighted(right):
    """Every other pair of weights than ``right`` = (content's, table term's); the right one with
    √d taken from another size; the table's term alone, not broadcast over the batch. The two
    terms are computed once."""

    def others(q, k, table):
        content, relative, root_d = right_terms(q, k, table)

        def combine(a, b, content_root=root_d):
            return (content * WEIGHTS[a](content_root) + relative * WEIGHTS[b](root_d)).to(q.dtype)

        pairs = [(a, b) for a in WEIGHTS for b in WEIGHTS if (a, b) != right and (a, b) != ("0", "0")]
        out = [combine(a, b) for a, b in pairs]
        out += [combine(*right, content_root=math.sqrt(size(q))) for size in OTHER_SIZES]
        if table.dim() == 1:  # the bias b alone, (T, T), not broadcast over the batch
            out.append((relative[(0,) * (relative.dim() - 2)] * WEIGHTS[right[1]](root_d)).to(q.dtype))
        return out

    return others


# ---- feedback: the misconception named, the answer not given
QUERY_MINUS_KEY = (
    "The table is indexed by the offset the wrong way round: document 001 writes i − j (query minus "
    "key), but these tables were trained with the offset of Shaw et al. and T5, key minus query, so "
    "each of your queries reads the entry of the key as far away on the other side."
)
WITHOUT_OFFSET = (
    "The clipped offset runs from −K to K, but a table's rows are numbered 0 … 2K: used as an index "
    "directly (as 001's b_clip(i−j) reads), a negative offset counts from the end of the table and "
    "picks the entry of a key ahead of the query."
)
ONE_SIDED = (
    "Clip the offset on both sides: keys more than K positions back must share the table's first "
    "entry, as keys more than K ahead share its last; yours limits only one side, so far keys "
    "behind the query index past the table's start."
)
DISTANCE_ONLY = (
    "The table has 2K + 1 entries, one per signed offset in [−K, K]: a key behind the query and a "
    "key as far ahead have different entries. Yours reads one entry per distance |j − i|, as if the "
    "table had K + 1 entries for 0 … K."
)


MISREAD_ROWS = (
    "Each of your scores adds one entry of the table, but for some query–key pairs not the entry of "
    "their offset: the row index your code computes from i and j (the offset j − i, its clipping to "
    "[−K, K], the shift by K, or K read from the table's length) is wrong."
)
REWEIGHTED = (
    "Your scores combine the content score q_i·k_j and the table's term with other weights than the "
    "formula's: a term is left out, subtracted, or divided by √d where it should not be (or not "
    "divided where it should, or divided by the root of another size than d)."
)


def _general(variant, right):
    return (
        Misconception(
            "terms_weighted_wrong", REWEIGHTED, weighted(WEIGHTS[right[0]], WEIGHTS["0"]), also_wrong=reweighted(right)
        ),
        Misconception("rows_misread", MISREAD_ROWS, variant(clip_one_less), also_wrong=misread_rows),
    )


def _misconceptions(variant):
    return (
        Misconception("query_minus_key", QUERY_MINUS_KEY, variant(query_minus_key)),
        Misconception(
            "index_without_offset",
            WITHOUT_OFFSET,
            variant(without_offset),
            also_wrong=_also(variant, document_001_index),
        ),
        Misconception("one_sided_clip", ONE_SIDED, variant(one_sided)),
        Misconception("distance_only", DISTANCE_ONLY, variant(distance_only)),
    )


def zero_table_check(name, shape):
    """The visible check: a zero table, so it tests the content term and the shapes and tells
    nothing of how the table is read."""
    q, k = np.arange(12, dtype=np.float32).reshape(3, 4) / 10, np.ones((3, 4), np.float32)
    note = f"A zero table {name}: only the content scores q_i·k_j/√d remain."
    return Probe((q, k, np.zeros(shape, np.float32)), f"(T, d) = (3, 4), K = 2, {name} = 0", note=note)


QUESTIONS = [
    Question(
        grade_id="relative_key_scores",
        answer="relative_key_scores",
        title="001's learned vectors a per clipped offset (Shaw et al.)",
        reference=relative_key_scores,
        probes=key_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4, same_dtype=True),
        visible=[zero_table_check("a", (5, 4))],
        misconceptions=(
            *_misconceptions(key_variant),
            Misconception(
                "relative_term_unscaled",
                "The relative vector joins the key before the dot product, so q_i·a is divided by √d "
                "together with q_i·k_j; yours leaves the relative term unscaled.",
                key_variant(scale_relative=False),
            ),
            Misconception(
                "added_to_query",
                "The learned vector is added to the key (k_j + a), so the query is multiplied with "
                "it; yours adds it to the query and multiplies it with the key.",
                key_variant(on_query=True),
            ),
            *_general(key_variant, ("1/√d", "1/√d")),
        ),
    ),
    Question(
        grade_id="clipped_bias_scores",
        answer="clipped_bias_scores",
        title="001's clipped scalar bias b ∈ R^{2k+1}",
        reference=clipped_bias_scores,
        probes=bias_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4, same_dtype=True),
        visible=[zero_table_check("b", 5)],
        misconceptions=(
            *_misconceptions(bias_variant),
            Misconception(
                "document_001_bias_divided",
                "Document 001 divides b by √d together with q·k and calls this a simplified T5; T5 "
                "adds its bias to the logits undivided (it never divides by √d), and this model "
                "adds b after the scaling, as ALiBi adds its bias: dividing shrinks every offset's "
                "bias.",
                bias_variant(bias_divided=True),
            ),
            Misconception(
                "content_unscaled",
                "The content scores q·k must still be divided by √d (the notebook's conventions); T5 "
                "does without the scaling, this model does not.",
                bias_variant(content_scaled=False),
            ),
            *_general(bias_variant, ("1/√d", "1")),
        ),
    ),
]
