"""InfoNCE with in-batch negatives: the paper's "+Contrast" comparison."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .base import Loss, LossSettings
from .spec import INFONCE


def info_nce(u: torch.Tensor, v: torch.Tensor, positive: torch.Tensor, temperature: float) -> torch.Tensor:
    """Mean over positive pairs ``i`` of ``-log exp(s_ii / t) / sum_j exp(s_ij / t)``, ``s`` = cosine.

    Every other second sentence in the batch is a negative for anchor ``u_i``. Returns a zero that
    still carries a graph when the batch has no positive pair.
    """
    similarity = F.cosine_similarity(u.float().unsqueeze(1), v.float().unsqueeze(0), dim=-1) / temperature
    if not positive.any():
        return similarity.sum() * 0.0
    targets = torch.arange(len(u), device=u.device)
    return F.cross_entropy(similarity[positive], targets[positive])


class InfoNCELoss(Loss):
    """Contrastive loss over in-batch negatives (van den Oord et al. 2018; supervised as in SimCSE,
    Gao et al. 2021), used by Zhang & Li (2024) as "+Contrast".

    Pairs whose label is at least ``threshold`` (4.0 on the STS 0..5 scale) are positives; the
    embeddings ``u``, ``v`` of the batch give the negatives. ``temperature`` 0.05 as in SimCSE. The
    head's prediction is not used: this trains the embedding geometry that cosine evaluation reads.
    """

    spec = INFONCE

    def __init__(self, threshold: float = 4.0, temperature: float = 0.05):
        super().__init__()
        self.threshold, self.temperature = float(threshold), float(temperature)

    @classmethod
    def build(cls, settings: LossSettings) -> InfoNCELoss:
        return cls(settings.threshold)

    def forward(self, output, labels: torch.Tensor) -> torch.Tensor:
        return info_nce(output.u, output.v, labels >= self.threshold, self.temperature)
