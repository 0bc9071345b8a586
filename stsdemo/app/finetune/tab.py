"""Tab 3, *Fine-tune*: the form (its settings drawn from their declarations), live curves and the dev error
histogram of a run, and the session's runs.

The curves are drawn once a run has points (:meth:`.view.Curves.drawn`). Each drawn chart still logs one
console warning that is Gradio's own: "The input spec uses Vega-Lite v5.17.0, but the current version of Vega-Lite
is v6.4.2" (Gradio 6.31's LinePlot writes a v5 spec and bundles Vega-Lite 6; nothing on our side changes it)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ...buffer_comparison import CompareSettings
from ...config import preset_label
from ...serving import session_files, slots
from ...serving.gradio_seam import CurveSender
from .. import model_cache
from ..progress import progress_html
from ..ui import share
from ..ui.common import session_of, skip, upload_note, user_errors
from ..ui.words import request_language, say, say_each, setting_label
from . import compare as compare_view
from . import curves, form, histograms
from . import view as finetune_view
from .curves import dev_y_range


def field(spec: form.FieldSpec):
    """The component of one setting of the form."""
    common = dict(
        label=setting_label(spec.name, spec.label),
        info=say_each(f"train_info_{spec.name}", spec.info),
        value=spec.value,
        elem_id=f"train-{spec.name}",
    )
    if spec.kind == "checkbox":
        return gr.Checkbox(**common)
    if spec.kind == "choice":
        kind = gr.Radio if len(spec.choices) <= 3 else gr.Dropdown
        return kind(list(spec.choices), **common)
    return gr.Number(
        **common,
        minimum=spec.minimum,
        maximum=spec.maximum,
        precision=0 if spec.integer else None,
        min_width=110,
    )


def fields(rows) -> dict:
    """The components of the settings named in ``rows``, a row of the form per tuple."""
    built = {}
    for row in rows:
        with gr.Row(elem_classes="sts-wrap"):
            for name in row:
                built[name] = field(form.field_spec(name))
    return built


@dataclass
class FinetuneTab:
    """What the tab hands on: the form (start model, data, upload, the settings by name, final evaluation), the
    run's controls and views, and the session's runs."""

    tab: gr.Tab
    preset: gr.Dropdown
    base_model: gr.Dropdown
    data: gr.Radio
    upload: gr.File
    scheme: gr.Textbox
    settings: dict  # setting name -> its field (form.FORM_FIELDS)
    final_eval: gr.Checkbox
    link: share.LinkBox
    start: gr.Button
    compare: gr.Button
    stop: gr.Button
    compare_seeds: gr.Number
    progress: gr.HTML
    status: gr.Markdown
    dev_plot: gr.LinePlot
    histogram: gr.Plot
    loss_curve: gr.LinePlot
    buffer_curve: gr.LinePlot
    results: gr.Dataframe
    run_pick: gr.Dropdown
    zip_button: gr.Button
    delete_button: gr.Button
    run_info: gr.Markdown
    run_zip: gr.File

    def form_fields(self) -> dict:
        """The form's fields by their names in :mod:`stsdemo.app.links` (and the /train endpoint's): start model,
        data, the settings, final evaluation."""
        return {"model": self.base_model, "data": self.data, **self.settings, "final_eval": self.final_eval}


def build() -> FinetuneTab:
    defaults = form.form_defaults()
    with gr.Tab(say("tab_train"), id="train") as tab:
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=5, min_width=280):
                preset = gr.Dropdown(
                    [(preset_label(key), key) for key in form.form_presets()],
                    value=None,
                    label=say("train_presets"),
                    info=say("train_presets_info"),
                )
                base_model = gr.Dropdown(
                    model_cache.base_model_choices(""),
                    value=defaults["model"],
                    label=say("train_start_from"),
                    allow_custom_value=True,
                    info=say("train_start_from_info"),
                )
                data = gr.Radio(
                    list(form.TRAINING_DATA_CHOICES),
                    value=defaults["data"],
                    label=say("train_data"),
                    info=say("train_data_info"),
                )
                with gr.Row(elem_classes="sts-wrap"):
                    upload = gr.File(
                        label=say("train_upload", cap=upload_note("training")),
                        file_types=[".csv", ".tsv", ".txt"],
                        visible=False,
                        min_width=200,
                    )
                    scheme = gr.Textbox(
                        label=say("train_file_scheme"),
                        value=defaults["scheme"],
                        visible=False,
                        info=say("train_file_scheme_info"),
                        min_width=200,
                    )
                settings = fields(form.MAIN_ROWS)
                final_eval = gr.Checkbox(label=say("train_final_eval"), value=defaults["final_eval"])
                with gr.Accordion(say("train_more_settings"), open=False):
                    settings.update(fields(form.MORE_ROWS))
                link = share.link_box("train")
            with gr.Column(scale=7, min_width=280):
                with gr.Row():
                    start = gr.Button(say("train_start"), variant="primary", scale=3, min_width=120)
                    compare = gr.Button(say("train_compare"), scale=3, min_width=120, elem_id="train-compare")
                    stop = gr.Button(say("train_stop"), variant="stop", scale=1, min_width=80)
                compare_seeds = field(form.field_spec("seeds", CompareSettings))
                progress = gr.HTML(progress_html(0, str(say("train_idle")), "idle"), elem_id="train-progress")
                status = gr.Markdown("", elem_id="train-status")
                with gr.Row(elem_classes="sts-wrap"):
                    # no value until a run has points (Curves.drawn)
                    dev_plot = gr.LinePlot(
                        None,
                        x="step",
                        y="spearman",
                        color="run",
                        height=300,
                        title="STS-B dev Spearman ×100",
                        x_title="step (0: the start)",
                        y_title="Spearman",
                        elem_id="dev-plot",
                        min_width=280,
                        **curves.CURVE_AXES["dev"],
                    )
                    histogram = gr.Plot(
                        histograms.error_histogram([]),
                        show_label=False,
                        elem_id="error-histogram",
                        min_width=280,
                    )
                with gr.Row(elem_classes="sts-wrap"):
                    loss_curve = gr.LinePlot(
                        None,
                        x="step",
                        y="loss",
                        color="run",
                        height=230,
                        title="Training loss",
                        x_title="step",
                        min_width=280,
                        elem_id="loss-curve",
                        **curves.CURVE_AXES["loss"],
                    )
                    buffer_curve = gr.LinePlot(
                        None,
                        x="step",
                        y="share",
                        color="run",
                        height=230,
                        title="Share of pairs in the buffer zone",
                        x_title="step",
                        min_width=280,
                        elem_id="buffer-curve",
                        **curves.CURVE_AXES["buffer"],
                    )
                results = gr.Dataframe(label=say("train_results"), visible=False, interactive=False)
        with gr.Accordion(say("train_runs"), open=False):
            gr.Markdown(say("train_runs_note"), elem_classes="sts-note")
            with gr.Row(elem_classes="sts-wrap"):
                # the session's runs fill it per visitor; an API caller names "run:<id>" (checked by the store)
                run_pick = gr.Dropdown(
                    [], label=say("train_run"), scale=3, min_width=200, allow_custom_value=True
                )
                zip_button = gr.Button(say("train_zip"), scale=1, min_width=120)
                delete_button = gr.Button(say("train_delete"), variant="stop", scale=1, min_width=120)
            run_info = gr.Markdown()
            run_zip = gr.File(label=say("train_download"), interactive=False, elem_id="run-zip")
    return FinetuneTab(
        tab=tab,
        preset=preset,
        base_model=base_model,
        data=data,
        upload=upload,
        scheme=scheme,
        settings=settings,
        final_eval=final_eval,
        link=link,
        start=start,
        compare=compare,
        stop=stop,
        compare_seeds=compare_seeds,
        progress=progress,
        status=status,
        dev_plot=dev_plot,
        histogram=histogram,
        loss_curve=loss_curve,
        buffer_curve=buffer_curve,
        results=results,
        run_pick=run_pick,
        zip_button=zip_button,
        delete_button=delete_button,
        run_info=run_info,
        run_zip=run_zip,
    )


def wire(tab: FinetuneTab, state, lists) -> None:
    curves = [tab.dev_plot, tab.loss_curve, tab.buffer_curve]
    form_fields = tab.form_fields()
    inputs = {
        "model": tab.base_model,
        "data": tab.data,
        "upload": tab.upload,
        "scheme": tab.scheme,
        **form_fields,
    }
    compare_inputs = {**inputs, "seeds": tab.compare_seeds}
    streamed = [
        tab.progress,
        tab.status,
        *curves,
        tab.results,
        *lists.components,
        tab.histogram,
    ]  # a run's views

    def stream(session: str, views):
        """The UI updates of a session's stream of TrainViews: each names the outputs it changes."""
        sender, view = CurveSender(dev_y_range), None
        for number, view in enumerate(views):
            update = {
                tab.progress: view.progress,
                tab.status: view.status,
                tab.histogram: skip(view.histogram),
                **(dict(zip(curves, sender.updates(view.curves))) if view.curves.drawn() else {}),
            }
            if view.table is not None:
                update[tab.results] = gr.update(value=view.table, visible=True)
            elif number == 0:  # the first update hides an earlier run's table
                update[tab.results] = gr.update(visible=False)
            if view.finished:
                update.update(zip(lists.components, lists.updates(session, ended=view.run_id)))
            yield update
        if view is not None and view.curves.drawn():
            yield from (dict(zip(curves, owed)) for owed in sender.catch_up(view.curves))

    @user_errors
    def train(request: gr.Request, upload: str | None = None, **values):
        """Fine-tune a scorer with the given settings (any left out take the form's defaults) and stream its
        progress, curves and final results."""
        session = session_of(request)
        yield from stream(
            session,
            finetune_view.stream_training(
                state, session, {**values, "upload": upload}, slots.visitor_of(request)
            ),
        )

    @user_errors
    def compare_buffer(request: gr.Request, upload: str | None = None, **values):
        """Pairs of runs with the same start, seed and data order, the second of each with x0 = 0 (no buffer
        zone), at 1 to 3 seeds (``seeds``): their curves and dev error histograms overlaid, each dev difference,
        their paired mean ± se and verdict beside the recorded spread."""
        session = session_of(request)
        yield from stream(
            session,
            compare_view.stream_comparison(
                state,
                session,
                {**values, "upload": upload},
                slots.visitor_of(request),
                language=request_language(request),
            ),
        )

    def stop(request: gr.Request):
        gr.Info(state.request_stop(session_of(request)))

    @user_errors
    def apply_preset(preset):
        values = form.preset_values(preset)
        return [values.get(name, gr.skip()) for name in inputs]

    @user_errors
    def follow_start(choice, request: gr.Request):
        """Starting from a saved scorer, the target is the scorer's."""
        target = form.start_target(session_of(request), choice)
        return gr.skip() if target is None else form.field_text("target", target)

    def data_visibility(data):
        upload = form.TRAINING_DATA_CHOICES.get(data) == "upload"
        return gr.update(visible=upload), gr.update(visible=upload)

    @user_errors
    def zip_run(choice, request: gr.Request):
        return str(session_files.zip_run(state, session_of(request), session_files.choice_run_id(choice)))

    @user_errors
    def delete_run(choice, request: gr.Request):
        session = session_of(request)
        gr.Info(session_files.delete_run(state, session, session_files.choice_run_id(choice)))
        sender, now = CurveSender(dev_y_range), finetune_view.curves_for(session)
        yield {
            **dict(zip(lists.components, lists.updates(session))),
            tab.run_zip: None,
            **(dict(zip(curves, sender.updates(now))) if now.drawn() else dict.fromkeys(curves)),
        }
        if now.drawn():
            yield from (dict(zip(curves, owed)) for owed in sender.catch_up(now))

    @user_errors
    def show_run(choice, request: gr.Request):
        if not choice:
            return gr.skip()
        info = session_files.load_run(session_of(request), session_files.choice_run_id(choice))
        table = finetune_view.result_table(info)
        return (
            finetune_view.run_summary(info),
            gr.update(value=table, visible=True) if table is not None else gr.skip(),
            finetune_view.histogram_for(info),
        )

    # The state's line admits one run at a time (STSDEMO_MAX_TRAINING); others wait in it and show their place,
    # and a full line refuses at once, so Gradio's own limit must not hold them back. Closing the tab cancels
    # the generator (the run ends after its current step); Stop lets the final update through.
    for button, handler, name, given in (
        (tab.start, train, "train", inputs),
        (tab.compare, compare_buffer, "compare_buffer", compare_inputs),
    ):
        button.click(
            handler,
            [],
            streamed,
            inputs_kwargs=given,
            api_name=name,
            concurrency_id="train",
            concurrency_limit=None,
            show_progress="minimal",
        )
    tab.stop.click(stop, None, None, api_name="stop", concurrency_id="stop", concurrency_limit=None)
    tab.preset.input(apply_preset, tab.preset, list(inputs.values()), api_visibility="private")
    tab.base_model.input(follow_start, tab.base_model, tab.settings["target"], api_visibility="private")
    tab.data.change(
        data_visibility, tab.data, [tab.upload, tab.scheme], api_visibility="private", queue=False
    )
    share.wire_copy(tab.link, "train", form_fields)
    # On "input": a run's own pick when it ends must not redraw over its views (after a Compare, the pair's overlay)
    tab.run_pick.input(
        show_run, tab.run_pick, [tab.run_info, tab.results, tab.histogram], api_visibility="private"
    )
    tab.zip_button.click(
        zip_run, tab.run_pick, tab.run_zip, api_name="zip_run", concurrency_id="zip", concurrency_limit=2
    )
    tab.delete_button.click(
        delete_run,
        tab.run_pick,
        [*lists.components, tab.run_zip, *curves],
        api_name="delete_run",
        concurrency_id="zip",
        concurrency_limit=2,
    )
