"""Tab 2, *Playground*: watch the buffer act. Play / Pause / Step / Reset a run of the paper's head on frozen
embeddings, its buffered loss beside its no-buffer twin, and the recorded map of where the buffer pays off; the
visitor's own labelled pairs uploaded, and a run's head exported as a scorer.

Layout and wiring only: every control is drawn from its declaration (:mod:`stsdemo.playground.config`), every
action is :func:`stsdemo.app.playground_view.frames` (an upload :func:`~stsdemo.app.playground_view.upload`, an
export :func:`~stsdemo.app.playground_view.export_zip`). The live view is one component (the run's status and two
canvases, drawn by ``playground_canvas.js``). Play, Step and Reset are ordinary events that send it a frame; while a
run plays, the page itself asks the component's server function for each next frame, one request at a time (a
slow machine gets fewer frames, never a queue), with the key Play handed out. Pause, and any change of a setting,
stop that loop in the page; the next Play starts the run again under the new settings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import gradio as gr

from ...errors import InputError
from ...losses.spec import loss_spec, paper_k
from ...playground import payoff
from ...playground.config import MAX_UPLOAD_PAIRS, UPLOADED, PlaygroundConfig, declaration, relevant
from ...playground.uploaded import INFER, MIN_UPLOAD_PAIRS, REPORT_MIN, REPORT_SHARE
from .. import model_cache, playground_view
from . import share
from .common import session_of, user_errors

CANVAS_JS = (Path(__file__).with_name("playground_canvas.js")).read_text(encoding="utf-8")
START = PlaygroundConfig()
CHOICE_LABELS = {"data": {"sts": "STS-B (0–5)", "nli": "SNLI (3 nodes)", "upload": "your pairs (upload below)"},
                 "head": {"paper": "paper: [u, v, |u−v|] → 1", "cosine": "a·cos + b", "mlp": "one hidden layer"},
                 "loss": {name: loss_spec(name).short for name in ("sk2", "trelu")}}
INTRO = ("**Watch the buffer act.** A head on frozen sentence embeddings learns to put each pair on the label line, "
         "twice in lockstep: with the loss's buffer (pairs already within x0 of their label get no gradient) and "
         "without it (x0 = 0, same start, same batches). Each twin of each seed is also stopped at its own best step, "
         "chosen on a selection set of noisy pairs it never trains on, and both are read on clean report pairs. "
         "Press **Play** and watch both readings: at this step, and stopped at its best. Several seeds train at "
         "once, so the paired difference says whether the buffer helped beyond seed-to-seed luck. Click a dot to "
         "read its pair.")


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


UPLOAD_HELP = ("The Score tab's CSV rules: a header with two sentence columns (sentence1, sentence2 or the like) and "
               f"a label column (label, score, ...). {REPORT_SHARE:.0%} of the pairs (at least {REPORT_MIN}) are held "
               "out as the report set; each seed draws its training and selection pairs from the rest, as on STS-B. "
               "Embedded once, then cached by content.")
LIVE_HTML = ('<div id="pg-status" class="pg-status"><p>Press <b>▶ Play</b> (or <b>Step</b>) to start.</p></div>'
             '<canvas id="pg-dots"></canvas><div id="pg-pair" class="pg-pair" aria-live="polite"></div>'
             '<div id="pg-moved" class="pg-moved"></div><canvas id="pg-curves"></canvas>')
LIVE_CSS = """
canvas {display: block; max-width: 100%; margin-top: 10px;}
.pg-status table {border-collapse: collapse; font-size: 0.92em; margin: 6px 0;}
.pg-status th, .pg-status td {padding: 3px 10px; border-bottom: 1px solid var(--border-color-primary); text-align: right;}
.pg-status th:first-child, .pg-status td:first-child {text-align: left;}
.pg-status p {margin: 4px 0;}
.pg-status .pg-rule {font-size: 0.88em; color: var(--body-text-color-subdued);}
.pg-status .pg-wait, .pg-status .pg-changed {font-weight: 600; color: var(--color-accent);}
.pg-pair, .pg-moved {font-size: 0.9em; overflow-x: auto;}
.pg-pair table {border-collapse: collapse; margin: 4px 0;}
.pg-pair th, .pg-pair td {padding: 2px 8px; border-bottom: 1px solid var(--border-color-primary); text-align: right;}
.pg-pair th:first-child, .pg-pair td:first-child {text-align: left;}
.pg-pair p, .pg-moved p {margin: 3px 0;}
.pg-pair .pg-pair-title, .pg-moved .pg-moved-title {font-weight: 600;}
.pg-moved .pg-moved-pair {display: block; width: 100%; text-align: left; margin: 2px 0; padding: 3px 6px;
  border: 1px solid var(--border-color-primary); border-radius: 4px; background: none; cursor: pointer;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap;}
canvas#pg-dots:focus {outline: 2px solid var(--color-accent);}
"""
# What the visitor asked for last (play, step, reset, pause, or a changed setting), told to the live view at the
# click, before any answer: a Play whose first frame is still being embedded does not start playing once the
# visitor has paused, and a setting changed mid-run stops it with a line saying so.
INTENT_JS = ("() => {{ document.dispatchEvent(new CustomEvent('stsdemo-playground-intent', "
             "{{detail: '{kind}'}})); }}")


@dataclass
class Ticker:
    """The live view's two server functions, given their work by :func:`wire` (where the memory is known): the next
    frame of a playing run by its play key, and one dot's pair by the view's key and the dot's index."""

    next_frame: Callable[[str], dict | None] = lambda token: None
    inspect: Callable[[str, int], dict | None] = lambda key, dot: None


@dataclass
class PlaygroundTab:
    """What the tab hands on: its buttons, its settings by name (a link's fields among them, by their names in
    :mod:`stsdemo.app.links`), the live view and its ticker, the payoff map and its reading, the link box, the
    upload (the file, its scale, what was read) and the export (its button and zip)."""

    tab: gr.Tab
    play: gr.Button
    pause: gr.Button
    step: gr.Button
    reset: gr.Button
    controls: dict
    link: share.LinkBox
    ticker: Ticker
    live: gr.HTML
    map_reading: gr.Radio
    heatmap: gr.Plot
    reading: gr.Markdown
    upload: gr.File
    scale: gr.Textbox
    uploaded: gr.Markdown
    export: gr.Button
    exported: gr.File


def live_view(ticker: Ticker) -> gr.HTML:
    """The run's status, two canvases and the inspected pair; ``ticker.next_frame(token)`` and
    ``ticker.inspect(key, dot)`` are its server functions (the page calls them as ``server.playground_tick``
    while a run plays, and ``server.playground_pair`` when a dot is selected)."""
    def playground_tick(token):
        return ticker.next_frame(token)

    def playground_pair(asked):      # one argument, [key, dot]: Gradio hands a server function one value
        return ticker.inspect(*asked) if isinstance(asked, list) and len(asked) == 2 else None

    return gr.HTML(value="", html_template=LIVE_HTML, css_template=LIVE_CSS, js_on_load=CANVAS_JS,
                   server_functions=[playground_tick, playground_pair], elem_id="pg-live", min_height=120)


def frame_value(view: playground_view.PlaygroundView) -> str:
    """A frame as the live component's value: one JSON string, which the page parses once. (A nested value becomes
    a deeply watched object in the page, cloned and proxied on every update: at 1,200 dots that took most of a
    second per frame.)"""
    return json.dumps(view.frame(), separators=(",", ":"))


def build() -> PlaygroundTab:
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
                controls["width"] = control("width", visible=relevant("width", START.head))
                with gr.Accordion("Training and seeds", open=False):
                    controls.update({name: control(name) for name in ("lr", "batch_size", "steps", "seeds", "speed")})
                    controls["model"] = gr.Dropdown(model_cache.bench_choices(""), value=model_cache.DEFAULT_CHOICE,
                                                    label="Encoder", allow_custom_value=True, elem_id="pg-model",
                                                    info="Whose frozen embeddings the heads read: the embedded "
                                                         "encoder, one of your runs, or a hub id (embedded once, "
                                                         "then cached)")
                with gr.Accordion("Your own labelled pairs", open=False, elem_id="pg-upload-box"):
                    scale = gr.Textbox(INFER, label="Scale", elem_id="pg-scale",
                                       info="set before uploading: infer (from the labels), sts, nli, or the "
                                            "categories lowest first, e.g. bad, fair, good")
                    upload = gr.File(label=f"Labelled pairs ({MIN_UPLOAD_PAIRS:,}–{MAX_UPLOAD_PAIRS:,})",
                                     file_types=[".csv", ".tsv", ".txt"], type="filepath", elem_id="pg-upload")
                    uploaded = gr.Markdown(UPLOAD_HELP, elem_id="pg-uploaded", elem_classes="sts-note")
                with gr.Accordion("Export the trained head", open=False, elem_id="pg-export-box"):
                    gr.Markdown("The paper head's buffer twin (first seed) at its best step, over the encoder it "
                                "read, as a scorer: it loads with `SentenceTransformer(folder)` and "
                                "`SiameseRegressor.load(folder)`, with its `run.json` and model card.",
                                elem_classes="sts-note")
                    export = gr.Button("Export this run (zip)", elem_id="pg-export")
                    exported = gr.File(label="Scorer (zip)", interactive=False, elem_id="pg-exported")
                link = share.link_box("playground")
                with gr.Accordion("Story presets", open=False, elem_id="pg-presets"):
                    gr.Markdown(playground_view.presets_markdown(), elem_classes="sts-note")
            with gr.Column(scale=8, min_width=280):
                ticker = Ticker()   # wire() gives it its work
                live = live_view(ticker)
        gr.Markdown("### Where does the buffer pay off?\nThe paired difference buffer − none, recorded over a grid "
                    "of label noise × training pairs, many seeds a cell, at the default settings: each twin "
                    "stopped at its best, both at step 1,000, or each with its own tuned learning rate.",
                    elem_classes="sts-note")
        first_map, first_reading = playground_view.payoff_view(START.to_dict())
        map_reading = gr.Radio([(payoff.READINGS[name], name) for name in playground_view.MAP_READINGS],
                               value=playground_view.MAP_READINGS[0], label="Map reading", elem_id="pg-map-reading")
        with gr.Row(elem_classes="sts-wrap", equal_height=False):
            heatmap = gr.Plot(first_map, show_label=False, elem_id="pg-payoff", scale=3, min_width=280)
            reading = gr.Markdown(first_reading, elem_id="pg-payoff-reading", min_height=0)
    return PlaygroundTab(tab=tab, play=play, pause=pause, step=step, reset=reset, controls=controls, link=link,
                         ticker=ticker, live=live, map_reading=map_reading, heatmap=heatmap, reading=reading,
                         upload=upload, scale=scale, uploaded=uploaded, export=export, exported=exported)


def wire(tab: PlaygroundTab, state, demo: gr.Blocks) -> None:
    memory = state.playground
    names = {component: name for name, component in tab.controls.items()}
    inputs = set(tab.controls.values())          # a set: each handler gets {component: value}
    tab.ticker.next_frame = lambda token: playground_view.next_frame(memory, token)
    tab.ticker.inspect = lambda key, dot: playground_view.inspect_pair(memory, key, dot)

    def values_of(given: dict) -> dict:
        return {names[component]: value for component, value in given.items() if component in names}

    def action(kind: str):
        @user_errors
        def run(given: dict, request: gr.Request):
            session, values = session_of(request), values_of(given)
            for frame in playground_view.frames(memory, session, values, kind):
                if isinstance(frame, dict):      # still embedding: a waiting frame
                    yield json.dumps(frame)
                    continue
                for notice in frame.notices:
                    gr.Warning(notice, duration=8)
                yield frame_value(frame)
        run.__name__ = f"playground_{kind}"
        return run

    for button, kind in ((tab.play, "play"), (tab.step, "step"), (tab.reset, "reset")):
        button.click(None, js=INTENT_JS.format(kind=kind), queue=False, api_visibility="private")
        button.click(action(kind), inputs, tab.live, show_progress="hidden", concurrency_id="playground",
                     concurrency_limit=4, api_visibility="private")
    tab.pause.click(None, js=INTENT_JS.format(kind="pause"), queue=False, api_visibility="private")
    gr.on([component.change for component in tab.controls.values()], None, js=INTENT_JS.format(kind="changed"),
          queue=False, api_visibility="private")

    def redraw_map(given: dict):
        return playground_view.payoff_view(values_of(given), given[tab.map_reading])

    gr.on([tab.controls[name].change for name in ("data", "loss", "head", "noise", "train_pairs", "lr", "steps",
                                                  "batch_size", "k", "x0", "d", "seeds", "round_labels", "width")]
          + [tab.map_reading.change], redraw_map, inputs | {tab.map_reading}, [tab.heatmap, tab.reading],
          queue=False, api_visibility="private")
    tab.controls["loss"].input(paper_k, tab.controls["loss"], tab.controls["k"], queue=False, api_visibility="private")
    tab.controls["head"].change(lambda head: gr.update(visible=relevant("width", head)), tab.controls["head"],
                                tab.controls["width"], queue=False, api_visibility="private")

    def prefetch(model: str, data: str, request: gr.Request):
        """Opening the tab starts embedding its data in the background (once per encoder; cached on disk)."""
        try:
            memory.prepare(session_of(request), model, data)
        except InputError:
            pass  # a bad choice is reported when the visitor presses Play

    @user_errors
    def read_upload(path, scale: str, model: str, request: gr.Request):
        for text in playground_view.upload(memory, session_of(request), path, scale, model):
            yield text, UPLOADED

    # the box is emptied once read, either way: the line under it names the pairs in use (a refused file is not)
    tab.upload.upload(read_upload, [tab.upload, tab.scale, tab.controls["model"]], [tab.uploaded, tab.controls["data"]],
                      show_progress="hidden", api_visibility="private").then(lambda: None, None, tab.upload,
                                                                              api_visibility="private")

    @user_errors
    def export_run(request: gr.Request):
        return str(playground_view.export_zip(memory, session_of(request)))

    tab.export.click(export_run, None, tab.exported, concurrency_id="zip", concurrency_limit=2,
                     api_visibility="private")

    def leave(request: gr.Request):
        memory.forget(session_of(request))

    tab.tab.select(prefetch, [tab.controls["model"], tab.controls["data"]], None, queue=False,
                   api_visibility="private")
    demo.unload(leave)
    share.wire_copy(tab.link, "playground", tab.controls)
