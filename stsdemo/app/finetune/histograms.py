"""The Fine-tune tab's error histograms: |prediction − label| on the dev pairs at each evaluation of a run, coloured
by zone (inside the buffer, rounds to the right node, a wrong node), and two runs' last histograms overlaid (the
with/without-buffer comparison)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ...events import EvalEvent
from ..figure_style import COLORS, band, quick_figure, vline


def _share_below(counts: list[int], width: float, limit: float) -> float:
    """Share of the histogram's pairs in bins that end at or below ``limit``."""
    total = sum(counts) or 1
    return sum(c for i, c in enumerate(counts) if (i + 1) * width <= limit + 1e-9) / total


def _zone_marks(gap: float, x0: float) -> tuple[list[dict], list[dict]]:
    """The shapes and labels an error histogram shares: d/2 (beyond it a pair rounds to a wrong node) as a
    dashed line and, when there is a buffer, the zone 0..x0 shaded with its edge marked."""
    shapes = [vline(gap / 2, color="#374151", width=1.2, dash="dash")]
    notes = [
        dict(
            x=gap / 2,
            y=1.0,
            yref="y domain",
            yanchor="bottom",
            text="d/2",
            showarrow=False,
            xanchor="left",
            font=dict(size=12, color="#374151"),
        )
    ]
    if x0 > 0:
        shapes += [band(0, x0, COLORS["buffer"]), vline(x0, color="#0b4f80", width=1.5)]
        notes.append(
            dict(
                x=x0,
                y=1.0,
                yref="y domain",
                yanchor="bottom",
                text="x0",
                showarrow=False,
                xanchor="right",
                font=dict(size=12, color="#0b4f80"),
            )
        )
    return shapes, notes


def error_histogram(evals: Sequence[EvalEvent], title: str = "") -> go.Figure:
    """|prediction − label| on the dev pairs at each evaluation of a run (``evals``: its eval events, with
    ``error_hist = {"width", "counts"}``, ``x0``, ``gap`` and ``step``): the latest as bars, coloured by zone
    (inside the buffer x < x0: no gradient; up to d/2: rounds to the right node; beyond: a wrong node), the
    start as a dashed outline and the evaluations between as outlines to switch on in the legend, so pairs
    can be seen moving into the buffer zone."""
    evals = [e for e in evals if (e.error_hist or {}).get("counts")]
    if not evals:
        return quick_figure(
            [],
            300,
            title=dict(text=title or "Dev errors |prediction − label|", x=0.01),
            xaxis=dict(visible=False),
            yaxis=dict(visible=False),
            annotations=[
                dict(
                    text="appears at the first dev evaluation",
                    x=0.5,
                    y=0.5,
                    xref="paper",
                    yref="paper",
                    showarrow=False,
                    font=dict(size=14, color="#6b7280"),
                )
            ],
        )
    last = evals[-1]
    width, gap, x0 = float(last.error_hist["width"]), float(last.gap or 1.0), float(last.x0 or 0.0)
    counts = list(last.error_hist["counts"])
    used = max([i + 1 for e in evals for i, c in enumerate(e.error_hist["counts"]) if c] or [1])
    data = [_outline(event, width, start=index == 0) for index, event in enumerate(evals[:-1])]
    centers = [(i + 0.5) * width for i in range(len(counts))]
    zone = [COLORS["trelu"] if c < x0 else "#56B4E9" if c < gap / 2 else COLORS["sk2"] for c in centers]
    data.append(
        dict(
            type="bar",
            x=centers,
            y=counts,
            width=width * 0.95,
            marker=dict(color=zone),
            name=f"step {last.step} (latest)",
            hovertemplate="x=%{x:.3f}: %{y} pairs<extra></extra>",
        )
    )
    shapes, notes = _zone_marks(gap, x0)
    heading = (
        f"Dev errors · {title + ' · ' if title else ''}step {last.step}<br><sup>"
        f"{_share_below(counts, width, x0):.0%} in the buffer (x < x0) · "
        f"{_share_below(counts, width, gap / 2):.0%} on the right node (x < d/2)</sup>"
    )
    # The legend sits well below the axis title: in a narrow column its entries wrap onto two rows.
    return quick_figure(
        data,
        360,
        shapes=shapes,
        annotations=notes,
        bargap=0,
        title=dict(text=heading, x=0.01, font=dict(size=13)),
        xaxis=dict(range=[0, max(gap, used * width)], title=dict(text="x = |prediction − label|")),
        yaxis=dict(title=dict(text="dev pairs"), rangemode="tozero"),
        legend=dict(orientation="h", yanchor="top", y=-0.24, x=0, font=dict(size=11)),
        margin=dict(l=50, r=20, t=60, b=105),
    )


def _steps(counts: list[int], width: float) -> dict:
    """A histogram's bins as the x, y of a step outline (``line_shape="hv"``)."""
    return dict(
        x=[i * width for i in range(len(counts) + 1)], y=[*counts, counts[-1]], mode="lines", line_shape="hv"
    )


def _outline(event: EvalEvent, width: float, start: bool) -> dict:
    """An earlier evaluation's histogram as a step outline: the start dashed and shown, the others listed in
    the legend (click to show)."""
    return dict(
        type="scatter",
        **_steps(event.error_hist["counts"], width),
        name=f"{'start, ' if start else ''}step {event.step}",
        visible=True if start else "legendonly",
        line=dict(
            color="#374151" if start else "#6b7280",
            width=1.5 if start else 1,
            dash="dash" if start else "solid",
        ),
        hovertemplate=f"step {event.step}<br>x=%{{x:.2f}}: %{{y}} pairs<extra></extra>",
    )


def overlaid_histograms(runs: Sequence[tuple[str, Sequence[EvalEvent]]], title: str) -> go.Figure:
    """The last dev error histogram of each ``(name, evals)`` run as an outline on one axis (the first solid,
    the second dashed), with d/2 and the widest buffer x0 marked: two runs that differ in one setting."""
    data, gap, x0, right = [], 1.0, 0.0, 0.0
    for (name, evals), color, dash in zip(runs, ("#0072B2", "#D55E00"), ("solid", "dash")):
        evals = [e for e in evals if (e.error_hist or {}).get("counts")]
        if not evals:
            continue
        last = evals[-1]
        width, counts = float(last.error_hist["width"]), last.error_hist["counts"]
        gap, x0 = float(last.gap or gap), max(x0, float(last.x0 or 0.0))
        right = max(right, width * max([i + 1 for i, c in enumerate(counts) if c] or [1]))
        data.append(
            dict(
                type="scatter",
                **_steps(counts, width),
                line=dict(color=color, width=2, dash=dash),
                name=f"{name} · step {last.step}",
                hovertemplate="x=%{x:.2f}: %{y} pairs<extra></extra>",
            )
        )
    shapes, notes = _zone_marks(gap, x0)
    return quick_figure(
        data,
        360,
        shapes=shapes,
        annotations=notes,
        title=dict(text=title, x=0.01, font=dict(size=13)),
        xaxis=dict(title=dict(text="x = |prediction − label|"), range=[0, max(gap, right)], tickformat=".2f"),
        yaxis=dict(title=dict(text="dev pairs"), rangemode="tozero", tickformat="d"),
        legend=dict(orientation="h", yanchor="top", y=-0.25, x=0, font=dict(size=11)),
        margin=dict(l=50, r=20, t=50, b=100),
    )
