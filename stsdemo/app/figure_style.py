"""What every tab's figures share: one palette, one font, one layout, and the plain-dict shapes (bands, lines,
legend swatches) the figures redrawn on every request are built from. Nothing here imports gradio."""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import plotly.io as pio

# One palette for the whole app (colour-blind friendly, after Okabe & Ito).
COLORS = {
    "sk2": "#D55E00",  # Smooth K2
    "trelu": "#0072B2",  # Translated ReLU
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


def styled(fig: go.Figure, height: int, **extra) -> go.Figure:
    """``fig`` in the app's layout (white template, its font, ``height`` pixels tall), plus ``extra``."""
    extra.setdefault("margin", dict(l=50, r=20, t=50, b=45))
    fig.update_layout(
        template="plotly_white", height=height, font=FONT, hoverlabel=dict(font_size=12), **extra
    )
    return fig


@functools.lru_cache(maxsize=1)
def _template() -> dict:
    return pio.templates["plotly_white"].to_plotly_json()


def quick_figure(data: list[dict], height: int, **layout) -> go.Figure:
    """A figure from plain dicts, not validated by plotly (which takes ~100 ms for a figure with dozens of
    shapes): for the figures redrawn on every request. The layout is the one :func:`styled` gives."""
    layout.setdefault("margin", dict(l=50, r=20, t=50, b=45))
    layout = dict(
        template=_template(), height=height, font=FONT, hoverlabel=dict(font=dict(size=12)), **layout
    )
    return go.Figure(dict(data=data, layout=layout), _validate=False)


def band(x0: float, x1: float, color: str) -> dict:
    """A full-height shaded band between x0 and x1 (what ``fig.add_vrect`` draws)."""
    return dict(
        type="rect",
        xref="x",
        yref="y domain",
        x0=x0,
        x1=x1,
        y0=0,
        y1=1,
        fillcolor=color,
        layer="below",
        line=dict(width=0),
    )


def vline(x: float, **line) -> dict:
    """A full-height vertical line at x (what ``fig.add_vline`` draws)."""
    return dict(type="line", xref="x", yref="y domain", x0=x, x1=x, y0=0, y1=1, line=line)


def swatch(name: str, color: str, outline: dict | None = None) -> dict:
    """A legend entry without points: a coloured square naming a shaded band."""
    marker = dict(symbol="square", size=13, color=color, **(dict(line=outline) if outline else {}))
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=name, marker=marker)
