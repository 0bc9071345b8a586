"""Training losses. Each file holds one concept: its math as a pure function, then the module.

``build_loss`` is the one place that turns a loss name and its settings into a module.
"""

from __future__ import annotations

from ..errors import InputError
from ..labels import STS, LabelScheme
from .baselines import L1Loss, MSELoss
from .buffer import BufferZoneLoss, check_buffer, clamp_to_nodes
from .cross_entropy import ClassificationLoss
from .infonce import InfoNCELoss, info_nce
from .smooth_k2 import SmoothK2Loss, smooth_k2
from .translated_relu import TranslatedReLULoss, translated_relu

LOSSES = {
    "sk2": "Smooth K2 (ours)",
    "trelu": "Translated ReLU (ours)",
    "mse": "MSE",
    "l1": "L1",
    "ce": "cross-entropy over K classes (Sentence-BERT)",
    "infonce": "InfoNCE, in-batch negatives (+Contrast)",
}


def build_loss(name: str, k: float | None = None, x0: float = 0.25, scheme: LabelScheme = STS,
               clamp: bool = True, threshold: float = 4.0):
    """A loss module by name (see ``LOSSES``); ``k`` defaults to the paper's BERT value for that loss."""
    if name == "sk2":
        return SmoothK2Loss(2.0 if k is None else k, x0, scheme, clamp)
    if name == "trelu":
        return TranslatedReLULoss(2.5 if k is None else k, x0, scheme, clamp)
    if name == "mse":
        return MSELoss(scheme, clamp)
    if name == "l1":
        return L1Loss(scheme, clamp)
    if name == "ce":
        return ClassificationLoss(scheme)
    if name == "infonce":
        return InfoNCELoss(threshold)
    raise InputError(f"unknown loss {name!r}; choose one of: {', '.join(LOSSES)}")


__all__ = [
    "LOSSES", "build_loss", "check_buffer", "clamp_to_nodes", "BufferZoneLoss", "translated_relu", "smooth_k2",
    "info_nce", "TranslatedReLULoss", "SmoothK2Loss", "L1Loss", "MSELoss", "ClassificationLoss", "InfoNCELoss",
]
