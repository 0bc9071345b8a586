"""*Compare with and without the buffer*: one click, pairs of runs that differ only in ``x0``, as one job.

What a comparison is (the twin configs, the schedule of the pairs, each run read at its last dev evaluation, the
paired verdict) is the core's :mod:`stsdemo.buffer_comparison`; this module runs it as **one** queued job of a
visitor's session, from the Fine-tune form's values (``seeds``: 1 to 3 pairs, at the form's seed and the next
ones), streams each run with the pairs' charts, and states the outcome. Stop ends the job and the comparison reads
the pairs that finished. The charts show every pair's runs, each named by its seed and x0; at the end the last
pair's dev error histograms are overlaid and the dev difference of every pair is stated, computed from the values
shown, with their paired mean ± se under the Benchmark tab's rule (:mod:`stsdemo.paired`) beside what the
project's recorded seeds say of that difference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import plotly.graph_objects as go

from ...buffer_comparison import (
    Pair,
    check_comparable,
    compare_seeds,
    paired_result,
    plan_pairs,
    run_pairs,
    shown_values,
)
from ...config import TrainConfig
from ...errors import InputError
from ...losses.spec import LOSSES
from ...paired import rule_text
from ...selection import paired_metric
from ...serving import budget, session_files
from ..benchmark import view as benchmark_view
from ..benchmark.evidence_view import buffer_line, buffer_spread
from ..progress import SKIP, progress_html
from ..ui.words import said, verdict_words
from . import form, histograms
from . import view as finetune_view
from .view import Curves, TrainView


def chart_name(info: session_files.RunInfo) -> str:
    """A run of a comparison on the charts: its number and x0, '#4 x0=0.25' (short, so both fit a legend)."""
    return f"{info.label.split()[0]} x0={info.config.get('x0', 0):g}"


def pairs_curves(pairs: list[Pair], metric: str | None) -> Curves:
    """The charts of every run of the comparison so far, each named by :func:`chart_name` (its run number tells
    the pairs apart; they once held the last pair alone, so the earlier seeds' curves went missing); the dev chart
    draws ``metric``, the Spearman the verdict reads."""
    return finetune_view.named_curves(
        [(chart_name(run), run.events) for pair in pairs for run in pair.runs],
        metric if metric in ("cosine", "head") else None,
    )


def overlaid_histograms(pair: Pair, seeds: int) -> go.Figure:
    """The last dev error histogram of each run of ``pair`` as an outline on one axis, x0 and d/2 marked."""
    title = "Dev errors: with vs without the buffer" + (f" (seed {pair.seed})" if seeds > 1 else "")
    runs = [(chart_name(run), finetune_view.evaluations(run)) for run in pair.runs]
    return histograms.overlaid_histograms(runs, title)


def verdict_text(pairs: list[Pair], config: TrainConfig, ending: str = "", language: str = "en") -> str:
    """Each finished pair's dev scores and their difference (from the values shown), their paired mean ± se and
    verdict (:mod:`stsdemo.paired`) beside the recorded seed-to-seed evidence, and what x0 = 0 does to the loss,
    in ``language``. ``ending``: how the job ended when it did not run every pair."""
    values = shown_values(pairs, config.select_by)
    if not values:
        return (ending + " " if ending else "") + said("compare_no_pair", language)
    rows = [f"| {seed} | {a:.2f} | {b:.2f} | {a - b:+.2f} |" for seed, (a, b) in values.items()]
    metric = paired_metric(config.select_by)
    result = paired_result(values, config.select_by)
    if result.n == 1:
        reading = said("compare_one_seed", language)
    else:
        low, high = result.interval
        interval = (
            said("compare_interval", language, low=f"{low:+.2f}", high=f"{high:+.2f}")
            if result.spread_measured
            else ""
        )
        reading = said(
            "compare_paired",
            language,
            n=result.n,
            rule=rule_text(result.n, metric, language),
            numbers=result.numbers(),
            interval=interval,
            verdict=verdict_words(result.verdict, language),
        )
    found, _ = benchmark_view.recorded_evidence()
    unit = " (%)" if config.select_by == "accuracy" else ""
    metric_name = said(f"compare_metric_{config.select_by}", language)
    lines = [
        said("compare_heading", language, metric=metric_name, unit=unit) + (f" {ending}" if ending else ""),
        "",
        said("compare_columns", language, x0=f"{config.x0:g}"),
        "|--:|--:|--:|--:|",
        *rows,
        "",
        f"{reading} {capitalised(recorded_spread(found, config, language))}",
        "",
        twin_text(config, language),
    ]
    return "\n".join(lines)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


TWIN_FORMULAS = {
    "mse": "x²",
    "l1": "|x|",
}  # a buffer-zone loss's twin as a formula of x = |prediction − label|


def twin_text(config: TrainConfig, language: str = "en") -> str:
    """What x0 = 0 turns the run's loss into, and why the two training-loss curves differ in height."""
    spec = LOSSES[config.loss]
    twin = LOSSES[spec.twin]
    k = f"k = {config.k:g}" if config.k is not None else said("compare_paper_k", language)
    return said(
        "compare_twin", language, loss=spec.short, formula=TWIN_FORMULAS[twin.name], twin=twin.label, k=k
    )


def recorded_spread(found, config, language: str = "en") -> str:
    """What the project's recorded seeds say of this setting: the dev spread of its arm, and the paired
    buffer-vs-none comparison."""
    line = buffer_line(found, config.loss, config.target)
    row = line[1] if line else None
    parts = []
    if row is not None and row.dev_sd is not None and len(row.seeds) > 1:
        parts.append(
            said("compare_recorded_sd", language, arm=row.arm, sd=f"{row.dev_sd:.2f}", seeds=len(row.seeds))
        )
    spread = buffer_spread(found, config.loss, config.target, language)
    if spread:
        parts.append(spread)
    return " ".join(parts) or said("compare_recorded_none", language)


def stream_comparison(
    state,
    session: str,
    values: dict,
    visitor: str | None = None,
    host: budget.Host = budget.HOST,
    language: str = "en",
) -> Iterator[TrainView]:
    """Queue the pairs as one job and stream their runs; the last view overlays the last finished pair and
    states the comparison. InputError before anything starts for a loss without a buffer, x0 already 0, seeds
    out of range, a session over its disk budget, a job of this session already going or its address at its
    cap of them (``visitor``: :func:`stsdemo.serving.slots.visitor_of`); ``host``: the machine and hub the job is
    held to (:class:`stsdemo.serving.budget.Host`)."""
    busy = set(state.active_runs())
    session_files.prune_sessions(busy)
    session_files.check_disk_budget(session, busy)
    seeds = compare_seeds(values.get("seeds"))
    values = {**values, "final_eval": False}  # the pairs stay a few minutes on a CPU
    try:  # the whole job against the budget: its 2 x seeds runs together
        first = form.build_config(session, session_files.new_run_id(), values, runs=2 * seeds, host=host)
    except InputError as error:
        raise InputError("compare_job", runs=2 * seeds, seeds=seeds, error=error) from None
    check_comparable(first)
    pairs = plan_pairs(
        first,
        seeds,
        lambda changes: form.build_config(
            session, session_files.new_run_id(), {**values, **changes}, host=host
        ),
    )
    earlier = session_files.list_runs(session)

    def body(signal) -> Iterator[TrainView]:
        yield from stream_pairs(state, session, values, pairs, earlier, signal, language)

    yield from finetune_view.stream_job(state, session, first, earlier, body, visitor)


def stream_pairs(
    state,
    session: str,
    values: dict,
    pairs: list[Pair],
    earlier: list[session_files.RunInfo],
    signal,
    language: str = "en",
) -> Iterator[TrainView]:
    """The pairs' runs in the core's order (:func:`stsdemo.buffer_comparison.run_pairs`), each streamed with the
    pairs' charts; then the comparison of the pairs that finished."""
    config, shown = pairs[0].configs[0], list(earlier)

    def run_one(index: int, pair: Pair, run_config: TrainConfig) -> Iterator[TrainView]:
        if len(shown) > len(earlier):  # the job goes on with its next run (the first is the job's own)
            state.switch_run(session, run_config.run_name)
        label = finetune_view.run_label(len(shown) + 1, run_config, show_x0=True)
        live = finetune_view.start_run(
            session,
            run_config,
            False,
            values,
            shown,
            label=label,
            charts=lambda _: pairs_curves(pairs, config.select_by),
        )
        pair.runs.append(live.info)
        shown.append(live.info)
        where = said(
            "compare_pair",
            language,
            index=index + 1,
            pairs=len(pairs),
            seed=pair.seed,
            x0=f"{run_config.x0:g}",
        )
        for view in finetune_view.run_admitted(state, live, signal):
            if not view.finished:
                yield replace(view, status=f"{where} {view.status}")

    ending = yield from run_pairs(pairs, run_one, signal.is_set)
    yield final_view(pairs, config, ending, language)


def final_view(pairs: list[Pair], config: TrainConfig, ending: str, language: str = "en") -> TrainView:
    """The comparison's last view: every pair's curves, the last finished pair's overlaid histograms, and the
    verdict; ``ending``: why it did not run every pair."""
    complete = [pair for pair in pairs if pair.finished()]
    if ending:
        ending += (
            f" The comparison reads the {len(complete)} pair{'' if len(complete) == 1 else 's'} that "
            "finished; every run keeps its best checkpoint."
        )
    shown = complete[-1] if complete else next((pair for pair in reversed(pairs) if pair.runs), pairs[0])
    histogram = overlaid_histograms(shown, len(pairs)) if complete else SKIP
    text = said(
        "compare_done",
        language,
        done=len(complete),
        pairs=len(pairs),
        plural="" if len(pairs) == 1 else "s",
        runs=sum(len(pair.runs) for pair in pairs),
    ) + (f" {ending}" if ending else "")
    progress = progress_html(1.0, text, "stopped" if ending else "done")
    run_id = shown.runs[-1].run_id if shown.runs else config.run_name
    return TrainView(
        progress,
        verdict_text(pairs, config, ending, language),
        pairs_curves(pairs, config.select_by),
        None,
        True,
        run_id,
        histogram,
    )
