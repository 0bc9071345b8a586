"""Regression baselines: L1 and MSE, the buffer-zone losses without a buffer (``x0 = 0``, ``k = 1``)."""

from __future__ import annotations

import torch

from ..labels import STS, LabelScheme
from .base import LossSettings
from .buffer import BufferZoneLoss
from .smooth_k2 import smooth_k2
from .spec import L1, MSE
from .translated_relu import translated_relu


class BaselineLoss(BufferZoneLoss):
    """A buffer-zone loss with its slope and buffer fixed at ``k = 1``, ``x0 = 0``; no clamping by default."""

    SLOPE, BUFFER = 1.0, 0.0

    def __init__(self, scheme: LabelScheme = STS, clamp: bool = False):
        super().__init__(self.SLOPE, self.BUFFER, scheme, clamp)

    @classmethod
    def build(cls, settings: LossSettings) -> BaselineLoss:
        return cls(settings.scheme, settings.clamp)

    @classmethod
    def curve(cls, x: torch.Tensor, k: float, x0: float) -> torch.Tensor:
        """``f(x)`` elementwise; ``k`` and ``x0`` are ignored (fixed at 1 and 0)."""
        return cls.distance_loss(x, cls.SLOPE, cls.BUFFER)


class L1Loss(BaselineLoss):
    """Mean absolute error ``|prediction - label|``: Translated ReLU with ``k = 1, x0 = 0`` (a baseline)."""

    spec = L1
    distance_loss = staticmethod(translated_relu)


class MSELoss(BaselineLoss):
    """Mean squared error ``(prediction - label)^2``: Smooth K2 with ``k = 1, x0 = 0`` (a baseline)."""

    spec = MSE
    distance_loss = staticmethod(smooth_k2)
