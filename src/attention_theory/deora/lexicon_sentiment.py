"""Lexicon sentiment: the offline stand-in for SST-2 in the Figure 6 chapter (Deora et al., App. G).

SST-2 cannot be downloaded on the machines that build this book. This module generates a
*different* binary sentiment task whose words and polarities come from a real, human-rated
lexicon: ``vader_lexicon.txt`` shipped inside the ``vaderSentiment`` 3.3.2 wheel (MIT licence).
The file is read directly with :mod:`importlib.resources`; the analyzer module is not used.

Each line of the lexicon is ``token<TAB>mean valence<TAB>std<TAB>[ten ratings]`` with the mean
valence in ``[-4, 4]`` given to one decimal.

A sentence (:func:`generate`) has

* a length drawn uniformly from ``[min_len, max_len]`` (8 to 24 tokens by default);
* 1 to 3 *polar* words: alphabetic lexicon entries with ``|valence| >= min_valence`` (1.5),
  restricted to a seeded sample of ``n_polar`` words per sign (25 by default; ``None`` keeps all
  1805 positive and 2221 negative words, too many for a from-scratch model to learn from 20k
  sentences); each polar word has a sign drawn with probability 1/2 and is then drawn uniformly
  among the polar words of that sign (so the two classes are about equally likely);
* with probability ``p_negate`` a negator (``not``, ``never``, ``no``) placed 0 to
  ``max_gap`` filler tokens before a polar word; it flips the sign of the *next* polar word;
* neutral filler tokens (:data:`FILLERS`, none of which is in the lexicon) everywhere else.

The label is the sign of the summed signed valence (:func:`label_tokens`, computed from the
tokens alone, in integer tenths so that a tie is exact); sentences whose sum is 0 are dropped.
Labels are ``1`` (positive) and ``0`` (negative), as in SST-2.

:class:`WordVocab` is the word-level vocabulary/tokenizer of the substitute: ``[PAD]`` = 0,
``[CLS]`` = 1, ``[UNK]`` = 2, then the fillers, negators and polar words in a fixed order.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from importlib import resources
from typing import Iterable, Sequence

import numpy as np

from attention_theory.validation import check_int, check_positive, check_probability, check_seed

__all__ = ["NEGATORS", "FILLERS", "SPECIAL_TOKENS", "DEFAULT_N_POLAR", "Lexicon", "load_vader_lexicon",
           "polar_lexicon",
           "label_tokens", "generate", "WordVocab", "lexicon_dataset"]

#: Negators: each flips the sign of the next polar word.
NEGATORS = ("not", "never", "no")

#: Neutral filler tokens (checked at load time to be absent from the lexicon).
FILLERS = (
    "the", "a", "an", "this", "that", "movie", "film", "story", "plot", "actor", "actors", "scene",
    "scenes", "director", "script", "it", "is", "was", "and", "but", "of", "in", "on", "with", "as",
    "to", "for", "by", "its", "their", "his", "her", "one", "two", "first", "last", "end", "time",
    "cast", "camera", "minutes", "hour", "character", "characters", "dialogue", "music", "screen",
    "year", "series", "sequel", "about", "from", "into", "then", "there", "here", "which", "who",
    "some", "also", "again", "after", "before", "during", "while", "where", "when", "what", "be",
    "has", "had", "are", "were", "been", "very", "quite", "rather", "just", "still", "every",
)

SPECIAL_TOKENS = ("[PAD]", "[CLS]", "[UNK]")

_WORD = re.compile(r"^[a-z]+$")


@dataclasses.dataclass(frozen=True)
class Lexicon:
    """Polar words by sign with their valences in integer tenths (e.g. ``good -> 19``)."""

    positive: tuple[str, ...]
    negative: tuple[str, ...]
    tenths: dict[str, int]
    min_valence: float

    def __post_init__(self) -> None:
        for name in ("positive", "negative"):
            words = getattr(self, name)
            if not isinstance(words, tuple) or not all(isinstance(w, str) and w for w in words):
                raise TypeError(f"{name} must be a tuple of non-empty words, got {words!r}")
        if not self.positive or not self.negative:
            raise ValueError("a lexicon needs at least one positive and one negative polar word")
        if not isinstance(self.tenths, dict) or not all(
                isinstance(w, str) and isinstance(t, (int, np.integer)) and not isinstance(t, bool)
                for w, t in self.tenths.items()):
            raise TypeError(f"tenths must be a dict word -> valence in integer tenths, got {self.tenths!r}")
        check_positive(self.min_valence, "min_valence")

    @property
    def words(self) -> tuple[str, ...]:
        return self.positive + self.negative


@functools.lru_cache(maxsize=1)
def load_vader_lexicon() -> dict[str, float]:
    """Every entry of ``vader_lexicon.txt`` in the installed ``vaderSentiment`` wheel: token -> mean
    valence."""
    try:
        text = (resources.files("vaderSentiment") / "vader_lexicon.txt").read_text(encoding="utf-8")
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "the lexicon substitute needs the vaderSentiment wheel (pip install vaderSentiment==3.3.2, "
            "part of the book extra: pip install -e '.[book]')") from None
    out: dict[str, float] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 2:
            raise ValueError(f"vader_lexicon.txt line {lineno} is not 'token<TAB>valence...': {line!r}")
        out[parts[0]] = float(parts[1])
    return out


#: Polar words per sign used by default (a seeded sample of the lexicon).
DEFAULT_N_POLAR = 25


@functools.lru_cache(maxsize=16)
def polar_lexicon(min_valence: float = 1.5, n_polar: int | None = None, seed: int = 0) -> Lexicon:
    """Alphabetic lexicon words with ``|valence| >= min_valence``, split by sign (sorted).

    With ``n_polar``, a sample of ``n_polar`` words per sign drawn with ``seed`` (without
    replacement). Negators and fillers are excluded from the polar words (they play their own roles).
    """
    min_valence = check_positive(min_valence, "min_valence")
    if n_polar is not None:
        n_polar = check_int(n_polar, "n_polar")
    seed = check_seed(seed)
    if min_valence > 4:
        raise ValueError(f"min_valence must be at most 4 (the lexicon's range), got {min_valence}")
    lex = load_vader_lexicon()
    clash = sorted(set(FILLERS) & set(lex))
    if clash:
        raise ValueError(f"filler tokens {clash} are in the lexicon; they would not be neutral")
    tenths = {w: int(round(10 * v)) for w, v in lex.items()
              if _WORD.match(w) and abs(v) >= min_valence - 1e-12 and w not in NEGATORS}
    pos = sorted(w for w, t in tenths.items() if t > 0)
    neg = sorted(w for w, t in tenths.items() if t < 0)
    if n_polar is not None:
        if n_polar > min(len(pos), len(neg)):
            raise ValueError(f"n_polar={n_polar} exceeds the {len(pos)} positive / {len(neg)} negative "
                             f"polar words with |valence| >= {min_valence}")
        rng = np.random.default_rng(seed)
        pos = sorted(rng.choice(pos, n_polar, replace=False).tolist())
        neg = sorted(rng.choice(neg, n_polar, replace=False).tolist())
        tenths = {w: tenths[w] for w in pos + neg}
    return Lexicon(tuple(pos), tuple(neg), tenths, float(min_valence))


def label_tokens(tokens: Sequence[str], lexicon: Lexicon) -> int | None:
    """The label of a token sequence: 1 if the summed signed valence is positive, 0 if negative,
    ``None`` for a tie (sum 0).

    Reading left to right, a negator flips the sign of the next polar word (a second negator
    before that word cancels the first); tokens that are neither polar nor negators are ignored.
    """
    if isinstance(tokens, str):
        raise TypeError("tokens must be a sequence of words, not a string (split it first)")
    total, flip = 0, False
    for tok in tokens:
        if tok in NEGATORS:
            flip = not flip
        elif tok in lexicon.tenths:
            total += -lexicon.tenths[tok] if flip else lexicon.tenths[tok]
            flip = False
    if total == 0:
        return None
    return 1 if total > 0 else 0


def _sentence(rng: np.random.Generator, lexicon: Lexicon, min_len: int, max_len: int,
              max_polar: int, p_negate: float, max_gap: int) -> list[str]:
    length = int(rng.integers(min_len, max_len + 1))
    k = int(rng.integers(1, max_polar + 1))
    units: list[list[str]] = []
    for _ in range(k):
        words = lexicon.positive if rng.random() < 0.5 else lexicon.negative
        polar = words[int(rng.integers(len(words)))]
        if rng.random() < p_negate:
            gap = int(rng.integers(0, max_gap + 1))
            fill = [FILLERS[int(i)] for i in rng.integers(len(FILLERS), size=gap)]
            units.append([NEGATORS[int(rng.integers(len(NEGATORS)))], *fill, polar])
        else:
            units.append([polar])
    used = sum(len(u) for u in units)
    n_fill = max(length - used, 0)
    # place the units in random order among the fillers: choose slots between fillers
    slots = np.sort(rng.integers(0, n_fill + 1, size=len(units)))
    fillers = [FILLERS[int(i)] for i in rng.integers(len(FILLERS), size=n_fill)]
    out: list[str] = []
    u = 0
    for pos in range(n_fill + 1):
        while u < len(units) and slots[u] == pos:
            out.extend(units[u])
            u += 1
        if pos < n_fill:
            out.append(fillers[pos])
    return out


def generate(n: int, *, seed: int = 0, min_len: int = 8, max_len: int = 24, max_polar: int = 3,
             min_valence: float = 1.5, n_polar: int | None = DEFAULT_N_POLAR, p_negate: float = 0.3,
             max_gap: int = 2, lexicon: Lexicon | None = None) -> tuple[list[list[str]], np.ndarray]:
    """``n`` labelled sentences (lists of tokens) and their labels (int64, 1 = positive).

    Sentences are drawn until ``n`` non-ties have been kept, so the same ``seed`` always gives
    the same data. A sentence is at most ``max_len`` tokens long unless its polar units alone
    need more (``max_polar * (max_gap + 2)`` tokens must fit, which the defaults satisfy).
    """
    n = check_int(n, "n")
    seed = check_seed(seed)
    min_len = check_int(min_len, "min_len")
    max_len = check_int(max_len, "max_len")
    max_polar = check_int(max_polar, "max_polar")
    max_gap = check_int(max_gap, "max_gap", minimum=0)
    if min_len > max_len:
        raise ValueError(f"min_len must be <= max_len, got min_len={min_len}, max_len={max_len}")
    if max_polar * (max_gap + 2) > max_len:
        raise ValueError(f"max_polar * (max_gap + 2) = {max_polar * (max_gap + 2)} polar tokens "
                         f"do not fit in max_len={max_len}")
    p_negate = check_probability(p_negate, "p_negate", open_interval=False)
    lexicon = lexicon if lexicon is not None else polar_lexicon(min_valence, n_polar)
    if not isinstance(lexicon, Lexicon):
        raise TypeError(f"lexicon must be a Lexicon, got {type(lexicon).__name__}")
    rng = np.random.default_rng(seed)
    sents, labels = [], []
    while len(sents) < n:
        s = _sentence(rng, lexicon, min_len, max_len, max_polar, p_negate, max_gap)
        y = label_tokens(s, lexicon)
        if y is None:
            continue
        sents.append(s)
        labels.append(y)
    return sents, np.asarray(labels, dtype=np.int64)


class WordVocab:
    """Word-level vocabulary: ``[PAD]`` = 0, ``[CLS]`` = 1, ``[UNK]`` = 2, then ``words`` in order.

    :meth:`encode` maps sentences (token lists or whitespace-separated strings) to a
    ``(n, max_len + 1)`` int64 array ``[CLS] w_1 ... w_L [PAD] ...``, truncating longer sentences.
    """

    def __init__(self, words: Iterable[str]):
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise TypeError(f"words must be an iterable of words (not one string), got {words!r}")
        words = list(words)
        if not all(isinstance(w, str) and w for w in words):
            raise TypeError("words must be non-empty strings")
        seen: dict[str, int] = {t: i for i, t in enumerate(SPECIAL_TOKENS)}
        for w in words:
            if w not in seen:
                seen[w] = len(seen)
        self.index = seen
        self.tokens = list(seen)

    @classmethod
    def for_lexicon(cls, lexicon: Lexicon) -> "WordVocab":
        return cls([*FILLERS, *NEGATORS, *lexicon.words])

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def pad_id(self) -> int:
        return 0

    def encode(self, sentences: Sequence[Sequence[str] | str], max_len: int = 24) -> np.ndarray:
        max_len = check_int(max_len, "max_len")
        if isinstance(sentences, str):
            raise TypeError("sentences must be a list of sentences, not one string")
        out = np.zeros((len(sentences), max_len + 1), dtype=np.int64)
        out[:, 0] = self.index["[CLS]"]
        unk = self.index["[UNK]"]
        for i, s in enumerate(sentences):
            toks = s.split() if isinstance(s, str) else list(s)
            ids = [self.index.get(t, unk) for t in toks[:max_len]]
            out[i, 1:1 + len(ids)] = ids
        return out

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.tokens[int(i)] for i in ids if int(i) != self.pad_id and int(i) != 1]


def lexicon_dataset(n_train: int, n_test: int, *, seed: int = 0, max_len: int = 24,
                    **gen_kwargs) -> dict[str, object]:
    """Train and test sets (disjoint seeds), encoded with the lexicon's :class:`WordVocab`."""
    n_train, n_test = check_int(n_train, "n_train"), check_int(n_test, "n_test")
    lexicon = polar_lexicon(gen_kwargs.pop("min_valence", 1.5), gen_kwargs.pop("n_polar", DEFAULT_N_POLAR))
    vocab = WordVocab.for_lexicon(lexicon)
    s_tr, y_tr = generate(n_train, seed=2 * seed, max_len=max_len, lexicon=lexicon, **gen_kwargs)
    s_te, y_te = generate(n_test, seed=2 * seed + 1, max_len=max_len, lexicon=lexicon, **gen_kwargs)
    return {"vocab": vocab, "lexicon": lexicon,
            "train_sentences": s_tr, "test_sentences": s_te,
            "Xtr": vocab.encode(s_tr, max_len), "ytr": y_tr,
            "Xte": vocab.encode(s_te, max_len), "yte": y_te}
