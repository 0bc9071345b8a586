"""The *Playground* tab as plain Python: a visitor's run advanced by Play (and each tick while it plays), Step or
Reset, and what the tab then shows: both twins' held-out pairs, their curves, the numbers and the paired
difference over seeds, and beside it the recorded map of where the buffer pays off.

The tab's controls are the settings of :class:`stsdemo.playground.config.PlaygroundConfig`, in :data:`CONTROLS`
order; a bad value falls back to its default with a notice (:func:`~stsdemo.playground.config.lenient`). A run
belongs to one visitor (:class:`~.playground_memory.PlaygroundMemory`); it continues while only its length or speed
changes and starts again when any other setting does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from html import escape
from pathlib import Path

import numpy as np
import torch

from .. import environment
from ..errors import InputError
from ..losses.spec import loss_spec
from ..paired import rule_text
from ..playground import payoff
from ..playground.config import BUILT_IN_DATA, UPLOADED, PlaygroundConfig, lenient, lenient_value
from ..playground.datasets import POOL_PAIRS
from ..playground.export_run import export_playground
from ..playground.presets import PRESETS
from ..playground.metrics import METRICS, PAIRED, READ_BY
from ..playground.run import SELECT_EVERY, TWIN_NAMES, RunView, act, act_as_asked, run_seeds, twin_labels
from . import playground_plots, session_files
from .playground_memory import POLL_S, PlaygroundMemory

CONTROLS = tuple(item.name for item in fields(PlaygroundConfig))
METRIC_DIGITS = {"spearman": 2, "accuracy": 1, "error": 3, "inside": 1}
MAP_READINGS = tuple(payoff.READINGS)   # the map's readings, the first shown by default


@dataclass
class PlaygroundView:
    """What the tab shows after an action: the run's status (HTML, every text in it escaped), both twins' dots and
    the curves (canvas drawing specs), whether Play goes on and, then, the key the page asks for the next frames
    with; and notices about values that fell back."""

    status: str
    dots: dict
    curves: dict
    playing: bool
    notices: list[str]
    token: str | None = None
    view_key: str | None = None

    def frame(self) -> dict:
        """What the page draws: status, dots, curves, whether it plays on, the play key and the view key."""
        return dict(status=self.status, dots=self.dots, curves=self.curves, playing=self.playing, token=self.token,
                    view_key=self.view_key)


def presets_markdown() -> str:
    """The story presets as the tab lists them: each a link to its state, what to do there and what to notice
    (written from its recorded run), and how a teacher's link hides controls."""
    items = [f"- **[{preset.title}](?tab=playground&preset={preset.name})**. {preset.do}  \n  *Notice:* {preset.notice}"
             for preset in PRESETS]
    return ("\n".join(items) + "\n\nA teacher's link can hide controls: add `&hide=lr,batch_size` (any setting's "
            "name) to a preset's or a copied link. The seeds are fixed, so every student sees the same run.")


def upload(memory: PlaygroundMemory, session: str, path, scale: str, model: str):
    """Read the visitor's CSV of labelled pairs (one clear line for a bad file: InputError, before anything is
    yielded) and embed its sentences for the encoder ``model``: what the tab says about it (Markdown), every
    :data:`~.playground_memory.POLL_S` with the embedding's progress and time left, last with the pairs ready."""
    if not path:
        raise InputError("choose a CSV or TSV file of labelled sentence pairs")
    uploaded, preparation = memory.upload(session, path, scale, model)
    data = uploaded.data
    pairs = len(data.train) + len(data.held_out)
    notice = f" Cleaned: {uploaded.notice}." if uploaded.notice else ""
    read = (f"**{escape(data.title)}**: {pairs:,} pairs, {len(data.held_out):,} held out as the report set, "
            f"{len(data.train):,} in the pool each seed draws its training and selection pairs from. "
            f"{escape(uploaded.scale_text)}{escape(notice)}")
    while not preparation.done.wait(POLL_S):
        yield f"{read}\n\n{escape(preparation.progress_text(playing=False))}"
    if preparation.error is not None:
        memory.prepared(session, model, UPLOADED)          # raises the preparation's error as InputError
    yield f"{read}\n\nEmbedded and cached: press **▶ Play** to train on them."


def export_zip(memory: PlaygroundMemory, session: str) -> Path:
    """The visitor's run, its buffer twin (first seed) at its best step, as a zip of a scorer that loads with
    ``SentenceTransformer(folder)`` and ``SiameseRegressor.load`` with its ``run.json`` and model card
    (:func:`~stsdemo.playground.export_run.export_playground`); staged for download like a run's zip."""
    run = memory.session(session)
    with run.lock:
        playground, model = run.playground, run.model
        if playground is None:
            raise InputError("there is no run to export yet: press Play or Step first")
        name = f"stsdemo-playground-{playground.data.name.replace(':', '-')}-step{playground.steps_done}.zip"
        staging = session_files.session_dir(session)
        staging.mkdir(parents=True, exist_ok=True)
        return session_files.zip_export(
            lambda out: export_playground(playground, model, out, allowed_roots=environment.model_roots()),
            staging, session_files.downloads_dir(session) / name)


def frames(memory: PlaygroundMemory, session: str, values: dict, action: str):
    """What the tab shows for ``action`` under the settings ``values``: while their data set is being embedded for
    their encoder (the first Play on a fresh server), a waiting frame every :data:`~.playground_memory.POLL_S`, its
    status saying how far along and the time left; then the run's :class:`PlaygroundView` (:func:`advance`)."""
    preparation = memory.prepare(session, *_source(values))
    while not preparation.done.wait(POLL_S):
        yield dict(status=f"<p class=\"pg-wait\">{escape(preparation.progress_text())}</p>", waiting=True)
    yield advance(memory, session, values, action)


def advance(memory: PlaygroundMemory, session: str, values: dict, action: str) -> PlaygroundView:
    """Do ``action`` (one of :data:`~stsdemo.playground.run.ACTIONS`) to the visitor's run under the settings
    ``values`` and measure it (:func:`~stsdemo.playground.run.act_as_asked`, which checks them, once).

    ``play`` starts a run (again, when the last one finished), takes its first steps and hands out a play key;
    ``tick`` takes the next ``speed`` steps of a playing run; ``step`` takes one; ``reset`` starts the run again
    at step 0. A run whose settings changed (beyond its length and speed) starts again, with a notice when that
    happens mid-play.
    """
    model, data = _source(values)
    prepared = memory.prepared(session, model, data)
    run = memory.session(session)
    with run.lock:
        acted = act_as_asked(run.playground, values, prepared.data, prepared.features_for, action,
                             shown=playground_plots.MAX_DOTS)
        run.playground, run.view, run.encoder = acted.playground, acted.view, prepared.encoder
        run.model = memory.source(session, model)[0]
        view = render(acted.view, run.encoder)
    playing = action in ("play", "tick") and acted.playing
    token = memory.play_token(session) if action == "play" and playing else run.token if playing else None
    return PlaygroundView(*view, playing=playing, notices=acted.notices, token=token, view_key=run.view_key)


def _source(values: dict) -> tuple[str, str]:
    """The encoder and the data set ``values`` ask for, as the run will read them: what is embedded first."""
    return lenient_value("model", values.get("model")), lenient_value("data", values.get("data"))


def next_frame(memory: PlaygroundMemory, token) -> dict | None:
    """The next frame of the playing run whose page holds ``token``, under that run's own settings (they changed
    only through Play, Step or Reset): straight to the run, with nothing looked up again; None for an unknown
    token or a run that is gone. While :data:`~.playground_memory.MAX_TICKS` frames are being made for others, a
    frame that says ``busy`` (the page asks again a moment later), so no crowd of pages can hold every core."""
    session = memory.session_of_token(token)
    if session is None:
        return None
    run = memory.session(session)
    with memory.tick_slot() as granted:
        if not granted:
            return dict(busy=True, playing=True, token=token)
        with run.lock:
            if run.playground is None:
                return None
            playground = run.playground
            acted = act(playground, playground.config, playground.data, playground.features, "tick",
                        shown=playground_plots.MAX_DOTS)
            run.view = acted.view
            view = render(acted.view, run.encoder)
    playing = acted.playing
    return PlaygroundView(*view, playing=playing, notices=[], token=run.token if playing else None,
                          view_key=run.view_key).frame()


MOVED = 5                # the report pairs listed as "most moved by the buffer"


def pull(loss, prediction: float, label: float) -> float:
    """``d loss / d prediction`` of one pair under ``loss`` (the registry's, as training applies it): what a
    training pair at this prediction and label would be pulled by; exactly 0 inside the buffer."""
    guess = torch.tensor([prediction], dtype=torch.float32, requires_grad=True)
    loss.elementwise(guess, torch.tensor([label], dtype=torch.float32)).sum().backward()
    return float(guess.grad[0])


def inspect_pair(memory: PlaygroundMemory, key, dot) -> dict | None:
    """One drawn report pair of the run whose page holds the view ``key``, as its last frame showed it: its
    sentences and gold label, and for each twin (first seed) its prediction at this step and at its best step, the
    distance to the label, whether it sits within x0 (inside the buffer) and the pull it would get as a training
    pair. None for an unknown key or dot."""
    session = memory.session_of_view(key)
    if session is None or isinstance(dot, bool) or not isinstance(dot, int):
        return None
    run = memory.session(session)
    with run.lock:
        view = run.view
    if view is None or not 0 <= dot < len(view.shown):
        return None
    gold, scheme, twins = float(view.gold_shown[dot]), view.scheme, []
    for twin, (label, loss) in enumerate(zip(view.twin_labels, view.losses)):
        readings = {}
        for when, prediction in (("now", float(view.measurement.shown[twin, dot])),
                                 ("best", float(view.best_shown[twin, dot]))):
            clamped = min(max(prediction, scheme.low), scheme.high)
            readings[when] = dict(prediction=round(prediction, 4), distance=round(abs(clamped - gold), 4),
                                  inside=bool(loss.in_buffer(torch.tensor([prediction]), torch.tensor([gold]))[0]),
                                  pull=round(pull(loss, prediction, gold), 4))
        twins.append(dict(name=label, x0=loss.x0, best_step=int(view.best_steps_shown[twin]), **readings))
    sentence1, sentence2 = view.sentences_shown[dot]
    return dict(dot=dot, step=view.step, gold=round(gold, 4), sentence1=sentence1, sentence2=sentence2,
                twins=twins)


def most_moved(shown: np.ndarray, count: int = MOVED) -> list[int]:
    """The drawn report pairs (dot indices) whose two twins' predictions differ most, largest first."""
    gap = np.abs(shown[0] - shown[1])
    return [int(i) for i in np.argsort(-gap, kind="stable")[:count]]


API_MODELS = ("default", "scorer")      # encoders an API call may name (each embedded once, then cached)


def api_run(memory: PlaygroundMemory, values: dict) -> dict:
    """One bounded run for the API and MCP: the settings checked against their declarations (InputError with the
    declaration's limits) and against the one-call budget, trained to their last step. Returns the settings, the
    twins' names, both twins' final metrics (mean and sd over seeds) and the paired differences with verdicts."""
    model = str(values.get("model") or "default")
    if model not in API_MODELS:
        raise InputError(f"model must be one of {', '.join(API_MODELS)} (the embedded encoder, or the shipped "
                         "scorer's)")
    config = PlaygroundConfig(**{**values, "model": model})
    if config.data == UPLOADED:
        raise InputError("data 'upload' is a visitor's own pairs, uploaded in the Playground tab; the API runs on "
                         f"{' or '.join(BUILT_IN_DATA)}")
    config.check_budget()
    prepared = memory.prepared("", config.model, config.data)
    result = run_seeds(config, prepared.data, prepared.features_for(config.head))
    return {"settings": config.to_dict(), "encoder": prepared.encoder,
            "twins_named": dict(zip(TWIN_NAMES, twin_labels(config))), **result}


def render(view: RunView, encoder: str) -> tuple:
    """The status, the dots of both twins and the curves of a measured run."""
    labels, measurement = view.twin_labels, view.measurement
    titles = (f"With the buffer · {labels[0]}", f"Without · {labels[1]}")
    best_steps = tuple(float(np.median(measurement.best_steps[:, twin])) for twin in range(len(TWIN_NAMES)))
    moved = [dict(dot=dot, text=" | ".join(_short(sentence) for sentence in view.sentences_shown[dot]),
                  gap=round(float(abs(measurement.shown[0, dot] - measurement.shown[1, dot])), 3))
             for dot in most_moved(measurement.shown)] if len(view.shown) else []
    return (status_html(view, encoder), playground_plots.dots_spec(view, titles, moved),
            playground_plots.curves_spec(view, best_steps))


def _short(sentence: str, most: int = 70) -> str:
    return sentence if len(sentence) <= most else sentence[:most - 1] + "…"


def _cells(values) -> str:
    return "".join(f"<td>{value}</td>" for value in values)


def status_html(view: RunView, encoder: str) -> str:
    """Where the run is; both twins' numbers (mean over seeds) at this step and stopped at their best; the paired
    difference of each "higher is better" metric, stopped at its best first and at this step second, each with
    its verdict (:mod:`stsdemo.paired`) and the rule in words; as HTML, every text in it escaped (the encoder's
    name may be a visitor's)."""
    config, read_by, measurement, labels = view.config, view.read_by, view.measurement, view.twin_labels
    rows = ["<tr><th></th>" + "".join(f"<th>{escape(label)}</th>" for label in labels) + "</tr>"]

    def row(title: str, means, digits: int) -> None:
        rows.append(f"<tr><td>{escape(title)}</td>"
                    + _cells("–" if m != m else f"{m:.{digits}f}" for m in means) + "</tr>")

    name, digits = METRICS[read_by], METRIC_DIGITS[read_by]
    row(f"{name}, report set · at this step", measurement.mean(read_by), digits)
    row(f"{name}, report set · stopped at its best", measurement.mean(read_by, at_best=True), digits)
    rows.append("<tr><td>best step (median of seeds; checked every "
                f"{SELECT_EVERY} steps on the selection set)</td>"
                + _cells(f"{np.median(measurement.best_steps[:, twin]):,.0f}" for twin in range(len(TWIN_NAMES)))
                + "</tr>")
    row(f"{name}, training pairs − selection set (memorisation)",
        measurement.mean("fit") - measurement.mean("selection"), digits)
    for metric in METRICS:
        if metric != read_by:
            row(f"{METRICS[metric]} · at this step", measurement.mean(metric), METRIC_DIGITS[metric])
    readings = []
    for at_best, title in ((True, "Stopped at its best"), (False, f"At this step ({measurement.step:,})")):
        parts = [f"{escape(METRICS[metric])} <b>{escape(found.numbers())}</b>: {escape(found.verdict)}"
                 for metric in PAIRED for found in [measurement.paired(metric, at_best=at_best)]]
        readings.append(f"<b>{title}</b>: {' · '.join(parts)}")
    head = f"{config.head} head" + (f" ({config.width} hidden units)" if config.head == "mlp" else "")
    labels_of = (f"{view.training_pairs:,} training pairs per seed (σ {config.noise:g}"
                 f"{', rounded to nodes' if config.round_labels else ''}), a selection set of "
                 f"{view.selection_pairs:,} more with the same noise")
    return (f"<p><b>Step {measurement.step:,} of {config.steps:,}</b> · {config.seeds} seeds · {escape(head)} on "
            f"frozen {escape(encoder)} embeddings · {labels_of} · reported on {view.report_pairs:,} clean pairs "
            f"of {escape(view.title)}, which select nothing</p><table>{''.join(rows)}</table>"
            f"<p><b>Buffer − none</b>, paired over the seeds:</p><p>{'<br>'.join(readings)}</p>"
            f"<p class=\"pg-rule\">Each twin of each seed is stopped at its own best step on its selection set. "
            f"The verdict: {escape(rule_text(len(measurement.seeds)))}.</p>")


# ---- the recorded payoff map -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _map(stamp: float) -> dict:
    return payoff.load_map()


@functools.lru_cache(maxsize=8)
def _marks(stamp: float, reading: str) -> dict[str, str]:
    return payoff.verdicts(_map(stamp), reading)


def _stamp() -> float:
    try:
        return payoff.MAP_FILE.stat().st_mtime
    except OSError:
        return 0.0


def recorded_map() -> dict:
    """The shipped payoff map (read again when its file changes)."""
    return _map(_stamp())


def map_marks(reading: str) -> dict[str, str]:
    """Every recorded cell's verdict under ``reading``, corrected over the cells of that reading."""
    return _marks(_stamp(), reading)


def payoff_view(values: dict, reading: str = MAP_READINGS[0]) -> tuple[object, str]:
    """The recorded map for the settings' data, loss and head (the paper head's when this head has none) under
    ``reading`` (one of :data:`MAP_READINGS`), the cell nearest the settings outlined, and what it shows in words:
    its reading, whether a recorded cell matches the visitor's other settings, and the nearest cell's three
    readings."""
    config, _ = lenient(values)
    reading = reading if reading in MAP_READINGS else MAP_READINGS[0]
    found, marks = recorded_map(), map_marks(reading)
    head = config.head if config.head in payoff.HEADS else "paper"
    data = config.data if config.data in BUILT_IN_DATA else BUILT_IN_DATA[0]    # no map of a visitor's own pairs
    metric = READ_BY[data]
    cells = payoff.cells_of(found, data, config.loss, head)
    current = payoff.nearest_cell(config.noise, config.train_pairs, POOL_PAIRS[data])
    spec = loss_spec(config.loss)
    title = (f"{spec.short} − its x0 = 0 twin · {METRICS[metric]} · {data.upper()} · {head} head · "
             f"{payoff.READINGS[reading]}")
    figure = playground_plots.payoff_figure(cells, metric, current, title, reading, marks)
    lines = [payoff.reading(cells, marks, len(marks), reading)]
    if data != config.data:
        lines.insert(0, f"No map is recorded for uploaded pairs; this is the {data.upper()} map, to compare with.")
    if head != config.head:
        lines.append(f"No map is recorded for the {config.head} head; this is the paper head's.")
    entry = cells.get(current)
    if entry is not None:
        noise, size = current
        found_here = [f"{payoff.READINGS[label]} **{result.numbers()}**: {marks_of(label, entry, result)}"
                      for label in MAP_READINGS for result in [payoff.cell_paired(entry, metric, label)] if result]
        lines.append(f"Nearest your settings (σ {noise:g}, {'all' if size == 0 else f'{size:,}'} pairs): "
                     + "; ".join(found_here) + ".")
        lines.append(payoff.match_text(config, entry))
    if cells:
        first = next(iter(cells.values()))
        lines.append(f"Each cell: {len(first['seeds'])} seeds × {first['config']['steps']:,} steps of the default "
                     f"settings at that noise and size, recorded by `python -m bench.payoff` on {first['machine']}. "
                     "▲ holds (the buffer pays off), ▼ reversed (it costs), unmarked: negligible or no measurable "
                     "difference.")
    return figure, "\n\n".join(lines)


def marks_of(reading: str, entry: dict, result) -> str:
    """A cell's verdict under ``reading`` after the map's correction (its own t-test's when not in the map)."""
    return map_marks(reading).get(payoff.cell_key_of(entry), result.verdict)
