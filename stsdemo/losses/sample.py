"""What the Loss explorer's losses give, by autograd on their own functions: over a range of distances (its
curves, :func:`loss_curve`) and for one sample (its distance, the loss and the gradient on the prediction:
:func:`sample_losses`). The ``loss_at`` API and MCP tool answer these rows, and the explorer's "One sample" table
shows them under its column titles."""

from __future__ import annotations

import torch

from ..errors import check_range
from .buffer import BufferZoneLoss
from .registry import LOSS_CLASSES

# The losses that are a function of the distance x = |prediction - label| (name -> module class): the buffer-zone
# losses and their twins without a buffer (L1, MSE).
DISTANCE_LOSSES = {name: cls for name, cls in LOSS_CLASSES.items() if issubclass(cls, BufferZoneLoss)}


def loss_curve(name: str, x: torch.Tensor, k: float, x0: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The distance loss ``name`` at each distance ``x`` and its derivative df/dx there."""
    x = x.detach().clone().requires_grad_(True)
    y = DISTANCE_LOSSES[name].curve(x, k, x0)
    (grad,) = torch.autograd.grad(y.sum(), x)
    return y.detach(), grad


def sample_losses(prediction: float, label: float, k: float, x0: float) -> list[dict]:
    """One row per distance loss (before the batch mean): ``loss`` (its short name), ``x`` (|prediction - label|),
    ``value`` (f(x)), ``gradient`` (df/dprediction, the signed pull: negative means gradient descent raises the
    prediction) and ``in_buffer`` (no gradient), each number to 4 decimals. Clamping to the outermost nodes (done
    in training) is not applied here."""
    prediction = check_range("prediction", prediction)
    label = check_range("label", label)
    rows = []
    for cls in DISTANCE_LOSSES.values():
        p = torch.tensor(prediction, dtype=torch.float64, requires_grad=True)
        x = (p - label).abs()
        value = cls.curve(x, k, x0)
        value.backward()
        distance = float(x.detach())
        rows.append(
            {
                "loss": cls.spec.short,
                "x": round(distance, 4),
                "value": round(float(value.detach()), 4),
                "gradient": round(float(p.grad), 4),
                "in_buffer": bool(cls.spec.buffer and distance < x0),
            }
        )
    return rows
