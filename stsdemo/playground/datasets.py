"""The pairs a Playground run learns from and is measured on, as indices into one list of distinct sentences.

* ``sts``: STS-B train (5,749 pairs; 5,738 once the 11 that repeat an STS-B dev pair are left out) to learn from,
  STS-B dev (1,500) held out as the report set; labels 0..5.
* ``nli``: SNLI dev split as the NLI runs split it (:func:`stsdemo.data.snli_dev_split`): 8,842 pairs to learn
  from, the 1,000 pairs held out to select checkpoints held out here; contradiction 0, neutral 1, entailment 2.

A run draws its training pairs and its selection set from the pool to learn from
(the engine's ``splitSizes``, ``web/engine.js``); a pool pair whose two sentences also form a held-out pair (in
either order) is left out of the pool, so the report set shares no pair with what a run trains or selects on.

No test split is read: the Playground and its payoff map measure on held-out training-time data, so nothing
here is tuned on a test set. ``max_pairs`` keeps an evenly spread sample of each part (tests, quick demos).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import PairSet, load_stsb, snli_dev_split
from ..labels import LabelScheme

TITLES = {"sts": "STS-B dev", "nli": "SNLI dev (held out of its 9,842 pairs)"}


@dataclass(frozen=True)
class PairIndex:
    """Pairs as positions in a sentence list: ``u[i]``, ``v[i]`` and the label of pair ``i``."""

    u: np.ndarray
    v: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class PlaygroundData:
    """A data set's distinct sentences, its training and held-out pairs over them, and its label scheme
    (node gap 1; a run places the labels on its own gap ``d``)."""

    name: str
    sentences: list[str]
    train: PairIndex
    held_out: PairIndex
    scheme: LabelScheme
    title: str = ""  # what people call it: a built-in's TITLES text, an uploaded file's name


def index_pairs(train: PairSet, held_out: PairSet) -> tuple[list[str], PairIndex, PairIndex]:
    """The distinct sentences of both parts (first seen first) and each part's pairs as indices into them, the
    training pairs that repeat a held-out pair (in either order) left out."""
    sentences = list(
        dict.fromkeys(train.sentences1 + train.sentences2 + held_out.sentences1 + held_out.sentences2)
    )
    position = {sentence: i for i, sentence in enumerate(sentences)}

    def indexed(pairs: PairSet) -> PairIndex:
        return PairIndex(
            np.array([position[s] for s in pairs.sentences1], dtype=np.int64),
            np.array([position[s] for s in pairs.sentences2], dtype=np.int64),
            pairs.labels.copy(),
        )

    pool, held = indexed(train), indexed(held_out)
    repeated = set(zip(held.u.tolist(), held.v.tolist())) | set(zip(held.v.tolist(), held.u.tolist()))
    kept = np.array([pair not in repeated for pair in zip(pool.u.tolist(), pool.v.tolist())], dtype=bool)
    return sentences, PairIndex(pool.u[kept], pool.v[kept], pool.labels[kept]), held


def _sts(source: str) -> tuple[PairSet, PairSet]:
    return load_stsb("train", source), load_stsb("dev", source)


def _nli(source: str) -> tuple[PairSet, PairSet]:
    return snli_dev_split(source=source)


LOADERS = {"sts": _sts, "nli": _nli}  # one per name in BUILT_IN_DATA


def load_playground_data(name: str, max_pairs: int | None = None, source: str = "auto") -> PlaygroundData:
    """The data set ``name`` (one of :data:`~stsdemo.playground.config.BUILT_IN_DATA`), each part cut to at most
    ``max_pairs`` evenly spread pairs when given."""
    train, held_out = (
        part if max_pairs is None else part.spaced(max_pairs) for part in LOADERS[name](source)
    )
    sentences, train_index, held_index = index_pairs(train, held_out)
    return PlaygroundData(name, sentences, train_index, held_index, train.scheme, TITLES[name])
