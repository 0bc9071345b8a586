"""Tab 2, *Playground*: watch the buffer act. Play / Pause / Step / Reset a run of the paper's head on frozen
embeddings, its buffered loss beside its no-buffer twin, and the recorded map of where the buffer pays off.

Layout and wiring only: every control is drawn from its declaration (:mod:`stsdemo.playground.config`), every
action is :func:`stsdemo.app.playground_view.advance`. Play switches on a timer whose ticks each advance the run
by ``speed`` steps (a tick that arrives while the last is still being answered is dropped, so a slow machine
gets fewer, never stale, updates); Pause, Step and Reset switch it off.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from ...errors import InputError
from ...losses.spec import loss_spec, paper_k
from ...playground.config import PlaygroundConfig, declaration
from .. import model_cache, playground_view
from . import share
from .common import session_of, user_errors

CANVAS_JS = (Path(__file__).with_name("playground_canvas.js")).read_text(encoding="utf-8")
TICK_S = 0.1                  # the timer's interval: a tick every 0.1 s at most, each answered before the next
START = PlaygroundConfig()
CHOICE_LABELS = {"data": {"sts": "STS-B (0–5)", "nli": "SNLI (3 nodes)"},
                 "head": {"paper": "paper: [u, v, |u−v|] → 1", "cosine": "a·cos + b", "mlp": "one hidden layer"},
                 "loss": {name: loss_spec(name).short for name in ("sk2", "trelu")}}
INTRO = ("**Watch the buffer act.** A head on frozen sentence embeddings learns to put each pair on the label line, "
         "twice in lockstep: with the loss's buffer (pairs already within x0 of their label get no gradient) and "
         "without it (x0 = 0, same start, same batches). Press **Play**, then make the task harder: add label "
         "noise, take fewer training pairs, round the labels to nodes. Several seeds train at once, so the paired "
         "difference below says whether the buffer helped beyond seed-to-seed luck.")


def control(name: str, **extra):
    """The component of one setting, its range, default, label and help from its declaration."""
    meta = declaration(name)
    common = dict(label=meta["title"], info=meta["help"], value=getattr(START, name), elem_id=f"pg-{name}", **extra)
    if meta["choices"]:
        labels = CHOICE_LABELS.get(name, {})
        return gr.Radio([(labels.get(c, c), c) for c in meta["choices"]], **common)
    if isinstance(meta["default"], bool):
        return gr.Checkbox(**common)
    if meta["step"] is None or name == "train_pairs":
        return gr.Number(**common, minimum=meta["low"], maximum=meta["high"], precision=0 if meta["integer"] else None,
                         min_width=120)
    low = meta["low"] + meta["step"] if meta["low_open"] else meta["low"]
    return gr.Slider(low, meta["high"], step=meta["step"], **common, min_width=160)


def canvas(elem_id: str) -> gr.HTML:
    """A live chart: the view-model's drawing spec as the value, drawn by :data:`CANVAS_JS` on every change."""
    return gr.HTML(value={}, html_template="<canvas></canvas>", js_on_load=CANVAS_JS, elem_id=elem_id,
                   css_template="canvas {display: block; max-width: 100%;}")


def build() -> SimpleNamespace:
    with gr.Tab("Playground", id="playground") as tab:
        gr.Markdown(INTRO, elem_classes="sts-note")
        with gr.Row(equal_height=False, elem_classes="sts-wrap"):
            with gr.Column(scale=4, min_width=280):
                with gr.Row(elem_classes="pg-buttons"):
                    play = gr.Button("▶ Play", variant="primary", min_width=70, elem_id="pg-play")
                    pause = gr.Button("Pause", min_width=70, elem_id="pg-pause")
                    step = gr.Button("Step", min_width=70, elem_id="pg-step")
                    reset = gr.Button("↺ Reset", min_width=70, elem_id="pg-reset")
                controls = {name: control(name) for name in ("data", "loss", "noise", "train_pairs", "round_labels",
                                                             "k", "x0", "d", "head")}
                controls["width"] = control("width", visible=START.head == "mlp")
                with gr.Accordion("Training and seeds", open=False):
                    controls.update({name: control(name) for name in ("lr", "batch_size", "steps", "seeds", "speed")})
                    controls["model"] = gr.Dropdown(model_cache.bench_choices(""), value=model_cache.DEFAULT_CHOICE,
                                                    label="Encoder", allow_custom_value=True, elem_id="pg-model",
                                                    info="Whose frozen embeddings the heads read: the embedded "
                                                         "encoder, one of your runs, or a hub id (embedded once, "
                                                         "then cached)")
                link = share.link_box("playground")
            with gr.Column(scale=8, min_width=280):
                status = gr.Markdown("Press **▶ Play** (or **Step**) to start.", elem_id="pg-status")
                dots = canvas("pg-dots")
                curves = canvas("pg-curves")
        gr.Markdown("### Where does the buffer pay off?\nThe paired difference buffer − none, recorded over a grid "
                    "of label noise × training pairs, many seeds a cell, at the default settings.",
                    elem_classes="sts-note")
        first_map, first_reading = playground_view.payoff_view(START.to_dict())
        with gr.Row(elem_classes="sts-wrap", equal_height=False):
            heatmap = gr.Plot(first_map, show_label=False, elem_id="pg-payoff", scale=3, min_width=280)
            reading = gr.Markdown(first_reading, elem_id="pg-payoff-reading", min_height=0)
        timer = gr.Timer(TICK_S, active=False)
    return SimpleNamespace(**locals())


def wire(tab: SimpleNamespace, state, demo: gr.Blocks) -> None:
    store = state.playground
    names = {component: name for name, component in tab.controls.items()}
    inputs = set(tab.controls.values())          # a set: each handler gets {component: value}
    shown = [tab.dots, tab.curves, tab.status]

    def values_of(given: dict) -> dict:
        return {names[component]: value for component, value in given.items() if component in names}

    def answer(view: playground_view.PlaygroundView, timer) -> tuple:
        for notice in view.notices:
            gr.Warning(notice, duration=8)
        return view.dots, view.curves, view.status, timer

    def action(kind: str):
        @user_errors
        def run(given: dict, request: gr.Request, progress=gr.Progress()):
            report = (lambda fraction, text: progress(fraction, desc=text))
            view = playground_view.advance(store, session_of(request), values_of(given), kind, report)
            return answer(view, gr.Timer(active=view.playing))
        run.__name__ = f"playground_{kind}"
        return run

    def tick(given: dict, request: gr.Request):
        """One tick of a playing run; the timer stops at the run's end or at an error (with a notice)."""
        try:
            view = playground_view.advance(store, session_of(request), values_of(given), "tick")
        except InputError as error:
            gr.Warning(str(error), duration=10)
            return *[gr.skip()] * len(shown), gr.Timer(active=False)
        return answer(view, gr.skip() if view.playing else gr.Timer(active=False))

    events = dict(concurrency_id="playground", concurrency_limit=4, api_visibility="private")
    for button, kind in ((tab.play, "play"), (tab.step, "step"), (tab.reset, "reset")):
        button.click(action(kind), inputs, [*shown, tab.timer], show_progress="minimal", **events)
    tab.timer.tick(tick, inputs, [*shown, tab.timer], show_progress="hidden", **events)
    tab.pause.click(lambda: gr.Timer(active=False), None, tab.timer, queue=False, api_visibility="private")

    def redraw_map(given: dict):
        return playground_view.payoff_view(values_of(given))

    gr.on([tab.controls[name].change for name in ("data", "loss", "head", "noise", "train_pairs")], redraw_map,
          inputs, [tab.heatmap, tab.reading], queue=False, api_visibility="private")
    tab.controls["loss"].input(paper_k, tab.controls["loss"], tab.controls["k"], queue=False, api_visibility="private")
    tab.controls["head"].change(lambda head: gr.update(visible=head == "mlp"), tab.controls["head"],
                                tab.controls["width"], queue=False, api_visibility="private")

    def prefetch(model: str, data: str, request: gr.Request):
        """Opening the tab starts embedding its data in the background (once per encoder; cached on disk)."""
        try:
            store.prepare(session_of(request), model, data)
        except InputError:
            pass  # a bad choice is reported when the visitor presses Play

    def leave(request: gr.Request):
        store.forget(session_of(request))

    tab.tab.select(prefetch, [tab.controls["model"], tab.controls["data"]], None, queue=False,
                   api_visibility="private")
    demo.unload(leave)
    share.wire_copy(tab.link, "playground", {name: c for name, c in tab.controls.items() if name != "model"})
