"""What every training loss module has: its declaration (:mod:`.spec`) and a factory from a run's settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from torch import nn

from ..labels import LabelScheme
from .spec import LossSpec


@dataclass(frozen=True)
class LossSettings:
    """What a run gives a loss to be built from; each loss takes the part it uses."""

    k: float | None  # slope of a buffer-zone loss (already the paper's where the run gives none)
    x0: float  # buffer half-width
    scheme: LabelScheme  # node gap and outermost nodes; the classes of cross-entropy
    clamp: bool  # clamp predictions to the outermost nodes
    threshold: float  # InfoNCE: the label from which a pair is a positive


class Loss(nn.Module):
    """A training loss: ``forward(output, labels)`` gives the batch's loss as a scalar tensor."""

    spec: ClassVar[LossSpec]

    @property
    def regression(self) -> bool:
        """Whether it trains the prediction on the label line (training reports the buffer share then)."""
        return self.spec.regression

    @classmethod
    def build(cls, settings: LossSettings) -> Loss:
        """The module for a run's settings."""
        raise NotImplementedError
