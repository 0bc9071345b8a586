"""The Loss explorer's numbers for programs: the loss and pull one sample gets (the ``loss_at`` API endpoint and
MCP tool); the tab itself is the page's (:mod:`.tab`)."""

from __future__ import annotations

from ...errors import check_range
from ...losses.buffer import check_buffer
from ...losses.explorer import MAX_POINT, START
from ...losses.sample import sample_losses


def loss_at(
    prediction: float, label: float, k: float = START["k"], x0: float = START["x0"], d: float = START["d"]
) -> dict:
    """The loss and pull one sample gets under each loss (Translated ReLU, Smooth K2, L1, MSE) at
    ``x = |prediction - label|``, checked as training checks them (``k > 0``, ``0 <= x0 <= d/2``): the numbers
    of the explorer's "One sample" table, for the API and MCP. The point lies within ``±MAX_POINT``, so the answer
    is finite JSON (MSE at 1e200 would be Infinity)."""
    prediction = check_range("prediction", prediction, -MAX_POINT, MAX_POINT)
    label = check_range("label", label, -MAX_POINT, MAX_POINT)
    check_buffer(k, x0, d)
    k, x0, d = float(k), float(x0), float(d)  # checked: the numbers they read as, never the text given ("2")
    return {
        "prediction": prediction,
        "label": label,
        "k": k,
        "x0": x0,
        "d": d,
        "losses": sample_losses(prediction, label, k, x0),
    }
