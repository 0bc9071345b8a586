"""What a teacher does to a run's training pairs, per seed: how many are drawn, the noise on their labels, their
rounding to nodes, and the order of the batches.

Every draw of a seed comes from its own random stream per purpose (:func:`stream`), so the training pairs, the
noise and the batch order of seed 3 are the same whatever head, loss or other seeds run beside it, and both
twins of a seed see the same pairs in the same batches.
"""

from __future__ import annotations

import torch

from ..labels import LabelScheme

PURPOSES = ("init", "pairs", "noise", "batches")


def stream(seed: int, purpose: str) -> torch.Generator:
    """The random stream of one seed for one purpose (one of :data:`PURPOSES`)."""
    return torch.Generator().manual_seed(int(seed) * len(PURPOSES) + PURPOSES.index(purpose))


def training_subset(pool: int, pairs: int, seed: int) -> torch.Tensor:
    """``pairs`` distinct positions in a pool of ``pool`` training pairs (all of them, in order, when ``pairs``
    is 0 or at least ``pool``)."""
    if pairs <= 0 or pairs >= pool:
        return torch.arange(pool)
    return torch.randperm(pool, generator=stream(seed, "pairs"))[:pairs].sort().values


def training_labels(labels: torch.Tensor, scheme: LabelScheme, noise: float, round_to_nodes: bool,
                    seed: int) -> torch.Tensor:
    """``labels`` (on ``scheme``'s line) as a run trains on them: plus Gaussian noise of sigma ``noise``, clipped
    to the outermost nodes, then rounded to the nearest node when ``round_to_nodes`` (the paper's tune data was
    rounded; :meth:`~stsdemo.labels.LabelScheme.snap`)."""
    out = labels.double()
    if noise > 0:
        out = out + noise * torch.randn(out.shape, generator=stream(seed, "noise"), dtype=torch.float64)
        out = out.clamp(scheme.low, scheme.high)
    if round_to_nodes:
        out = torch.from_numpy(scheme.snap(out.numpy()))
    return out.float()


class BatchOrder:
    """The batches of one seed: positions ``0 .. pairs-1`` in epochs of a fresh permutation each, ``batch``
    at a time; an epoch's last partial batch is left out, so every batch has ``batch`` pairs (``batch`` is at
    most ``pairs``)."""

    def __init__(self, pairs: int, batch: int, seed: int):
        self.pairs, self.batch = pairs, min(batch, pairs)
        self.generator = stream(seed, "batches")
        self.queue = torch.empty(0, dtype=torch.long)

    def take(self, steps: int) -> torch.Tensor:
        """The next ``steps`` batches, ``(steps, batch)``."""
        per_epoch = (self.pairs // self.batch) * self.batch
        parts, queued = [self.queue], len(self.queue)
        while queued < steps * self.batch:
            parts.append(torch.randperm(self.pairs, generator=self.generator)[:per_epoch])
            queued += per_epoch
        joined = torch.cat(parts)
        self.queue = joined[steps * self.batch:]
        return joined[:steps * self.batch].view(steps, self.batch)
