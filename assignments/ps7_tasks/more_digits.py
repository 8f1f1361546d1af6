"""Part 4 (f), addition on one more digit (``digits_outcomes``): document 001 plans "Tests der
Verallgemeinerungsleistung bei Stellenwertausweitung" for its addition model, whose positions are a
learned table (``config.max_position_embeddings = 10``: room for 4-digit operands), and 004 says the
sinusoidal encoding "generalises to input lengths not seen in training". The notebook's locked cell
``digits_model`` (source ``DIGITS_SOURCE``) trains a small causal transformer on 2-digit sums in
001's format (zero-padded operands, ``+``, then the sum) with either position scheme, in a few
CPU-seconds, and counts the sums exactly right at 2 and at 3 digits. The student runs it and says
what each scheme does; a student who copies 001's plan or 004's claim loses the point.

Measured (issue 35, engineer D's note: ``DIGITS_SOURCE``'s recipe, 800 steps with the learning rate
falling linearly, about 7 CPU-s a run): on every seed swept, both schemes get most 2-digit sums right
and almost no 3-digit sum (0–0.6 %, seeds 0–12); the outcome classes are split at one half, far from both. Only
the student's strings are compared: nothing the grader checks depends on the processor.
"""

from autograder.authoring import Exact, Misconception, Question

DIGITS_SOURCE = """\
DIGIT_PLUS, DIGIT_EQUALS, DIGIT_VOCAB = 10, 11, 12   # tokens: the digits 0-9, "+", "="
DIGIT_SCHEMES = ("learned", "sinusoidal")


def addition_rows(generator, n_digits, count):
    \"\"\"count rows of 001's format: a (n digits, zero-padded), "+", b (n digits), "=", a + b (n + 1 digits).\"\"\"
    a, b = (torch.randint(0, 10 ** n_digits, (count,), generator=generator) for _ in range(2))

    def digits(x, k):
        return torch.stack([x // 10 ** (k - 1 - i) % 10 for i in range(k)], dim=1)

    plus, equals = torch.full((count, 1), DIGIT_PLUS), torch.full((count, 1), DIGIT_EQUALS)
    return torch.cat([digits(a, n_digits), plus, digits(b, n_digits), equals, digits(a + b, n_digits + 1)], dim=1)


class DigitModel(nn.Module):
    \"\"\"Two causal pre-LN transformer layers (d = 64, 4 heads); positions: a learned table of 16 rows
    added to the token embeddings (001's way), or the sinusoidal encoding of PS2.\"\"\"

    def __init__(self, scheme, d=64, max_len=16):
        super().__init__()
        assert scheme in DIGIT_SCHEMES
        self.embed = nn.Embedding(DIGIT_VOCAB, d)
        self.pos = nn.Embedding(max_len, d) if scheme == "learned" else None
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True) for _ in range(2)
        )
        self.out = nn.Linear(d, DIGIT_VOCAB)

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.embed(tokens)
        d = x.shape[-1]
        if self.pos is not None:
            x = x + self.pos(torch.arange(t))
        else:
            angle = torch.arange(t, dtype=torch.float32)[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            x = x + torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)
        for layer in self.layers:
            x = layer(x, src_mask=causal)
        return self.out(x)


def train_digits(seed, scheme, n_digits=2, steps=800):
    \"\"\"The recipe: Adam from lr 3e-3 falling linearly to 0, batches of 64, cross-entropy on the sum's
    digits only (teacher forcing). It runs on one thread: at this size more threads only wait on each
    other (a run takes several times longer on two busy cores).\"\"\"
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = DigitModel(scheme)
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: 1 - step / steps)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for _ in range(steps):
            rows = addition_rows(generator, n_digits, 64)
            logits = model(rows[:, :-1])[:, 2 * n_digits + 1 :]   # the positions that predict the sum's digits
            loss = F.cross_entropy(logits.reshape(-1, DIGIT_VOCAB), rows[:, 2 * n_digits + 2 :].reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
    finally:
        torch.set_num_threads(threads)
    return model


def sums_right(model, n_digits, count=500):
    \"\"\"The share of fresh n-digit sums whose every digit comes out right (argmax at each sum position:
    for a sum that is right throughout, this is what greedy generation writes).\"\"\"
    rows = addition_rows(torch.Generator().manual_seed(1000 + n_digits), n_digits, count)
    with torch.no_grad():
        predicted = model(rows[:, :-1])[:, 2 * n_digits + 1 :].argmax(-1)
    return (predicted == rows[:, 2 * n_digits + 2 :]).all(dim=1).float().mean().item()
"""

SCHEMES = ("learned", "sinusoidal")
BOTH, TRAINED_ONLY, NEITHER = "3 digits too", "2 digits only", "not even 2 digits"
OUTCOMES = (BOTH, TRAINED_ONLY, NEITHER)
MEASURED = {"learned": TRAINED_ONLY, "sinusoidal": TRAINED_ONLY}


def digits_outcomes():
    """Each scheme's outcome on most seeds: at least half of the sums right at 2 and at 3 digits."""
    return dict(MEASURED)


def outcomes_with(**changed):
    return {**MEASURED, **changed}


def digits_namespace() -> dict:
    """The locked cell run as the notebook runs it (for tests and the note's sweep)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    namespace = {"torch": torch, "nn": nn, "F": F}
    exec(compile(DIGITS_SOURCE, "<digits_model>", "exec"), namespace)
    return namespace


QUESTIONS = [
    Question(
        grade_id="digits_outcomes",
        answer="digits_outcomes",
        title="Trained on 2-digit sums, tested on 3 digits",
        call=False,
        reference=digits_outcomes,
        compare=Exact(values_in=OUTCOMES),
        misconceptions=(
            Misconception(
                "learned_table_extends",
                "Document 001 plans tests with more digits, and its table has rows for the longer "
                "source, yet a row the training never reached was never trained: measure the learned "
                "arm on 3-digit sums.",
                lambda: outcomes_with(learned=BOTH),
            ),
            Misconception(
                "sinusoidal_extends",
                "The sinusoidal encoding has a row for every position (004: it generalises to lengths "
                "not seen in training), but with one more digit every token after the first operand "
                "moves to a position it never held in training: measure the sinusoidal arm on 3-digit sums.",
                lambda: outcomes_with(sinusoidal=BOTH),
            ),
            Misconception(
                "addition_is_length_free",
                "Adding one more digit is the same column rule, but neither model learned the rule "
                "apart from the positions it saw: measure both arms on 3-digit sums.",
                lambda: outcomes_with(learned=BOTH, sinusoidal=BOTH),
            ),
        ),
    ),
]
