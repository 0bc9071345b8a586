"""The Playground's figures: the live ones as drawing specs for the tab's canvas (plain dicts of ranges, ticks,
bands, lines and dots, drawn by ``ui/playground_canvas.js`` several times a second while a run plays), the payoff
map as a Plotly figure (drawn once per setting).

Every figure holds a bounded number of points: at most :data:`MAX_DOTS` dots per twin, at most
:data:`stsdemo.playground.run.MAX_HISTORY` points per curve, and one cell per grid point of the map.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ..losses.spec import loss_spec
from ..paired import Paired
from ..playground import payoff
from ..playground.metrics import METRICS
from ..playground.run import SELECT_EVERY, RunView, baseline_of
from .plots import COLORS, FONT, _template, wrap_title

class FigureJSON:
    """A Plotly figure as plain dicts. ``gr.Plot`` draws any value whose ``to_json()`` gives Plotly's JSON (a
    plotly ``Figure`` is one); skipping plotly's object tree (it copies the template and walks every property)
    makes a figure some 1 ms instead of 7 to 20, which matters at several redraws a second."""

    def __init__(self, data: list[dict], height: int, **layout):
        layout.setdefault("margin", dict(l=50, r=20, t=50, b=45))
        self.figure = dict(data=data, layout=dict(template=_template(), height=height, font=FONT,
                                                  hoverlabel=dict(font=dict(size=12)), **layout))

    def to_json(self) -> str:
        return json.dumps(self.figure, separators=(",", ":"))


MAX_DOTS = 600
JITTER = 0.18                 # spread of dots around a node when the gold labels sit on nodes (NLI), in gaps


def twin_colors(loss: str) -> tuple[str, str]:
    """The buffered twin in its loss's colour, the x0 = 0 twin in its baseline's (MSE, L1)."""
    return COLORS[loss_spec(loss).name], COLORS[baseline_of(loss).name]


def nice_ticks(low: float, high: float, count: int = 4) -> list[tuple[float, str]]:
    """About ``count`` round values between ``low`` and ``high`` (steps of 1, 2 or 5 times a power of ten), each
    with its label; never fewer than 3 (the step shrinks until 3 fit), so a curve that spans little still has a
    scale to read."""
    span = max(high - low, 1e-9)
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    steps = [m * power for m in (0.1, 0.2, 0.5, 1, 2, 5, 10)]
    first = next(i for i, step in enumerate(steps) if step >= raw)
    for step in reversed(steps[:first + 1]):      # the step for about ``count`` ticks, smaller while under 3 fit
        values = np.arange(math.ceil(low / step) * step, high + step * 1e-9, step)
        if len(values) >= 3:
            break
    digits = max(0, -int(math.floor(math.log10(step))))
    return [(round(float(v), 10), f"{v:.{digits}f}") for v in values]


def padded_range(values: list, pad: float = 0.08, least: float = 1e-3) -> list[float]:
    """The range of the finite ``values`` with ``pad`` of its span added on each side (at least ``least`` wide)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return [0.0, 1.0]
    low, high = min(finite), max(finite)
    margin = max((high - low) * pad, least)
    return [low - margin, high + margin]


def dot_positions(view: RunView) -> np.ndarray:
    """Where the drawn held-out pairs sit across: their gold label, spread a little around each node when the
    gold labels are all on nodes (else they would hide each other), the same at every redraw."""
    gold, scheme = view.gold_shown, view.scheme
    if not np.allclose(gold, scheme.snap(gold)):
        return gold
    return gold + np.random.default_rng(0).uniform(-JITTER, JITTER, len(gold)) * scheme.gap


def dots_panel(view: RunView, twin: int, title: str, across: np.ndarray) -> dict:
    """One twin's report pairs (the first seed): gold label across, prediction up, the buffer ``±x0`` shaded
    around each node. For the buffered twin the pairs within x0 of their label are drawn hollow: were they training
    pairs, its loss would leave them alone (report pairs never train either twin). The twin has no buffer, so it
    would pull every pair."""
    scheme, config = view.scheme, view.config
    predictions, inside = view.measurement.shown[twin], view.inside_shown[twin]
    low, high = scheme.low - 0.6 * scheme.gap, scheme.high + 0.6 * scheme.gap
    shown = np.clip(predictions, low, high).round(3)
    color = twin_colors(config.loss)[twin]
    dots, legend = [], []
    for hollow, name in ((False, "outside the buffer"), (True, "inside the buffer")):
        chosen = inside == hollow
        if hollow and twin == 1:
            continue
        dots.append(dict(x=across[chosen].round(3).tolist(), y=shown[chosen].tolist(), color=color, hollow=hollow,
                         i=np.flatnonzero(chosen).tolist()))
        legend.append(dict(name=f"{name} ({int(chosen.sum())})", color=color, mark="hollow" if hollow else "dot"))
    ticks = [(float(node), f"{node:g}") for node in scheme.nodes]
    return dict(title=title, legend=legend, x_range=[low, high], y_range=[low, high], x_ticks=ticks, y_ticks=ticks,
                x_title="gold label", y_title="prediction",
                bands=[dict(box=[node - scheme.gap / 2, node + scheme.gap / 2, node - config.x0, node + config.x0],
                            color=COLORS["buffer"]) for node in scheme.nodes.tolist()],
                lines=[dict(x=[low, high], y=[low, high], color="rgba(31,41,55,0.35)", width=1, dash=True)],
                dots=dots)


def dots_spec(view: RunView, titles: tuple[str, str], moved: list[dict] | None = None) -> dict:
    """Both twins' report pairs side by side (stacked in a narrow window); each dot group carries its dots'
    indices (``i``), so a clicked dot is found in both panels; ``moved``: the pairs the buffer moved most."""
    across = dot_positions(view)
    panels = [dots_panel(view, twin, titles[twin], across) for twin in range(2)]
    return dict(columns=2, panel_height=330, legends=True, panels=panels, stamp=view.step, moved=moved or [])


def curve_panels(read_by: str) -> list[tuple[str, callable, bool]]:
    """The curves' panels: a title, the value of a history point per twin, and whether each twin's best step is
    marked on it. The report set and the selection set in the data set's own metric ``read_by``, the memorisation
    gap (fit on the training pairs minus the selection set, both with the same label noise) and the share within
    x0."""
    name = METRICS[read_by]
    return [(f"report set · {name}", lambda point: point[read_by], True),
            (f"selection set (picks the step) · {name}", lambda point: point["selection"], True),
            ("memorisation: training − selection", lambda point: point["fit"] - point["selection"], False),
            (METRICS["inside"], lambda point: point["inside"], False)]


def curves_spec(view: RunView, best_steps: tuple[float, float]) -> dict:
    """The twins' means over seeds against the step (:func:`curve_panels`), four small panels; the buffered twin
    solid, the twin dashed; each twin's best step (the median over seeds of the steps its heads chose on the
    selection set) a dotted vertical line in its colour."""
    history, steps = view.history, view.config.steps
    x = [point["step"] for point in history]
    colors = twin_colors(view.config.loss)
    panels = []
    for index, (title, value_of, marked) in enumerate(curve_panels(view.read_by)):
        series = [[None if not np.isfinite(value_of(point)[twin]) else round(float(value_of(point)[twin]), 3)
                   for point in history] for twin in range(2)]
        y_range = padded_range(series[0] + series[1])
        lines = [dict(x=x, y=values, color=color, width=2.2 if twin == 0 else 1.8, dash=twin == 1)
                 for twin, (values, color) in enumerate(zip(series, colors))]
        if marked:
            lines += [dict(x=[step, step], y=y_range, color=color, width=1.4, dot=True)
                      for step, color in zip(best_steps, colors)]
        legend = []
        if index == 0:
            legend = [dict(name=label, color=color, mark="line" if twin == 0 else "dash")
                      for twin, (label, color) in enumerate(zip(view.twin_labels, colors))]
            legend.append(dict(name="best step (median of seeds)", color="#6b7280", mark="dot-line"))
        panels.append(dict(title=title, x_range=[0, steps], y_range=y_range, x_ticks=nice_ticks(0, steps),
                           y_ticks=nice_ticks(*y_range, count=3), lines=lines, legend=legend))
    panels[-2]["x_title"] = panels[-1]["x_title"] = "step"
    return dict(columns=2, panel_height=210, legends=True, panels=panels, stamp=x[-1] if x else 0,
                best=[int(step) for step in best_steps], every=SELECT_EVERY)


def _size_label(size: int) -> str:
    return "all" if size == 0 else f"{size:,}"


def payoff_figure(cells: dict, metric: str, current: tuple[float, int] | None, title: str, reading: str = "best",
                  marks: dict[str, str] | None = None) -> object:
    """The recorded paired difference ``buffer - none`` (mean over seeds) per cell of noise x training size under
    ``reading``: blue where the buffer helped, red where it cost, ▲ where the corrected rule (``marks``, by cell
    key: :func:`stsdemo.playground.payoff.verdicts`) says it holds, ▼ reversed."""
    noises, sizes = list(payoff.NOISES), list(payoff.SIZES)
    marks = marks or {}
    z, text = [], []
    for noise in noises:
        row_z, row_text = [], []
        for size in sizes:
            entry = cells.get((noise, size))
            found: Paired | None = payoff.cell_paired(entry, metric, reading) if entry else None
            mark = payoff.VERDICT_MARKS.get(marks.get(payoff.cell_key_of(entry), ""), "") if found else ""
            row_z.append(None if found is None else round(found.mean, 3))
            row_text.append("" if found is None else f"{found.mean:+.2f}{mark}<br>±{found.se:.2f}")
        z.append(row_z)
        text.append(row_text)
    scale = max([abs(v) for row in z for v in row if v is not None] + [0.1])
    x = [_size_label(size) for size in sizes]
    y = [f"σ {noise:g}" for noise in noises]
    # Readable at 390 px: cell text at a fixed 11 px (Plotly would shrink it to fit, to 4 px on a phone), the
    # colour bar across the foot of the map instead of a quarter of its width, upright labels, a wrapped title.
    # plotly.js's RdBu runs from blue (low) to red (high): reversed, a cell where the buffer helped is blue.
    data = [dict(type="heatmap", x=x, y=y, z=z, text=text, texttemplate="%{text}", textfont=dict(size=11), zmid=0,
                 zmin=-scale, zmax=scale, colorscale="RdBu", reversescale=True,
                 colorbar=dict(title=dict(text="buffer − none", side="top"), orientation="h", thickness=10, len=1,
                               x=0.5, xanchor="center", y=-0.2, yanchor="top"),
                 hovertemplate="%{y} · %{x} pairs<br>buffer − none %{z:+.3f}<extra></extra>", xgap=2, ygap=2)]
    shapes = []
    if current is not None:
        column, row = sizes.index(current[1]), noises.index(current[0])
        shapes.append(dict(type="rect", x0=column - 0.5, x1=column + 0.5, y0=row - 0.5, y1=row + 0.5,
                           line=dict(color="#111827", width=3), xref="x", yref="y"))
    return FigureJSON(data, 470, shapes=shapes, autosize=True,
                      title=dict(text=wrap_title(title), x=0.01, xanchor="left", font=dict(size=13)),
                      xaxis=dict(title=dict(text="training pairs per seed"), type="category", tickangle=0),
                      yaxis=dict(title=dict(text="label noise"), type="category", tickangle=0),
                      margin=dict(l=60, r=10, t=78, b=110))
