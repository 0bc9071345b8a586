"""The Fine-tune tab's live training curves: STS-B dev Spearman, training loss and the share of pairs inside the
buffer, as long frames coloured by run (each run one colour on every chart), thinned for the browser, with the
axes' tick formats and the dev chart's y range."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...data.pairs import spaced_positions
from ...events import EvalEvent, StartEvent, StepEvent

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
    return (
        thin_curves(_typed(dev, DEV_COLUMNS), "run"),
        thin_curves(_typed(loss, LOSS_COLUMNS), "run"),
        thin_curves(_typed(share, BUFFER_COLUMNS), "run"),
    )


RUN_PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#7F7F7F"]


def _lighter(color: str, amount: float = 0.55) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
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
