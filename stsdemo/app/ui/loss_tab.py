"""Tab 2, *Loss explorer*: Translated ReLU and Smooth K2 (and L1 / MSE) and their gradients, live."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from .. import loss_view, plots
from . import share
from .common import LATEX, user_errors


def build() -> SimpleNamespace:
    start = loss_view.START
    sliders = {name: dict(minimum=low, maximum=high, step=step, value=start[name])
               for name, (low, high, step) in loss_view.SLIDERS.items()}
    first = loss_view.loss_view(**start, references=plots.REFERENCE_LOSSES, prediction=loss_view.SAMPLE[0],
                           label=loss_view.SAMPLE[1])
    with gr.Tab("Loss explorer", id="loss") as tab:
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=4, min_width=280):
                k = gr.Slider(**sliders["k"], label="slope k", elem_id="k-slider",
                              info=loss_view.slope_hint())
                x0 = gr.Slider(**sliders["x0"], label="buffer x0", elem_id="x0-slider",
                               info="Half-width of the zero-gradient zone; must stay ≤ d/2")
                d = gr.Slider(**sliders["d"], label="node gap d", elem_id="d-slider",
                              info="Distance between neighbouring labels")
                references = gr.CheckboxGroup(list(plots.REFERENCE_LOSSES), value=list(plots.REFERENCE_LOSSES),
                                              label="Reference losses")
                formulas = gr.Markdown(first.formulas, latex_delimiters=LATEX)
                link = share.link_box("loss")
            with gr.Column(scale=8, min_width=280):
                chart = gr.Plot(first.figure, show_label=False, elem_id="loss-plot")
                gr.Markdown("**Try a prediction**: the loss and pull one sample gets (before the batch mean; training "
                            "also clamps predictions beyond the outermost nodes).", elem_classes="sts-note")
                with gr.Row(elem_classes="sts-wrap"):
                    prediction = gr.Number(label="Prediction", value=loss_view.SAMPLE[0], step=0.05, min_width=120)
                    label = gr.Number(label="Label", value=loss_view.SAMPLE[1], step=0.5, min_width=120)
                table = gr.Dataframe(first.table, interactive=False, label="One sample")
    return SimpleNamespace(**locals())


def wire(tab: SimpleNamespace) -> None:
    inputs = [tab.k, tab.x0, tab.d, tab.references, tab.prediction, tab.label]
    outputs = [tab.chart, tab.formulas, tab.table]

    def live(k, x0, d, references, prediction, label):
        """While a slider moves: an invalid setting is drawn as an error state, not raised."""
        view = loss_view.live_view(k, x0, d, references, prediction, label)
        if isinstance(view, str):
            return gr.skip(), view, gr.skip()
        return view.figure, view.formulas, view.table

    @user_errors
    def released(k, x0, d, references, prediction, label):
        """The same charts, but x0 > d/2 (or any bad number) is an error."""
        view = loss_view.loss_view(k, x0, d, references, prediction, label, strict=True)
        return view.figure, view.formulas, view.table

    @user_errors
    def loss_chart(k: float = loss_view.START["k"], x0: float = loss_view.START["x0"], d: float = loss_view.START["d"],
                   references: list[str] | None = None, prediction: float | None = None,
                   label: float | None = None) -> tuple[dict, str, dict | None]:
        """Translated ReLU and Smooth K2 (plus the chosen reference losses, "L1" and/or "MSE") and their
        gradients over x = |prediction - label| for slope k, buffer x0 and node gap d; x0 > d/2 is an error.

        ``references`` left out: both. Returns the figure (Plotly JSON), the two formulas with the numbers filled
        in (Markdown) and, for a prediction and label, the loss and pull that sample gets under each loss (a
        table)."""
        checked = [slider.preprocess(value) for slider, value in zip((tab.k, tab.x0, tab.d), (k, x0, d))]
        view = loss_view.loss_view(*checked, plots.REFERENCE_LOSSES if references is None else references, prediction,
                              label, strict=True)
        table = None if view.table is None else tab.table.postprocess(view.table).model_dump()
        return tab.chart.postprocess(view.figure).model_dump(), view.formulas, table

    # The API endpoint checks its numbers with the sliders' own checks (so a caller gets the same messages).
    gr.api(loss_chart, api_name="loss_chart", concurrency_limit=None)
    for slider in (tab.k, tab.x0, tab.d):
        slider.input(live, inputs, outputs, trigger_mode="always_last", concurrency_limit=None,
                     show_progress="hidden", api_visibility="private")
        slider.release(released, inputs, outputs, concurrency_limit=None, show_progress="hidden",
                       api_visibility="private")
    gr.on([tab.references.change, tab.prediction.change, tab.label.change], live, inputs, outputs,
          trigger_mode="always_last", concurrency_limit=None, show_progress="hidden", api_visibility="private")
    share.wire_copy(tab.link, "loss", {"k": tab.k, "x0": tab.x0, "d": tab.d, "prediction": tab.prediction,
                                       "label": tab.label})
