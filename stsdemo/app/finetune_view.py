"""The *Fine-tune* tab as plain Python: a run started from the form (:mod:`stsdemo.app.form`) and streamed
as views, and what a session's runs look like.

* :func:`stream_training` turns ``train(config, stop)`` into a stream of :class:`TrainView` updates
  (curves of this run beside the session's earlier runs, the dev error histogram, progress with an ETA,
  the final 7-task table), so the UI only forwards them. Stopping: :meth:`AppState.request_stop` sets the
  run's stop signal; the run ends after the current step and still reports its final event. Closing the
  stream (tab closed) ends the run as well.
* Fine-tunes go through the state's :class:`~stsdemo.app.slots.JobLine` (``STSDEMO_MAX_TRAINING`` at
  once, ``STSDEMO_MAX_WAITING`` waiting, more refused with a message); a waiting run shows its place.
* The GPU side (:func:`training_events`) carries ``@spaces.GPU``: on a ZeroGPU Space it runs in a GPU
  worker with picklable arguments only, elsewhere the decorator returns the function unchanged.
"""

from __future__ import annotations

import spaces  # noqa: I001  (before torch, so ZeroGPU can patch CUDA initialisation)

import math
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator

import pandas as pd

from ..config import TrainConfig
from ..errors import InputError
from ..events import DoneEvent, EvalEvent, Event, FinalEvalEvent, StageStep, StartEvent, StepEvent
from ..losses.spec import LOSSES, PAPER_X0, paper_k
from ..save_format import is_scorer
from ..train import train
from . import form, model_cache, plots, senteval_view, store
from .state import StopSignal

CURVE_RUNS = 5                    # runs of a session drawn together on the charts
SKIP = senteval_view.SKIP


# ---- what a run looks like ---------------------------------------------------------------------------------


@dataclass
class Curves:
    """The three training charts of a session (its last few runs, coloured by run)."""

    dev: pd.DataFrame
    loss: pd.DataFrame
    buffer: pd.DataFrame
    dev_colors: dict              # colour of each series present in ``dev`` (likewise below)
    loss_colors: dict
    buffer_colors: dict


@dataclass
class TrainView:
    """One UI update of a running training job."""

    progress: str                 # progress bar HTML (with ETA)
    status: str                   # Markdown: what is happening / how it ended
    curves: Curves                # STS-B dev Spearman (cosine/head), loss, buffer share; coloured by run
    table: pd.DataFrame | None    # 7-task results vs the base model (at the end)
    finished: bool
    run_id: str
    histogram: object = SKIP      # dev |prediction − label| histogram; SKIP when no new evaluation came


def curves_for(session: str, current: store.RunInfo | None = None) -> Curves:
    runs = [r for r in store.list_runs(session) if current is None or r.run_id != current.run_id]
    runs = runs[-(CURVE_RUNS - (1 if current else 0)):] if CURVE_RUNS > 1 else []
    if current is not None:
        runs.append(current)
    dev, loss, buffer = plots.curve_frames([{"label": r.label, "events": r.events} for r in runs])
    dev_palette, run_palette = plots.curve_colors([r.label for r in runs])

    def present(frame, palette):
        names = set(frame["run"])
        return {name: color for name, color in palette.items() if name in names}

    return Curves(dev, loss, buffer, present(dev, dev_palette), present(loss, run_palette),
                  present(buffer, run_palette))


def evaluations(info: store.RunInfo) -> list[EvalEvent]:
    return [e for e in info.events if isinstance(e, EvalEvent)]


def histogram_for(info: store.RunInfo):
    return plots.error_histogram(evaluations(info), info.label)


def result_table(info: store.RunInfo) -> pd.DataFrame | None:
    if not info.results:
        return None
    return plots.delta_frame(info.results, info.base_results, f"{info.label} (best checkpoint)",
                             f"{info.base_name} (base)")


def _step_text(best_step: StageStep | None, stages: int) -> str:
    """(1, 40) -> 'step 40', or 'stage 1, step 40' for two stages."""
    if best_step is None:
        return "–"
    return f"stage {best_step.stage}, step {best_step.step}" if stages > 1 else f"step {best_step.step}"


def run_label(index: int, config: TrainConfig) -> str:
    """Short, for chart legends: '#2 sk2 k=2 cos' (x0 only when not the paper's; 'cos' for the cosine
    target)."""
    detail = ""
    if LOSSES[config.loss].buffer:
        k = config.k if config.k is not None else paper_k(config.loss)
        detail = f" k={k:g}" + (f" x0={config.x0:g}" if config.x0 != PAPER_X0 else "")
    return f"#{index} {config.loss}{detail}" + (" cos" if config.target == "cosine" else "")


def run_summary(info: store.RunInfo) -> str:
    """A short Markdown description of a run."""
    c = info.config
    data = c.get("data", "")
    data = Path(data).name if "/" in data else data
    stages = 2 if c.get("two_stage") else 1
    known = info.best is not None and math.isfinite(info.best)
    best = f"{info.best:.2f} at {_step_text(info.best_step, stages)}" if known else "–"
    lines = [f"**{info.label}**: {info.status}" + (f" ({info.message})" if info.message else ""),
             f"from `{info.base_name or c.get('model') or model_cache.ENCODER_NAME}` · "
             f"target `{c.get('target', 'head')}` · "
             f"data `{data}` · loss `{c.get('loss')}` k={c.get('k')} x0={c.get('x0')} · lr {c.get('lr')} · batch "
             f"{c.get('batch_size')} · max steps {c.get('max_steps')} · two-stage {c.get('two_stage')}",
             f"best STS-B dev Spearman ({c.get('select_by', 'cosine')}): {best}"
             + ("" if info.has_checkpoint() else " · no checkpoint")]
    if info.results:
        lines.append(f"7-task Avg.: {info.results.get('Avg.', float('nan')):.2f}")
    return "  \n".join(lines)


class Progress:
    """Overall fraction and the time left of a run's current phase (training, then the 7-task evaluation)."""

    def __init__(self, stages: int, final_eval: bool):
        self.stages, self.final_eval = stages, final_eval
        self.started = time.perf_counter()
        self.eval_started: float | None = None
        self.train_fraction = 0.0
        self.eval_fraction = 0.0

    def fraction(self) -> float:
        if not self.final_eval:
            return self.train_fraction
        return 0.75 * self.train_fraction + 0.25 * self.eval_fraction

    def start_eval(self) -> None:
        if self.eval_started is None:
            self.eval_started = time.perf_counter()

    def eta(self) -> str:
        evaluating = self.eval_started is not None
        done = self.eval_fraction if evaluating else self.train_fraction
        since = self.eval_started if evaluating else self.started
        if done <= 0.02:
            return "estimating time left…"
        if done >= 0.995:
            return "finishing…"
        left = f"about {senteval_view.duration((time.perf_counter() - since) / done * (1 - done))} left"
        return left + (" (then the 7-task evaluation)" if self.final_eval and not evaluating else "")


# ---- the GPU side ------------------------------------------------------------------------------------------


def _training_seconds(config: TrainConfig, final_eval: bool, *_) -> int:
    """ZeroGPU time to ask for: a rough bound from the step count (a full epoch when unbounded)."""
    steps = config.max_steps or 400
    stages = 2 if config.two_stage else 1
    return int(min(1500, 60 + stages * steps * 0.25 + (150 if final_eval else 0)))


@spaces.GPU(duration=_training_seconds)
def training_events(config: TrainConfig, final_eval: bool, signal: StopSignal,
                    sets: dict | None = None) -> Iterator[Event]:
    """``train()``'s events, then (with ``final_eval``: ``sets`` are the 7 test sets) the 7-task evaluation
    of the best checkpoint and of the base model (unless cached) as :class:`FinalEvalEvent` s. Events are
    plain dataclasses, so they pickle; in a ZeroGPU worker ``signal`` is a copy that still sees the stop
    flag file."""
    events = train(config, signal)
    done = None
    try:
        for event in events:
            yield event
            if isinstance(event, DoneEvent):
                done = event
    finally:
        events.close()
    if not final_eval or done is None or signal.is_set() or not is_scorer(done.checkpoint):
        return
    jobs = [("fine-tuned", done.checkpoint)]
    if senteval_view.cached_results(config.model) is None:
        jobs.append(("base", config.model))
    for index, (what, source) in enumerate(jobs):
        model = senteval_view.load_for_eval(source)
        for fraction, results in senteval_view.evaluate_steps(model, sets, signal):
            yield FinalEvalEvent(what, index, len(jobs), fraction, results)
        del model
        if signal.is_set():
            return


# ---- a run, streamed ---------------------------------------------------------------------------------------


def stream_training(state, session: str, values: dict) -> Iterator[TrainView]:
    """Start a run from the form's ``values`` (keyed by field name, plus model, data, upload, scheme and
    final_eval; see :func:`stsdemo.app.form.build_config`) and stream UI updates until it ends.

    Raises InputError (before anything starts, leaving no record) for bad settings or a full line. A run
    waits in the state's line for a free slot, showing its place. Closing the stream ends the run after its
    current step; ``state.request_stop`` does the same but lets the final update through.
    """
    store.prune_sessions(set(state.active_runs()))
    config = form.build_config(session, store.new_run_id(), values)
    yield from stream_job(state, session, config,
                          lambda signal: run_admitted(state, session, config, signal, bool(values.get("final_eval")),
                                                      values))


def stream_job(state, session: str, config: TrainConfig,
               body: Callable[[StopSignal], Iterator[TrainView]]) -> Iterator[TrainView]:
    """One queued job of a session (named after ``config``'s run): wait in the line for a slot, showing the
    place, then stream ``body(signal)``. InputError, before anything starts, when the session already has a
    job or the line is full."""
    run_id = config.run_name
    signal = StopSignal(store.session_run_folder(session, run_id) / "STOP")
    ticket = state.begin_run(session, run_id, signal)
    try:
        while not ticket.wait(1.0):
            if signal.is_set():
                text = "Stopped while waiting in line; nothing was trained."
                yield TrainView(plots.progress_html(0, text, "stopped"), text, curves_for(session), None, True,
                                run_id)
                return
            text = (f"Waiting for the trainer: position {ticket.position()} in line "
                    f"({state.line.ahead(ticket)}). It starts by itself; Stop leaves the line.")
            yield TrainView(plots.progress_html(0, text, "idle"), f"**Queued** — {text}", curves_for(session),
                            None, False, run_id)
        yield from body(signal)
    finally:
        state.end_run(session, ticket)


def run_admitted(state, session: str, config: TrainConfig, signal: StopSignal, final_eval: bool,
         values: dict) -> Iterator[TrainView]:
    """An admitted run: its record, the GPU-side events folded into UI updates, and how it ended."""
    run_id = config.run_name
    store.session_run_folder(session, run_id).mkdir(parents=True, exist_ok=True)
    if form.TRAINING_DATA_CHOICES.get(values.get("data"), values.get("data")) == "upload":
        shutil.copyfile(values["upload"], config.data)
    base_name = model_cache.display_name(session, values.get("model", "")) if config.model else model_cache.ENCODER_NAME
    info = store.RunInfo(run_id, run_label(len(store.list_runs(session)) + 1, config), config=asdict(config),
                         final_eval=final_eval, base_name=base_name)
    store.save_run(session, info)
    progress = Progress(2 if config.two_stage else 1, final_eval)
    texts = {"status": f"**{info.label}**: loading the model and the training data…", "text": "Starting…"}
    drawn = {"evals": -1}
    last_saved = 0.0

    def view(bar_state: str = "running", finished: bool = False) -> TrainView:
        fraction = 1.0 if bar_state == "done" else progress.fraction()
        count = len(evaluations(info))
        histogram = SKIP if count == drawn["evals"] else histogram_for(info)
        drawn["evals"] = count
        return TrainView(plots.progress_html(fraction, texts["text"], bar_state), texts["status"],
                         curves_for(session, info), result_table(info), finished, run_id, histogram)

    events = None
    try:
        yield view()
        events = training_events(config, final_eval, signal, state.test_sets() if final_eval else None)
        for event in events:
            apply_event(info, event, progress, texts, config)
            now = time.perf_counter()
            results = isinstance(event, FinalEvalEvent) and event.results is not None
            if results or isinstance(event, (StartEvent, EvalEvent, DoneEvent)) or now - last_saved > 5:
                store.save_run(session, info)
                last_saved = now
            yield view()
        if info.status == "running":
            info.status, info.message = "failed", "the run ended without a final event"
    except InputError as error:
        info.status, info.message = "failed", str(error)
        raise
    except GeneratorExit:
        if info.status == "running":
            info.status, info.message = "cancelled", "the page was closed or the request cancelled"
        raise
    except Exception as error:  # noqa: BLE001 - recorded here, shown by the UI as an error
        info.status, info.message = "failed", f"{type(error).__name__}: {error}"
        raise
    finally:
        if events is not None:
            events.close()
        signal.flag.unlink(missing_ok=True)
        store.save_run(session, info)
    texts["status"], texts["text"] = ending_texts(info, texts["text"])
    yield view("done" if info.status == "finished" else "stopped", finished=True)


def ending_texts(info: store.RunInfo, text: str) -> tuple[str, str]:
    """The status and progress texts of a run that has ended."""
    kept = "its best checkpoint is kept" if info.has_checkpoint() else "no checkpoint was written"
    why = f" ({info.message})" if info.message and info.message not in (info.status, "finished") else ""
    status = (f"**{info.label}** {info.status}{why}; {kept}."
              + (" It is now in the model lists of *Score a pair* and *Benchmark* and can start another run "
                 "(warm start), or be downloaded below." if info.has_checkpoint() else ""))
    if info.results:
        base = info.base_results or {}
        change = f" ({info.results['Avg.'] - base['Avg.']:+.2f} vs. base)" if "Avg." in base else ""
        text = (f"Finished: best STS-B dev Spearman {info.best:.2f}; 7-task Avg. "
                f"{info.results['Avg.']:.2f}{change}.")
    return status, text


def apply_event(info: store.RunInfo, event: Event, progress: Progress, texts: dict, config: TrainConfig) -> None:
    """Fold one event from :func:`training_events` into the run record and the status texts."""
    stages = progress.stages
    if isinstance(event, FinalEvalEvent):
        _apply_final_eval(info, event, progress, texts, config)
        return
    info.events.append(event)
    if isinstance(event, StartEvent):
        texts["status"] = f"**{info.label}**: training on {event.device}."
        dev = event.config.get("max_dev_pairs")
        first = (f" · scoring STS-B dev ({f'first {dev:,}' if dev else 'all 1,500'} pairs) before the first step…"
                 if event.stage == 1 else "")
        texts["text"] = (f"Stage {event.stage}/{stages} ({event.stage_name}): {event.train_pairs:,} "
                         f"training pairs, {event.total_steps} steps on {event.device}{first}")
    elif isinstance(event, StepEvent):
        progress.train_fraction = ((event.stage - 1) + event.step / max(1, event.total_steps)) / stages
        share = "" if event.buffer_share is None else f" · {event.buffer_share:.0%} of pairs in the buffer"
        texts["text"] = (f"Stage {event.stage}/{stages} · step {event.step}/{event.total_steps} · "
                         f"loss {event.loss:.4f}{share} · {event.pairs_per_s:.0f} pairs/s · {progress.eta()}")
    elif isinstance(event, EvalEvent):
        info.best, info.best_step = event.best, event.best_step
        texts["text"] = (f"Stage {event.stage}/{stages} · step {event.step}/{event.total_steps} · STS-B dev "
                         f"Spearman: cosine {event.dev_cosine:.2f}, head {event.dev_head:.2f} (best "
                         f"{event.best:.2f} at {_step_text(event.best_step, stages)}) · {progress.eta()}")
    elif isinstance(event, DoneEvent):
        info.best, info.best_step = event.best, event.best_step
        failed = event.stopped and event.reason != "stopped"  # ended on its own (out of memory)
        info.status = "failed" if failed else "stopped" if event.stopped else "finished"
        info.message = event.reason
        progress.train_fraction = 1.0
        how = "Ended early" if failed else "Stopped" if event.stopped else "Finished"
        texts["text"] = (f"{how} after {event.steps} steps in "
                         f"{senteval_view.duration(event.elapsed)}; best STS-B dev Spearman {event.best:.2f} at "
                         f"{_step_text(event.best_step, stages)}.")
        if info.final_eval and not event.stopped:
            texts["text"] += " Now the 7-task evaluation…"


def _apply_final_eval(info: store.RunInfo, event: FinalEvalEvent, progress: Progress, texts: dict,
                      config: TrainConfig) -> None:
    progress.start_eval()
    progress.eval_fraction = (event.index + event.fraction) / event.count
    if event.results is not None:
        if event.what == "fine-tuned":
            info.results = event.results
            info.base_results = info.base_results or senteval_view.cached_results(config.model)
        else:
            info.base_results = event.results
            senteval_view.store_results(config.model, event.results)
    texts["status"] = f"**{info.label}**: training done; scoring the best checkpoint on the 7 STS test sets…"
    texts["text"] = f"7-task evaluation of the {event.what} model: {event.fraction:.0%} · {progress.eta()}"
