"""Training losses. Each file holds one concept: its math as a pure function, then the module.

The table of losses (names, aliases, the paper's k, which targets each can train) is
:data:`stsdemo.config.LOSS_TABLE`; ``build_loss`` turns a name and its settings into a module.
"""

from __future__ import annotations

from ..config import LOSSES, loss_spec, paper_k
from ..labels import STS, LabelScheme
from .baselines import L1Loss, MSELoss
from .buffer import BufferZoneLoss, check_buffer, clamp_to_nodes
from .cross_entropy import ClassificationLoss
from .infonce import InfoNCELoss, info_nce
from .pcc import PccLoss, pearson_loss
from .smooth_k2 import SmoothK2Loss, smooth_k2
from .translated_relu import TranslatedReLULoss, translated_relu


def build_loss(name: str, k: float | None = None, x0: float = 0.25, scheme: LabelScheme = STS,
               clamp: bool = True, threshold: float = 4.0, family: str = "bert"):
    """A loss module by name or alias (see ``LOSS_TABLE``); ``k`` defaults to the paper's value for the loss
    and encoder ``family`` ('bert' or 'roberta')."""
    spec = loss_spec(name)
    cls = globals()[spec.cls]
    if spec.buffer:
        return cls(paper_k(spec.name, family) if k is None else k, x0, scheme, clamp)
    if spec.name in ("mse", "l1"):
        return cls(scheme, clamp)
    if spec.name == "ce":
        return cls(scheme)
    if spec.name == "infonce":
        return cls(threshold)
    return cls()


__all__ = [
    "LOSSES", "build_loss", "check_buffer", "clamp_to_nodes", "BufferZoneLoss", "translated_relu", "smooth_k2",
    "info_nce", "pearson_loss", "TranslatedReLULoss", "SmoothK2Loss", "L1Loss", "MSELoss", "ClassificationLoss",
    "InfoNCELoss", "PccLoss",
]
