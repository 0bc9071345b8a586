"""Every chart and table the app shows, as pure functions: plotly figures and pandas DataFrames.

Nothing here imports gradio; the app passes the results to its components. The loss curves and their
gradients come from the same pure functions training uses (``stsdemo.losses``), through torch autograd,
so what the explorer draws is exactly what a run optimises.
"""

from __future__ import annotations

import functools
import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import torch
from plotly.subplots import make_subplots

from ..data.pairs import spaced_positions
from ..errors import InputError, check_range
from ..evaluate import TABLE_NAMES, TASKS
from ..events import EvalEvent, StartEvent, StepEvent
from ..labels import LabelScheme
from ..losses.buffer import check_buffer
from ..losses.sample import DISTANCE_LOSSES
from ..losses.spec import PAPER_X0

# One palette for the whole app (colour-blind friendly, after Okabe & Ito).
COLORS = {
    "sk2": "#D55E00",       # Smooth K2
    "trelu": "#0072B2",     # Translated ReLU
    "l1": "#7f7f7f",
    "mse": "#009E73",
    "buffer": "rgba(0, 114, 178, 0.22)",
    "margin": "rgba(0, 114, 178, 0.07)",
    "chosen": "rgba(230, 159, 0, 0.30)",
    "bad": "rgba(204, 37, 41, 0.20)",
    "prediction": "#CC2529",
    "gold": "#009E73",
    "node": "#1f2937",
}
FONT = dict(family="Inter, system-ui, -apple-system, Segoe UI, sans-serif", size=13)

# The distance losses (stsdemo.losses.sample) are drawn with their spec's short name. Those with a buffer take the
# explorer's k and x0 and are always drawn; the others (L1, MSE) are references the user can add, by their labels.
BUFFER_LOSSES = tuple(name for name, cls in DISTANCE_LOSSES.items() if cls.spec.buffer)
REFERENCE_LOSSES = tuple(cls.spec.label for cls in DISTANCE_LOSSES.values() if not cls.spec.buffer)


def wrap_title(text: str, width: int = 40, separator: str = " · ", keep: bool = False) -> str:
    """``text`` broken into lines of at most about ``width`` characters (Plotly's ``<br>``) at its ``separator``:
    a Plotly title never wraps on its own, and one line of 60 characters runs off a 390 px phone screen. ``keep``:
    a line broken at the separator starts the next one with it (an arrow that reads on); else it is dropped."""
    parts = text.split(separator)
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.append(separator.lstrip() + part if keep else part)
    return "<br>".join(lines)


def _layout(fig: go.Figure, height: int, **extra) -> go.Figure:
    extra.setdefault("margin", dict(l=50, r=20, t=50, b=45))
    fig.update_layout(template="plotly_white", height=height, font=FONT, hoverlabel=dict(font_size=12), **extra)
    return fig


@functools.lru_cache(maxsize=1)
def _template() -> dict:
    return pio.templates["plotly_white"].to_plotly_json()


def _quick_figure(data: list[dict], height: int, **layout) -> go.Figure:
    """A figure from plain dicts, not validated by plotly (which takes ~100 ms for a figure with dozens of
    shapes): for the figures redrawn on every request. The layout is the one :func:`_layout` gives."""
    layout.setdefault("margin", dict(l=50, r=20, t=50, b=45))
    layout = dict(template=_template(), height=height, font=FONT, hoverlabel=dict(font=dict(size=12)), **layout)
    return go.Figure(dict(data=data, layout=layout), _validate=False)


def _band(x0: float, x1: float, color: str) -> dict:
    """A full-height shaded band between x0 and x1 (what ``fig.add_vrect`` draws)."""
    return dict(type="rect", xref="x", yref="y domain", x0=x0, x1=x1, y0=0, y1=1, fillcolor=color, layer="below",
                line=dict(width=0))


def _vline(x: float, **line) -> dict:
    """A full-height vertical line at x (what ``fig.add_vline`` draws)."""
    return dict(type="line", xref="x", yref="y domain", x0=x, x1=x, y0=0, y1=1, line=line)


def _swatch(name: str, color: str, outline: dict | None = None) -> dict:
    """A legend entry without points: a coloured square naming a shaded band."""
    marker = dict(symbol="square", size=13, color=color, **(dict(line=outline) if outline else {}))
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, marker=marker)


# ---- tab 1: where a prediction falls on the label line ------------------------------------------


@functools.lru_cache(maxsize=64)
def _number_line_parts(categories: tuple, gap: float, x0: float) -> tuple[tuple, tuple, dict]:
    """What a scheme's line looks like before a prediction falls on it: per node its margin band (the values
    that round to it) and buffer band, the boundaries, the node markers and legend swatches, the x axis."""
    nodes = [i * gap for i in range(len(categories))]
    bands = []
    for node in nodes:
        bands.append(_band(node - gap / 2, node + gap / 2, COLORS["margin"]))
        if x0 > 0:
            bands.append(_band(node - x0, node + x0, COLORS["buffer"]))
    bands += [_vline((i - 0.5) * gap, color="rgba(31,41,55,0.25)", width=1, dash="dot") for i in range(len(nodes) + 1)]
    traces = (
        dict(type="scatter", x=nodes, y=[0.0] * len(nodes), mode="markers", name="nodes", customdata=list(categories),
             marker=dict(size=14, color=COLORS["node"], symbol="diamond-tall"),
             hovertemplate="%{customdata}<br>node %{x:g}<extra></extra>", showlegend=False),
        _swatch(f"buffer zone |x−node| < x0 = {x0:g}", COLORS["buffer"]),
        _swatch(f"rounds to the node (±d/2 = ±{gap / 2:g})", COLORS["margin"],
                dict(color="rgba(31,41,55,0.3)", width=1)),
    )
    numeric = all(c == f"{n:g}" for c, n in zip(categories, nodes))
    ticks = [f"{n:g}" if numeric else f"<b>{c}</b><br>{n:g}" for c, n in zip(categories, nodes)]
    axis = dict(tickvals=nodes, ticktext=ticks, showgrid=False, zeroline=False,
                title=dict(text=f"the label line (gap d = {gap:g})"))
    return tuple(bands), traces, axis


def number_line(scheme: LabelScheme, prediction: float | None = None, x0: float = PAPER_X0,
                gold: float | None = None, title: str | None = None) -> go.Figure:
    """The scheme's nodes on a line: each node's buffer zone ``±x0`` (no gradient in training), its
    margin up to ``±d/2`` (the values that round to it), and where ``prediction`` (and a gold label) fell.

    Built from plain dicts (drawn on every scoring request; see :func:`_quick_figure`); the static part of
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
        step = 2 if x0 > 0 else 1     # each node's margin band, then (with a buffer) its buffer band
        shapes[chosen * step] = {**shapes[chosen * step], "fillcolor": COLORS["chosen"]}
    if gold is not None and math.isfinite(gold):
        data.append(dict(type="scatter", x=[gold], y=[0.55], mode="markers", name=f"gold label {gold:g}",
                         marker=dict(symbol="diamond", size=13, color=COLORS["gold"]),
                         hovertemplate="gold %{x:.3f}<extra></extra>"))
    if prediction is not None and math.isfinite(prediction):
        data += _prediction_marks(prediction, scheme.categories[chosen], low, high)
    return _quick_figure(data, 350, shapes=shapes, xaxis=dict(axis, range=[low, high]),
                         yaxis=dict(visible=False, range=[-0.25, 1.35]),
                         title=dict(text=wrap_title(title or "Where the prediction falls", 26, " → ", keep=True),
                                    x=0.01, font=dict(size=15)),
                         legend=dict(orientation="h", yanchor="top", y=-0.38, x=0),
                         margin=dict(l=30, r=20, t=64, b=20))


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
    stem = dict(type="scatter", x=[drawn, drawn], y=[0, 0.9], mode="lines", showlegend=False, hoverinfo="skip",
                line=dict(color=COLORS["prediction"], width=2, dash="dot" if side else None))
    mark = dict(type="scatter", x=[drawn], y=[0.9], mode="markers+text", name=f"prediction {prediction:.3f}",
                cliponaxis=False,
                text=[label], textposition="middle left" if drawn > (low + high) / 2 else "middle right",
                marker=dict(symbol=f"triangle-{side or 'down'}", size=15, color=COLORS["prediction"]),
                customdata=[prediction], hovertemplate="prediction %{customdata:.3f}<extra></extra>")
    return [stem, mark]


# ---- tab 2: the losses and their gradients ----------------------------------------------------------


def _curve(name: str, x: torch.Tensor, k: float, x0: float) -> tuple[np.ndarray, np.ndarray]:
    """Loss and its derivative w.r.t. the distance ``x``, by autograd on the pure loss function."""
    x = x.detach().clone().requires_grad_(True)
    y = DISTANCE_LOSSES[name].curve(x, k, x0)
    (grad,) = torch.autograd.grad(y.sum(), x)
    return y.detach().numpy(), grad.numpy()


def check_explorer(k: float, x0: float, d: float) -> str:
    """'' when the settings are valid, else the message of :func:`stsdemo.losses.buffer.check_buffer`."""
    try:
        check_buffer(k, x0, d)
    except InputError as error:
        return str(error)
    return ""


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
    problem = check_explorer(k, x0, d)
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
        y, grad = _curve(name, x, k, x0)
        line = dict(color=COLORS[name], width=3 if tuned else 1.6, dash=None if tuned else "dot")
        fig.add_trace(go.Scatter(x=x.numpy(), y=y, name=label, line=line, legendgroup=name,
                                 hovertemplate=f"{label}<br>x=%{{x:.3f}}<br>f=%{{y:.3f}}<extra></extra>"), 1, 1)
        fig.add_trace(go.Scatter(x=x.numpy(), y=grad, name=label, line=line, legendgroup=name, showlegend=False,
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
    for swatch in _loss_zones(x0, d, problem):  # the shaded bands, named in the legend
        fig.add_trace(swatch, 1, 1)
    fig.add_annotation(x=d / 2, y=1.0, yref="y domain", text="d/2", showarrow=False, xanchor="left",
                       font=dict(size=12, color="#374151"), row=1, col=1)
    if x0 > 0:
        fig.add_annotation(x=min(x0, d / 2) / 2, y=0.5, yref="y domain", text="buffer", showarrow=False,
                           textangle=-90, font=dict(size=11, color="#0b4f80"), row=1, col=1)
    if sample is not None:
        prediction, label = sample
        distance = abs(float(prediction) - float(label))
        if distance <= x_max:
            for name in BUFFER_LOSSES:
                y, grad = _curve(name, torch.tensor([distance], dtype=torch.float64), k, x0)
                marker = dict(size=11, color=COLORS[name], line=dict(width=2, color="white"))
                for col, values, what in ((1, y, "f"), (2, grad, "df/dx")):
                    fig.add_trace(go.Scatter(
                        x=[distance], y=values, mode="markers", showlegend=False, marker=marker,
                        hovertemplate=f"your sample<br>x=%{{x:.3f}}<br>{what}=%{{y:.3f}}<extra></extra>"), 1, col)
    fig.update_yaxes(rangemode="tozero", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    # The title in lines that fit a phone; an invalid setting says so on a line of its own (no note inside the
    # chart: in the narrow red band it ran over the curves and the buffer's label).
    title = f"k = {k:g}, x0 = {x0:g}, d = {d:g}"
    if problem:
        title += "<br>invalid: x0 > d/2, the red band<br>rounds to a wrong node, no pull"
    return _layout(fig, 480 + 40 * bool(problem),
                   title=dict(text=title, x=0.01, y=1, yref="container", yanchor="top", pad=dict(t=30 if problem else 12),
                              font=dict(size=15, color="#a3161b" if problem else "#111827")),
                   legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, font=dict(size=11)),
                   margin=dict(l=45, r=15, t=110 if problem else 60, b=140))


def _loss_zones(x0: float, d: float, problem: str) -> list[dict]:
    """Legend entries for the loss charts' bands: the buffer (no gradient), the stretch up to d/2 where a sample
    is pulled but still rounds to its own node, and (invalid) the stretch past d/2 left without a gradient."""
    zones = [_swatch("x < x0: buffer, no pull", COLORS["buffer"])] if x0 > 0 else []
    zones.append(_swatch("x0 ≤ x < d/2: pulled, right node", COLORS["margin"],
                         dict(color="rgba(31,41,55,0.3)", width=1)))
    if problem:
        zones.append(_swatch("d/2 < x < x0: wrong node, no pull", COLORS["bad"]))
    return zones


def loss_formulas(k: float, x0: float, d: float) -> str:
    """The two losses with the current numbers filled in, as Markdown with ``$...$`` / ``$$...$$`` LaTeX."""
    problem = check_explorer(k, x0, d)
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


# ---- tab 3: live training curves ----------------------------------------------------------------------

DEV_COLUMNS = ["step", "spearman", "run"]
LOSS_COLUMNS = ["step", "loss", "run"]
BUFFER_COLUMNS = ["step", "share", "run"]
MAX_POINTS = 200  # per series: the line plots get slow and unreadable beyond this

# Tick formats of the three training LinePlots (d3-format, which Vega-Lite reads): whole steps, Spearman x100
# with one decimal, the loss with three significant digits, the buffer share in percent. Without them a curve
# of one point (the evaluation at step 0) gets Vega-Lite's raw ticks such as "89.709692" and "0.000000".
CURVE_AXES = {
    "dev": dict(x_axis_format="d", y_axis_format=".1f"),
    "loss": dict(x_axis_format="d", y_axis_format=".3~g"),
    "buffer": dict(x_axis_format="d", y_axis_format=".0%", y_lim=[0, 1]),
}
DEV_MIN_SPAN = 1.0  # Spearman points the dev chart's y axis spans at least (whole points at both ends)


def dev_y_range(frame: pd.DataFrame) -> list[float] | None:
    """The dev chart's y range: whole Spearman points around the data, at least :data:`DEV_MIN_SPAN` wide, so
    one point (or two close ones) gets a few distinct ticks instead of one raw number. None with no data."""
    values = pd.to_numeric(frame.get("spearman", pd.Series(dtype=float)), errors="coerce").dropna()
    values = values[np.isfinite(values)]
    if values.empty:
        return None
    low, high = float(values.min()), float(values.max())
    low, high = math.floor(low - 0.25), math.ceil(high + 0.25)
    if high - low < DEV_MIN_SPAN:
        high = low + DEV_MIN_SPAN
    return [float(low), float(high)]


def thin_curves(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Each ``key`` group of a curve frame cut to at most :data:`MAX_POINTS` evenly spread points."""
    parts = []
    for _, group in frame.groupby(key, sort=False):
        if len(group) > MAX_POINTS:
            group = group.iloc[spaced_positions(len(group), MAX_POINTS)]
        parts.append(group)
    return pd.concat(parts, ignore_index=True) if parts else frame


def curve_frames(runs: Sequence[dict]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Three long DataFrames for line plots coloured by run: STS-B dev Spearman (cosine and head),
    training loss, and the share of pairs inside the buffer zone.

    ``runs``: ``[{"label": str, "events": [events as train() yields them]}, ...]``. Steps of a second stage
    continue after the first stage's, so both stages of a run share one x axis.
    """
    dev, loss, share = [], [], []
    for run in runs:
        label = run["label"]
        offsets, totals = {1: 0}, {}
        for event in run.get("events", []):
            if isinstance(event, StartEvent):
                stage = event.stage
                totals[stage] = event.total_steps
                offsets[stage] = offsets.get(stage - 1, 0) + totals.get(stage - 1, 0) if stage > 1 else 0
                continue
            if not isinstance(event, (StepEvent, EvalEvent)):
                continue
            step = offsets.get(event.stage, 0) + event.step
            if isinstance(event, EvalEvent):
                dev.append({"step": step, "spearman": float(event.dev_cosine), "run": f"{label} · cosine"})
                if event.dev_head is not None and math.isfinite(float(event.dev_head)):
                    dev.append({"step": step, "spearman": float(event.dev_head), "run": f"{label} · head"})
            else:
                loss.append({"step": step, "loss": float(event.loss), "run": label})
                if event.buffer_share is not None:
                    share.append({"step": step, "share": float(event.buffer_share), "run": label})
    return (thin_curves(_typed(dev, DEV_COLUMNS), "run"), thin_curves(_typed(loss, LOSS_COLUMNS), "run"),
            thin_curves(_typed(share, BUFFER_COLUMNS), "run"))


RUN_PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#7F7F7F"]


def _lighter(color: str, amount: float = 0.55) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    r, g, b = (round(c + (255 - c) * amount) for c in (r, g, b))
    return f"#{r:02x}{g:02x}{b:02x}"


def curve_colors(labels: Sequence[str]) -> tuple[dict, dict]:
    """Colour maps for the curves of runs ``labels`` (in order): ``(dev plot, loss/buffer plots)``.

    Each run keeps one colour on every chart; on the dev chart its head Spearman is a lighter shade of
    its cosine Spearman. (Passing a colour map that names every series also makes Gradio's LinePlot
    redraw its legend when a new run appears, which an in-place data update alone does not do.)
    """
    dev, per_run = {}, {}
    for i, label in enumerate(labels):
        color = RUN_PALETTE[i % len(RUN_PALETTE)]
        per_run[label] = color
        dev[f"{label} · cosine"] = color
        dev[f"{label} · head"] = _lighter(color)
    return dev, per_run


def _typed(records: list[dict], columns: list[str]) -> pd.DataFrame:
    """A frame with numeric x/y and a text series column even when empty (so the chart axes are
    quantitative from the first draw, not categorical)."""
    frame = pd.DataFrame(records, columns=columns)
    return frame.astype({columns[0]: "int64", columns[1]: "float64", columns[2]: "object"})


def _share_below(counts: list[int], width: float, limit: float) -> float:
    """Share of the histogram's pairs in bins that end at or below ``limit``."""
    total = sum(counts) or 1
    return sum(c for i, c in enumerate(counts) if (i + 1) * width <= limit + 1e-9) / total


def _zone_marks(gap: float, x0: float) -> tuple[list[dict], list[dict]]:
    """The shapes and labels an error histogram shares: d/2 (beyond it a pair rounds to a wrong node) as a
    dashed line and, when there is a buffer, the zone 0..x0 shaded with its edge marked."""
    shapes = [_vline(gap / 2, color="#374151", width=1.2, dash="dash")]
    notes = [dict(x=gap / 2, y=1.0, yref="y domain", yanchor="bottom", text="d/2", showarrow=False,
                  xanchor="left", font=dict(size=12, color="#374151"))]
    if x0 > 0:
        shapes += [_band(0, x0, COLORS["buffer"]), _vline(x0, color="#0b4f80", width=1.5)]
        notes.append(dict(x=x0, y=1.0, yref="y domain", yanchor="bottom", text="x0", showarrow=False,
                          xanchor="right", font=dict(size=12, color="#0b4f80")))
    return shapes, notes


def error_histogram(evals: Sequence[EvalEvent], title: str = "") -> go.Figure:
    """|prediction − label| on the dev pairs at each evaluation of a run (``evals``: its eval events, with
    ``error_hist = {"width", "counts"}``, ``x0``, ``gap`` and ``step``): the latest as bars, coloured by zone
    (inside the buffer x < x0: no gradient; up to d/2: rounds to the right node; beyond: a wrong node), the
    start as a dashed outline and the evaluations between as outlines to switch on in the legend, so pairs
    can be seen moving into the buffer zone."""
    evals = [e for e in evals if (e.error_hist or {}).get("counts")]
    if not evals:
        return _quick_figure([], 300, title=dict(text=title or "Dev errors |prediction − label|", x=0.01),
                             xaxis=dict(visible=False), yaxis=dict(visible=False),
                             annotations=[dict(text="appears at the first dev evaluation", x=0.5, y=0.5,
                                               xref="paper", yref="paper", showarrow=False,
                                               font=dict(size=14, color="#6b7280"))])
    last = evals[-1]
    width, gap, x0 = float(last.error_hist["width"]), float(last.gap or 1.0), float(last.x0 or 0.0)
    counts = list(last.error_hist["counts"])
    used = max([i + 1 for e in evals for i, c in enumerate(e.error_hist["counts"]) if c] or [1])
    data = [_outline(event, width, start=index == 0) for index, event in enumerate(evals[:-1])]
    centers = [(i + 0.5) * width for i in range(len(counts))]
    zone = [COLORS["trelu"] if c < x0 else "#56B4E9" if c < gap / 2 else COLORS["sk2"] for c in centers]
    data.append(dict(type="bar", x=centers, y=counts, width=width * 0.95, marker=dict(color=zone),
                     name=f"step {last.step} (latest)", hovertemplate="x=%{x:.3f}: %{y} pairs<extra></extra>"))
    shapes, notes = _zone_marks(gap, x0)
    heading = (f"Dev errors · {title + ' · ' if title else ''}step {last.step}<br><sup>"
               f"{_share_below(counts, width, x0):.0%} in the buffer (x < x0) · "
               f"{_share_below(counts, width, gap / 2):.0%} on the right node (x < d/2)</sup>")
    # The legend sits well below the axis title: in a narrow column its entries wrap onto two rows.
    return _quick_figure(data, 360, shapes=shapes, annotations=notes, bargap=0,
                         title=dict(text=heading, x=0.01, font=dict(size=13)),
                         xaxis=dict(range=[0, max(gap, used * width)], title=dict(text="x = |prediction − label|")),
                         yaxis=dict(title=dict(text="dev pairs"), rangemode="tozero"),
                         legend=dict(orientation="h", yanchor="top", y=-0.24, x=0, font=dict(size=11)),
                         margin=dict(l=50, r=20, t=60, b=105))


def _steps(counts: list[int], width: float) -> dict:
    """A histogram's bins as the x, y of a step outline (``line_shape="hv"``)."""
    return dict(x=[i * width for i in range(len(counts) + 1)], y=[*counts, counts[-1]], mode="lines",
                line_shape="hv")


def _outline(event: EvalEvent, width: float, start: bool) -> dict:
    """An earlier evaluation's histogram as a step outline: the start dashed and shown, the others listed in
    the legend (click to show)."""
    return dict(type="scatter", **_steps(event.error_hist["counts"], width),
                name=f"{'start, ' if start else ''}step {event.step}",
                visible=True if start else "legendonly",
                line=dict(color="#374151" if start else "#6b7280", width=1.5 if start else 1,
                          dash="dash" if start else "solid"),
                hovertemplate=f"step {event.step}<br>x=%{{x:.2f}}: %{{y}} pairs<extra></extra>")


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
        data.append(dict(type="scatter", **_steps(counts, width), line=dict(color=color, width=2, dash=dash),
                         name=f"{name} · step {last.step}", hovertemplate="x=%{x:.2f}: %{y} pairs<extra></extra>"))
    shapes, notes = _zone_marks(gap, x0)
    return _quick_figure(data, 360, shapes=shapes, annotations=notes,
                         title=dict(text=title, x=0.01, font=dict(size=13)),
                         xaxis=dict(title=dict(text="x = |prediction − label|"), range=[0, max(gap, right)],
                                    tickformat=".2f"),
                         yaxis=dict(title=dict(text="dev pairs"), rangemode="tozero", tickformat="d"),
                         legend=dict(orientation="h", yanchor="top", y=-0.25, x=0, font=dict(size=11)),
                         margin=dict(l=50, r=20, t=50, b=100))


def progress_html(fraction: float, text: str, state: str = "running") -> str:
    """A small progress bar (state: running, done, stopped, failed, idle) with a line of text."""
    fraction = min(max(float(fraction), 0.0), 1.0)
    color = {"running": "#2563eb", "done": "#16a34a", "stopped": "#d97706", "failed": "#dc2626"}.get(state, "#9ca3af")
    safe = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    return (
        '<div class="sts-progress" data-state="' + state + '">'
        '<div style="background:#e5e7eb;border-radius:6px;height:12px;overflow:hidden">'
        f'<div style="width:{fraction * 100:.1f}%;background:{color};height:12px;transition:width .4s"></div></div>'
        f'<div style="margin-top:6px;font-size:0.92em;color:#374151">{safe}</div></div>'
    )


# ---- tab 3 and 4: the 7-task tables and bars --------------------------------------------------------

def task_names(tasks: Sequence[str] = TASKS) -> list[str]:
    return [TABLE_NAMES.get(t, t) for t in tasks]


def _average(scores: dict) -> float | None:
    if scores.get("Avg.") is not None:
        return float(scores["Avg."])
    values = [scores.get(t) for t in TASKS]
    return float(np.mean(values)) if all(v is not None for v in values) else None


def results_frame(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per model, the seven tasks and Avg. (Spearman x100, two decimals; missing = NaN)."""
    records = []
    for model, scores in rows.items():
        record = {"model": model}
        for task, name in zip(TASKS, task_names()):
            value = scores.get(task)
            record[name] = None if value is None else round(float(value), 2)
        average = _average(scores)
        record["Avg."] = None if average is None else round(average, 2)
        records.append(record)
    return pd.DataFrame(records, columns=["model", *task_names(), "Avg."])


def delta_frame(trained: dict[str, float], base: dict[str, float] | None, trained_name: str = "fine-tuned",
                base_name: str = "base model") -> pd.DataFrame:
    """The fine-tuned model's 7-task scores, the base model's, and the change (fine-tuned − base)."""
    rows = {trained_name: trained}
    if base:
        rows[base_name] = base
        shared = [t for t in [*TASKS, "Avg."] if t in trained and t in base]
        rows["Δ (fine-tuned − base)"] = {t: trained[t] - base[t] for t in shared}
    frame = results_frame(rows)
    if base:
        numeric = frame.columns[1:]
        frame.loc[frame.index[-1], numeric] = [
            None if pd.isna(v) else float(f"{v:+.2f}") for v in frame.loc[frame.index[-1], numeric]]
    return frame


def benchmark_figure(rows: dict[str, dict[str, float]], references: dict[str, dict[str, float]] | None = None,
                     title: str = "Spearman ×100 of cosine similarity (SentEval, 'all' setting)") -> go.Figure:
    """Grouped bars: one group per task (and Avg.), one bar per model; reference rows hatched."""
    names = [*task_names(), "Avg."]
    keys = [*TASKS, "Avg."]
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
    fig = go.Figure()
    for i, (model, scores) in enumerate(rows.items()):
        values = [scores.get(k) if k != "Avg." else _average(scores) for k in keys]
        fig.add_trace(go.Bar(name=model, x=names, y=values, marker_color=palette[i % len(palette)],
                             text=[None if v is None else f"{v:.1f}" for v in values], textposition="outside",
                             hovertemplate=f"{model}<br>%{{x}}: %{{y:.2f}}<extra></extra>"))
    for model, scores in (references or {}).items():
        values = [scores.get(k) if k != "Avg." else None for k in keys]
        fig.add_trace(go.Bar(name=model, x=names, y=values, marker=dict(color="rgba(107,114,128,0.35)",
                             pattern=dict(shape="/", fgcolor="#6b7280")),
                             hovertemplate=f"{model}<br>%{{x}}: %{{y:.2f}}<extra></extra>"))
    all_values = [v for trace in fig.data for v in trace.y if v is not None]
    low = max(0.0, (min(all_values) if all_values else 0) - 10)
    fig.update_yaxes(range=[low, 100], title="Spearman × 100")
    fig.update_layout(barmode="group", bargap=0.18, showlegend=True)
    if not fig.data:
        fig.add_annotation(text="Evaluate a model to see its bars here", x=0.5, y=0.5, xref="paper", yref="paper",
                           showarrow=False, font=dict(size=15, color="#6b7280"))
    return _layout(fig, 430, title=dict(text=title, x=0.01), legend=dict(orientation="h", y=-0.18, x=0))
