"""Expression → parse tree (document 001, 8.5.3): "x=4+9" → ASSIGN x ADD 4 9.

Expressions are ``var = d (op d){1,max_ops}`` with var ∈ {x, y, z}, digits 0–9 and
op ∈ {+, −, *, /}; * and / bind tighter than + and −, all are left-associative. The tree
(nested lists, as in the chapter: ['ASSIGN', 'x', ['ADD', '4', '9']]) is linearised in prefix
order: ASSIGN x ADD 4 9. With max_ops = 1 this is exactly the chapter's task; the default
max_ops = 2 adds precedence ("x=1+2*3" → ASSIGN x ADD 1 MUL 2 3; "x=1-2-3" → ASSIGN x SUB SUB 1 2 3).

Token mapping: one table, ``TOKENS``, used both ways — digit d is token DIGIT0 + d and decodes
back to str(d). (The chapter's printed "additional tests" come out shifted by one digit,
"x=1+2" → ADD 2 3, a mapping bug this module's tests guard against.) 26 tokens.
Test set: 10 % of all expressions of each length, never drawn for training.
Model as in the chapter: d_model 128, 3 + 3 layers, 4 heads, FFN 512.
"""

from __future__ import annotations

import itertools

import torch

from solutions.model import TransformerConfig
from solutions.tasks.common import Task

SPECIALS = ["<pad>", "<bos>", "<eos>"]
SYMBOLS = ["=", "+", "-", "*", "/"]
NODES = ["ASSIGN", "ADD", "SUB", "MUL", "DIV"]
VARS = ["x", "y", "z"]
DIGITS = [str(d) for d in range(10)]
TOKENS = SPECIALS + SYMBOLS + NODES + VARS + DIGITS
TOKEN_ID = {t: i for i, t in enumerate(TOKENS)}
PAD, BOS, EOS = 0, 1, 2
DIGIT0 = TOKEN_ID["0"]
OPS = ["+", "-", "*", "/"]
NODE_OF = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV"}


def parse_to_tree(expr: str):
    """'x=1+2*3' → ['ASSIGN', 'x', ['ADD', '1', ['MUL', '2', '3']]] (single-digit operands)."""
    var, rhs = expr.replace(" ", "").split("=")
    pos = 0

    def operand():
        nonlocal pos
        pos += 1
        return rhs[pos - 1]

    def term():
        nonlocal pos
        node = operand()
        while pos < len(rhs) and rhs[pos] in "*/":
            op = rhs[pos]
            pos += 1
            node = [NODE_OF[op], node, operand()]
        return node

    node = term()
    while pos < len(rhs):
        op = rhs[pos]
        pos += 1
        node = [NODE_OF[op], node, term()]
    return ["ASSIGN", var, node]


def linearise(tree) -> list[str]:
    """Prefix order: node name, then its children left to right."""
    if isinstance(tree, str):
        return [tree]
    return [tree[0]] + [tok for child in tree[1:] for tok in linearise(child)]


def encode(tokens: list[str]) -> list[int]:
    return [TOKEN_ID[t] for t in tokens]


def decode(ids) -> list[str]:
    return [TOKENS[int(i)] for i in ids if int(i) not in (PAD, BOS, EOS)]


def all_expressions(n_ops: int) -> list[str]:
    out = []
    for var, *rest in itertools.product(VARS, DIGITS, *([OPS, DIGITS] * n_ops)):
        out.append(var + "=" + "".join(rest))
    return out


def tensors(exprs: list[str], max_ops: int):
    """(src, tgt) padded to the longest expression with max_ops operators."""
    s_len, t_len = 3 + 2 * max_ops, 1 + 2 + (2 * max_ops + 1) + 1
    src = torch.full((len(exprs), s_len), PAD)
    tgt = torch.full((len(exprs), t_len), PAD)
    for i, e in enumerate(exprs):
        s = encode(list(e))
        t = [BOS] + encode(linearise(parse_to_tree(e))) + [EOS]
        src[i, : len(s)], tgt[i, : len(t)] = torch.tensor(s), torch.tensor(t)
    return src, tgt


def task(seed: int = 0, max_ops: int = 2) -> Task:
    g = torch.Generator().manual_seed(30_000 + seed)
    families, test_parts = [], []
    for n in range(1, max_ops + 1):
        src, tgt = tensors(all_expressions(n), max_ops)
        order = torch.randperm(src.shape[0], generator=g)
        n_test = src.shape[0] // 10
        test_idx, train_idx = order[:n_test], order[n_test:]
        test_parts.append((src[test_idx], tgt[test_idx]))
        families.append((src[train_idx], tgt[train_idx]))

    def train_batch(n: int, generator: torch.Generator):
        fam = torch.randint(0, len(families), (n,), generator=generator)  # operator count uniform
        src = torch.empty(n, families[0][0].shape[1], dtype=torch.long)
        tgt = torch.empty(n, families[0][1].shape[1], dtype=torch.long)
        for f, (fs, ft) in enumerate(families):
            rows = (fam == f).nonzero().squeeze(1)
            pick = torch.randint(0, fs.shape[0], (rows.shape[0],), generator=generator)
            src[rows], tgt[rows] = fs[pick], ft[pick]
        return src, tgt

    test = tuple(torch.cat(parts) for parts in zip(*test_parts))
    cfg = TransformerConfig(
        vocab_size=len(TOKENS),
        d_model=128,
        n_heads=4,
        n_layers=3,
        d_ff=512,
        max_len=16,
        pos="sinusoidal",
        norm_first=True,
        pad_id=PAD,
    )
    return Task(
        "parser",
        cfg,
        bos_id=BOS,
        eos_id=EOS,
        pad_id=PAD,
        max_new_tokens=test[1].shape[1] - 1,
        train_batch=train_batch,
        test_set=test,
        batch_size=128,
        lr=1e-3,
        warmup=50,
    )
