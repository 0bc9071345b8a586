"""The *Fine-tune* tab as plain Python: a run started from the form (:mod:`stsdemo.app.finetune.form`) and streamed
as views, and what a session's runs look like.

* :func:`stream_training` turns the core workflow (:func:`stsdemo.workflow.train_and_evaluate`) into a stream
  of :class:`TrainView` updates (curves of this run beside the session's earlier runs, the dev error histogram,
  progress with an ETA, the final 7-task table), so the UI only forwards them. A :class:`LiveRun` folds the
  events in memory; the session's earlier runs are read from disk once, when the run starts. Stopping: :meth:`AppState.request_stop` sets the
  run's stop signal; the run ends after the current step and still reports its final event. Closing the
  stream (tab closed) ends the run as well.
* Fine-tunes go through the state's :class:`~stsdemo.serving.slots.JobLine` (``STSDEMO_MAX_TRAINING`` at
  once, ``STSDEMO_MAX_WAITING`` waiting, more refused with a message, one place per visitor); a waiting run
  shows its place. A run over the server's work budget (:mod:`stsdemo.serving.budget`) is refused before it joins.
* The GPU side (:func:`training_events`) carries ``@spaces.GPU``: on a ZeroGPU Space it runs in a GPU
  worker with picklable arguments only, elsewhere the decorator returns the function unchanged.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd
import spaces  # noqa: I001  (before torch, so ZeroGPU can patch CUDA initialisation)

from ...config import TrainConfig
from ...errors import InputError
from ...events import DoneEvent, EvalEvent, Event, FinalEvalEvent, Outcome, StartEvent, StepEvent
from ...losses.spec import LOSSES, PAPER_X0
from ...selection import curve_of, metric_name, score_text, selection_text, stage_plan, where
from ...serving import caps, gpu_time, session_files
from ...workflow import train_and_evaluate
from .. import model_cache, task_tables
from ..app_state import StopSignal
from ..progress import SKIP, Progress, duration, progress_html
from . import curves, form, histograms

CURVE_RUNS = 5  # runs of a session drawn together on the charts
# how the status line of an ended run starts
ENDINGS = {Outcome.FINISHED: "Finished", Outcome.STOPPED: "Stopped", Outcome.FAILED: "Ended early"}


# ---- what a run looks like ---------------------------------------------------------------------------------


@dataclass
class Curves:
    """The three training charts of a session (its last few runs, coloured by run)."""

    dev: pd.DataFrame
    loss: pd.DataFrame
    buffer: pd.DataFrame
    dev_colors: dict  # colour of each series present in ``dev`` (likewise below)
    loss_colors: dict
    buffer_colors: dict

    def drawn(self) -> bool:
        """Whether any chart has a point. A LinePlot given an empty table makes Vega warn "Infinite extent" for
        each of its fields at every redraw (dozens of console warnings before a first run), so the tab draws
        the charts only once there is data, and clears them (None) when the last run is deleted."""
        return not (self.dev.empty and self.loss.empty and self.buffer.empty)


@dataclass
class TrainView:
    """One UI update of a running training job."""

    progress: str  # progress bar HTML (with ETA)
    status: str  # Markdown: what is happening / how it ended
    curves: Curves  # STS-B dev Spearman (cosine/head), loss, buffer share; coloured by run
    table: pd.DataFrame | None  # 7-task results vs the base model (at the end)
    finished: bool
    run_id: str
    histogram: object = SKIP  # dev |prediction − label| histogram; SKIP when no new evaluation came


def session_curves(runs: list[session_files.RunInfo]) -> Curves:
    """The training charts of ``runs`` (the last :data:`CURVE_RUNS` of them), from their events in memory."""
    return named_curves([(r.label, r.events) for r in runs[-CURVE_RUNS:]])


def named_curves(runs: list[tuple[str, list[Event]]], dev_metric: str | None = None) -> Curves:
    """The training charts of ``(name, events)`` runs, each series named after its run; ``dev_metric`` ('cosine'
    or 'head'): the dev chart draws that Spearman alone (fewer legend entries, so none is cut off)."""
    dev, loss, buffer = curves.curve_frames([{"label": name, "events": events} for name, events in runs])
    dev_palette, run_palette = curves.curve_colors([name for name, _ in runs])
    if dev_metric is not None:
        dev = dev[dev["run"].str.endswith(f" · {dev_metric}")].reset_index(drop=True)

    def present(frame, palette):
        names = set(frame["run"])
        return {name: color for name, color in palette.items() if name in names}

    return Curves(
        dev, loss, buffer, present(dev, dev_palette), present(loss, run_palette), present(buffer, run_palette)
    )


def curves_for(session: str) -> Curves:
    """The training charts of a session's runs as they are on disk (when the tab opens or a run is deleted)."""
    return session_curves(session_files.list_runs(session))


def evaluations(info: session_files.RunInfo) -> list[EvalEvent]:
    return [e for e in info.events if isinstance(e, EvalEvent)]


def histogram_for(info: session_files.RunInfo):
    return histograms.error_histogram(evaluations(info), info.label)


def result_table(info: session_files.RunInfo) -> pd.DataFrame | None:
    if not info.results:
        return None
    return task_tables.delta_frame(
        info.results, info.base_results, f"{info.label} (best checkpoint)", f"{info.base_name} (base)"
    )


def run_label(index: int, config: TrainConfig, show_x0: bool = False) -> str:
    """Short, for chart legends: '#2 sk2 k=2 cos' (x0 only when not the paper's, or ``show_x0``; 'cos' for the
    cosine target). ``config`` is checked (:func:`stsdemo.preflight.preflight`), so its k is what the run trains with
    wherever the start model's files tell the encoder family; a hub encoder's reads 'k=paper' until it loads."""
    detail = ""
    if LOSSES[config.loss].buffer:
        detail = (f" k={config.k:g}" if config.k is not None else " k=paper") + (
            f" x0={config.x0:g}" if config.x0 != PAPER_X0 or show_x0 else ""
        )
    return f"#{index} {config.loss}{detail}" + (" cos" if config.target == "cosine" else "")


def stages_text(config: dict) -> str:
    """How a run's stages read in a summary: 'one stage', 'two stages (the head on nli with the encoder frozen,
    then everything)', with 'encoder frozen', a LoRA adapter and a calibration stage named."""
    parts = [
        f"two stages (the head on {config.get('stage1_data', 'nli')} with the encoder frozen, then everything)"
        if config.get("two_stage")
        else "one stage"
    ]
    if config.get("head_only"):
        parts.append("encoder frozen (only the head or a, b learn)")
    if config.get("lora_rank"):
        parts.append(f"LoRA adapter of rank {config['lora_rank']}")
    if config.get("calibrate_data"):
        parts.append(f"then a, b or the head refit on {config['calibrate_data']}")
    return ", ".join(parts)


def loss_numbers(config: dict) -> str:
    """' k=2 x0=0.25' for a loss with a buffer, ' k=2' where only k is set, '' for a loss without either."""
    spec = LOSSES.get(config.get("loss"))
    k = f" k={config['k']:g}" if config.get("k") is not None else ""
    return k + (f" x0={config.get('x0', PAPER_X0):g}" if spec is not None and spec.buffer else "")


def selection_of(info: session_files.RunInfo) -> str:
    """Which metric picked the run's checkpoint, its score and step, and why the start was kept when it was."""
    return selection_text(
        info.config, info.best, info.best_step, curve_of(evaluations(info)), len(stage_plan(info.config))
    )


def run_summary(info: session_files.RunInfo) -> str:
    """A short Markdown description of a run."""
    c = info.config
    data = c.get("data", "")
    data = Path(data).name if "/" in data else data
    lines = [
        f"**{info.label}**: {info.status}" + (f" ({info.message})" if info.message else ""),
        f"from `{info.base_name or c.get('model') or model_cache.ENCODER_NAME}` · "
        f"target `{c.get('target', 'head')}` · "
        f"data `{data}` · loss `{c.get('loss')}`{loss_numbers(c)} · lr {c.get('lr')} · batch "
        f"{c.get('batch_size')} · max steps {c.get('max_steps') or 'all (the epochs)'} · {stages_text(c)}",
        selection_of(info) + ("" if info.has_checkpoint() else " No checkpoint was written."),
    ]
    if info.results:
        lines.append(f"7-task Avg.: {info.results.get('Avg.', float('nan')):.2f}")
    return "  \n".join(lines)


# ---- the GPU side ------------------------------------------------------------------------------------------


def _training_seconds(config: TrainConfig, final_eval: bool, *_) -> int:
    """ZeroGPU time to ask for: measured speeds with a stated margin
    (:func:`stsdemo.serving.gpu_time.requested_seconds`)."""
    cached = final_eval and model_cache.result_cache().get(config.model) is not None
    return gpu_time.requested_seconds(config, final_eval, base_cached=cached)


@spaces.GPU(duration=_training_seconds)
def training_events(
    config: TrainConfig, final_eval: bool, signal: StopSignal, sets: dict | None = None
) -> Iterator[Event]:
    """The core workflow's events (:func:`stsdemo.workflow.train_and_evaluate`: training, then with
    ``final_eval`` the 7-task evaluation on ``sets`` of the best checkpoint and of the base model unless cached).
    Events are plain dataclasses, so they pickle; in a ZeroGPU worker ``signal`` is a copy that still sees the
    stop flag file."""
    yield from train_and_evaluate(
        config,
        signal,
        evaluate=final_eval,
        test_sets=sets,
        base_cache=model_cache.result_cache() if final_eval else None,
    )


# ---- a run, streamed ---------------------------------------------------------------------------------------


class LiveRun:
    """One run as the tab streams it, folded from its events in memory: its record (``info``), its progress and
    the two texts shown. Each view is built from these and the session's earlier runs (read once, when the run
    starts), never from disk. ``charts`` draws the charts from the run's record instead (a comparison draws its
    pair alone)."""

    def __init__(
        self,
        session: str,
        info: session_files.RunInfo,
        config: TrainConfig,
        earlier: list[session_files.RunInfo],
        charts: Callable[[session_files.RunInfo], Curves] | None = None,
    ):
        self.session, self.info, self.config, self.earlier = session, info, config, list(earlier)
        self.charts = charts or (lambda info: session_curves([*self.earlier, info]))
        self.progress = Progress(len(stage_plan(info.config)), info.final_eval)
        self.status = f"**{info.label}**: loading the model and the training data…"
        if gpu_time.on_zero_gpu():  # said before the GPU is asked for; Stop still costs nothing
            self.status += " " + gpu_time.quota_note(_training_seconds(config, info.final_eval))
        self.text = "Starting…"
        self.drawn = -1  # evaluations in the histogram last sent

    def view(self, bar_state: str = "running", finished: bool = False) -> TrainView:
        fraction = 1.0 if bar_state == "done" else self.progress.fraction()
        count = len(evaluations(self.info))
        histogram = SKIP if count == self.drawn else histogram_for(self.info)
        self.drawn = count
        return TrainView(
            progress_html(fraction, self.text, bar_state),
            self.status,
            self.charts(self.info),
            result_table(self.info),
            finished,
            self.info.run_id,
            histogram,
        )

    def apply(self, event: Event) -> None:
        """Fold one event from :func:`training_events` into the record, the progress and the texts."""
        if isinstance(event, FinalEvalEvent):
            self._final_eval(event)
            return
        self.info.events.append(event)
        stages = self.progress.stages
        if isinstance(event, StartEvent):
            self.status = f"**{self.info.label}**: training on {event.device}."
            dev = event.config.get("max_dev_pairs")
            first = (
                f" · scoring STS-B dev ({f'first {dev:,}' if dev else 'all 1,500'} pairs) before the first "
                "step…"
                if event.stage == 1
                else ""
            )
            self.text = (
                f"Stage {event.stage}/{stages} ({event.stage_name}): {event.train_pairs:,} training "
                f"pairs, {event.total_steps} steps on {event.device}{first}"
            )
        elif isinstance(event, StepEvent):
            self.progress.train_fraction = (
                (event.stage - 1) + event.step / max(1, event.total_steps)
            ) / stages
            share = (
                "" if event.buffer_share is None else f" · {event.buffer_share:.0%} of pairs in the buffer"
            )
            self.text = (
                f"Stage {event.stage}/{stages} · step {event.step}/{event.total_steps} · loss "
                f"{event.loss:.4f}{share} · {event.pairs_per_s:.0f} pairs/s · {self.progress.eta()}"
            )
        elif isinstance(event, EvalEvent):
            self.info.best, self.info.best_step = event.best, event.best_step
            picked = self.config.select_by
            self.text = (
                f"Stage {event.stage}/{stages} · step {event.step}/{event.total_steps} · STS-B dev "
                f"Spearman: cosine {event.dev_cosine:.2f}, head {event.dev_head:.2f} · best {picked} "
                f"{score_text(event.best, picked)} at {where(event.best_step, stages)} · "
                f"{self.progress.eta()}"
            )
        elif isinstance(event, DoneEvent):
            self._done(event)

    def _done(self, event: DoneEvent) -> None:
        self.info.best, self.info.best_step = event.best, event.best_step
        self.info.status, self.info.message = event.outcome, event.message
        self.progress.train_fraction = 1.0
        how = ENDINGS[event.outcome]
        self.text = (
            f"{how} after {event.steps} steps in {duration(event.elapsed)}; best "
            f"{metric_name(self.info.config)} {score_text(event.best, self.config.select_by)} at "
            f"{where(event.best_step, self.progress.stages)}."
        )
        if self.info.final_eval and event.outcome is Outcome.FINISHED:
            self.text += " Now the 7-task evaluation…"

    def _final_eval(self, event: FinalEvalEvent) -> None:
        self.progress.start_eval()
        self.progress.eval_fraction = (event.index + event.fraction) / event.count
        if event.results is not None and event.what == "fine-tuned":
            self.info.results = event.results
            self.info.base_results = self.info.base_results or model_cache.result_cache().get(
                self.config.model
            )
        elif event.results is not None:
            self.info.base_results = event.results
        self.status = (
            f"**{self.info.label}**: training done; scoring the best checkpoint on the 7 STS test sets…"
        )
        self.text = (
            f"7-task evaluation of the {event.what} model: {event.fraction:.0%} · {self.progress.eta()}"
        )

    def end(self) -> None:
        """The status and progress texts of the run once it has ended."""
        info = self.info
        kept = "its best checkpoint is kept" if info.has_checkpoint() else "no checkpoint was written"
        why = (
            f" ({info.message})"
            if info.message and info.message not in (info.status, Outcome.FINISHED)
            else ""
        )
        self.status = f"**{info.label}** {info.status}{why}; {kept}. {selection_of(info)}" + (
            " It is now in the model lists of *Score a pair* and *Benchmark* and can start another "
            "run (warm start), or be downloaded below."
            if info.has_checkpoint()
            else ""
        )
        if info.results:
            base = info.base_results or {}
            change = f" ({info.results['Avg.'] - base['Avg.']:+.2f} vs. base)" if "Avg." in base else ""
            self.text = (
                f"Finished: best {metric_name(info.config)} "
                f"{score_text(info.best, self.config.select_by)}; 7-task Avg. "
                f"{info.results['Avg.']:.2f}{change}."
            )


def stream_training(state, session: str, values: dict, visitor: str | None = None) -> Iterator[TrainView]:
    """Start a run from the form's ``values`` (keyed by field name, plus model, data, upload, scheme and
    final_eval; see :func:`stsdemo.app.finetune.form.build_config`) and stream UI updates until it ends.

    Raises InputError (before anything starts, leaving no record) for bad settings, a run over the work budget,
    a session over its disk budget, a session that already has a place in the line, or an address at its cap
    (``visitor``: :func:`stsdemo.serving.slots.visitor_of`), or a full line. A run waits in the state's line for a
    free slot, showing its place. Closing the stream ends the run after its current step; ``state.request_stop``
    does the same but lets the final update through.
    """
    busy = set(state.active_runs())
    session_files.prune_sessions(busy)
    session_files.check_disk_budget(session, busy)
    config = form.build_config(session, session_files.new_run_id(), values)
    earlier = session_files.list_runs(session)
    final_eval = bool(values.get("final_eval"))

    def body(signal: StopSignal) -> Iterator[TrainView]:
        live = start_run(session, config, final_eval, values, earlier)
        yield from run_admitted(state, live, signal)

    yield from stream_job(state, session, config, earlier, body, visitor)


def stream_job(
    state,
    session: str,
    config: TrainConfig,
    earlier: list[session_files.RunInfo],
    body: Callable[[StopSignal], Iterator[TrainView]],
    visitor: str | None = None,
) -> Iterator[TrainView]:
    """One queued job of a session (named after ``config``'s run): wait in the line for a slot, showing the
    place beside the ``earlier`` runs' curves, then stream ``body(signal)``. InputError, before anything starts,
    when the session already has a job, its address (``visitor``) has its cap of them, or the line is full."""
    with state.line.place_for(f"session {session}", visitor):
        yield from _queued_job(state, session, config, earlier, body)


def _queued_job(
    state,
    session: str,
    config: TrainConfig,
    earlier: list[session_files.RunInfo],
    body: Callable[[StopSignal], Iterator[TrainView]],
) -> Iterator[TrainView]:
    """:func:`stream_job` once the visitor's place is held."""
    run_id = config.run_name
    signal = StopSignal(session_files.session_run_folder(session, run_id) / session_files.STOP_FLAG)
    ticket = state.begin_run(session, run_id, signal)
    curves = session_curves(earlier)
    try:
        while not ticket.wait(1.0):
            if signal.is_set():
                text = "Stopped while waiting in line; nothing was trained."
                yield TrainView(progress_html(0, text, "stopped"), text, curves, None, True, run_id)
                return
            text = (
                f"Waiting for the trainer: position {ticket.position()} in line "
                f"({state.line.ahead(ticket)}). It starts by itself; Stop leaves the line."
            )
            yield TrainView(
                progress_html(0, text, "idle"), f"**Queued** — {text}", curves, None, False, run_id
            )
        signal.deadline = time.time() + caps.wall_clock_seconds()  # a wrong estimate cannot hold the trainer
        yield from body(signal)
    finally:
        state.end_run(session, ticket)


def start_run(
    session: str,
    config: TrainConfig,
    final_eval: bool,
    values: dict,
    earlier: list[session_files.RunInfo],
    label: str | None = None,
    charts: Callable[[session_files.RunInfo], Curves] | None = None,
) -> LiveRun:
    """An admitted run's folder and first record (its uploaded data copied in), as a :class:`LiveRun`; ``label``
    and ``charts``: another name than :func:`run_label`'s, other charts than the session's (a comparison's)."""
    session_files.session_run_folder(session, config.run_name).mkdir(parents=True, exist_ok=True)
    if form.TRAINING_DATA_CHOICES.get(values.get("data"), values.get("data")) == "upload":
        shutil.copyfile(values["upload"], config.data)
    base_name = (
        model_cache.display_name(session, values.get("model", ""))
        if config.model
        else model_cache.ENCODER_NAME
    )
    info = session_files.RunInfo(
        config.run_name,
        label or run_label(len(earlier) + 1, config),
        config=asdict(config),
        final_eval=final_eval,
        base_name=base_name,
        owner=session_files.PROCESS,
    )
    session_files.save_run(session, info)
    return LiveRun(session, info, config, earlier, charts)


def run_admitted(state, live: LiveRun, signal: StopSignal) -> Iterator[TrainView]:
    """An admitted run: the GPU-side events folded into ``live`` and streamed as views, its record saved as it
    goes, and how it ended."""
    info, session = live.info, live.session
    events, last_saved = None, 0.0
    try:
        yield live.view()
        events = training_events(
            live.config, info.final_eval, signal, state.test_sets() if info.final_eval else None
        )
        for event in events:
            live.apply(event)
            now = time.perf_counter()
            results = isinstance(event, FinalEvalEvent) and event.results is not None
            if results or isinstance(event, (StartEvent, EvalEvent, DoneEvent)) or now - last_saved > 5:
                session_files.save_run(session, info)
                last_saved = now
            yield live.view()
        if info.status == "running":
            info.status, info.message = Outcome.FAILED, "the run ended without a final event"
        if info.status == Outcome.STOPPED and signal.past_deadline():
            info.message = (
                f"stopped at the wall-clock limit ({caps.wall_clock_seconds() / 60:.0f} min, "
                "STSDEMO_WALL_CLOCK_FACTOR times the budget's minutes): its best checkpoint so far is kept"
            )
            live.text += f" {info.message[0].upper()}{info.message[1:]}."
    except InputError as error:
        info.status, info.message = Outcome.FAILED, str(error)
        raise
    except GeneratorExit:
        if info.status == "running":
            info.status, info.message = "cancelled", "the page was closed or the request cancelled"
        raise
    except Exception as error:  # noqa: BLE001 - recorded here, shown by the UI as an error
        info.status, info.message = Outcome.FAILED, f"{type(error).__name__}: {error}"
        raise
    finally:
        if events is not None:
            events.close()
        signal.flag.unlink(missing_ok=True)
        session_files.save_run(session, info)
    live.end()
    yield live.view("done" if info.status == Outcome.FINISHED else "stopped", finished=True)
