"""The *Playground* tab as plain Python: a visitor's run advanced by Play (and each tick while it plays), Step or
Reset, and what the tab then shows: both twins' held-out pairs, their curves, the numbers and the paired
difference over seeds, and beside it the recorded map of where the buffer pays off.

The tab's controls are the settings of :class:`stsdemo.playground.config.PlaygroundConfig`, in :data:`CONTROLS`
order; a bad value falls back to its default with a notice (:func:`~stsdemo.playground.config.lenient`). A run
belongs to one visitor (:class:`~.playground_store.PlaygroundStore`); it continues while only its length or speed
changes and starts again when any other setting does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from html import escape

from ..errors import InputError
from ..losses.spec import loss_spec
from ..playground import payoff
from ..playground.config import PlaygroundConfig, lenient
from ..playground.datasets import POOL_PAIRS, TITLES
from ..playground.metrics import METRICS, PAIRED
from ..playground.run import TWIN_NAMES, Measurement, Playground, run_seeds, twin_labels
from . import playground_plots
from .playground_store import PlaygroundStore, Report

CONTROLS = tuple(item.name for item in fields(PlaygroundConfig))
ACTIONS = ("play", "tick", "step", "reset")
STEPS_OF = {"play": None, "tick": None, "step": 1, "reset": 0}    # None: the run's speed
METRIC_DIGITS = {"spearman": 2, "accuracy": 1, "error": 3, "inside": 1}


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

    def frame(self) -> dict:
        """What the page draws: status, dots, curves, whether it plays on, and the play key."""
        return dict(status=self.status, dots=self.dots, curves=self.curves, playing=self.playing, token=self.token)


def advance(store: PlaygroundStore, session: str, values: dict, action: str, report: Report | None = None
            ) -> PlaygroundView:
    """Do ``action`` (one of :data:`ACTIONS`) to the visitor's run under the settings ``values`` and measure it.

    ``play`` starts a run (again, when the last one finished), takes its first steps and hands out a play key;
    ``tick`` takes the next ``speed`` steps of a playing run; ``step`` takes one; ``reset`` starts the run again
    at step 0. A run whose settings changed (beyond its length and speed) starts again, with a notice when that
    happens mid-play.
    """
    config, notices = lenient(values)
    prepared = store.prepared(session, config.model, config.data, report)
    run = store.session(session)
    with run.lock:
        playground = run.playground
        stale = (playground is None or playground.data is not prepared.data
                 or playground.config.run_identity() != config.run_identity())
        if action == "tick" and stale and playground is not None:
            notices.append("The settings changed, so the run started again.")
        if stale or action == "reset" or (action == "play" and playground.finished):
            playground = run.playground = Playground(config, prepared.data, prepared.features_for(config.head),
                                                     shown=playground_plots.MAX_DOTS)
        else:
            playground.continue_with(config)
        run.encoder = prepared.encoder
        view = take_steps(playground, STEPS_OF[action] if STEPS_OF[action] is not None else config.speed,
                          run.encoder)
    playing = action in ("play", "tick") and not playground.finished
    token = store.play_token(session) if action == "play" and playing else run.token if playing else None
    return PlaygroundView(*view, playing=playing, notices=notices, token=token)


def next_frame(store: PlaygroundStore, token) -> dict | None:
    """The next frame of the playing run whose page holds ``token``, under that run's own settings (they changed
    only through Play, Step or Reset): straight to the run, with nothing looked up again; None for an unknown
    token or a run that is gone."""
    session = store.session_of_token(token)
    if session is None:
        return None
    run = store.session(session)
    with run.lock:
        playground = run.playground
        if playground is None:
            return None
        view = take_steps(playground, playground.config.speed, run.encoder)
    playing = not playground.finished
    return PlaygroundView(*view, playing=playing, notices=[], token=run.token if playing else None).frame()


def take_steps(playground: Playground, steps: int, encoder: str) -> tuple:
    """Train the run ``steps`` steps further (never past its end), measure it and render what the tab shows."""
    playground.step(min(steps, playground.config.steps - playground.steps_done))
    return render(playground, playground.measure(), encoder)


API_MODELS = ("default", "scorer")      # encoders an API call may name (each embedded once, then cached)


def api_run(store: PlaygroundStore, values: dict) -> dict:
    """One bounded run for the API and MCP: the settings checked against their declarations (InputError with the
    declaration's limits) and against the one-call budget, trained to their last step. Returns the settings, the
    twins' names, both twins' final metrics (mean and sd over seeds) and the paired differences with verdicts."""
    model = str(values.get("model") or "default")
    if model not in API_MODELS:
        raise InputError(f"model must be one of {', '.join(API_MODELS)} (the embedded encoder, or the shipped "
                         "scorer's)")
    config = PlaygroundConfig(**{**values, "model": model}).validate()
    config.check_budget()
    prepared = store.prepared("", config.model, config.data)
    result = run_seeds(config, prepared.data, prepared.features_for(config.head))
    return {"settings": config.to_dict(), "encoder": prepared.encoder,
            "twins_named": dict(zip(TWIN_NAMES, twin_labels(config))), **result}


def render(playground: Playground, measurement: Measurement, encoder: str) -> tuple:
    """The status, the dots of both twins and the curves of a measured run."""
    labels = twin_labels(playground.config)
    titles = (f"With the buffer · {labels[0]}", f"Without · {labels[1]}")
    return (status_html(playground, measurement, labels, encoder),
            playground_plots.dots_spec(playground, measurement.shown, titles),
            playground_plots.curves_spec(playground.history, labels, playground.config.loss, playground.config.steps))


def status_html(playground: Playground, measurement: Measurement, labels: tuple[str, str], encoder: str) -> str:
    """Where the run is, both twins' numbers (mean over seeds) and the paired difference of each "higher is
    better" metric with its verdict (:mod:`stsdemo.paired`), as HTML; every text in it is escaped (the encoder's
    name may be a visitor's)."""
    config = playground.config
    rows = ["<tr><th></th>" + "".join(f"<th>{escape(label)}</th>" for label in labels) + "</tr>"]
    for metric, title in METRICS.items():
        cells = ("–" if m != m else f"{m:.{METRIC_DIGITS[metric]}f}" for m in measurement.mean(metric))
        rows.append(f"<tr><td>{escape(title)}</td>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    differences = []
    for metric in PAIRED:
        found = measurement.paired(metric)
        differences.append(f"{escape(METRICS[metric])} <b>{escape(found.numbers())}</b>: {escape(found.verdict)}")
    head = f"{config.head} head" + (f" ({config.width} hidden units)" if config.head == "mlp" else "")
    labels_of = (f"{len(playground.subsets[0]):,} training pairs per seed (σ {config.noise:g}"
                 f"{', rounded to nodes' if config.round_labels else ''})")
    return (f"<p><b>Step {measurement.step:,} of {config.steps:,}</b> · {config.seeds} seeds · {escape(head)} on "
            f"frozen {escape(encoder)} embeddings · {labels_of} · measured on {len(playground.gold):,} held-out "
            f"pairs of {escape(TITLES[config.data])}</p><table>{''.join(rows)}</table>"
            f"<p><b>Buffer − none</b>, paired over the seeds: {' · '.join(differences)}</p>")


# ---- the recorded payoff map -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _map(stamp: float) -> dict:
    return payoff.load_map()


def recorded_map() -> dict:
    """The shipped payoff map (read again when its file changes)."""
    try:
        stamp = payoff.MAP_FILE.stat().st_mtime
    except OSError:
        stamp = 0.0
    return _map(stamp)


def payoff_view(values: dict) -> tuple[object, str]:
    """The recorded map for the settings' data, loss and head (the paper head's when this head has none), the
    cell nearest the settings outlined, and what it shows in words."""
    config, _ = lenient(values)
    found = recorded_map()
    head = config.head if config.head in payoff.HEADS else "paper"
    metric = payoff.PRIMARY[config.data]
    cells = payoff.cells_of(found, config.data, config.loss, head)
    current = payoff.nearest_cell(config.noise, config.train_pairs, POOL_PAIRS[config.data])
    spec = loss_spec(config.loss)
    title = f"{spec.short} − its x0 = 0 twin · {METRICS[metric]} · {config.data.upper()} · {head} head"
    figure = playground_plots.payoff_figure(cells, metric, current, title)
    lines = [payoff.reading(cells, metric)]
    if head != config.head:
        lines.append(f"No map is recorded for the {config.head} head; this is the paper head's.")
    entry = cells.get(current)
    if entry is not None:
        here = payoff.cell_paired(entry, metric)
        noise, size = current
        lines.append(f"Nearest your settings (σ {noise:g}, {'all' if size == 0 else f'{size:,}'} pairs): "
                     f"**{here.numbers()}**: {here.verdict}.")
    if cells:
        first = next(iter(cells.values()))
        lines.append(f"Each cell: {len(first['seeds'])} seeds × {first['config']['steps']:,} steps of the default "
                     f"settings at that noise and size, recorded by `python -m bench.payoff` on {first['machine']}. "
                     "▲ holds (the buffer pays off), ▼ reversed (it costs), unmarked: no measurable difference.")
    return figure, "\n\n".join(lines)
