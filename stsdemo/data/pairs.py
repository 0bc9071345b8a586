"""A set of sentence pairs with labels on a scheme's line, and how one sentence is cleaned before encoding."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..labels import LabelScheme

MAX_SENTENCE_CHARS = 20_000  # longer text is cut; the encoder sees at most max_length tokens anyway
_INVISIBLE = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}  # control, format, surrogate and space characters


def clean_text(text, label: str = "sentence") -> tuple[str, str]:
    """A sentence ready to encode and a notice ('' if none); InputError if it has nothing visible.

    Control characters (except tab and line breaks) and lone surrogates are dropped: they carry no meaning and
    some tokenizers choke on them. Emoji, right-to-left text and every other script are kept as they are.
    Text longer than ``MAX_SENTENCE_CHARS`` is cut, and the notice says so.
    """
    if text is None or not isinstance(text, str):
        raise InputError("sentence_not_text", label=label, type=type(text).__name__)
    kept = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cs"))
    removed = len(text) - len(kept)
    kept = kept.strip()
    if not any(unicodedata.category(ch) not in _INVISIBLE for ch in kept):
        raise InputError("sentence_empty", label=label)
    notes = []
    if removed:
        notes.append(f"{removed} control character{'s' if removed != 1 else ''} removed from {label}")
    if len(kept) > MAX_SENTENCE_CHARS:
        kept = kept[:MAX_SENTENCE_CHARS]
        notes.append(f"{label} was cut to its first {MAX_SENTENCE_CHARS:,} characters")
    return kept, "; ".join(notes)


def spaced_positions(length: int, count: int) -> np.ndarray:
    """``min(count, length)`` distinct positions evenly spread over ``0 .. length - 1``, the first and the last
    included: the one rule for an evenly spread sample of a sequence (a data set, a curve, the dots drawn)."""
    return np.unique(np.linspace(0, length - 1, min(count, length)).round().astype(np.int64))


@dataclass
class PairSet:
    """Sentence pairs with one float label each, on ``scheme``'s line."""

    name: str
    sentences1: list[str]
    sentences2: list[str]
    labels: np.ndarray
    scheme: LabelScheme
    notice: str = ""  # what loading changed (sentences cut, control characters removed), or ""

    def __post_init__(self):
        self.sentences1 = list(self.sentences1)
        self.sentences2 = list(self.sentences2)
        self.labels = np.asarray(self.labels, dtype=np.float64).reshape(-1)
        if not len(self.sentences1) == len(self.sentences2) == len(self.labels):
            raise ValueError(
                f"{self.name}: {len(self.sentences1)} first sentences, {len(self.sentences2)} second "
                f"sentences and {len(self.labels)} labels; they must be equally many"
            )

    def __len__(self) -> int:
        return len(self.labels)

    def select(self, indices) -> PairSet:
        """The pairs at ``indices`` (integer positions or a boolean mask), in that order."""
        index = np.asarray(indices)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        index = index.astype(np.int64).reshape(-1)
        return PairSet(
            self.name,
            [self.sentences1[i] for i in index],
            [self.sentences2[i] for i in index],
            self.labels[index],
            self.scheme,
        )

    def spaced(self, count: int) -> PairSet:
        """``count`` pairs evenly spread over the set, the first and the last included (the whole set when
        ``count >= len``): sets are often ordered by source or genre, so their first pairs are no sample."""
        return self if count >= len(self) else self.select(spaced_positions(len(self), count))

    @staticmethod
    def concat(sets, name) -> PairSet:
        """One set holding the pairs of ``sets`` in order; all must share a label scheme."""
        sets = list(sets)
        if not sets:
            raise ValueError("PairSet.concat needs at least one set")
        scheme = sets[0].scheme
        for other in sets[1:]:
            if other.scheme != scheme:
                raise InputError(
                    "join_schemes",
                    name=sets[0].name,
                    scheme=scheme.name,
                    other=other.name,
                    other_scheme=other.scheme.name,
                )
        return PairSet(
            name,
            [s for part in sets for s in part.sentences1],
            [s for part in sets for s in part.sentences2],
            np.concatenate([part.labels for part in sets]),
            scheme,
        )
