"""Tab 2, *Loss explorer*: Translated ReLU and Smooth K2 (and L1 / MSE) and their gradients, live."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ..ui import share
from ..ui.common import LATEX, user_errors
from ..ui.rest import reads_arguments
from . import view as loss_view
from .figures import REFERENCE_LOSSES
from .redraws import NewestRedraw


def clamp_js() -> str:
    """The browser step before each redraw: a number typed into a slider's box beyond its range is drawn at the
    range's nearest end (k = 7 -> 5, k = -1 -> 0.1), where the box itself puts it once left, and one that is not
    a number yet (a box emptied to type anew) is drawn at the starting value; Gradio's own range check, which would
    refuse it with a traceback in the server log, never sees it. The ranges are :data:`loss_view.SLIDERS`. The last
    input is set to the page's redraw number (:mod:`.redraws`)."""
    limits = ", ".join(f"[{low}, {high}, {loss_view.START[name]}]" for name, (low, high, _) in loss_view.SLIDERS.items())
    return ("(...values) => { const limits = [" + limits + "]; window.stsLossRedraws = (window.stsLossRedraws || 0) + 1; "
            "values[values.length - 1] = window.stsLossRedraws; return values.map((value, i) => { if (i >= limits.length) "
            "return value; const [low, high, start] = limits[i]; const number = Number(value); return (value === null || "
            "value === '' || !Number.isFinite(number)) ? start : Math.min(Math.max(number, low), high); }); }")


@dataclass
class LossTab:
    """What the tab hands on: its settings and sample (a link's fields, by their names in
    :mod:`stsdemo.app.links`), the reference losses and what they draw."""

    tab: gr.Tab
    k: gr.Slider
    x0: gr.Slider
    d: gr.Slider
    references: gr.CheckboxGroup
    prediction: gr.Number
    label: gr.Number
    chart: gr.Plot
    formulas: gr.Markdown
    table: gr.Dataframe
    link: share.LinkBox
    redraw_number: gr.Number   # hidden: set by the page on each redraw (clamp_js)


def build() -> LossTab:
    start = loss_view.START
    sliders = {name: dict(minimum=low, maximum=high, step=step, value=start[name])
               for name, (low, high, step) in loss_view.SLIDERS.items()}
    first = loss_view.loss_view(**start, references=REFERENCE_LOSSES, prediction=loss_view.SAMPLE[0],
                           label=loss_view.SAMPLE[1])
    with gr.Tab("Loss explorer", id="loss") as tab:
        # On a phone the chart comes first and stays in view (sticky) while the sliders below it move.
        with gr.Row(equal_height=False, elem_classes="sts-wrap", elem_id="loss-top"):
            with gr.Column(scale=4, min_width=280, elem_id="loss-controls"):
                k = gr.Slider(**sliders["k"], label="slope k", elem_id="k-slider",
                              info=loss_view.slope_hint())
                x0 = gr.Slider(**sliders["x0"], label="buffer x0", elem_id="x0-slider",
                               info="Half-width of the zero-gradient zone; must stay ≤ d/2")
                d = gr.Slider(**sliders["d"], label="node gap d", elem_id="d-slider",
                              info="Distance between neighbouring labels")
                references = gr.CheckboxGroup(list(REFERENCE_LOSSES), value=list(REFERENCE_LOSSES),
                                              label="Reference losses")
            with gr.Column(scale=8, min_width=280, elem_id="loss-chart-column"):
                chart = gr.Plot(first.figure, show_label=False, elem_id="loss-plot")
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=4, min_width=280):
                formulas = gr.Markdown(first.formulas, latex_delimiters=LATEX, elem_id="loss-formulas")
                link = share.link_box("loss")
            with gr.Column(scale=8, min_width=280):
                gr.Markdown("**Try a prediction**: the loss and pull one sample gets (before the batch mean; training "
                            "also clamps predictions beyond the outermost nodes).", elem_classes="sts-note")
                with gr.Row(elem_classes="sts-wrap"):
                    prediction = gr.Number(label="Prediction", value=loss_view.SAMPLE[0], step=0.05, min_width=120)
                    label = gr.Number(label="Label", value=loss_view.SAMPLE[1], step=0.5, min_width=120)
                table = gr.Dataframe(first.table, interactive=False, label="One sample", elem_id="loss-sample",
                                     wrap=True, column_widths=["120px", "110px", "80px", "150px", "120px"])
        redraw_number = gr.Number(0, visible="hidden")
    return LossTab(tab=tab, k=k, x0=x0, d=d, references=references, prediction=prediction, label=label, chart=chart,
                   formulas=formulas, table=table, link=link, redraw_number=redraw_number)


def wire(tab: LossTab) -> None:
    inputs = [tab.k, tab.x0, tab.d, tab.references, tab.prediction, tab.label]
    outputs = [tab.chart, tab.formulas, tab.table]

    newest = NewestRedraw()

    def live(k, x0, d, references, prediction, label, number, request: gr.Request):
        """On any change of a setting: an invalid one (x0 > d/2) is drawn as an error state, not raised. Only the
        page's newest redraw answers (a link's first change may carry the x0 from before the link)."""
        settings = (k, x0, d, references, prediction, label)
        view = newest.draw(request.session_hash or "", number, lambda: loss_view.live_view(*settings))
        if view is None:
            return gr.skip(), gr.skip(), gr.skip()
        if isinstance(view, str):
            return gr.skip(), view, gr.skip()
        return view.figure, view.formulas, view.table

    @user_errors
    @reads_arguments()
    def loss_chart(k: float = loss_view.START["k"], x0: float = loss_view.START["x0"], d: float = loss_view.START["d"],
                   references: list[str] | None = None, prediction: float | None = None,
                   label: float | None = None) -> tuple[dict, str, dict | None]:
        """Translated ReLU and Smooth K2 (plus the chosen reference losses, "L1" and/or "MSE") and their
        gradients over x = |prediction - label| for slope k, buffer x0 and node gap d; x0 > d/2 is an error.

        ``references`` left out: both. Returns the figure (Plotly JSON), the two formulas with the numbers filled
        in (Markdown) and, for a prediction and label, the loss and pull that sample gets under each loss (a
        table)."""
        checked = [slider.preprocess(value) for slider, value in zip((tab.k, tab.x0, tab.d), (k, x0, d))]
        view = loss_view.loss_view(*checked, REFERENCE_LOSSES if references is None else references, prediction,
                              label, strict=True)
        table = None if view.table is None else tab.table.postprocess(view.table).model_dump()
        return tab.chart.postprocess(view.figure).model_dump(), view.formulas, table

    # The API endpoint checks its numbers with the sliders' own checks (so a caller gets the same messages).
    gr.api(loss_chart, api_name="loss_chart", concurrency_limit=None)
    # One event for every setting, on ``change`` only: it fires for a drag, a typed or pasted number, the box's own
    # clamp on leaving it (k = 7 -> 5) and a restored link; "always_last" and the page's redraw numbers draw the final
    # values last. Nothing is written back to a slider: an answer that came back while the visitor typed would
    # overwrite the box (a typed 0.4 became 0.254, a typed k = 3 went back to 2).
    gr.on([component.change for component in inputs], live, [*inputs, tab.redraw_number], outputs, js=clamp_js(),
          trigger_mode="always_last", concurrency_limit=None, show_progress="hidden", api_visibility="private")
    share.wire_copy(tab.link, "loss", vars(tab))
