"""The Gradio app: layout and wiring only. Every computation is a call into the package
(``stsdemo.runs`` for app state and long jobs, ``stsdemo.plots`` for figures, the core for the rest).

Bad input anywhere becomes a ``gr.Error`` toast with the core's message (see :func:`user_errors`).
"""

import functools
import inspect
import logging
import time

import gradio as gr

from . import plots, runs, settings
from .errors import InputError
from .evaluate import TASKS
from .reference import REFERENCE_NOTE

log = logging.getLogger("stsdemo.ui")

PAPER = "https://arxiv.org/abs/2406.05326"
TITLE = "STS as regression: Translated ReLU & Smooth K2"
LATEX = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]

# Real pairs from the STS Benchmark test split (original casing), with their gold score 0..5.
EXAMPLES = [
    ["A woman plays the flute.", "A woman is playing the flute.", 5.0],
    ["A man and a dog on rocks on a beach.", "A man and dog on a rocky seashore.", 4.6],
    ["A man is riding an electric bicycle.", "A man is riding a bicycle.", 3.5],
    ["A monkey is playing drums.", "Someone in a gorilla costume is playing a set of drums.", 2.5],
    ["A man is playing a harp.", "A man is playing a keyboard.", 1.5],
    ["A man is cycling.", "A man is talking.", 0.6],
    ["A woman is spreading mustard on a bread roll.", "A kitten is playing with a woman's finger.", 0.0],
]

CSS = """
.gradio-container {max-width: 1320px !important; margin: auto;}
#sts-header h1 {margin-bottom: 0.1em;}
#sts-header p {color: var(--body-text-color-subdued); margin-top: 0;}
.sts-note {font-size: 0.92em; color: var(--body-text-color-subdued);}
.sts-result input, .sts-result textarea {font-weight: 600; font-size: 1.08em;}
footer {visibility: hidden;}
"""


def launch_kwargs() -> dict:
    """Theme and CSS (launch() arguments in Gradio 6), shared by app.py and the tests."""
    theme = gr.themes.Soft(primary_hue="blue", secondary_hue="orange", neutral_hue="slate",
                           font=["ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "sans-serif"],
                           font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "monospace"])
    return dict(theme=theme, css=CSS)


def user_errors(fn):
    """Turn the core's InputError (and any unexpected error) into a gr.Error toast, never a traceback."""

    def convert(error: Exception) -> gr.Error:
        if isinstance(error, gr.Error):
            return error
        if isinstance(error, InputError):
            return gr.Error(str(error))
        log.exception("unexpected error in %s", fn.__name__)
        return gr.Error(f"Something went wrong ({type(error).__name__}: {str(error)[:300]})")

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def stream(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - converted for the user
                raise convert(error) from None
        return stream

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - converted for the user
            raise convert(error) from None
    return call


def upload_note() -> str:
    """The upload cap, stated where files are uploaded (launch(max_file_size=...) enforces it)."""
    return f"Files up to {settings.max_upload_text()}."


def name_input_errors(demo: gr.Blocks) -> None:
    """Make Gradio's own input checks say which field they are about, and refuse fractions in whole-number
    fields. Gradio checks a Number's or Slider's bounds (and a Dropdown's choices) before our handlers run,
    with a message that names no field ("Value 0 is less than minimum value 0.1."); an API caller sends
    many numbers at once, so each message is prefixed with the field's label. A ``precision=0`` box would
    silently round 2.5 to 2; it says so instead."""

    def wrap(block):
        preprocess, label = block.preprocess, str(block.label)
        whole = isinstance(block, gr.Number) and block.precision == 0

        def checked(payload):
            if whole and isinstance(payload, (int, float)) and not isinstance(payload, bool) and payload != int(payload):
                raise gr.Error(f"{label}: must be a whole number, got {payload:g}")
            try:
                return preprocess(payload)
            except gr.Error as error:
                raise gr.Error(f"{label}: {error.message}") from None

        block.preprocess = checked

    for block in demo.blocks.values():
        if isinstance(block, (gr.Number, gr.Slider, gr.Dropdown, gr.Radio, gr.CheckboxGroup)) and block.label:
            wrap(block)


def _session(request: gr.Request | None) -> str:
    return runs.session_key(getattr(request, "session_hash", None))


def _skip(value):
    return gr.skip() if value is runs.SKIP else value


# ---- handlers (thin: each calls into stsdemo.runs / stsdemo.plots) ---------------------------------


@user_errors
def score(model, sentence1, sentence2, scheme_choice, custom, gap, gold, request: gr.Request):
    view = runs.score_view(_session(request), model, sentence1, sentence2, scheme_choice, custom, gap, gold)
    s = view.score
    return round(s.prediction, 4), s.category, s.node, round(s.cosine, 4), view.figure, view.notice


@user_errors
def score_file(model, path, scheme_choice, custom, gap, request: gr.Request):
    out, preview = runs.score_file_view(_session(request), model, path, scheme_choice, custom, gap)
    return str(out), gr.update(value=preview, visible=True)


def scheme_visibility(choice):
    custom = choice == runs.SCHEME_CHOICES[3]
    return gr.update(visible=custom), gr.update(visible=custom)


def loss_live(k, x0, d, references, prediction, label):
    """Live redraw while a slider moves: an invalid setting is drawn as an error state, not raised."""
    try:
        sample = None if prediction is None or label is None else (prediction, label)
        figure = plots.loss_figure(k, x0, d, references or [], sample)
        table = plots.sample_losses(prediction, label, k, x0) if sample else None
        return figure, plots.loss_formulas(k, x0, d), table
    except InputError as error:
        return gr.skip(), f"✗ **Invalid setting** — {error}.", gr.skip()


@user_errors
def loss_chart(k, x0, d, references, prediction, label):
    """The same charts, but x0 > d/2 (or any bad number) is an error: the API endpoint and slider release."""
    sample = None if prediction is None or label is None else (prediction, label)
    figure = plots.loss_figure(k, x0, d, references or [], sample, strict=True)
    table = plots.sample_losses(prediction, label, k, x0) if sample else None
    return figure, plots.loss_formulas(k, x0, d), table


@user_errors
def apply_preset(preset):
    values = runs.preset_values(preset)
    return values["loss"], values["k"], values["x0"], values["data"], values["two_stage"]


def data_visibility(data):
    upload = runs.TRAINING_DATA_CHOICES.get(data) == "upload"
    return gr.update(visible=upload), gr.update(visible=upload)


@user_errors
def train(model, data, upload, scheme, loss, k, x0, lr, batch_size, epochs, max_steps, max_length, eval_every,
          log_every, max_pairs, two_stage, final_eval, seed, max_dev_pairs, head_lr, select_by, request: gr.Request):
    session = _session(request)
    stream = runs.stream_training(
        session, bool(final_eval), model=model, data=data, upload=upload, scheme=scheme, loss=loss, k=k, x0=x0,
        lr=lr, batch_size=batch_size, epochs=epochs, max_steps=max_steps, max_length=max_length,
        eval_every=eval_every, log_every=log_every, max_pairs=max_pairs, two_stage=two_stage, seed=seed,
        max_dev_pairs=max_dev_pairs, head_lr=head_lr, select_by=select_by)
    curves = CurveSender()
    view = None
    for number, view in enumerate(stream):
        if view.table is not None:
            table = gr.update(value=view.table, visible=True)
        else:  # the first update hides an earlier run's table
            table = gr.update(visible=False) if number == 0 else gr.skip()
        if view.finished:
            lists = _choice_updates(session)
        else:
            lists = (gr.skip(),) * 4
        yield (view.progress, view.status, *curves.updates(view.curves), table, *lists)
    if view is not None and not curves.settled():
        yield (gr.skip(), gr.skip(), *curves.updates(view.curves), *(gr.skip(),) * 5)


class CurveSender:
    """Updates for the three training LinePlots, working around how Gradio 6.31's LinePlot redraws.

    Its colour scale only knows the series present when the chart was last built, and an in-place data
    update does not rebuild it; a changed ``color_map`` does, but the rebuild draws the data of the
    *previous* update. So new data goes out first, and the colour map naming its series one update
    later (``settled()`` says whether one more update is needed to catch up).
    """

    def __init__(self):
        self.sent = (None, None, None)      # colour maps the plots were last given
        self.pending = (None, None, None)   # colour maps of the data sent last

    def updates(self, curves) -> tuple:
        maps = (curves.dev_colors, curves.loss_colors, curves.buffer_colors)
        out = []
        for frame, lagged, sent in zip((curves.dev, curves.loss, curves.buffer), self.pending, self.sent):
            if lagged is not None and lagged != sent:
                out.append(gr.update(value=frame.copy(), color_map=lagged))
            else:
                out.append(gr.update(value=frame.copy()))
        self.sent = tuple(lagged if lagged is not None else sent for lagged, sent in zip(self.pending, self.sent))
        self.pending = maps
        return tuple(out)

    def settled(self) -> bool:
        return self.sent == self.pending


def stop(request: gr.Request):
    gr.Info(runs.request_stop(_session(request)))


def _choice_updates(session):
    models = runs.model_choices(session)
    return (gr.update(choices=models), gr.update(choices=runs.base_model_choices(session)),
            gr.update(choices=runs.bench_choices(session)),
            gr.update(choices=runs.run_choices(session, finished_only=False)))


def refresh_choices(request: gr.Request):
    return _choice_updates(_session(request))


@user_errors
def zip_run(choice, request: gr.Request):
    if not choice:
        raise InputError("pick a run of this session first")
    return str(runs.zip_run(_session(request), str(choice).removeprefix(runs.RUN_PREFIX)))


@user_errors
def delete_run(choice, request: gr.Request):
    if not choice:
        raise InputError("pick a run of this session first")
    session = _session(request)
    gr.Info(runs.delete_run(session, str(choice).removeprefix(runs.RUN_PREFIX)))
    curves, sender = runs.curves_for(session), CurveSender()
    yield (*_choice_updates(session), None, *sender.updates(curves))
    time.sleep(0.3)
    yield (*(gr.skip(),) * 5, *sender.updates(curves))


@user_errors
def show_run(choice, request: gr.Request):
    if not choice:
        return gr.skip(), gr.skip()
    info = runs.load_run(_session(request), str(choice).removeprefix(runs.RUN_PREFIX))
    table = runs.result_table(info)
    return runs.run_summary(info), (gr.update(value=table, visible=True) if table is not None else gr.skip())


@user_errors
def benchmark(choice, request: gr.Request):
    for bar, table, figure in runs.benchmark_stream(_session(request), choice):
        yield bar, _skip(table), _skip(figure)


def benchmark_initial(request: gr.Request):
    rows = runs.benchmark_rows(_session(request))
    return runs.benchmark_table(rows), runs.benchmark_chart(rows)


def cleanup(request: gr.Request):
    runs.request_stop(_session(request))


# ---- layout ---------------------------------------------------------------------------------------


def build_demo() -> gr.Blocks:
    form = runs.default_form()
    loss_start = dict(k=2.0, x0=0.25, d=1.0)
    with gr.Blocks(title="stsdemo · STS regression with Translated ReLU and Smooth K2") as demo:
        gr.Markdown(
            f"# {TITLE}\n"
            "Ordered labels sit on evenly spaced nodes (STS 0…5, or contradiction · neutral · entailment). "
            "A Siamese encoder with a one-number head on $[u, v, |u-v|]$ predicts a point on that line; the "
            "category is the nearest node. Training uses losses with a zero-gradient **buffer zone** around each "
            "label. "
            f"After Zhang & Li (2024), [arXiv 2406.05326]({PAPER}).",
            elem_id="sts-header", latex_delimiters=LATEX)

        with gr.Tabs():
            # ---- 1. score a pair ----------------------------------------------------------------------
            with gr.Tab("Score a pair", id="score") as score_tab:
                with gr.Row(equal_height=False):
                    with gr.Column(scale=5):
                        s1 = gr.Textbox(label="Sentence 1", lines=2, value=EXAMPLES[2][0])
                        s2 = gr.Textbox(label="Sentence 2", lines=2, value=EXAMPLES[2][1])
                        model = gr.Dropdown(runs.model_choices(""), value=runs.DEFAULT_CHOICE, label="Model",
                                            allow_custom_value=True,
                                            info="Your finished runs appear here; or type a hub id / local folder.")
                        with gr.Row():
                            scheme = gr.Radio(list(runs.SCHEME_CHOICES), value=runs.SCHEME_CHOICES[0],
                                              label="Label scheme", scale=3)
                            gold = gr.Number(label="Gold label (optional)", value=EXAMPLES[2][2], scale=1)
                        with gr.Row():
                            custom = gr.Textbox(label="Ordered categories", value="unrelated, related, same",
                                                visible=False, scale=3,
                                                info="Lowest first, comma-separated; node i sits at i·d.")
                            gap = gr.Number(label="Gap d", value=1.0, minimum=0.01, visible=False, scale=1)
                        score_btn = gr.Button("Score the pair", variant="primary")
                    with gr.Column(scale=7):
                        with gr.Row():
                            prediction = gr.Number(label="Prediction (head)", interactive=False,
                                                   elem_classes="sts-result")
                            category = gr.Textbox(label="Category", interactive=False,
                                                  elem_classes="sts-result")
                            node = gr.Number(label="Node", interactive=False, elem_classes="sts-result")
                            cosine = gr.Number(label="Cosine similarity", interactive=False,
                                               elem_classes="sts-result")
                        number_line = gr.Plot(label="Number line", show_label=False, elem_id="number-line")
                        notice = gr.Markdown(elem_classes="sts-note")
                gr.Examples(EXAMPLES, inputs=[s1, s2, gold], label="STS Benchmark test pairs (gold score 0–5)",
                            example_labels=[f"{g:g} · {a}  /  {b}" for a, b, g in EXAMPLES])
                with gr.Accordion("Batch mode: score a CSV / TSV file", open=False):
                    gr.Markdown("A header row with two sentence columns (`sentence1,sentence2`, `premise,hypothesis`, "
                                "…); a label column is optional. You get the file back with `prediction`, "
                                f"`category` and `cosine` per row (up to {runs.MAX_SCORED_ROWS:,} rows). "
                                + upload_note(),
                                elem_classes="sts-note")
                    with gr.Row():
                        upload_pairs = gr.File(label="Pairs to score", file_types=[".csv", ".tsv", ".txt"])
                        scored = gr.File(label="Scored file", interactive=False)
                    score_file_btn = gr.Button("Score the file")
                    scored_preview = gr.Dataframe(label="First rows", visible=False, interactive=False)

            # ---- 2. loss explorer ---------------------------------------------------------------------
            with gr.Tab("Loss explorer", id="loss"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=4):
                        k = gr.Slider(0.1, 5, value=loss_start["k"], step=0.05, label="slope k", elem_id="k-slider",
                                      info="Paper: TReLU 2.5 / SK2 2 (BERT), 1 / 3 (RoBERTa)")
                        x0 = gr.Slider(0, 1.5, value=loss_start["x0"], step=0.01, label="buffer x0",
                                       elem_id="x0-slider",
                                       info="Half-width of the zero-gradient zone; must stay ≤ d/2")
                        d = gr.Slider(0.2, 2, value=loss_start["d"], step=0.05, label="node gap d", elem_id="d-slider",
                                      info="Distance between neighbouring labels")
                        references = gr.CheckboxGroup(list(plots.REFERENCE_LOSSES), value=list(plots.REFERENCE_LOSSES),
                                                      label="Reference losses")
                        formulas = gr.Markdown(plots.loss_formulas(**loss_start), latex_delimiters=LATEX)
                    with gr.Column(scale=8):
                        loss_plot = gr.Plot(plots.loss_figure(**loss_start, sample=(3.6, 3.0)), show_label=False,
                                            elem_id="loss-plot")
                        gr.Markdown("**Try a prediction**: the loss and pull one sample gets (before the batch mean; "
                                    "training also clamps predictions beyond the outermost nodes).",
                                    elem_classes="sts-note")
                        with gr.Row():
                            sample_pred = gr.Number(label="Prediction", value=3.6, step=0.05)
                            sample_label = gr.Number(label="Label", value=3.0, step=0.5)
                        sample_table = gr.Dataframe(plots.sample_losses(3.6, 3.0, loss_start["k"], loss_start["x0"]),
                                                    interactive=False, label="One sample")

            # ---- 3. fine-tune ---------------------------------------------------------------------------
            with gr.Tab("Fine-tune", id="train") as train_tab:
                with gr.Row(equal_height=False):
                    with gr.Column(scale=5):
                        preset = gr.Dropdown([(label, key) for key, label in runs.PRESET_LABELS.items()], value=None,
                                             label="Paper presets", info="Fill loss, k, x0 and data in one click")
                        base_model = gr.Dropdown(runs.base_model_choices(""), value=runs.DEFAULT_CHOICE,
                                                 label="Base model", allow_custom_value=True,
                                                 info="Embedded all-MiniLM-L6-v2, one of your runs, or a hub id")
                        data = gr.Radio(list(runs.TRAINING_DATA_CHOICES), value=list(runs.TRAINING_DATA_CHOICES)[0],
                                        label="Training data",
                                        info="Filtered = the paper's tune data: STS-B + SICK-R train without any "
                                             "pair of the 7 test sets. NLI: contradiction 0, neutral 1, entailment 2.")
                        with gr.Row():
                            train_file = gr.File(label=f"Training CSV / TSV (sentence1, sentence2, label). "
                                                       f"{upload_note()}",
                                                 file_types=[".csv", ".tsv", ".txt"], visible=False)
                            train_scheme = gr.Textbox(label="Label scheme of the file", value="sts", visible=False,
                                                      info="sts, nli, or your ordered list 'bad, fair, good'")
                        loss = gr.Dropdown(list(runs.LOSS_CHOICES), value=list(runs.LOSS_CHOICES)[0], label="Loss")
                        with gr.Row():
                            k_train = gr.Number(label="k", min_width=100, value=2.0, minimum=0.01)
                            x0_train = gr.Number(label="x0", min_width=100, value=0.25, minimum=0, step=0.05)
                            lr = gr.Number(label="Learning rate", min_width=100, value=2e-5, minimum=0)
                        with gr.Row():
                            batch_size = gr.Number(label="Batch size", min_width=100, value=16, precision=0, minimum=1)
                            max_steps = gr.Number(label="Max steps", min_width=100, value=form["max_steps"],
                                                  precision=0, minimum=0, info="0 = whole epochs")
                            epochs = gr.Number(label="Epochs", min_width=100, value=1.0, minimum=0.01)
                        with gr.Row():
                            eval_every = gr.Number(label="Eval every", min_width=100, value=form["eval_every"],
                                                   precision=0, minimum=1, info="steps between STS-B dev scores")
                            max_length = gr.Number(label="Max length", min_width=100, value=form["max_length"],
                                                   precision=0, minimum=8, info="tokens per sentence")
                        two_stage = gr.Checkbox(label="Two-stage (paper's recipe for contrastive encoders: head on "
                                                      "NLI with the encoder frozen, then everything)", value=False)
                        final_eval = gr.Checkbox(label="Final 7-task evaluation vs. the base model (~26k sentences: "
                                                       "under a minute on a GPU, several minutes on a CPU)",
                                                 value=form["final_eval"])
                        with gr.Accordion("More settings", open=False):
                            with gr.Row():
                                log_every = gr.Number(label="Log every", min_width=100, value=form["log_every"],
                                                      precision=0, minimum=1)
                                max_pairs = gr.Number(label="Max pairs", min_width=100, value=form["max_pairs"],
                                                      precision=0, minimum=0, info="0 = all")
                                seed = gr.Number(label="Seed", min_width=100, value=42, precision=0, minimum=0)
                            with gr.Row():
                                max_dev_pairs = gr.Number(label="Dev pairs", value=form["max_dev_pairs"], precision=0,
                                                          minimum=0, min_width=100,
                                                          info="score N evenly spread STS-B dev pairs (0 = all 1,500)")
                                head_lr = gr.Number(label="Head learning rate", value=1e-3, minimum=0, min_width=100,
                                                    info="the fresh head learns faster than the encoder")
                            select_by = gr.Radio(list(runs.SELECT_BY), value=list(runs.SELECT_BY)[0],
                                                 label="Keep the checkpoint with the best STS-B dev")
                    with gr.Column(scale=7):
                        with gr.Row():
                            start_btn = gr.Button("Start training", variant="primary", scale=3)
                            stop_btn = gr.Button("Stop", variant="stop", scale=1)
                        idle = ("Not started. The defaults run about two minutes on a CPU; one run trains at a "
                                "time (others wait in the queue).")
                        progress = gr.HTML(plots.progress_html(0, idle, "idle"), elem_id="train-progress")
                        status = gr.Markdown("", elem_id="train-status")
                        empty = runs.curves_for("")
                        dev0, loss0, buffer0 = empty.dev, empty.loss, empty.buffer
                        dev_plot = gr.LinePlot(dev0, x="step", y="spearman", color="run", height=260,
                                               title="STS-B dev Spearman ×100 (cosine and head)", x_title="step",
                                               y_title="Spearman", elem_id="dev-plot")
                        with gr.Row():
                            loss_curve = gr.LinePlot(loss0, x="step", y="loss", color="run", height=230,
                                                     title="Training loss", x_title="step")
                            buffer_curve = gr.LinePlot(buffer0, x="step", y="share", color="run", height=230,
                                                       title="Share of pairs in the buffer zone",
                                                       x_title="step", y_lim=[0, 1])
                        results = gr.Dataframe(label="7 STS tasks: best checkpoint vs. base model (Spearman ×100)",
                                               visible=False, interactive=False)
                with gr.Accordion("Runs of this session", open=False):
                    gr.Markdown("Runs live only in your session. Pick one to see its summary, download it as a zip "
                                "(loads with `SentenceTransformer(folder)` and `SiameseRegressor.load(folder)`), or "
                                "delete it.", elem_classes="sts-note")
                    with gr.Row():
                        run_pick = gr.Dropdown([], label="Run", scale=3)
                        zip_btn = gr.Button("Prepare zip", scale=1)
                        delete_btn = gr.Button("Delete run", variant="stop", scale=1)
                    run_info = gr.Markdown()
                    run_zip = gr.File(label="Download (zip of the best checkpoint)", interactive=False)

            # ---- 4. benchmark ---------------------------------------------------------------------------
            with gr.Tab("Benchmark", id="bench") as bench_tab:
                gr.Markdown("SentEval's seven STS test sets (STS12–16 in the *all* setting, STS-B test, SICK-R "
                            "test): Spearman ×100 of the cosine similarity of the two sentence embeddings, as SimCSE "
                            "and the paper report. A run's head does not enter this score; only its encoder does.",
                            elem_classes="sts-note")
                with gr.Row():
                    bench_model = gr.Dropdown(runs.bench_choices(""), value=runs.DEFAULT_CHOICE, label="Model",
                                              allow_custom_value=True, scale=4,
                                              info="Default, one of your runs, or a hub id / local folder")
                    bench_btn = gr.Button("Evaluate on 7 tasks", variant="primary", scale=1)
                bench_progress = gr.HTML(plots.progress_html(0, "Results are cached per encoder; a first evaluation "
                                                                "takes a few minutes on a CPU.", "idle"))
                bench_table = gr.Dataframe(runs.benchmark_table({}), interactive=False, label="Results")
                bench_plot = gr.Plot(runs.benchmark_chart({}), show_label=False)
                gr.Markdown(REFERENCE_NOTE, elem_classes="sts-note")

        gr.Markdown(f"Tasks: {', '.join(TASKS)}. Code: the `stsdemo` package (CLI `python -m stsdemo`). "
                    "Runs and uploads are kept per browser session and removed after a day.",
                    elem_classes="sts-note")

        # ---- wiring ----------------------------------------------------------------------------------
        score_inputs = [model, s1, s2, scheme, custom, gap, gold]
        score_outputs = [prediction, category, node, cosine, number_line, notice]
        score_btn.click(score, score_inputs, score_outputs, api_name="score", concurrency_id="score",
                        concurrency_limit=4)
        gr.on([s1.submit, s2.submit], score, score_inputs, score_outputs, api_visibility="private",
              concurrency_id="score", concurrency_limit=4)
        scheme.change(scheme_visibility, scheme, [custom, gap], api_visibility="private", queue=False)
        score_file_btn.click(score_file, [model, upload_pairs, scheme, custom, gap], [scored, scored_preview],
                             api_name="score_file", concurrency_id="score", concurrency_limit=4)

        loss_inputs = [k, x0, d, references, sample_pred, sample_label]
        loss_outputs = [loss_plot, formulas, sample_table]
        # The API endpoint: a figure for valid settings, an error for x0 > d/2.
        api_button = gr.Button(visible=False)
        api_button.click(loss_chart, loss_inputs, loss_outputs, api_name="loss_chart", concurrency_limit=None)
        for slider in (k, x0, d):
            slider.input(loss_live, loss_inputs, loss_outputs, trigger_mode="always_last", concurrency_limit=None,
                         show_progress="hidden", api_visibility="private")
            slider.release(loss_chart, loss_inputs, loss_outputs, concurrency_limit=None, show_progress="hidden",
                           api_visibility="private")
        gr.on([references.change, sample_pred.change, sample_label.change], loss_live, loss_inputs, loss_outputs,
              trigger_mode="always_last", concurrency_limit=None, show_progress="hidden", api_visibility="private")
        preset.input(apply_preset, preset, [loss, k_train, x0_train, data, two_stage], api_visibility="private")
        data.change(data_visibility, data, [train_file, train_scheme], api_visibility="private", queue=False)
        lists = [model, base_model, bench_model, run_pick]
        train_inputs = [base_model, data, train_file, train_scheme, loss, k_train, x0_train, lr, batch_size, epochs,
                        max_steps, max_length, eval_every, log_every, max_pairs, two_stage, final_eval, seed,
                        max_dev_pairs, head_lr, select_by]
        # runs.TRAINING_LINE admits one run at a time (STSDEMO_MAX_TRAINING); others wait in it and show their
        # place, and a full line refuses at once, so Gradio's own limit must not hold them back. Closing the
        # tab cancels the generator (the run ends after its current step); Stop lets the final update through.
        start_btn.click(train, train_inputs, [progress, status, dev_plot, loss_curve, buffer_curve, results, *lists],
                        api_name="train", concurrency_id="train", concurrency_limit=None, show_progress="minimal")
        stop_btn.click(stop, None, None, api_name="stop", concurrency_id="stop", concurrency_limit=None)

        for tab in (score_tab, train_tab, bench_tab):
            tab.select(refresh_choices, None, lists, api_visibility="private", queue=False)
        run_pick.change(show_run, run_pick, [run_info, results], api_visibility="private")
        zip_btn.click(zip_run, run_pick, run_zip, api_name="zip_run", concurrency_id="zip", concurrency_limit=2)
        delete_btn.click(delete_run, run_pick, [*lists, run_zip, dev_plot, loss_curve, buffer_curve],
                         api_name="delete_run", concurrency_id="zip", concurrency_limit=2)

        bench_btn.click(benchmark, bench_model, [bench_progress, bench_table, bench_plot], api_name="benchmark",
                        concurrency_id="eval", concurrency_limit=1, show_progress="minimal")
        demo.load(benchmark_initial, None, [bench_table, bench_plot], api_visibility="private", queue=False)
        demo.load(score, score_inputs, score_outputs, api_visibility="private", concurrency_id="score",
                  concurrency_limit=4)
        demo.unload(cleanup)
        demo.queue(max_size=32, default_concurrency_limit=1)
    name_input_errors(demo)
    return demo
