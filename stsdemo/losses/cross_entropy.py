"""Sentence-BERT's classification strategy: a K-way softmax over the label scheme's categories."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..labels import STS, LabelScheme
from .base import Loss, LossSettings
from .spec import CROSS_ENTROPY


def node_indices(labels: torch.Tensor, scheme: LabelScheme) -> torch.Tensor:
    """The category index of each label: its nearest node."""
    return torch.round(labels.float() / scheme.gap).clamp(0, len(scheme.categories) - 1).long()


class ClassificationLoss(Loss):
    """Cross-entropy over K classes, Reimers & Gurevych (2019) §3, the paper's classification baseline.

    ``loss = -log softmax(W [u, v, |u-v|])_y`` with ``y`` the index of the label's nearest node. The
    classes are treated as unordered: predicting "neutral" for "entailment" costs as much as predicting
    "contradiction", which is what the regression framework fixes.

    Inputs: logits ``(batch, K)`` from a head with ``K = len(scheme.categories)`` outputs, labels
    ``(batch,)`` on the scheme's line.
    """

    spec = CROSS_ENTROPY

    def __init__(self, scheme: LabelScheme = STS):
        super().__init__()
        self.scheme = scheme

    @classmethod
    def build(cls, settings: LossSettings) -> ClassificationLoss:
        return cls(settings.scheme)

    def forward(self, output, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(output.prediction.float(), node_indices(labels, self.scheme))
