"""Smooth K2, paper equation (2)."""

from __future__ import annotations

import torch

from .buffer import BufferZoneLoss
from .spec import SMOOTH_K2


def smooth_k2(x: torch.Tensor, k: float, x0: float) -> torch.Tensor:
    """``f(x) = k * (x - x0)^2`` for ``x >= x0``, else 0, on the distance ``x = |prediction - label|``."""
    return k * torch.relu(x - x0).square()


class SmoothK2Loss(BufferZoneLoss):
    """Smooth K2 loss of Zhang & Li (2024), arXiv 2406.05326, equation (2).

    ``x = |clamp(prediction) - label|``;  ``f(x) = 0`` for ``x < x0`` and ``k * (x - x0)^2`` otherwise.
    Like Translated ReLU it has a zero-gradient buffer zone, but its gradient ``2k(x - x0)`` grows
    with the error, so far-off samples pull harder and the loss is smooth at ``x0``.

    Inputs: predictions ``(batch,)`` and labels ``(batch,)`` on the scheme's line. Returns the batch mean.
    ``scheme`` gives the gap ``d`` and the outermost nodes (default STS 0..5).
    Defaults: the paper's ``x0`` and ``k`` for BERT (:mod:`stsdemo.losses.spec`; ``k`` per encoder family).
    """

    spec = SMOOTH_K2
    distance_loss = staticmethod(smooth_k2)
