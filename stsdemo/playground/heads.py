"""Heads on frozen sentence embeddings, many at once: every parameter has a leading ``(seed, twin)`` dimension,
so all seeds and both twins of a run train in one batched computation.

* ``paper``: the paper's head (§3.2), ``Linear([u, v, |u-v|] -> 1)``, started as ``nn.Linear`` starts
  (weights uniform in ``±1/sqrt(fan_in)``) with its bias mid-line, as :class:`stsdemo.model.SiameseRegressor`'s.
* ``cosine``: the calibrated cosine ``a·cos(u, v) + b``, started with cos 0..1 spanning the outermost nodes, as
  :class:`stsdemo.model.CosineHead`. Its only freedom is calibration: the buffer acts on where the line
  sits, not on what the embeddings rank.
* ``mlp``: one hidden layer of ``width`` ReLU units on ``[u, v, |u-v|]``, then one output (bias mid-line): enough
  capacity to fit a small, noisy training set.

Inputs: a head reads each pair's features (:func:`pair_features`): ``[u, v, |u-v|]`` for ``paper`` and ``mlp``,
``cos(u, v)`` for ``cosine``. ``forward`` takes per-seed batches ``(seeds, batch, features)`` (training) or one
set of pairs ``(pairs, features)`` shared by every head (measuring) and returns ``(seeds, twins, pairs)``.
Each seed's start comes from its own ``init`` stream of the shared generator (:mod:`.draws`), the same for both
twins, drawn in the order the parameters are listed (the mlp's ``(features, width)`` weights row by row). Every
parameter is float64, as in the page's engine.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..labels import LabelScheme
from .draws import Stream

TWINS = 2                       # 0: the loss with its buffer, 1: the same loss with x0 = 0


def pair_features(vectors: torch.Tensor, u: torch.Tensor, v: torch.Tensor, head: str) -> torch.Tensor:
    """What ``head`` reads of pairs ``(u[i], v[i])`` of sentence ``vectors``: ``[u, v, |u-v|]`` ``(pairs, 3·dim)``,
    or for the ``cosine`` head ``cos(u, v)`` ``(pairs, 1)``."""
    a, b = vectors[torch.as_tensor(u)], vectors[torch.as_tensor(v)]
    if head == "cosine":
        return nn.functional.cosine_similarity(a, b, dim=-1).unsqueeze(-1)
    return torch.cat([a, b, (a - b).abs()], dim=-1)


def _uniform(stream: Stream, shape: tuple, bound: float) -> torch.Tensor:
    """The next draws of ``stream`` as weights uniform in ``±bound``, row by row into ``shape``."""
    return torch.from_numpy((stream.uniform(math.prod(shape)) * 2 - 1) * bound).view(shape)


def _scalar(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64)


def _stacked(per_seed: list[torch.Tensor]) -> nn.Parameter:
    """``(seeds, twins, ...)`` from each seed's start, repeated for both twins."""
    return nn.Parameter(torch.stack([p.unsqueeze(0).expand(TWINS, *p.shape) for p in per_seed]).contiguous())


class BatchedHead(nn.Module):
    """The heads of every (seed, twin) of a run; subclasses give the parameters and :meth:`predict`."""

    def __init__(self, seeds: list[int], features: int, scheme: LabelScheme):
        super().__init__()
        self.seeds, self.middle = list(seeds), scheme.high / 2

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """``(seeds, batch, F)`` per-seed batches or ``(pairs, F)`` shared pairs -> ``(seeds, twins, pairs)``."""
        shared = inputs.dim() == 2
        return self.predict(inputs, shared)

    def predict(self, inputs: torch.Tensor, shared: bool) -> torch.Tensor:
        raise NotImplementedError

    def weights_of(self, index: int, twin: int) -> dict[str, torch.Tensor]:
        """A copy of one head's parameters (``index``: its seed's position in :attr:`seeds`), each without the
        leading (seed, twin) dimensions: the paper head's ``weight`` ``(F,)`` and ``bias`` ``()``."""
        return {name: parameter[index, twin].detach().clone() for name, parameter in self.named_parameters()}


class BatchedPaperHead(BatchedHead):
    """``w · [u, v, |u-v|] + b`` per head."""

    def __init__(self, seeds: list[int], features: int, scheme: LabelScheme, width: int = 0):
        super().__init__(seeds, features, scheme)
        bound = 1 / math.sqrt(features)
        self.weight = _stacked([_uniform(Stream(s, "init"), (features,), bound) for s in self.seeds])
        self.bias = _stacked([_scalar(self.middle) for _ in self.seeds])

    def predict(self, inputs, shared):
        pattern = "nf,stf->stn" if shared else "sbf,stf->stb"
        return torch.einsum(pattern, inputs, self.weight) + self.bias.unsqueeze(-1)


class BatchedCosineHead(BatchedHead):
    """``a · cos(u, v) + b`` per head, started at ``a = high - low``, ``b = low``."""

    def __init__(self, seeds: list[int], features: int, scheme: LabelScheme, width: int = 0):
        super().__init__(seeds, features, scheme)
        self.scale = _stacked([_scalar(scheme.high - scheme.low) for _ in self.seeds])
        self.bias = _stacked([_scalar(scheme.low) for _ in self.seeds])

    def predict(self, inputs, shared):
        cosine = inputs[..., 0]
        cosine = cosine.view(1, 1, -1) if shared else cosine.unsqueeze(1)
        return self.scale.unsqueeze(-1) * cosine + self.bias.unsqueeze(-1)


class BatchedMLPHead(BatchedHead):
    """``w2 · relu(W1 · [u, v, |u-v|] + b1) + b2`` per head, ``width`` hidden units."""

    def __init__(self, seeds: list[int], features: int, scheme: LabelScheme, width: int = 32):
        super().__init__(seeds, features, scheme)
        starts = []
        for seed in self.seeds:
            stream = Stream(seed, "init")
            starts.append((_uniform(stream, (features, width), 1 / math.sqrt(features)),
                           _uniform(stream, (width,), 1 / math.sqrt(features)),
                           _uniform(stream, (width,), 1 / math.sqrt(width))))
        self.hidden_weight, self.hidden_bias, self.weight = (_stacked(list(part)) for part in zip(*starts))
        self.bias = _stacked([_scalar(self.middle) for _ in self.seeds])

    def predict(self, inputs, shared):
        if shared:
            hidden = torch.einsum("nf,stfw->stnw", inputs, self.hidden_weight)
        else:
            hidden = torch.einsum("sbf,stfw->stbw", inputs, self.hidden_weight)
        hidden = torch.relu(hidden + self.hidden_bias.unsqueeze(2))
        return torch.einsum("stnw,stw->stn", hidden, self.weight) + self.bias.unsqueeze(-1)


HEAD_CLASSES = {"paper": BatchedPaperHead, "cosine": BatchedCosineHead, "mlp": BatchedMLPHead}


def build_head(kind: str, seeds: list[int], features: int, scheme: LabelScheme, width: int = 32) -> BatchedHead:
    """The heads of a run: ``kind`` one of :data:`HEAD_CLASSES`, one per seed and twin."""
    return HEAD_CLASSES[kind](seeds, features, scheme, width)
