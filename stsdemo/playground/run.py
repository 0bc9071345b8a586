"""A Playground run from Python: the chosen loss with its buffer and its no-buffer twin, every seed at once, each
stopped at its best, trained by the page's own engine (``web/engine.js``, through :mod:`.engine`).

Twin 0 trains with the loss as set (``k``, ``x0``), twin 1 with the same loss at ``x0 = 0`` (the same ``k``: Smooth
K2 becomes ``k·MSE``, Translated ReLU ``k·L1``). The twins of a seed start from the same head and see the same
training pairs, labels and batches. Three disjoint sets per seed, as a practitioner would have them:

* the **training pairs** (a teacher's noise and rounding on their labels);
* a **selection set** held back from the same pool, with the same noise and rounding: every ``SELECT_EVERY`` steps
  each head is measured on it by the data set's own metric (:data:`~.metrics.READ_BY`), and each twin of each seed
  keeps its own best step;
* the **report set** (STS-B dev, SNLI's held-out 1,000) with clean labels, which selects nothing: it is read at
  the current step and at each head's chosen step ("stopped at its best").

There is no second trainer: :class:`Playground` drives the page's engine in an embedded JavaScript engine, so the
API, MCP, the command line, the payoff map and the presets read exactly what a visitor's page shows. Seeds are
independent, so a run is split over ``parts`` engines by seed (each in its own thread) and merged. The paired
difference ``buffer - none`` over seeds and its verdict are :mod:`stsdemo.paired`'s.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import cache

import numpy as np

from ..errors import InputError
from ..labels import LabelScheme
from ..losses.spec import LossSpec, loss_spec
from ..paired import Paired, paired
from . import engine as js
from .config import PlaygroundConfig
from .metrics import PAIRED

# What trained a recorded run: the page's engine (exact arithmetic, the same bits in every JavaScript engine) on a
# pinned data file, whose sha256 a record names beside this. A record of another engine is not today's run.
ENGINE = "page engine 2 (exact arithmetic)"
TWIN_NAMES = ("buffer", "none")
STEPS_BETWEEN_CLOCKS = 50  # run_seeds reads its wall clock this often
PARTS = 2  # engines a run is split over by seed: this machine's two cores


@dataclass(frozen=True)
class Source:
    """The data a run trains on: a compact file's bytes (:mod:`.compact`), named by their sha256, with the data
    set's ``name``, ``title`` and label scheme read from the file's metadata."""

    payload: bytes

    @property
    def checksum(self) -> str:
        return _digest(self.payload)

    @property
    def metadata(self) -> dict:
        return _metadata(self.payload)

    @property
    def name(self) -> str:
        return self.metadata["name"]

    @property
    def title(self) -> str:
        return self.metadata.get("title") or self.name

    def scheme(self, d: float = 1.0) -> LabelScheme:
        found = json.loads(self.metadata["scheme"])
        return LabelScheme(found["name"], tuple(found["categories"]), d)


@cache
def _digest(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


@cache
def _metadata(payload: bytes) -> dict:
    """A safetensors file's ``__metadata__``: its header is 8 bytes of length, then JSON."""
    length = int.from_bytes(payload[:8], "little")
    return json.loads(payload[8 : 8 + length])["__metadata__"]


@cache
def pinned_source(name: str) -> Source:
    """A built-in data set's pinned file (:mod:`.pinned`)."""
    from . import pinned

    return Source(pinned.file_bytes(name))


def baseline_of(loss: str) -> LossSpec:
    """The baseline a buffer-zone loss becomes at ``x0 = 0`` (Smooth K2: MSE, Translated ReLU: L1): its declared
    twin (:attr:`~stsdemo.losses.spec.LossSpec.twin`)."""
    return loss_spec(loss_spec(loss).twin)


def twin_labels(config: PlaygroundConfig) -> tuple[str, str]:
    """How the two twins are called: 'Smooth K2, x0 = 0.25' and 'no buffer: x0 = 0 (2·MSE)'."""
    short = loss_spec(config.loss).short
    return (
        f"{short}, x0 = {config.x0:g}",
        f"no buffer: x0 = 0 ({config.k:g}·{baseline_of(config.loss).label})",
    )


@dataclass
class Measurement:
    """One measurement of every head. ``values[metric]`` is ``(seeds, twins)``: the report set's ``spearman``,
    ``accuracy`` and ``error`` at this step, the share of training pairs ``inside`` the buffer, the data set's
    metric on the ``selection`` set and on the training pairs (``fit``: what memorisation drives up).
    ``best[metric]`` is the report set's metric of each head at its own best step, ``best_steps`` those steps
    ``(seeds, twins)``."""

    step: int
    seeds: list[int]
    values: dict[str, np.ndarray]
    best: dict[str, np.ndarray]
    best_steps: np.ndarray
    best_selection: np.ndarray  # each head's best reading on its selection set so far (seeds, twins)

    def mean(self, metric: str, at_best: bool = False) -> np.ndarray:
        """The metric's mean over seeds, per twin (a seed's NaN left out; NaN when every seed's is)."""
        return _nan_stat(np.nanmean, (self.best if at_best else self.values)[metric])

    def paired(self, metric: str, at_best: bool = False) -> Paired:
        """``buffer - none`` of ``metric`` over the seeds (at this step, or each head at its best step), with the
        verdict of :mod:`stsdemo.paired`."""
        return paired_over_seeds((self.best if at_best else self.values)[metric], self.seeds)


def paired_over_seeds(values: np.ndarray, seeds: list[int]) -> Paired:
    """``values[:, 0] - values[:, 1]`` of the seeds where both twins' values are finite."""
    return paired(
        {s: float(values[i, 0]) for i, s in enumerate(seeds) if np.isfinite(values[i]).all()},
        {s: float(values[i, 1]) for i, s in enumerate(seeds)},
    )


@dataclass(frozen=True)
class BestHead:
    """The first seed's head of one twin at its best step on the selection set, what an export writes
    (:mod:`.export_run`): its parameters (the paper head's weights, then its bias, as the engine lays them out), that
    ``step``, the
    ``selection`` set's reading there by ``metric`` (:data:`~.metrics.READ_BY`) and the report set's readings
    there (``spearman``, ``accuracy``, ``error``)."""

    twin: int
    seed: int
    step: int
    params: list[float]
    metric: str
    selection: float
    report: dict[str, float]


class Playground:
    """A run of ``config`` on ``source``: both twins of every seed (``seeds``, default ``0 .. config.seeds - 1``),
    trained by :meth:`step` in ``parts`` engines of ``kind`` (:data:`.engine.KINDS`), measured by :meth:`measure`.
    Close it (or use it in a ``with``) to give its engines back."""

    def __init__(
        self,
        config: PlaygroundConfig,
        source: Source,
        seeds: list[int] | None = None,
        kind: str = "v8",
        parts: int = PARTS,
    ):
        self.config, self.source = config, source
        self.seeds = list(range(config.seeds)) if seeds is None else list(seeds)
        count = max(1, min(parts, len(self.seeds)))
        slices = [self.seeds[i::count] for i in range(count)]  # a seed's numbers do not depend on its company
        self._engines = [js.borrow(kind) for _ in slices]
        try:
            for engine in self._engines:
                engine.add_data(source.checksum, source.payload)
            self._runs = [
                engine.start(source.checksum, asdict(config), part)
                for engine, part in zip(self._engines, slices)
            ]
        except Exception as error:
            self.close()
            raise InputError("playground_cannot_run", message=js.message(error)) from None
        self.order = [seed for part in slices for seed in part]  # the seeds as the parts hold them
        self.sizes = self._runs[0].sizes
        self.steps_done = 0
        self._pool = ThreadPoolExecutor(len(self._runs)) if len(self._runs) > 1 else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        for run in getattr(self, "_runs", []):
            run.close()
        for engine in self._engines:
            js.give_back(engine)
        self._runs, self._engines = [], []
        if getattr(self, "_pool", None):
            self._pool.shutdown()

    @property
    def finished(self) -> bool:
        return self.steps_done >= self.config.steps

    def _each(self, call) -> list:
        return list(self._pool.map(call, self._runs)) if self._pool else [call(run) for run in self._runs]

    def step(self, steps: int = 1) -> None:
        """Train every head ``steps`` steps (the engine measures the selection set every 10)."""
        if steps > 0:
            self.steps_done = self._each(lambda run: run.advance(steps))[0]

    def measure(self) -> Measurement:
        """Every head on the report pairs at this step and at its best step, on the selection set and on a sample
        of its training pairs, the seeds in ``seeds``' order."""
        parts = self._each(lambda run: run.measure())
        where = [self.order.index(seed) for seed in self.seeds]

        def table(key: str, name: str | None = None) -> np.ndarray:
            rows = [row for part in parts for row in (part[key][name] if name else part[key])]
            return np.array(rows, dtype=np.float64)[where]

        values = {name: table("values", name) for name in parts[0]["values"]}
        best = {name: table("best", name) for name in parts[0]["best"]}
        return Measurement(
            self.steps_done,
            self.seeds,
            values,
            best,
            table("bestSteps").astype(np.int64),
            table("bestSelection"),
        )

    def best_head(self, twin: int = 0) -> BestHead:
        """The first seed's head of ``twin`` (0: the loss with its buffer, 1: x0 = 0) at its best step so far;
        InputError for a run that has not trained yet, whose best step would be its untrained start."""
        if twin not in range(len(TWIN_NAMES)):
            raise InputError("twin_choice", twin0=TWIN_NAMES[0], twin1=TWIN_NAMES[1], twin=repr(twin))
        head = self._runs[0].best_head(twin)  # the first seed is the first of the first part
        if self.steps_done == 0 or head["params"] is None:
            raise InputError("no_best_step")
        return self.head_at(twin, head["params"], int(head["step"]))

    def head_at(self, twin: int, params: list[float], best_step: int) -> BestHead:
        """The first seed's ``twin`` given the head ``params`` (the paper head's weights, then its bias), measured
        again by the engine on the selection and report sets, reached at ``best_step``."""
        measured = self._runs[0].measure_head(twin, [float(value) for value in params])
        return BestHead(
            twin,
            self.seeds[0],
            best_step,
            [float(value) for value in params],
            self.sizes["readBy"],
            float(measured["selection"]),
            {name: float(v) for name, v in measured["report"].items()},
        )


def summary(measurement: Measurement) -> dict:
    """Both readings of a run, what the API answers and the payoff map records: ``twins`` and ``paired`` at this
    step (each twin's metrics, mean and sd over seeds; the paired differences with their verdicts), and
    ``stopped_at_best``: the same of each head at its own best step on the selection set, with those steps."""
    at_best = {
        "twins": _twins(measurement.best),
        "paired": {metric: paired_entry(measurement.paired(metric, at_best=True)) for metric in PAIRED},
        "steps": {name: measurement.best_steps[:, twin].tolist() for twin, name in enumerate(TWIN_NAMES)},
    }
    return {
        "step": measurement.step,
        "seeds": measurement.seeds,
        "twins": _twins(measurement.values),
        "paired": {metric: paired_entry(measurement.paired(metric)) for metric in PAIRED},
        "stopped_at_best": at_best,
    }


def _twins(values: dict[str, np.ndarray]) -> dict:
    """Each twin's metrics: mean and sd over seeds."""

    def sd(found: np.ndarray) -> float:
        return _nan_stat(np.nanstd, found, ddof=1) if len(found) > 1 else np.nan

    return {
        name: {
            metric: {
                "mean": record_number(_nan_stat(np.nanmean, found[:, twin])),
                "sd": record_number(sd(found[:, twin])),
            }
            for metric, found in values.items()
        }
        for twin, name in enumerate(TWIN_NAMES)
    }


def paired_entry(result: Paired) -> dict:
    return {
        "mean": record_number(result.mean),
        "se": record_number(result.se),
        "n": result.n,
        "verdict": result.verdict,
        "text": result.numbers(),
        "diffs": [record_number(diff) for diff in result.diffs],
        "seeds": result.seeds,
    }


def _nan_stat(statistic, values: np.ndarray, **options):
    """``statistic`` (np.nanmean, np.nanstd) over the seeds, quietly NaN where every seed's value is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return statistic(values, axis=0, **options)


def record_number(value) -> float | None:
    """A reading as a record writes it: 4 decimals, None (JSON null) for a NaN or infinity."""
    value = float(value)
    return round(value, 4) if np.isfinite(value) else None


def run_seeds(
    config: PlaygroundConfig, source: Source, seeds: list[int] | None = None, seconds: float | None = None
) -> dict:
    """Train a run of ``config`` on ``source`` (on ``seeds``, default ``0 .. config.seeds - 1``) to its last step
    and measure it once: :func:`summary`, each twin's best selection value (mean over seeds), the data's sha256 and
    the seconds it took. With ``seconds`` (a wall-clock limit), the run stops at the first
    :data:`STEPS_BETWEEN_CLOCKS` boundary past it and is measured there; ``stopped_early`` says whether it did."""
    started = time.perf_counter()
    with Playground(config, source, seeds=seeds) as playground:
        while not playground.finished:
            if seconds is not None and time.perf_counter() - started > seconds:
                break
            playground.step(min(STEPS_BETWEEN_CLOCKS, config.steps - playground.steps_done))
        measured = playground.measure()
        finished = playground.finished
    result = summary(measured)
    result["stopped_early"] = not finished
    result["stopped_at_best"]["selection"] = {
        name: record_number(np.nanmean(measured.best_selection[:, twin]))
        for twin, name in enumerate(TWIN_NAMES)
    }
    return {
        **result,
        "engine": ENGINE,
        "data_sha256": source.checksum,
        "seconds": round(time.perf_counter() - started, 3),
    }


CHECKPOINT_EVERY = 250  # steps between two readings of run_checkpoints (a preset's records)


def checkpoint(playground: Playground) -> dict:
    """Both readings at the current step: the paired differences and each twin's median best step."""
    measured = playground.measure()
    return {
        "step": measured.step,
        "step_reading": {metric: paired_entry(measured.paired(metric)) for metric in PAIRED},
        "best_reading": {metric: paired_entry(measured.paired(metric, at_best=True)) for metric in PAIRED},
        "best_steps": {
            name: float(np.median(measured.best_steps[:, twin])) for twin, name in enumerate(TWIN_NAMES)
        },
    }


def run_checkpoints(
    config: PlaygroundConfig, source: Source, seeds: list[int] | None = None, every: int = CHECKPOINT_EVERY
) -> dict:
    """A run read every ``every`` steps and at its last (:func:`checkpoint`): what a preset's record holds and
    ``python -m stsdemo playground`` prints, with the engine and the data's sha256."""
    points = []
    with Playground(config, source, seeds=seeds) as playground:
        while not playground.finished:
            playground.step(min(every, config.steps - playground.steps_done))
            points.append(checkpoint(playground))
        seeds = playground.seeds
    return {
        "config": config.to_dict(),
        "seeds": seeds,
        "checkpoints": points,
        "engine": ENGINE,
        "data_sha256": source.checksum,
    }
