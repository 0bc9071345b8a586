"""Regression baselines: L1 and MSE, the buffer-zone losses without a buffer (``x0 = 0``, ``k = 1``)."""

from __future__ import annotations

from ..labels import STS, LabelScheme
from .buffer import BufferZoneLoss
from .smooth_k2 import smooth_k2
from .translated_relu import translated_relu


class L1Loss(BufferZoneLoss):
    """Mean absolute error ``|prediction - label|``: Translated ReLU with ``k = 1, x0 = 0`` (a baseline)."""

    name = "l1"

    def __init__(self, scheme: LabelScheme = STS, clamp: bool = False):
        super().__init__(translated_relu, 1.0, 0.0, scheme, clamp)


class MSELoss(BufferZoneLoss):
    """Mean squared error ``(prediction - label)^2``: Smooth K2 with ``k = 1, x0 = 0`` (a baseline)."""

    name = "mse"

    def __init__(self, scheme: LabelScheme = STS, clamp: bool = False):
        super().__init__(smooth_k2, 1.0, 0.0, scheme, clamp)
