"""What a teacher does to a run's training pairs, per seed: how many are drawn (and the selection set held back
beside them), the noise on their labels, their rounding to nodes, and the order of the batches.

Every draw of a seed comes from its own stream per purpose of the shared counter-based generator
(:mod:`.draws`, which the page's engine implements bit for bit), so the training pairs, the noise and the batch
order of seed 3 are the same whatever head, loss or other seeds run beside it, in Python or in the page, and both
twins of a seed see the same pairs in the same batches. Labels are float64, as in the page.
"""

from __future__ import annotations

import numpy as np

from ..labels import LabelScheme
from .config import SELECTION_MAX, SELECTION_MIN, SELECTION_SHARE
from .draws import Stream


def split_sizes(pool: int, requested: int) -> tuple[int, int]:
    """How many training and selection pairs a run draws from a pool of ``pool``: ``requested`` training pairs (0
    or more than the pool holds: all that the selection set leaves), and a selection set of
    :data:`SELECTION_SHARE` of them, at least :data:`SELECTION_MIN` and at most :data:`SELECTION_MAX`, carved out
    of the pool first."""
    def selection(train: float) -> int:
        return min(SELECTION_MAX, max(SELECTION_MIN, round(SELECTION_SHARE * train)))

    most = pool - selection(pool / (1 + SELECTION_SHARE))
    if most < 1:
        raise ValueError(f"a pool of {pool} pairs is too small for a selection set of {SELECTION_MIN}")
    train = most if requested <= 0 else min(requested, most)
    return train, min(pool - train, selection(train))


def split_pool(pool: int, requested: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One seed's disjoint training and selection positions in a pool of ``pool`` pairs (:func:`split_sizes`),
    each sorted: the selection set is what a practitioner would hold back from the same pool."""
    train, selection = split_sizes(pool, requested)
    drawn = Stream(seed, "pairs").permutation(pool)[:train + selection]
    return np.sort(drawn[:train]), np.sort(drawn[train:])


def training_labels(labels: np.ndarray, scheme: LabelScheme, noise: float, round_to_nodes: bool,
                    seed: int) -> np.ndarray:
    """``labels`` (on ``scheme``'s line) as a run trains on them: plus Gaussian noise of sigma ``noise``, clipped
    to the outermost nodes, then rounded to the nearest node when ``round_to_nodes`` (the paper's tune data was
    rounded; :meth:`~stsdemo.labels.LabelScheme.snap`)."""
    out = np.asarray(labels, dtype=np.float64)
    if noise > 0:
        out = np.clip(out + noise * Stream(seed, "noise").normal(len(out)), scheme.low, scheme.high)
    if round_to_nodes:
        out = scheme.snap(out)
    return out


class BatchOrder:
    """The batches of one seed: positions ``0 .. pairs-1`` in epochs of a fresh permutation each, ``batch``
    at a time; an epoch's last partial batch is left out, so every batch has ``batch`` pairs (``batch`` is at
    most ``pairs``)."""

    def __init__(self, pairs: int, batch: int, seed: int):
        self.pairs, self.batch = pairs, min(batch, pairs)
        self.stream = Stream(seed, "batches")
        self.queue = np.empty(0, dtype=np.int64)

    def take(self, steps: int) -> np.ndarray:
        """The next ``steps`` batches, ``(steps, batch)``."""
        per_epoch = (self.pairs // self.batch) * self.batch
        parts, queued = [self.queue], len(self.queue)
        while queued < steps * self.batch:
            parts.append(self.stream.permutation(self.pairs)[:per_epoch])
            queued += per_epoch
        joined = np.concatenate(parts)
        self.queue = joined[steps * self.batch:]
        return joined[:steps * self.batch].reshape(steps, self.batch)
