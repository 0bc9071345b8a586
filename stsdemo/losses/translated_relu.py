"""Translated ReLU, paper equation (1)."""

from __future__ import annotations

import torch

from .buffer import BufferZoneLoss
from .spec import TRANSLATED_RELU


def translated_relu(x: torch.Tensor, k: float, x0: float) -> torch.Tensor:
    """``f(x) = max(0, k * (x - x0))`` elementwise, on the distance ``x = |prediction - label|``."""
    return torch.relu(k * (x - x0))


class TranslatedReLULoss(BufferZoneLoss):
    """Translated ReLU loss of Zhang & Li (2024), arXiv 2406.05326, equation (1).

    ``x = |clamp(prediction) - label|``;  ``f(x) = 0`` for ``x < x0`` and ``k * (x - x0)`` otherwise.
    Inside the buffer zone ``x < x0`` the gradient is exactly zero: a prediction already close enough
    to its node is left alone; outside, every sample pulls with the same force ``k``.

    Inputs: predictions ``(batch,)`` and labels ``(batch,)`` on the scheme's line. Returns the batch mean.
    ``scheme`` gives the gap ``d`` and the outermost nodes (default STS 0..5).
    Defaults: the paper's ``x0`` and ``k`` for BERT (:mod:`stsdemo.losses.spec`; ``k`` per encoder family).
    """

    spec = TRANSLATED_RELU
    distance_loss = staticmethod(translated_relu)
