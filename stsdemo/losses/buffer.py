"""What the buffer-zone losses share: the bound check on ``k`` and ``x0``, clamping to the end nodes
and the module that averages an elementwise loss of the distance ``|prediction - label|``."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..errors import InputError, check_range
from ..labels import STS, LabelScheme
from .base import Loss, LossSettings
from .spec import MAX_GAP, MAX_K, PAPER_X0


def check_buffer(k: float, x0: float, gap: float) -> None:
    """Validate the paper's constraints ``k > 0`` and ``0 <= x0 <= d/2`` (``d`` = gap between nodes).

    With ``x0 > d/2`` a prediction could sit nearer a wrong node and still get zero gradient, so a
    misclassified sample would never be corrected.
    """
    gap = check_range("gap d", gap, 0, MAX_GAP, low_open=True)
    check_range("slope k", k, 0, MAX_K, low_open=True)
    check_x0(x0, gap)


def buffer_problem(k: float, x0: float, gap: float) -> str:
    """'' when the settings pass :func:`check_buffer`, else its message (the Loss explorer draws an invalid setting
    and says why rather than refusing it)."""
    try:
        check_buffer(k, x0, gap)
    except InputError as error:
        return str(error)
    return ""


def check_x0(x0: float, gap: float) -> None:
    """The buffer's half of :func:`check_buffer`: ``0 <= x0 <= d/2`` for a gap ``d`` already checked (a link or
    a form whose k is not given yet reads this alone)."""
    x0 = check_range("buffer x0", x0)  # a finite number first; then the bound that matters
    if x0 < 0:
        raise InputError("x0_negative", half_gap=f"{gap / 2:g}", x0=repr(x0))
    if x0 > gap / 2:
        raise InputError("x0_over_half_gap", half_gap=f"{gap / 2:g}", x0=repr(x0))


def clamp_to_nodes(prediction: torch.Tensor, low: float, high: float) -> torch.Tensor:
    """Predictions beyond the outermost nodes count as on them (paper §3.3).

    A prediction of 5.7 for a label of 5 is already the right category; clamping gives it no loss,
    so the model is not pushed back towards 5 for being "too sure". The clamp is straight-through:
    its value is clamped but its gradient is the identity, so a prediction of -1 for a label of 1
    is still pulled up (a plain ``clamp`` would give it zero gradient and leave it wrong forever).
    """
    return prediction + (prediction.clamp(min=low, max=high) - prediction).detach()


DistanceLoss = Callable[[torch.Tensor, float, float], torch.Tensor]


class BufferZoneLoss(Loss):
    """Mean of ``f(|clamp(prediction) - label|; k, x0)`` over the batch.

    ``f`` is each subclass's ``distance_loss``, a pure elementwise function of the distance (Translated
    ReLU, Smooth K2, ...). The label scheme gives the gap ``d`` and the outermost nodes; clamping to them is
    on by default and can be switched off.
    """

    distance_loss: DistanceLoss

    def __init__(self, k: float, x0: float = PAPER_X0, scheme: LabelScheme = STS, clamp: bool = True):
        """``k``: the slope, already resolved (:func:`stsdemo.losses.registry.build_loss` takes the paper's for the
        encoder family when a run sets none)."""
        super().__init__()
        check_buffer(k, x0, scheme.gap)
        self.k, self.x0, self.gap = float(k), float(x0), scheme.gap
        self.low, self.high, self.clamp = scheme.low, scheme.high, clamp

    @classmethod
    def build(cls, settings: LossSettings) -> BufferZoneLoss:
        return cls(settings.k, settings.x0, settings.scheme, settings.clamp)

    @classmethod
    def curve(cls, x: torch.Tensor, k: float, x0: float) -> torch.Tensor:
        """``f(x)`` elementwise for a slope ``k`` and buffer ``x0`` (what the Loss explorer draws)."""
        return cls.distance_loss(x, k, x0)

    def distance(self, prediction: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        if self.clamp:
            prediction = clamp_to_nodes(prediction, self.low, self.high)
        dtype = torch.promote_types(
            prediction.dtype, torch.float32
        )  # float32 at least; the Playground's float64
        return (prediction.to(dtype) - labels.to(dtype)).abs()

    def elementwise(self, prediction: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """``f(|clamp(prediction) - label|)`` for each pair, not averaged: any shape that broadcasts (the
        Playground trains many heads at once on a leading seed dimension)."""
        return self.distance_loss(self.distance(prediction, labels), self.k, self.x0)

    def forward(self, output, labels: torch.Tensor) -> torch.Tensor:
        return self.elementwise(output.prediction, labels).mean()

    @torch.no_grad()
    def in_buffer(self, prediction: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Boolean mask of the predictions in the zero-gradient zone ``x < x0`` (never true when ``x0 = 0``)."""
        return self.distance(prediction, labels) < self.x0

    def inside_buffer(self, output, labels: torch.Tensor) -> torch.Tensor:
        """:meth:`in_buffer` of a model output's predictions."""
        return self.in_buffer(output.prediction, labels)

    def extra_repr(self) -> str:
        return f"k={self.k:g}, x0={self.x0:g}, gap={self.gap:g}, clamp={self.clamp}"
