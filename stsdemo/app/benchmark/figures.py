"""The Benchmark tab's chart: the seven tasks and Avg. as grouped bars, one bar per model, published scores
hatched."""

from __future__ import annotations

import plotly.graph_objects as go

from ...evaluate import TASKS, row_average
from ..figure_style import styled
from ..task_tables import task_names


def benchmark_figure(
    rows: dict[str, dict[str, float]],
    references: dict[str, dict[str, float]] | None = None,
    title: str = "Spearman ×100 of cosine similarity (SentEval, 'all' setting)",
) -> go.Figure:
    """Grouped bars: one group per task (and Avg.), one bar per model; reference rows hatched."""
    names = [*task_names(), "Avg."]
    keys = [*TASKS, "Avg."]
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
    fig = go.Figure()
    for i, (model, scores) in enumerate(rows.items()):
        values = [scores.get(k) if k != "Avg." else row_average(scores) for k in keys]
        fig.add_trace(
            go.Bar(
                name=model,
                x=names,
                y=values,
                marker_color=palette[i % len(palette)],
                text=[None if v is None else f"{v:.1f}" for v in values],
                textposition="outside",
                hovertemplate=f"{model}<br>%{{x}}: %{{y:.2f}}<extra></extra>",
            )
        )
    for model, scores in (references or {}).items():
        values = [scores.get(k) if k != "Avg." else None for k in keys]
        fig.add_trace(
            go.Bar(
                name=model,
                x=names,
                y=values,
                marker=dict(color="rgba(107,114,128,0.35)", pattern=dict(shape="/", fgcolor="#6b7280")),
                hovertemplate=f"{model}<br>%{{x}}: %{{y:.2f}}<extra></extra>",
            )
        )
    all_values = [v for trace in fig.data for v in trace.y if v is not None]
    low = max(0.0, (min(all_values) if all_values else 0) - 10)
    fig.update_yaxes(range=[low, 100], title="Spearman × 100")
    fig.update_layout(barmode="group", bargap=0.18, showlegend=True)
    if not fig.data:
        fig.add_annotation(
            text="Evaluate a model to see its bars here",
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            showarrow=False,
            font=dict(size=15, color="#6b7280"),
        )
    return styled(fig, 430, title=dict(text=title, x=0.01), legend=dict(orientation="h", y=-0.18, x=0))
