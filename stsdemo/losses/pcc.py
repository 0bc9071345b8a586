"""Pcc-tuning: one minus Pearson's correlation of cosine similarity and gold label over the batch."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .base import Loss, LossSettings
from .spec import PCC


def pearson_loss(similarity: torch.Tensor, labels: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """``1 - r(similarity, labels)``, Pearson's ``r`` over the batch (0 when the ranking is perfect and linear).

    Both vectors are centred and scaled, so the loss ignores any affine map of the labels; a batch whose
    labels are all equal has no correlation to learn and gives a zero that still carries a graph.
    """
    s = similarity.float() - similarity.float().mean()
    y = labels.float() - labels.float().mean()
    if y.abs().max() < eps:
        return similarity.sum() * 0.0
    r = (s * y).sum() / (s.norm() * y.norm()).clamp(min=eps)
    return 1.0 - r


class PccLoss(Loss):
    """Pcc-tuning of Zhang & Li (2024), "Pcc-tuning: Breaking the Contrastive Learning Ceiling in Semantic
    Textual Similarity", arXiv 2406.09790.

    ``loss = 1 - Pearson(cos(u_i, v_i), label_i)`` over the pairs ``i`` of the batch. It trains the embedding
    geometry that the cosine evaluation reads, with the labels' spacing rather than their ranks; the head's
    prediction is not used. Inputs: a model output with embeddings ``u``, ``v`` ``(batch, dim)`` and labels
    ``(batch,)`` on any scale. A batch needs two or more distinct labels to carry a signal (batch >= 2).
    """

    spec = PCC

    @classmethod
    def build(cls, settings: LossSettings) -> PccLoss:
        return cls()

    def forward(self, output, labels: torch.Tensor) -> torch.Tensor:
        return pearson_loss(F.cosine_similarity(output.u.float(), output.v.float(), dim=-1), labels)
