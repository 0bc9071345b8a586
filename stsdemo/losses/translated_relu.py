"""Translated ReLU, paper equation (1)."""

from __future__ import annotations

import torch

from ..labels import STS, LabelScheme
from .buffer import BufferZoneLoss


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
    Defaults: ``x0 = 0.25``, ``k = 2.5`` (the paper's BERT setting; RoBERTa uses ``k = 1``).
    """

    name = "trelu"

    def __init__(self, k: float = 2.5, x0: float = 0.25, scheme: LabelScheme = STS, clamp: bool = True):
        super().__init__(translated_relu, k, x0, scheme, clamp)
