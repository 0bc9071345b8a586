"""The *Loss explorer* tab as plain Python: the two losses and their gradients for one setting of k, x0, d."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...errors import InputError, check_range
from ...losses.buffer import buffer_problem, check_buffer
from ...losses.explorer import MAX_POINT, SAMPLE, SLIDERS, START  # noqa: F401 (the tab, links and tools read them here)
from ...losses.sample import sample_losses
from ...losses.spec import paper_k_text
from .figures import loss_figure

SAMPLE_COLUMNS = {"x": "x = |pred − label|", "value": "f(x)", "gradient": "df/dprediction",
                  "in_buffer": "in buffer (no gradient)"}   # a sample row's fields as the table titles them


def slope_hint() -> str:
    """What the k slider says under it: the paper's k per loss and encoder family."""
    return f"Paper: {paper_k_text()}"


@dataclass
class LossView:
    figure: object
    formulas: str                 # Markdown with LaTeX
    table: pd.DataFrame | None    # loss and pull of the one sample


def loss_view(k: float, x0: float, d: float, references=(), prediction: float | None = None,
              label: float | None = None, strict: bool = False) -> LossView:
    """The charts, formulas and sample table. ``strict``: x0 > d/2 raises InputError instead of being drawn
    as the invalid state (a red band where predictions round to a wrong node but get no gradient)."""
    sample = None if prediction is None or label is None else (prediction, label)
    figure = loss_figure(k, x0, d, references or [], sample, strict=strict)
    table = sample_table(prediction, label, k, x0) if sample else None
    return LossView(figure, formulas(k, x0, d), table)


def formulas(k: float, x0: float, d: float) -> str:
    """The two losses with the current numbers filled in, as Markdown with ``$...$`` / ``$$...$$`` LaTeX."""
    problem = buffer_problem(k, x0, d)
    # inline maths, one short formula a line: display maths does not wrap, and a phone would clip it
    text = (
        "**Translated ReLU**: the same pull $k$ on every sample outside the buffer\n\n"
        "$f(x) = \\max\\bigl(0,\\ k\\,(x - x_0)\\bigr)$  \n"
        f"here $f(x) = \\max\\bigl(0,\\ {k:g}\\,(x - {x0:g})\\bigr)$\n\n"
        "**Smooth K2**: the pull $2k(x - x_0)$ grows with the error; smooth at $x_0$\n\n"
        "$f(x) = k\\,\\max(0,\\ x - x_0)^2$  \n"
        f"here $f(x) = {k:g}\\,\\max(0,\\ x - {x0:g})^2$\n\n"
        f"$x = |\\text{{prediction}} - \\text{{label}}|$, buffer $0 \\le x_0 \\le d/2$, here $d/2 = {d / 2:g}$."
    )
    if problem:
        return text + f"\n\n✗ **Invalid setting** — {problem}."
    return text + (f"\n\n✓ **Valid.** A prediction within ±{x0:g} of its label gets no gradient; every prediction "
                   f"that rounds to a wrong node ($x > {d / 2:g}$) is still pulled back.")


def sample_table(prediction: float, label: float, k: float, x0: float) -> pd.DataFrame:
    """The "One sample" table: :func:`stsdemo.losses.sample.sample_losses` under the column titles it shows."""
    return pd.DataFrame(sample_losses(prediction, label, k, x0)).rename(columns=SAMPLE_COLUMNS)


def live_view(*args) -> LossView | str:
    """For a slider being dragged: the view, or the message of an invalid setting (never raises)."""
    try:
        return loss_view(*args)
    except InputError as error:
        return f"✗ **Invalid setting** — {error}."


def loss_at(prediction: float, label: float, k: float = START["k"], x0: float = START["x0"],
            d: float = START["d"]) -> dict:
    """The loss and pull one sample gets under each loss (Translated ReLU, Smooth K2, L1, MSE) at
    ``x = |prediction - label|``, checked as training checks them (``k > 0``, ``0 <= x0 <= d/2``): the numbers
    of the explorer's "One sample" table, for the API and MCP. The point lies within ``±MAX_POINT``, so the answer
    is finite JSON (MSE at 1e200 would be Infinity)."""
    prediction = check_range("prediction", prediction, -MAX_POINT, MAX_POINT)
    label = check_range("label", label, -MAX_POINT, MAX_POINT)
    check_buffer(k, x0, d)
    k, x0, d = float(k), float(x0), float(d)   # checked: the numbers they read as, never the text given ("2")
    return {"prediction": prediction, "label": label, "k": k, "x0": x0, "d": d,
            "losses": sample_losses(prediction, label, k, x0)}
