"""The Score tab's figure: the label scheme's nodes on a line, each with its buffer zone and the values that round
to it, and where a prediction (and a gold label) fell."""

from __future__ import annotations

import functools
import math

import plotly.graph_objects as go

from ...labels import LabelScheme
from ...losses.spec import PAPER_X0
from ..figure_style import COLORS, band, quick_figure, swatch, vline, wrap_title


@functools.lru_cache(maxsize=64)
def _number_line_parts(categories: tuple, gap: float, x0: float) -> tuple[tuple, tuple, dict]:
    """What a scheme's line looks like before a prediction falls on it: per node its margin band (the values
    that round to it) and buffer band, the boundaries, the node markers and legend swatches, the x axis."""
    nodes = [i * gap for i in range(len(categories))]
    bands = []
    for node in nodes:
        bands.append(band(node - gap / 2, node + gap / 2, COLORS["margin"]))
        if x0 > 0:
            bands.append(band(node - x0, node + x0, COLORS["buffer"]))
    bands += [
        vline((i - 0.5) * gap, color="rgba(31,41,55,0.25)", width=1, dash="dot")
        for i in range(len(nodes) + 1)
    ]
    traces = (
        dict(
            type="scatter",
            x=nodes,
            y=[0.0] * len(nodes),
            mode="markers",
            name="nodes",
            customdata=list(categories),
            marker=dict(size=14, color=COLORS["node"], symbol="diamond-tall"),
            hovertemplate="%{customdata}<br>node %{x:g}<extra></extra>",
            showlegend=False,
        ),
        swatch(f"buffer zone |x−node| < x0 = {x0:g}", COLORS["buffer"]),
        swatch(
            f"rounds to the node (±d/2 = ±{gap / 2:g})",
            COLORS["margin"],
            dict(color="rgba(31,41,55,0.3)", width=1),
        ),
    )
    numeric = all(c == f"{n:g}" for c, n in zip(categories, nodes))
    ticks = [f"{n:g}" if numeric else f"<b>{c}</b><br>{n:g}" for c, n in zip(categories, nodes)]
    axis = dict(
        tickvals=nodes,
        ticktext=ticks,
        showgrid=False,
        zeroline=False,
        title=dict(text=f"the label line (gap d = {gap:g})"),
    )
    return tuple(bands), traces, axis


def number_line(
    scheme: LabelScheme,
    prediction: float | None = None,
    x0: float = PAPER_X0,
    gold: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """The scheme's nodes on a line: each node's buffer zone ``±x0`` (no gradient in training), its
    margin up to ``±d/2`` (the values that round to it), and where ``prediction`` (and a gold label) fell.

    Built from plain dicts (drawn on every scoring request; see :func:`~stsdemo.app.figure_style.quick_figure`); the static part of
    each scheme's line is made once.
    """
    d = scheme.gap
    x0 = min(max(float(x0), 0.0), d / 2)
    bands, traces, axis = _number_line_parts(tuple(scheme.categories), float(d), x0)
    low, high = line_ends(scheme)
    if gold is not None and math.isfinite(gold):
        low, high = min(low, gold - 0.3 * d), max(high, gold + 0.3 * d)
    shapes = list(bands)
    data = list(traces)
    if prediction is not None:
        chosen = int(scheme.nearest_index([prediction])[0])
        step = 2 if x0 > 0 else 1  # each node's margin band, then (with a buffer) its buffer band
        shapes[chosen * step] = {**shapes[chosen * step], "fillcolor": COLORS["chosen"]}
    if gold is not None and math.isfinite(gold):
        data.append(
            dict(
                type="scatter",
                x=[gold],
                y=[0.55],
                mode="markers",
                name=f"gold label {gold:g}",
                marker=dict(symbol="diamond", size=13, color=COLORS["gold"]),
                hovertemplate="gold %{x:.3f}<extra></extra>",
            )
        )
    if prediction is not None and math.isfinite(prediction):
        data += _prediction_marks(prediction, scheme.categories[chosen], low, high)
    return quick_figure(
        data,
        350,
        shapes=shapes,
        xaxis=dict(axis, range=[low, high]),
        yaxis=dict(visible=False, range=[-0.25, 1.35]),
        title=dict(
            text=wrap_title(title or "Where the prediction falls", 26, " → ", keep=True),
            x=0.01,
            font=dict(size=15),
        ),
        legend=dict(orientation="h", yanchor="top", y=-0.38, x=0),
        margin=dict(l=30, r=20, t=64, b=20),
    )


def line_ends(scheme: LabelScheme) -> tuple[float, float]:
    """Where a scheme's drawn line ends, three quarters of a gap beyond its outer nodes: a prediction beyond them
    is drawn at the end (:func:`number_line`), so the nodes stay readable however far off it lies."""
    return scheme.nodes[0] - 0.75 * scheme.gap, scheme.nodes[-1] + 0.75 * scheme.gap


def _prediction_marks(prediction: float, category: str, low: float, high: float) -> list[dict]:
    """The prediction's stem and marker, labelled with its value and category; one beyond the line's ends
    (``low``, ``high``) is drawn at the end, its marker pointing on, its label saying so."""
    drawn = min(max(prediction, low), high)
    side = "left" if prediction < low else "right" if prediction > high else ""
    label = f"  {prediction:.2f} → {category}  "
    if side == "left":
        label = f"  ◀ {prediction:.2f}, beyond the line<br>  → {category}  "
    elif side == "right":
        label = f"  {prediction:.2f}, beyond the line ▶<br>  → {category}  "
    stem = dict(
        type="scatter",
        x=[drawn, drawn],
        y=[0, 0.9],
        mode="lines",
        showlegend=False,
        hoverinfo="skip",
        line=dict(color=COLORS["prediction"], width=2, dash="dot" if side else None),
    )
    mark = dict(
        type="scatter",
        x=[drawn],
        y=[0.9],
        mode="markers+text",
        name=f"prediction {prediction:.3f}",
        cliponaxis=False,
        text=[label],
        textposition="middle left" if drawn > (low + high) / 2 else "middle right",
        marker=dict(symbol=f"triangle-{side or 'down'}", size=15, color=COLORS["prediction"]),
        customdata=[prediction],
        hovertemplate="prediction %{customdata:.3f}<extra></extra>",
    )
    return [stem, mark]
