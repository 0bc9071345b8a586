"""*Compare with and without the buffer*: one click, pairs of runs that differ only in ``x0``.

The first run of a pair takes the form as it is; the second is the same run with ``x0 = 0`` (the same loss without
its zero-gradient zone: Smooth K2 becomes k·x², Translated ReLU k·|x|): same start, seed and data order (the seed
fixes both the head's initialisation and the order of the batches), same steps. With ``seeds`` (1 to 3,
:class:`CompareSettings`) the pair runs at the form's seed and the next ones, 2 × seeds runs one after the other,
all as **one** job of the session; Stop ends it and the comparison reads the pairs that finished. The charts show
every pair's runs, each named by its seed and x0; at the end the last pair's dev error histograms are overlaid and
the dev difference of every pair is stated, computed from the values shown, with their paired mean ± se under the
Benchmark tab's rule (:mod:`stsdemo.paired`) beside what the project's recorded seeds say of that difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterator

import plotly.graph_objects as go

from ...config import TrainConfig, check_setting, describe, setting
from ...errors import InputError
from ...losses.spec import LOSSES, PAPER_X0
from ...paired import paired, rule_text
from ...selection import METRICS, dev_score, in_points, paired_metric
from .. import session_files
from ..benchmark import view as benchmark_view
from ..benchmark.evidence_view import buffer_line, buffer_spread
from ..progress import SKIP, progress_html
from . import form, histograms
from . import view as finetune_view
from .view import Curves, TrainView


@dataclass(frozen=True)
class CompareSettings:
    """The comparison's own setting, declared once (the rest are the form's)."""

    seeds: int = setting(1, "pairs to run, at the form's seed and the next ones (seed, seed + 1, ...); with 2 or 3 "
                            "the difference is a paired mean ± se", low=1, high=3, integer=True,
                         label="compare seeds")


def compare_seeds(value) -> int:
    """How many pairs a comparison runs: ``value`` checked against :class:`CompareSettings` (empty: its default)."""
    if value is None or value == "":
        return describe("seeds", CompareSettings)["default"]
    return check_setting("seeds", value, CompareSettings)


@dataclass
class Pair:
    """One seed of a comparison: the run with the buffer and its twin with x0 = 0 (their records once started)."""

    seed: int
    configs: tuple[TrainConfig, TrainConfig]
    runs: list[session_files.RunInfo]

    def finished(self) -> bool:
        return len(self.runs) == 2 and all(run.status == "finished" for run in self.runs)


def check_comparable(config) -> None:
    """A comparison needs a buffer to switch off: a buffer-zone loss with ``x0 > 0``."""
    if not LOSSES[config.loss].buffer:
        raise InputError(f"loss {config.loss!r} has no buffer zone to compare; pick Smooth K2 or Translated ReLU")
    if config.x0 == 0:
        raise InputError(f"x0 is already 0, so there is no buffer to compare with; set x0 above 0 (the paper: "
                         f"{PAPER_X0:g})")


def final_dev(info: session_files.RunInfo, select_by: str) -> float | None:
    """The dev score that selects checkpoints (:func:`stsdemo.selection.dev_score`) at a run's last evaluation."""
    evals = finetune_view.evaluations(info)
    return float(dev_score(evals[-1], select_by)) if evals else None


def chart_name(info: session_files.RunInfo) -> str:
    """A run of a comparison on the charts: its number and x0, '#4 x0=0.25' (short, so both fit a legend)."""
    return f"{info.label.split()[0]} x0={info.config.get('x0', 0):g}"


def pairs_curves(pairs: list[Pair], metric: str | None) -> Curves:
    """The charts of every run of the comparison so far, each named by :func:`chart_name` (its run number tells
    the pairs apart; they once held the last pair alone, so the earlier seeds' curves went missing); the dev chart
    draws ``metric``, the Spearman the verdict reads."""
    return finetune_view.named_curves([(chart_name(run), run.events) for pair in pairs for run in pair.runs],
                                      metric if metric in ("cosine", "head") else None)


def overlaid_histograms(pair: Pair, seeds: int) -> go.Figure:
    """The last dev error histogram of each run of ``pair`` as an outline on one axis, x0 and d/2 marked."""
    title = "Dev errors: with vs without the buffer" + (f" (seed {pair.seed})" if seeds > 1 else "")
    runs = [(chart_name(run), finetune_view.evaluations(run)) for run in pair.runs]
    return histograms.overlaid_histograms(runs, title)


def shown_values(pairs: list[Pair], select_by: str) -> dict[int, tuple[float, float]]:
    """Seed -> (with the buffer, x0 = 0): each finished pair's last dev score in points (node accuracy in %, so
    the rule's margin reads the same unit), rounded as the verdict shows it."""
    values = {}
    for pair in pairs:
        scores = [final_dev(run, select_by) for run in pair.runs] if pair.finished() else []
        if len(scores) == 2 and all(score is not None and math.isfinite(score) for score in scores):
            values[pair.seed] = tuple(round(in_points(score, select_by), 2) for score in scores)
    return values


def verdict_text(pairs: list[Pair], config: TrainConfig, ending: str = "") -> str:
    """Each finished pair's dev scores and their difference (from the values shown), their paired mean ± se and
    verdict (:mod:`stsdemo.paired`) beside the recorded seed-to-seed evidence, and what x0 = 0 does to the loss.
    ``ending``: how the job ended when it did not run every pair."""
    values = shown_values(pairs, config.select_by)
    if not values:
        return (ending + " " if ending else "") + "No pair finished with a dev evaluation on both sides; no comparison."
    rows = [f"| {seed} | {a:.2f} | {b:.2f} | {a - b:+.2f} |" for seed, (a, b) in values.items()]
    metric = paired_metric(config.select_by)
    result = paired({seed: a for seed, (a, _) in values.items()}, {seed: b for seed, (_, b) in values.items()},
                    metric)
    if result.n == 1:
        reading = ("One pair of runs is one seed: it has no spread, so no verdict (Compare seeds 2 or 3 give a "
                   "paired mean ± se).")
    else:
        interval = f", {result.interval_text()}" if result.interval_text() else ""
        reading = (f"Paired over {result.n} seeds (the Benchmark tab's rule: {rule_text(result.n, metric)}): mean "
                   f"difference {result.numbers()}{interval}: **{result.verdict}**.")
    found, _ = benchmark_view.recorded_evidence()
    unit = " (%)" if config.select_by == "accuracy" else ""
    lines = [f"**With vs without the buffer**: the dev {METRICS[config.select_by][0]}{unit} (what selects checkpoints) at "
             "the last evaluation; each difference is taken from the two values beside it." + (f" {ending}" if ending else ""),
             "", f"| seed | x0 = {config.x0:g} | x0 = 0 | difference |", "|--:|--:|--:|--:|", *rows, "",
             f"{reading} {capitalised(recorded_spread(found, config))}", "", twin_text(config)]
    return "\n".join(lines)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


TWIN_FORMULAS = {"mse": "x²", "l1": "|x|"}   # a buffer-zone loss's twin as a formula of x = |prediction − label|


def twin_text(config: TrainConfig) -> str:
    """What x0 = 0 turns the run's loss into, and why the two training-loss curves differ in height."""
    spec = LOSSES[config.loss]
    twin = LOSSES[spec.twin]
    k = f"k = {config.k:g}" if config.k is not None else "the paper's k"
    return (f"*What x0 = 0 does:* {spec.short} becomes k·{TWIN_FORMULAS[twin.name]}, i.e. {twin.label} scaled by k "
            f"({k}). The two training-loss curves are not comparable in height: the buffered loss counts only the "
            "part of each error beyond x0, and nothing inside the buffer, so it reads lower on the same predictions. "
            "The higher curve is not the worse model; the dev curves compare the models.")


def recorded_spread(found, config) -> str:
    """What the project's recorded seeds say of this setting: the dev spread of its arm, and the paired
    buffer-vs-none comparison."""
    line = buffer_line(found, config.loss, config.target)
    row = line[1] if line else None
    parts = []
    if row is not None and row.dev_sd is not None and len(row.seeds) > 1:
        parts.append(f"the recorded STS-B dev of {row.arm} varies by sd {row.dev_sd:.2f} across {len(row.seeds)} "
                     "seeds at the paper's budget, so a smaller difference here says little.")
    spread = buffer_spread(found, config.loss, config.target)
    if spread:
        parts.append(spread)
    return " ".join(parts) or "no recorded seeds of this setting to compare with (see the Benchmark tab)."


def plan_pairs(session: str, values: dict, first: TrainConfig, seeds: int) -> list[Pair]:
    """The checked configs of every run of a comparison, before anything starts: per seed (``first``'s and the
    next ones) the form as set, then with ``x0 = 0``."""
    pairs = []
    for index in range(seeds):
        seed = first.seed + index
        try:
            with_buffer = first if index == 0 else form.build_config(session, session_files.new_run_id(),
                                                                     {**values, "seed": seed})
            without = form.build_config(session, session_files.new_run_id(), {**values, "seed": seed, "x0": 0})
        except InputError as error:
            raise InputError(f"compare seeds {seeds} runs seeds {first.seed} to {first.seed + seeds - 1}: "
                             f"{error}") from None
        pairs.append(Pair(seed, (with_buffer, without), []))
    return pairs


def stream_comparison(state, session: str, values: dict, visitor: str | None = None) -> Iterator[TrainView]:
    """Queue the pairs as one job and stream their runs; the last view overlays the last finished pair and
    states the comparison. InputError before anything starts for a loss without a buffer, x0 already 0, seeds
    out of range, a session over its disk budget, or a job of this visitor (``visitor``:
    :func:`stsdemo.app.slots.visitor_of`, else the session) or session already going."""
    busy = set(state.active_runs())
    session_files.prune_sessions(busy)
    session_files.check_disk_budget(session, busy)
    seeds = compare_seeds(values.get("seeds"))
    values = {**values, "final_eval": False}  # the pairs stay a few minutes on a CPU
    try:   # the whole job against the budget: its 2 x seeds runs together
        first = form.build_config(session, session_files.new_run_id(), values, runs=2 * seeds)
    except InputError as error:
        raise InputError(f"Compare trains {2 * seeds} runs as one job (compare seeds {seeds}, each with and "
                         f"without the buffer): {error}") from None
    check_comparable(first)
    pairs = plan_pairs(session, values, first, seeds)
    earlier = session_files.list_runs(session)

    def body(signal) -> Iterator[TrainView]:
        yield from run_pairs(state, session, values, pairs, earlier, signal)

    yield from finetune_view.stream_job(state, session, first, earlier, body, visitor)


def run_pairs(state, session: str, values: dict, pairs: list[Pair], earlier: list[session_files.RunInfo],
              signal) -> Iterator[TrainView]:
    """Each pair's two runs in turn, streamed with the pair's charts; then the comparison of the pairs that
    finished. A stop, or a run that does not finish, ends the job there."""
    config, shown, ending = pairs[0].configs[0], list(earlier), ""
    for index, pair in enumerate(pairs):
        for run_config in pair.configs:
            if signal.is_set():
                ending = f"Stopped before seed {pair.seed}, x0 = {run_config.x0:g} started."
                break
            if len(shown) > len(earlier):  # the job goes on with its next run (the first is the job's own)
                state.switch_run(session, run_config.run_name)
            label = finetune_view.run_label(len(shown) + 1, run_config, show_x0=True)
            live = finetune_view.start_run(session, run_config, False, values, shown, label=label,
                                           charts=lambda _: pairs_curves(pairs, config.select_by))
            pair.runs.append(live.info)
            shown.append(live.info)
            where = f"Pair {index + 1} of {len(pairs)} (seed {pair.seed}), x0 = {run_config.x0:g}:"
            for view in finetune_view.run_admitted(state, live, signal):
                if not view.finished:
                    yield replace(view, status=f"{where} {view.status}")
            if live.info.status != "finished":
                ending = f"{live.info.label} {live.info.status} during seed {pair.seed}."
                break
        if ending:
            break
    yield final_view(pairs, config, ending)


def final_view(pairs: list[Pair], config: TrainConfig, ending: str) -> TrainView:
    """The comparison's last view: every pair's curves, the last finished pair's overlaid histograms, and the
    verdict; ``ending``: why it did not run every pair."""
    complete = [pair for pair in pairs if pair.finished()]
    if ending:
        ending += (f" The comparison reads the {len(complete)} pair{'' if len(complete) == 1 else 's'} that "
                   "finished; every run keeps its best checkpoint.")
    shown = complete[-1] if complete else next((pair for pair in reversed(pairs) if pair.runs), pairs[0])
    histogram = overlaid_histograms(shown, len(pairs)) if complete else SKIP
    text = (f"Compared {len(complete)} of {len(pairs)} seed{'' if len(pairs) == 1 else 's'}: "
            f"{sum(len(pair.runs) for pair in pairs)} runs." + (f" {ending}" if ending else ""))
    progress = progress_html(1.0, text, "stopped" if ending else "done")
    run_id = shown.runs[-1].run_id if shown.runs else config.run_name
    return TrainView(progress, verdict_text(pairs, config, ending), pairs_curves(pairs, config.select_by), None,
                     True, run_id, histogram)
