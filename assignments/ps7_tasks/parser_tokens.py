"""Part 3, document 001's parser task: linearising the parse tree (``linearise``), the token ids of
a source/target pair (``parser_token_ids``), and the document's token-mapping bug (``digit_offset``,
``digit_zero_collides``, ``printed_tree``) — the references, the probes, the known mistakes and
their feedback.

Document 001 prints two tables for the same task: ``explain_parser_data`` encodes "x = 4 + 9" as
[11, 1, 17, 2, 22] (digit d → 13 + d), ``show_parser_examples`` encodes "x=4/3" as
[11, 1, 18, 5, 17] (digit d → 14 + d); its "Additional Tests" print "x=1+2" as ADD 2 3: the
model's digit ids (14 + d) read back with the other table. The notebook gives the table of
``show_parser_examples`` (``TOKENS`` below, 25 entries as the document's vocab_size); ids 3 and 8
('-' and SUB) follow from the order, 0 and 24 (padding, end) are not printed by the document.
``linearise`` must agree with ``solutions.tasks.parser`` (tests/assignments/test_ps7_content.py)."""

from autograder.authoring import Choice, Exact, FunctionSource, Misconception, Probe, Question

TOKENS = ["<pad>", "=", "+", "-", "*", "/", "ASSIGN", "ADD", "SUB", "MUL", "DIV", "x", "y", "z"]
TOKENS += [str(d) for d in range(10)] + ["<eos>"]
TOKEN_ID = {t: i for i, t in enumerate(TOKENS)}
OPS = "+-*/"
# document 001's explain_parser_data: "x = 4 + 9" → [11, 1, 17, 2, 22]; its digit d is EXPLAIN_DIGIT0 + d
EXPLAIN_INPUT = [11, 1, 17, 2, 22]
EXPLAIN_DIGIT0 = EXPLAIN_INPUT[2] - 4
NAMES = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV"}


# ---- the reference, self-contained (its source is bound in the sandbox for root cause)
def linearise(expr):
    """'x=1+2*3' → ['ASSIGN', 'x', 'ADD', '1', 'MUL', '2', '3']: the parse tree in prefix order
    (* and / bind tighter than + and −; all four are left-associative)."""
    names = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV"}
    var, rhs = expr.split("=")
    terms, adds = [[rhs[0]]], []  # the products (each already in prefix order) and the + / − between them
    for k in range(1, len(rhs), 2):
        op, digit = rhs[k], rhs[k + 1]
        if op in "*/":
            terms[-1] = [names[op]] + terms[-1] + [digit]
        else:
            adds.append(op)
            terms.append([digit])
    node = terms[0]
    for op, term in zip(adds, terms[1:]):
        node = [names[op]] + node + term
    return ["ASSIGN", var] + node


LINEARISE_SOURCE = FunctionSource.of(linearise)


def parser_token_ids(expr):
    """{"source": ids of the expression's characters, "target": ids of its linearised tree}."""
    return {"source": [TOKEN_ID[c] for c in expr], "target": [TOKEN_ID[t] for t in linearise(expr)]}


def printed_tree(expr):
    """What the document's Additional Tests print for a model that predicts the right ids: each
    digit id 14 + d read back with explain_parser_data's table (digit = id − 13)."""
    return [str(TOKEN_ID[t] - EXPLAIN_DIGIT0) if t.isdigit() else t for t in linearise(expr)]


# ---- probes
def expression(rng, n_ops, digits="0123456789"):
    parts = [str(rng.choice(list("xyz"))), "=", str(rng.choice(list(digits)))]
    for _ in range(n_ops):
        parts += [str(rng.choice(list(OPS))), str(rng.choice(list(digits)))]
    return "".join(parts)


FIXED = ["x=1+2*3", "y=8-2-3", "z=6/3*2", "x=1*2+3*4", "y=9"]


def expression_probes(rng, digits="0123456789"):
    drawn = [expression(rng, n, digits) for n in (1, 2, 3, 4)]
    fixed = [e for e in FIXED if set(e) & set("0123456789") <= set(digits)]
    return [Probe((e,), repr(e)) for e in drawn + fixed]


# ---- known mistakes: trees built another way, or flattened in another order
def tree(expr, precedence=True, right_assoc=False):
    var, rhs = expr.split("=")
    operands, ops = list(rhs[0::2]), list(rhs[1::2])

    def build(lo, hi):  # operands lo … hi with the ops between them
        if lo == hi:
            return operands[lo]
        levels = ["+-", "*/"] if precedence else [OPS]
        for level in levels:
            at = [k for k in range(lo, hi) if ops[k] in level]
            if at:
                k = at[0] if right_assoc else at[-1]
                return [NAMES[ops[k]], build(lo, k), build(k + 1, hi)]

    return ["ASSIGN", var, build(0, len(operands) - 1)]


def flatten(node, order):
    if isinstance(node, str):
        return [node]
    left, right = flatten(node[1], order), flatten(node[2], order)
    return {"prefix": [node[0]] + left + right, "infix": left + [node[0]] + right, "postfix": left + right + [node[0]]}[
        order
    ]


def linearise_as(order="prefix", **build):
    return lambda expr: flatten(tree(expr, **build), order)


def ids_explain_table(expr):
    ids = parser_token_ids(expr)
    digit0 = TOKEN_ID["0"]
    return {k: [i - digit0 + EXPLAIN_DIGIT0 if TOKENS[i].isdigit() else i for i in v] for k, v in ids.items()}


def ids_target_shifted_only(expr):
    ids = parser_token_ids(expr)
    return {"source": ids["source"], "target": ids_explain_table(expr)["target"]}


def without_root(expr):
    return linearise(expr)[2:]


def printed_ids(expr):
    return [str(TOKEN_ID[t]) if t.isdigit() else t for t in linearise(expr)]


def printed_minus_one(expr):
    return [str(int(t) - 1) if t.isdigit() else t for t in linearise(expr)]


def printed_every_id_shifted(expr):
    return [TOKENS[TOKEN_ID[t] + 1] if t != "ASSIGN" else t for t in linearise(expr)]


ORDER = "The tree is written in prefix order: each node's name first, then its left and right subtrees."
PRECEDENCE = "* and / bind tighter than + and −: 'x=1+2*3' adds 1 to the product 2*3."
ASSOCIATIVITY = "The operators are left-associative: 'y=8-2-3' is (8−2)−3, so the first SUB's left child is a SUB."
WHICH_WAY = (
    "Compare the digit ids the two printed examples give the same digit ('4' is 17 in one, 18 in "
    "the other), and subtract in the order asked: explain_parser_data's id minus show_parser_examples'."
)

QUESTIONS = [
    Question(
        grade_id="parser_linearise",
        answer="linearise",
        title="The parse tree, linearised",
        reference=linearise,
        reference_source=LINEARISE_SOURCE,
        probes=expression_probes,
        compare=Exact(),
        visible=[Probe(("x=4+9",), "'x=4+9'"), Probe(("x=1+2*3",), "'x=1+2*3'")],
        misconceptions=(
            Misconception("infix_order", ORDER, linearise_as("infix")),
            Misconception("postfix_order", ORDER, linearise_as("postfix")),
            Misconception("no_precedence", PRECEDENCE, linearise_as(precedence=False)),
            Misconception("right_associative", ASSOCIATIVITY, linearise_as(right_assoc=True)),
            Misconception(
                "without_root",
                "The tree's root is the assignment: it starts with ASSIGN and the variable, and the "
                "expression's tree follows as the root's second child.",
                without_root,
            ),
        ),
    ),
    Question(
        grade_id="parser_token_ids",
        answer="parser_token_ids",
        title="Source and target token ids",
        reference=parser_token_ids,
        depends_on=("parser_linearise",),
        probes=expression_probes,
        compare=Exact(integers=True),
        visible=[Probe(("y=7/7",), "'y=7/7' (show_parser_examples' example 1)")],
        misconceptions=(
            Misconception(
                "explain_table",
                "These digit ids are explain_parser_data's, which disagree with the table the task "
                "uses (show_parser_examples'): use TOKENS for every token.",
                ids_explain_table,
            ),
            Misconception(
                "target_shifted_only",
                "Source and target use one table: a digit has the same id in both.",
                ids_target_shifted_only,
            ),
        ),
    ),
    Question(
        grade_id="digit_offset",
        answer="digit_offset",
        title="The two tables' digit offset",
        call=False,
        reference=lambda: EXPLAIN_INPUT[2] - TOKEN_ID["4"],
        compare=Exact(integers=True),
        misconceptions=(
            Misconception("sign", WHICH_WAY, lambda: 1),
            Misconception("no_offset", WHICH_WAY, lambda: 0),
        ),
    ),
    Question(
        grade_id="digit_zero_collides",
        answer="digit_zero_collides",
        title="Digit 0 in explain_parser_data's table",
        call=False,
        reference=lambda: TOKENS[EXPLAIN_DIGIT0],
        compare=Choice(("x", "y", "z", "=", "nothing")),
        misconceptions=(
            Misconception(
                "nothing",
                "Extend explain_parser_data's rule (digit d → its id for 4, minus 4, plus d) down to "
                "d = 0 and look that id up in TOKENS.",
                lambda: "nothing",
            ),
        ),
    ),
    Question(
        grade_id="printed_tree",
        answer="printed_tree",
        title="What the Additional Tests print",
        reference=printed_tree,
        depends_on=("parser_linearise",),
        probes=lambda rng: expression_probes(rng, digits="012345678"),
        compare=Exact(),
        visible=[Probe(("x=1+2",), "'x=1+2' (the document prints ADD 2 3)")],
        misconceptions=(
            Misconception(
                "wrong_direction",
                "The model writes each digit with the task's table; the test reads that id back with "
                "explain_parser_data's table. Which digit does that table give the id?",
                printed_minus_one,
            ),
            Misconception(
                "no_bug",
                "That is the right tree; the question asks what document 001's Additional Tests print.",
                linearise,
            ),
            Misconception(
                "every_token_shifted",
                "Only the digits' ids differ between the two tables: variables, operators and node "
                "names are printed right ('x=1+2' still reads ASSIGN x ADD …).",
                printed_every_id_shifted,
            ),
            Misconception(
                "printed_ids",
                "The test prints each digit as a digit: the one explain_parser_data's table gives the id "
                "the model wrote, not the id itself.",
                printed_ids,
            ),
        ),
    ),
]
