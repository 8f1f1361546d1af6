"""Part 1, byte-pair encoding (document 001: "BPE, Unigram and WordPiece … 'playing' can be split
into 'play' and 'ing'"): counting adjacent pairs (``pair_counts``), learning k merges
(``learn_bpe``) and tokenising a word with them (``bpe_tokenize``) — the references, the probes,
the visible examples, the known mistakes and their feedback.

Conventions stated in the notebook: a segmented vocabulary maps a word written as its symbols
separated by single spaces ("p l ay") to its count; a pair is written "a b"; the most frequent
pair is merged first, and among pairs of equal count the one whose (a, b) comes first in Python's
tuple order; learning stops early when no word has two symbols left; merges are applied to a word
in the order they were learned, each left to right over non-overlapping occurrences."""

from autograder.authoring import Exact, FunctionSource, Misconception, Probe, Question

# the visible corpus: k = 5 merges split "playing" into "play" + "ing" (document 001's example)
PLAY_CORPUS = {"play": 5, "playing": 3, "played": 2, "sing": 4, "ring": 3, "king": 2}
ALPHABET = "abcde"


# ---- the references
def pair_counts(vocab):
    """{"a b": count of the adjacent pair (a, b) over the vocabulary, each word weighted by its count}."""
    counts = {}
    for word, freq in vocab.items():
        symbols = word.split()
        for a, b in zip(symbols, symbols[1:]):
            counts[f"{a} {b}"] = counts.get(f"{a} {b}", 0) + freq
    return counts


PAIR_COUNTS_SOURCE = FunctionSource.of(pair_counts)  # learn_bpe calls the student's pair_counts


def merge_symbols(symbols, a, b):
    """symbols with every non-overlapping (a, b), left to right, replaced by a + b (a symbol a
    that a merge just made is never a again: a + b is longer than a)."""
    out = []
    for symbol in symbols:
        if out and out[-1] == a and symbol == b:
            out[-1] = a + b
        else:
            out.append(symbol)
    return out


def learn_bpe(word_counts, k):
    """The first k merges [a, b] learned on {word: count}, starting from single characters."""
    vocab = {" ".join(word): freq for word, freq in word_counts.items()}
    merges = []
    for _ in range(k):
        counts = pair_counts(vocab)
        if not counts:
            break
        a, b = min(counts, key=lambda pair: (-counts[pair], tuple(pair.split()))).split()
        merges.append([a, b])
        vocab = {" ".join(merge_symbols(w.split(), a, b)): f for w, f in vocab.items()}
    return merges


def bpe_tokenize(word, merges):
    """word's characters with the merges applied in the order learned."""
    symbols = list(word)
    for a, b in merges:
        symbols = merge_symbols(symbols, a, b)
    return symbols


# ---- probes: small alphabets, so that ties and repeated pairs ("a a a") are common
def random_words(rng, n):
    words = {}
    while len(words) < n:
        word = "".join(rng.choice(list(ALPHABET[: int(rng.integers(2, 6))]), int(rng.integers(1, 7))))
        words[word] = int(rng.integers(1, 10))
    return words


def segmented(rng, words):
    """The words as a segmented vocabulary after a few merges learned on them."""
    merges = learn_bpe(words, int(rng.integers(0, 4)))
    return {" ".join(bpe_tokenize(w, merges)): f for w, f in words.items()}


def pair_probes(rng):
    probes = [
        Probe((segmented(rng, random_words(rng, int(rng.integers(3, 8)))),), "a random vocabulary") for _ in range(4)
    ]
    probes.append(Probe(({"a a a a": 2, "b a a": 3, "c": 7},), "repeated pairs, a one-symbol word"))
    probes.append(Probe(({},), "an empty vocabulary"))
    return probes


def learn_probes(rng):
    probes = [
        Probe((random_words(rng, int(rng.integers(3, 9))), int(k)), f"{k} merges") for k in rng.integers(1, 12, 4)
    ]
    probes.append(Probe((random_words(rng, 4), 0), "k = 0"))
    probes.append(Probe(({"ab": 2, "a": 5, "bb": 1}, 10), "more merges than pairs (stop early)"))
    probes.append(Probe(({"aaaa": 1, "aab": 2, "ba": 2}, 4), "ties and overlapping pairs"))
    probes.append(Probe(({"abc": 1, "ab": 5, "bc": 3}, 3), "a merged symbol next to a pair's second half"))
    return probes


def tokenize_probes(rng):
    probes = []
    for _ in range(4):
        words = random_words(rng, 6)
        merges = learn_bpe(words, int(rng.integers(2, 9)))
        unseen = "".join(rng.choice(list(ALPHABET), int(rng.integers(3, 9))))
        probes.append(Probe((unseen, merges), "a word against learned merges"))
    probes.append(Probe(("aaaaa", [["a", "a"], ["aa", "a"]]), "overlapping pairs"))
    probes.append(Probe(("abc", [["b", "c"], ["a", "b"]]), "merge order matters"))
    probes.append(Probe(("abcab", []), "no merges"))
    return probes


# ---- known mistakes
def pairs_by_type(vocab):
    return pair_counts({word: 1 for word in vocab})


def pairs_once_per_word(vocab):
    counts = {}
    for word, freq in vocab.items():
        symbols = word.split()
        for pair in {f"{a} {b}" for a, b in zip(symbols, symbols[1:])}:
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def pairs_of_characters(vocab):
    return pair_counts({" ".join(w.replace(" ", "")): f for w, f in vocab.items()})


def learn_with(choose, recount=True):
    def wrong(word_counts, k):
        vocab = {" ".join(word): freq for word, freq in word_counts.items()}
        merges, first = [], pair_counts(vocab)
        for _ in range(k):
            counts = pair_counts(vocab) if recount else {p: c for p, c in first.items() if p.split() not in merges}
            if not counts:
                break
            a, b = choose(counts).split()
            merges.append([a, b])
            vocab = {" ".join(merge_symbols(w.split(), a, b)): f for w, f in vocab.items()}
        return merges

    return wrong


learn_tie_first_seen = learn_with(lambda c: max(c, key=c.get))
learn_tie_last = learn_with(lambda c: max(c, key=lambda p: (c[p], tuple(p.split()))))
learn_no_recount = learn_with(lambda c: min(c, key=lambda p: (-c[p], tuple(p.split()))), recount=False)


def learn_by_text_replace(word_counts, k):
    """Merges by replacing the text "a b" in the spaced word: it also glues the tail of a longer
    symbol ("ab c" becomes "abc" on the merge (b, c))."""
    vocab = {" ".join(word): freq for word, freq in word_counts.items()}
    merges = []
    for _ in range(k):
        counts = pair_counts(vocab)
        if not counts:
            break
        a, b = min(counts, key=lambda pair: (-counts[pair], tuple(pair.split()))).split()
        merges.append([a, b])
        vocab = {w.replace(f"{a} {b}", a + b): f for w, f in vocab.items()}
    return merges


def learn_by_type(word_counts, k):
    return learn_bpe({w: 1 for w in word_counts}, k)


def tokenize_longest_match(word, merges):
    """WordPiece-style: the longest known symbol at each place, left to right."""
    known = set(word) | {a + b for a, b in merges}
    out, i = [], 0
    while i < len(word):
        j = max(j for j in range(i + 1, len(word) + 1) if word[i:j] in known or j == i + 1)
        out.append(word[i:j])
        i = j
    return out


def tokenize_reversed(word, merges):
    return bpe_tokenize(word, merges[::-1])


def tokenize_first_only(word, merges):
    symbols = list(word)
    for a, b in merges:
        for i in range(len(symbols) - 1):
            if symbols[i] == a and symbols[i + 1] == b:
                symbols[i : i + 2] = [a + b]
                break
    return symbols


TIE_RULE = (
    "Ties are broken by a stated rule, not by the order in which your counts met the pairs: among "
    "pairs of equal count, merge the one whose (a, b) comes first in Python's tuple order."
)

QUESTIONS = [
    Question(
        grade_id="bpe_pair_counts",
        answer="pair_counts",
        title="BPE: counting adjacent pairs",
        reference=pair_counts,
        reference_source=PAIR_COUNTS_SOURCE,
        probes=pair_probes,
        compare=Exact(integers=True),
        visible=[Probe(({"p l ay": 5, "p l ay i n g": 3, "s i n g": 4},), "p l ay ×5, p l ay i n g ×3, s i n g ×4")],
        misconceptions=(
            Misconception(
                "frequency_ignored",
                "Each word of the vocabulary stands for as many occurrences as its count: a pair "
                "inside a word seen 5 times was seen 5 times.",
                pairs_by_type,
            ),
            Misconception(
                "once_per_word",
                'A pair that occurs twice inside one word ("a a a" holds (a, a) twice) counts '
                "twice: count every adjacent position, not the set of pairs of a word.",
                pairs_once_per_word,
            ),
            Misconception(
                "characters_not_symbols",
                "The pairs are pairs of the current symbols (separated by spaces), not of "
                "characters: a symbol made by an earlier merge is one symbol.",
                pairs_of_characters,
            ),
        ),
    ),
    Question(
        grade_id="bpe_merges",
        answer="learn_bpe",
        title="BPE: learning k merges",
        reference=learn_bpe,
        depends_on=("bpe_pair_counts",),
        probes=learn_probes,
        compare=Exact(),
        visible=[Probe((PLAY_CORPUS, 5), "play ×5, playing ×3, played ×2, sing ×4, ring ×3, king ×2; k = 5")],
        misconceptions=(
            Misconception("tie_first_seen", TIE_RULE, learn_tie_first_seen),
            Misconception("tie_last", TIE_RULE, learn_tie_last),
            Misconception(
                "no_recount",
                "After each merge the pair counts change (the merged pair is gone, new pairs with "
                "the merged symbol appear): count again before choosing the next merge.",
                learn_no_recount,
            ),
            Misconception(
                "frequency_ignored",
                "Each word stands for as many occurrences as its count: weight its pairs by it.",
                learn_by_type,
            ),
            Misconception(
                "text_replace",
                'A merge joins two whole symbols. Replacing the text "a b" in the spaced word also '
                "matches where a is only the end of a longer symbol (or b the start of one): compare "
                "the symbols of the split word, not substrings.",
                learn_by_text_replace,
            ),
        ),
    ),
    Question(
        grade_id="bpe_tokenize",
        answer="bpe_tokenize",
        title="BPE: tokenising a word",
        reference=bpe_tokenize,
        probes=tokenize_probes,
        compare=Exact(),
        visible=[Probe(("playing", learn_bpe(PLAY_CORPUS, 5)), "'playing' with the 5 merges above")],
        misconceptions=(
            Misconception(
                "longest_match",
                "BPE does not pick the longest known piece (that is WordPiece's greedy rule): it "
                "replays the merges on the word's characters in the order they were learned.",
                tokenize_longest_match,
            ),
            Misconception(
                "reversed_order",
                "The merges are replayed in the order they were learned (the first learned first): a "
                "later merge can only use symbols that earlier merges made.",
                tokenize_reversed,
            ),
            Misconception(
                "first_occurrence_only",
                "A merge replaces every occurrence of its pair in the word (left to right, without "
                "overlaps), not only the first one.",
                tokenize_first_only,
            ),
        ),
    ),
]
