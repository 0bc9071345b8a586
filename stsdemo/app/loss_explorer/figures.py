"""The Loss explorer's chart: the losses over ``x = |prediction - label|`` and their gradients, with the buffer,
the margin and (for an invalid setting) the red band shaded. The curves come from the same pure functions training
uses (:func:`stsdemo.losses.sample.loss_curve`), so what the explorer draws is exactly what a run optimises."""

from __future__ import annotations

from typing import Iterable

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from ...errors import InputError, check_range
from ...losses.buffer import buffer_problem
from ...losses.sample import DISTANCE_LOSSES, loss_curve
from ..figure_style import COLORS, styled, swatch

# The distance losses (stsdemo.losses.sample) are drawn with their spec's short name. Those with a buffer take the
# explorer's k and x0 and are always drawn; the others (L1, MSE) are references the user can add, by their labels.
BUFFER_LOSSES = tuple(name for name, cls in DISTANCE_LOSSES.items() if cls.spec.buffer)
REFERENCE_LOSSES = tuple(cls.spec.label for cls in DISTANCE_LOSSES.values() if not cls.spec.buffer)


def loss_figure(k: float, x0: float, d: float, references: Iterable[str] = REFERENCE_LOSSES,
                sample: tuple[float, float] | None = None, strict: bool = False) -> go.Figure:
    """Translated ReLU and Smooth K2 (plus L1 / MSE references) over ``x = |prediction - label|``, left, and
    their gradients ``df/dx``, right. The buffer zone ``[0, x0)`` and the margin up to ``d/2`` are shaded.

    With ``x0 > d/2`` the figure marks the band ``(d/2, x0)`` red: predictions there already round to a
    wrong node but get no gradient. ``strict=True`` raises :class:`InputError` instead.
    ``sample``: ``(prediction, label)`` of one sample, marked on both charts.
    """
    k = check_range("slope k", k, 0, low_open=True)
    d = check_range("gap d", d, 0, low_open=True)
    x0 = check_range("buffer x0", x0, 0)
    problem = buffer_problem(k, x0, d)
    if problem and strict:
        raise InputError(problem)
    x_max = max(2.5 * d, x0 + d)
    x = torch.linspace(0, x_max, 501, dtype=torch.float64)
    chosen = {str(reference).lower() for reference in references}
    wanted = set(BUFFER_LOSSES) | {name for name, cls in DISTANCE_LOSSES.items() if cls.spec.label.lower() in chosen}
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.09,
                        subplot_titles=("loss f(x)", "pull df/dx"))
    for name, cls in DISTANCE_LOSSES.items():
        if name not in wanted:
            continue
        label, tuned = cls.spec.short, cls.spec.buffer
        y, grad = loss_curve(name, x, k, x0)
        line = dict(color=COLORS[name], width=3 if tuned else 1.6, dash=None if tuned else "dot")
        fig.add_trace(go.Scatter(x=x.numpy(), y=y.numpy(), name=label, line=line, legendgroup=name,
                                 hovertemplate=f"{label}<br>x=%{{x:.3f}}<br>f=%{{y:.3f}}<extra></extra>"), 1, 1)
        fig.add_trace(go.Scatter(x=x.numpy(), y=grad.numpy(), name=label, line=line, legendgroup=name,
                                 showlegend=False,
                                 hovertemplate=f"{label}<br>x=%{{x:.3f}}<br>df/dx=%{{y:.3f}}<extra></extra>"), 1, 2)
    for col in (1, 2):
        if x0 > 0:
            fig.add_vrect(x0=0, x1=min(x0, d / 2), fillcolor=COLORS["buffer"], line_width=0, layer="below",
                          row=1, col=col)
        fig.add_vrect(x0=min(x0, d / 2), x1=d / 2, fillcolor=COLORS["margin"], line_width=0, layer="below",
                      row=1, col=col)
        if x0 > d / 2:
            fig.add_vrect(x0=d / 2, x1=x0, fillcolor=COLORS["bad"], line_width=0, layer="below", row=1, col=col)
        fig.add_vline(x=d / 2, line=dict(color="#374151", width=1.2, dash="dash"), row=1, col=col)
        fig.update_xaxes(range=[0, x_max], row=1, col=col)
    # one axis title under both charts: two would collide on a phone
    fig.add_annotation(text="x = |prediction − label| (both charts)", x=0.5, y=-0.1, xref="paper", yref="paper",
                       yanchor="top", showarrow=False, font=dict(size=12, color="#374151"))
    for zone in _loss_zones(x0, d, problem):  # the shaded bands, named in the legend
        fig.add_trace(zone, 1, 1)
    fig.add_annotation(x=d / 2, y=1.0, yref="y domain", text="d/2", showarrow=False, xanchor="left",
                       font=dict(size=12, color="#374151"), row=1, col=1)
    if x0 > 0:
        fig.add_annotation(x=min(x0, d / 2) / 2, y=0.5, yref="y domain", text="buffer", showarrow=False,
                           textangle=-90, font=dict(size=11, color="#0b4f80"), row=1, col=1)
    if sample is not None:
        _mark_sample(fig, sample, k, x0, x_max)
    fig.update_yaxes(rangemode="tozero", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    # The title in lines that fit a phone; an invalid setting says so on a line of its own (no note inside the
    # chart: in the narrow red band it ran over the curves and the buffer's label).
    title = f"k = {k:g}, x0 = {x0:g}, d = {d:g}"
    if problem:
        title += "<br>invalid: x0 > d/2, the red band<br>rounds to a wrong node, no pull"
    return styled(fig, 480 + 40 * bool(problem),
                  title=dict(text=title, x=0.01, y=1, yref="container", yanchor="top",
                             pad=dict(t=30 if problem else 12),
                             font=dict(size=15, color="#a3161b" if problem else "#111827")),
                  legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, font=dict(size=11)),
                  margin=dict(l=45, r=15, t=110 if problem else 60, b=140))


def _mark_sample(fig: go.Figure, sample: tuple[float, float], k: float, x0: float, x_max: float) -> None:
    """One sample ``(prediction, label)`` marked on both charts, on each buffered loss's curve (unless its
    distance lies beyond the drawn range)."""
    prediction, label = sample
    distance = abs(float(prediction) - float(label))
    if distance > x_max:
        return
    for name in BUFFER_LOSSES:
        y, grad = loss_curve(name, torch.tensor([distance], dtype=torch.float64), k, x0)
        marker = dict(size=11, color=COLORS[name], line=dict(width=2, color="white"))
        for col, values, what in ((1, y, "f"), (2, grad, "df/dx")):
            fig.add_trace(go.Scatter(
                x=[distance], y=values.numpy(), mode="markers", showlegend=False, marker=marker,
                hovertemplate=f"your sample<br>x=%{{x:.3f}}<br>{what}=%{{y:.3f}}<extra></extra>"), 1, col)


def _loss_zones(x0: float, d: float, problem: str) -> list[dict]:
    """Legend entries for the loss charts' bands: the buffer (no gradient), the stretch up to d/2 where a sample
    is pulled but still rounds to its own node, and (invalid) the stretch past d/2 left without a gradient."""
    zones = [swatch("x < x0: buffer, no pull", COLORS["buffer"])] if x0 > 0 else []
    zones.append(swatch("x0 ≤ x < d/2: pulled, right node", COLORS["margin"],
                        dict(color="rgba(31,41,55,0.3)", width=1)))
    if problem:
        zones.append(swatch("d/2 < x < x0: wrong node, no pull", COLORS["bad"]))
    return zones
