"""With and without the buffer: pairs of runs that differ only in ``x0``, and what their dev scores say.

The first run of a pair takes a config as it is; the second is the same run with ``x0 = 0`` (the same loss without
its zero-gradient zone: Smooth K2 becomes k·x², Translated ReLU k·|x|): same start, seed and data order (the seed
fixes both the head's initialisation and the order of the batches), same steps. With ``seeds`` (1 to 3,
:class:`CompareSettings`) the pair runs at the config's seed and the next ones, 2 × seeds runs one after the other;
a stop, or a run that does not finish, ends the schedule there and the comparison reads the pairs that finished.
Each run is read at its last dev evaluation (the score that selects checkpoints, :func:`final_dev`), in points and
rounded as shown (:func:`shown_values`), so every difference is the one between the two values beside it; the
differences are read by the paired-seed rule (:mod:`stsdemo.paired`).

Two front ends run the same schedule (:func:`run_pairs`): the app's *Compare with and without the buffer*
(:mod:`stsdemo.app.finetune.compare`), which streams each run as a queued job of a visitor's session, and
:func:`compare`, which trains the runs here (``bench.perf.app_default --compare``, a library user).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

from .config import TrainConfig, check_setting, describe, setting
from .errors import InputError
from .events import DoneEvent, EvalEvent, Event, Outcome
from .losses.spec import LOSSES, PAPER_X0
from .paired import Paired, paired
from .preflight import preflight
from .selection import dev_score, paired_metric
from .workflow import train_and_evaluate

View = TypeVar("View")


@dataclass(frozen=True)
class CompareSettings:
    """The comparison's own setting, declared once (the rest are the run's)."""

    seeds: int = setting(
        1,
        "pairs to run, at the form's seed and the next ones (seed, seed + 1, ...); with 2 or 3 "
        "the difference is a paired mean ± se",
        low=1,
        high=3,
        integer=True,
        label="compare seeds",
    )


def compare_seeds(value) -> int:
    """How many pairs a comparison runs: ``value`` checked against :class:`CompareSettings` (empty: its default)."""
    if value is None or value == "":
        return describe("seeds", CompareSettings)["default"]
    return check_setting("seeds", value, CompareSettings)


def check_comparable(config: TrainConfig) -> None:
    """A comparison needs a buffer to switch off: a buffer-zone loss with ``x0 > 0``."""
    if not LOSSES[config.loss].buffer:
        raise InputError("compare_no_buffer", loss=repr(config.loss))
    if config.x0 == 0:
        raise InputError("compare_x0_zero", paper_x0=f"{PAPER_X0:g}")


class RunRecord(Protocol):
    """What the comparison reads of a run: a name for messages, how it ended, its events (the app's
    :class:`~stsdemo.serving.session_files.RunInfo` is one; :class:`PairRun` is this module's)."""

    label: str
    status: str  # "running" until its DoneEvent, then the event's Outcome (its word on disk)
    events: list[Event]


@dataclass
class PairRun:
    """A run that :func:`compare` trained: its events as they came."""

    label: str
    status: str = "running"  # then its DoneEvent's Outcome
    events: list[Event] = field(default_factory=list)


@dataclass
class Pair:
    """One seed of a comparison: the run with the buffer and its twin with x0 = 0 (their records once started)."""

    seed: int
    configs: tuple[TrainConfig, TrainConfig]
    runs: list[RunRecord]

    def finished(self) -> bool:
        return len(self.runs) == 2 and all(run.status == Outcome.FINISHED for run in self.runs)


def plan_pairs(first: TrainConfig, seeds: int, configure: Callable[[dict], TrainConfig]) -> list[Pair]:
    """The checked configs of every run of a comparison, before anything starts: per seed (``first``'s and the
    next ones) ``first``'s settings, then with ``x0 = 0``. ``configure(changes)``: the checked config of one more
    run, ``first``'s settings with ``changes`` (seed, x0) in a folder of its own; its InputError names the seeds."""
    pairs = []
    for index in range(seeds):
        seed = first.seed + index
        try:
            with_buffer = first if index == 0 else configure({"seed": seed})
            without = configure({"seed": seed, "x0": 0})
        except InputError as error:
            raise InputError(
                "compare_seeds", seeds=seeds, first=first.seed, last=first.seed + seeds - 1, error=error
            ) from None
        pairs.append(Pair(seed, (with_buffer, without), []))
    return pairs


def run_pairs(
    pairs: list[Pair], run: Callable[[int, Pair, TrainConfig], Iterator[View]], stopped: Callable[[], bool]
) -> Generator[View, None, str]:
    """Each pair's two runs in turn: ``run(index, pair, config)`` starts one, appends its record to
    ``pair.runs`` and yields what its front end shows until it ends. A stop (``stopped()``) before a run, or a run
    that does not finish, ends the schedule; returns why it ended early ('' when every run finished)."""
    for index, pair in enumerate(pairs):
        for config in pair.configs:
            if stopped():
                return f"Stopped before seed {pair.seed}, x0 = {config.x0:g} started."
            yield from run(index, pair, config)
            last = pair.runs[-1]
            if last.status != Outcome.FINISHED:
                return f"{last.label} {last.status} during seed {pair.seed}."
    return ""


def final_dev(run: RunRecord, select_by: str) -> float | None:
    """The dev score that selects checkpoints (:func:`stsdemo.selection.dev_score`) at a run's last evaluation."""
    evaluations = [event for event in run.events if isinstance(event, EvalEvent)]
    return float(dev_score(evaluations[-1], select_by)) if evaluations else None


def shown_values(pairs: list[Pair], select_by: str) -> dict[int, tuple[float, float]]:
    """Seed -> (with the buffer, x0 = 0): each finished pair's last dev score in points (Spearman x100, node
    accuracy in %: the unit the rule's margin reads), rounded as the comparison shows it."""
    values = {}
    for pair in pairs:
        scores = [final_dev(run, select_by) for run in pair.runs] if pair.finished() else []
        if len(scores) == 2 and all(score is not None and math.isfinite(score) for score in scores):
            values[pair.seed] = tuple(round(score, 2) for score in scores)
    return values


def paired_result(values: dict[int, tuple[float, float]], select_by: str) -> Paired:
    """The paired differences of :func:`shown_values`' ``values`` (with the buffer minus without) and their
    verdict, under the margin of ``select_by``'s metric."""
    return paired(
        {seed: a for seed, (a, _) in values.items()},
        {seed: b for seed, (_, b) in values.items()},
        paired_metric(select_by),
    )


def alongside(first: TrainConfig) -> Callable[[dict], TrainConfig]:
    """The ``configure`` of :func:`plan_pairs` for runs trained here: ``first`` with the changes, checked, named
    and saved beside it (``<run name>-seed43-x00``)."""

    def configure(changes: dict) -> TrainConfig:
        suffix = "".join(f"-{name}{value:g}" for name, value in changes.items())
        return preflight(
            replace(first, **changes, run_name=first.run_name + suffix, output_dir=first.output_dir + suffix)
        )

    return configure


@dataclass
class Comparison:
    """A comparison :func:`compare` ran: its pairs (each run's events), why it ended early ('' if it did not),
    and what the pairs that finished say."""

    pairs: list[Pair]
    select_by: str
    ending: str

    def values(self) -> dict[int, tuple[float, float]]:
        return shown_values(self.pairs, self.select_by)

    def result(self) -> Paired:
        return paired_result(self.values(), self.select_by)


def compare(first: TrainConfig, seeds: int = 1, stop: threading.Event | None = None) -> Comparison:
    """Train the comparison of ``first`` (checked; the 7-task evaluation left out) here, one run after another,
    each run in a folder beside ``first``'s; a set ``stop`` ends it after the current run's step."""
    check_comparable(first)
    pairs = plan_pairs(first, compare_seeds(seeds), alongside(first))
    stop = stop if stop is not None else threading.Event()

    def train_one(_: int, pair: Pair, config: TrainConfig) -> Iterator[None]:
        record = PairRun(f"Seed {pair.seed}, x0 = {config.x0:g}")
        pair.runs.append(record)
        for event in train_and_evaluate(config, stop):
            record.events.append(event)
            if isinstance(event, DoneEvent):
                record.status = event.outcome
        if record.status == "running":
            record.status = Outcome.FAILED  # the run ended without a final event
        yield from ()

    schedule = run_pairs(pairs, train_one, stop.is_set)
    while True:
        try:
            next(schedule)
        except StopIteration as end:
            return Comparison(pairs, first.select_by, end.value)
