"""The lockstep trainer: the chosen loss with its buffer and its no-buffer twin, every seed at once, each stopped
at its best.

Twin 0 trains with the loss as set (``k``, ``x0``), twin 1 with the same loss at ``x0 = 0`` (the same ``k``: Smooth
K2 becomes ``k·MSE``, Translated ReLU ``k·L1``). Both losses come from the project's registry
(:func:`stsdemo.losses.registry.build_loss`), applied per pair (``elementwise``) to the batched predictions. The
twins of a seed start from the same head and see the same training pairs, labels and batches; the sum over
heads of each head's batch-mean loss gives every head exactly its own gradient, and Adam acts elementwise, so a
seed trained among twenty ends where it ends alone (up to float rounding).

Three disjoint sets per seed, as a practitioner would have them:

* the **training pairs** (a teacher's noise and rounding on their labels);
* a **selection set** held back from the same pool, with the same noise and rounding
  (:func:`~.conditions.split_pool`): every :data:`SELECT_EVERY` steps each head is measured on it by the data
  set's own metric (:data:`~.metrics.READ_BY`), and each twin of each seed keeps its own best step;
* the **report set** (STS-B dev, SNLI's held-out 1,000) with clean labels, which selects nothing: it is read at
  the current step and at each head's chosen step ("stopped at its best").

:class:`Playground` steps and measures a run; :func:`run_seeds` runs one to its end for the API, MCP and the payoff
map. The page's engine (``web/engine.js``) is this module's twin, tested to agree within 1e-6 (float64, the shared
generator of :mod:`.draws`); the page plays, this is the reference. The paired difference ``buffer - none`` over seeds and its verdict are
:mod:`stsdemo.paired`'s.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import torch

from ..data.pairs import spaced_positions
from ..errors import InputError
from ..labels import LabelScheme
from ..losses.registry import build_loss
from ..losses.spec import LossSpec, loss_spec
from ..paired import Paired, paired
from .conditions import BatchOrder, split_pool, training_labels
from .config import PlaygroundConfig
from .datasets import PlaygroundData
from .heads import build_head, pair_features
from .metrics import PAIRED, READ_BY, held_out_metrics, metric

# What trained a recorded run: float64 throughout and the shared counter-based generator (:mod:`.draws`), the same
# numbers as the page's engine. A record of another engine (float32 and torch's streams before it) is not today's run.
ENGINE = "float64, shared generator 1"
TWIN_NAMES = ("buffer", "none")
TRAIN_SAMPLE = 500        # training pairs per seed whose fit and share inside the buffer are measured
SELECT_EVERY = 10         # steps between two measurements on the selection set (each a candidate best step)
MAX_HISTORY = 400         # curve points kept; beyond it every other older point is dropped
STEPS_AT_ONCE = 256       # batches drawn at a time (bounds the index memory of a long call)
STEPS_BETWEEN_CLOCKS = 5 * SELECT_EVERY     # run_seeds reads its wall clock this often


def baseline_of(loss: str) -> LossSpec:
    """The baseline a buffer-zone loss becomes at ``x0 = 0`` (Smooth K2: MSE, Translated ReLU: L1): its declared
    twin (:attr:`~stsdemo.losses.spec.LossSpec.twin`)."""
    return loss_spec(loss_spec(loss).twin)


def twin_labels(config: PlaygroundConfig) -> tuple[str, str]:
    """How the two twins are called: 'Smooth K2, x0 = 0.25' and 'no buffer: x0 = 0 (2·MSE)'."""
    short = loss_spec(config.loss).short
    return f"{short}, x0 = {config.x0:g}", f"no buffer: x0 = 0 ({config.k:g}·{baseline_of(config.loss).label})"


@dataclass(frozen=True)
class Features:
    """What the heads read of a data set's pairs (:func:`~.heads.pair_features`), training and held out."""

    train: torch.Tensor
    held_out: torch.Tensor


def prepare_features(data: PlaygroundData, vectors: torch.Tensor, head: str) -> Features:
    """The features of every pair of ``data`` for ``head``; they depend only on the vectors and the head's kind,
    so a caller may keep them for every run on the same data."""
    vectors = torch.as_tensor(vectors, dtype=torch.float64)     # the heads are float64, as in the page
    return Features(pair_features(vectors, data.train.u, data.train.v, head),
                    pair_features(vectors, data.held_out.u, data.held_out.v, head))


@dataclass
class Measurement:
    """One measurement of every head. ``values[metric]`` is ``(seeds, twins)``: the report set's ``spearman``,
    ``accuracy`` and ``error`` at this step, the share of training pairs ``inside`` the buffer, the data set's
    metric on the ``selection`` set and on the training pairs (``fit``: what memorisation drives up).
    ``best[metric]`` is the report set's metric of each head at its own best step, ``best_steps`` those steps
    ``(seeds, twins)``. ``shown`` is the first seed's predictions ``(twins, dots)`` on the report pairs the view
    draws."""

    step: int
    seeds: list[int]
    values: dict[str, np.ndarray]
    best: dict[str, np.ndarray]
    best_steps: np.ndarray
    shown: np.ndarray

    def mean(self, metric: str, at_best: bool = False) -> np.ndarray:
        """The metric's mean over seeds, per twin (a seed's NaN left out; NaN when every seed's is)."""
        return _nan_stat(np.nanmean, (self.best if at_best else self.values)[metric])

    def paired(self, metric: str, at_best: bool = False) -> Paired:
        """``buffer - none`` of ``metric`` over the seeds (at this step, or each head at its best step), with the
        verdict of :mod:`stsdemo.paired`."""
        return paired_over_seeds((self.best if at_best else self.values)[metric], self.seeds)


def paired_over_seeds(values: np.ndarray, seeds: list[int]) -> Paired:
    """``values[:, 0] - values[:, 1]`` of the seeds where both twins' values are finite."""
    return paired({s: float(values[i, 0]) for i, s in enumerate(seeds) if np.isfinite(values[i]).all()},
                  {s: float(values[i, 1]) for i, s in enumerate(seeds)})


@dataclass(frozen=True)
class BestHead:
    """The first seed's head of one twin at its best step on the selection set, what an export writes
    (:mod:`.export_run`): its parameters as :meth:`~.heads.BatchedHead.weights_of` gives them, that ``step``, the
    ``selection`` set's reading there by ``metric`` (:data:`~.metrics.READ_BY`) and the report set's readings
    there (``spearman``, ``accuracy``, ``error``)."""

    twin: int
    seed: int
    step: int
    weights: dict[str, torch.Tensor]
    metric: str
    selection: float
    report: dict[str, float]


@dataclass
class StepRecord:
    """The last batch a :meth:`Playground.step` trained on: predictions ``(seeds, twins, batch)``, labels
    ``(seeds, batch)`` and the pull each pair got, ``d loss / d prediction`` times the batch size ``(seeds,
    twins, batch)``: exactly 0 for a pair inside the buffered twin's buffer."""

    predictions: torch.Tensor
    labels: torch.Tensor
    pulls: torch.Tensor


class Playground:
    """A run of ``config`` on ``data``: both twins of every seed, trained in lockstep by :meth:`step`, each twin's
    best step kept on the selection set, measured by :meth:`measure` (which also extends :attr:`history`, the
    curves' points)."""

    def __init__(self, config: PlaygroundConfig, data: PlaygroundData, features: Features, shown: int = 600,
                 seeds: list[int] | None = None):
        """``shown``: how many report pairs (evenly spread) :attr:`Measurement.shown` gives; ``seeds``: which
        seeds (default ``0 .. config.seeds - 1``)."""
        self.config = config
        self.data, self.features = data, features
        self.seeds = list(range(config.seeds)) if seeds is None else list(seeds)
        self.scheme = LabelScheme(data.scheme.name, data.scheme.categories, config.d)
        self.read_by = READ_BY.get(data.scheme.name, "spearman")
        self.losses = (build_loss(config.loss, config.k, config.x0, self.scheme),
                       build_loss(config.loss, config.k, 0.0, self.scheme))
        pool = np.asarray(data.train.labels, dtype=np.float64) * config.d
        splits = [split_pool(len(pool), config.train_pairs, s) for s in self.seeds]
        self.subsets = torch.from_numpy(np.stack([train for train, _ in splits]))
        self.selection = torch.from_numpy(np.stack([held for _, held in splits]))
        drawn = [training_labels(pool[np.concatenate(split)], self.scheme, config.noise, config.round_labels, s)
                 for s, split in zip(self.seeds, splits)]       # one noise draw per seed over both parts
        pairs = self.subsets.shape[1]
        self.labels = torch.from_numpy(np.stack([labels[:pairs] for labels in drawn]))
        self.selection_labels = np.stack([labels[pairs:] for labels in drawn])
        self.selection_rows = self._rows(self.selection)      # gathered once: measured every SELECT_EVERY steps
        self.orders = [BatchOrder(pairs, config.batch_size, s) for s in self.seeds]
        self.sample = torch.from_numpy(spaced_positions(pairs, TRAIN_SAMPLE))
        self.gold = np.asarray(data.held_out.labels, dtype=np.float64) * config.d
        self.shown = spaced_positions(len(self.gold), shown) if shown else np.empty(0, dtype=np.int64)
        self.head = build_head(config.head, self.seeds, features.train.shape[1], self.scheme, config.width)
        # Adam's plain loop (torch's single-tensor form): the page's engine repeats its formula term by term
        self.optimizer = torch.optim.Adam(self.head.parameters(), lr=config.lr, foreach=False, fused=False)
        self.steps_done, self.history, self.last_step = 0, [], None
        twins = (len(self.seeds), len(TWIN_NAMES))
        self.best_selection = np.full(twins, -np.inf)
        self.best_steps = np.zeros(twins, dtype=np.int64)
        # each head's parameters at its best step; their report-set predictions are computed only when read
        self.best_parameters = {name: p.detach().clone() for name, p in self.head.named_parameters()}
        self._best_report: np.ndarray | None = None
        self._selected: tuple | None = None      # (when, values) of the last selection measurement
        self._select()

    @property
    def finished(self) -> bool:
        return self.steps_done >= self.config.steps

    def step(self, steps: int = 1) -> None:
        """Train every head ``steps`` steps, measuring the selection set every :data:`SELECT_EVERY` steps;
        :attr:`last_step` keeps the last batch and the pull each pair got."""
        while steps > 0:
            block = min(steps, STEPS_AT_ONCE)
            batches = torch.from_numpy(np.stack([order.take(block) for order in self.orders]))  # (seeds, block, batch)
            for index in range(block):
                self._one_step(batches[:, index], record=(steps == block and index == block - 1))
                if self.steps_done % SELECT_EVERY == 0:
                    self._select()
            steps -= block

    def _rows(self, positions: torch.Tensor) -> torch.Tensor:
        """The training-pool features at pool ``positions`` ``(seeds, n)``: ``(seeds, n, F)``."""
        rows = torch.index_select(self.features.train, 0, positions.reshape(-1))
        return rows.view(*positions.shape, -1)

    def _one_step(self, local: torch.Tensor, record: bool) -> None:
        chosen = self.subsets.gather(1, local)                                     # pool positions (seeds, batch)
        labels = self.labels.gather(1, local)
        predictions = self.head(self._rows(chosen))                                # (seeds, twins, batch)
        if record:
            predictions.retain_grad()
        total = sum(loss.elementwise(predictions[:, twin], labels).mean(-1).sum()
                    for twin, loss in enumerate(self.losses))
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        self.optimizer.step()
        self.steps_done += 1
        if record:
            self.last_step = StepRecord(predictions.detach(), labels, predictions.grad * labels.shape[1])

    @torch.no_grad()
    def selection_values(self) -> np.ndarray:
        """Every head's metric (:data:`~.metrics.READ_BY`) on its seed's selection set, ``(seeds, twins)``."""
        predictions = self.head(self.selection_rows).numpy()
        return metric(self.read_by, predictions, self.selection_labels[:, None, :], self.scheme)

    def _parameters_now(self) -> tuple:
        """What identifies the heads' parameters as they are: the step and each parameter's in-place version (an
        optimiser step or an assignment such as :func:`~.export_run.page_head`'s bumps it)."""
        return self.steps_done, tuple(p._version for p in self.head.parameters())

    @torch.no_grad()
    def _select(self) -> None:
        """Measure the selection set; a head that beats its best so far (a tie keeps the earlier step) takes this
        step as its best, with its parameters here (:attr:`best_predictions`, :meth:`best_head`)."""
        measured = self.selection_values()
        self._selected = (self._parameters_now(), measured)
        value = np.nan_to_num(measured, nan=-np.inf)
        better = value > self.best_selection
        if better.any():
            self.best_selection[better] = value[better]
            self.best_steps[better] = self.steps_done
            mask = torch.from_numpy(better)
            for name, parameter in self.head.named_parameters():
                self.best_parameters[name][mask] = parameter.detach()[mask]
            self._best_report = None

    @property
    @torch.no_grad()
    def best_predictions(self) -> np.ndarray:
        """Every head's predictions of the report set at its best step ``(seeds, twins, pairs)`` (0 for a head that
        never had one). Computed when read, not at each new best (most selections find one): the heads' best
        parameters through the same computation as :meth:`measure`'s, all at once (the same shapes, so the same
        bits as predicting them at the step itself)."""
        if self._best_report is None:
            report = torch.func.functional_call(self.head, self.best_parameters, (self.features.held_out,)).numpy()
            report[~np.isfinite(self.best_selection)] = 0.0
            self._best_report = report
        return self._best_report

    def best_head(self, twin: int = 0) -> BestHead:
        """The first seed's head of ``twin`` (0: the loss with its buffer, 1: x0 = 0) at its best step so far;
        InputError for a run that has not trained yet, whose best step would be its untrained start."""
        if twin not in range(len(TWIN_NAMES)):
            raise InputError(f"twin must be 0 ({TWIN_NAMES[0]}) or 1 ({TWIN_NAMES[1]}), got {twin!r}")
        if self.steps_done == 0 or not np.isfinite(self.best_selection[0, twin]):
            raise InputError("this Playground run has no best step yet: train it before exporting its head")
        report = held_out_metrics(self.best_predictions[0, twin], self.gold, self.scheme)
        weights = {name: best[0, twin].clone() for name, best in self.best_parameters.items()}
        return BestHead(twin, self.seeds[0], int(self.best_steps[0, twin]), weights,
                        self.read_by, float(self.best_selection[0, twin]),
                        {name: float(value) for name, value in report.items()})

    @torch.no_grad()
    def measure(self) -> Measurement:
        """Every head on the report pairs at this step and at its best step, on the selection set and on a sample
        of its training pairs; appended to :attr:`history` as the twins' means over seeds."""
        held = self.head(self.features.held_out).numpy()                        # (seeds, twins, pairs)
        values = held_out_metrics(held, self.gold, self.scheme)
        sample = self.subsets[:, self.sample]
        predictions = self.head(self._rows(sample))                                # (seeds, twins, sample)
        labels = self.labels[:, self.sample].unsqueeze(1)
        values["inside"] = 100.0 * self.losses[0].in_buffer(predictions, labels).double().mean(-1).numpy()
        values["fit"] = metric(self.read_by, predictions.numpy(), labels.numpy(), self.scheme)
        when, measured = self._selected
        values["selection"] = measured.copy() if when == self._parameters_now() else self.selection_values()
        best = held_out_metrics(self.best_predictions, self.gold, self.scheme)
        measurement = Measurement(self.steps_done, self.seeds, values, best, self.best_steps.copy(),
                                  held[0][:, self.shown])
        self._remember(measurement)
        return measurement

    def _remember(self, measurement: Measurement) -> None:
        if self.history and self.history[-1]["step"] == measurement.step:
            self.history.pop()
        self.history.append({"step": measurement.step, **{name: measurement.mean(name) for name in measurement.values},
                             **{f"best_{name}": measurement.mean(name, at_best=True) for name in measurement.best}})
        while len(self.history) > MAX_HISTORY:
            self.history = self.history[:-1:2] + self.history[-1:]


def summary(measurement: Measurement) -> dict:
    """Both readings of a run, what the API answers and the payoff map records: ``twins`` and ``paired`` at this
    step (each twin's metrics, mean and sd over seeds; the paired differences with their verdicts), and
    ``stopped_at_best``: the same of each head at its own best step on the selection set, with those steps."""
    at_best = {"twins": _twins(measurement.best),
               "paired": {metric: paired_entry(measurement.paired(metric, at_best=True)) for metric in PAIRED},
               "steps": {name: measurement.best_steps[:, twin].tolist() for twin, name in enumerate(TWIN_NAMES)}}
    return {"step": measurement.step, "seeds": measurement.seeds, "twins": _twins(measurement.values),
            "paired": {metric: paired_entry(measurement.paired(metric)) for metric in PAIRED},
            "stopped_at_best": at_best}


def _twins(values: dict[str, np.ndarray]) -> dict:
    """Each twin's metrics: mean and sd over seeds."""
    def sd(found: np.ndarray) -> float:
        return _nan_stat(np.nanstd, found, ddof=1) if len(found) > 1 else np.nan

    return {name: {metric: {"mean": record_number(_nan_stat(np.nanmean, found[:, twin])),
                            "sd": record_number(sd(found[:, twin]))}
                   for metric, found in values.items()}
            for twin, name in enumerate(TWIN_NAMES)}


def paired_entry(result: Paired) -> dict:
    return {"mean": record_number(result.mean), "se": record_number(result.se), "n": result.n,
            "verdict": result.verdict, "text": result.numbers(),
            "diffs": [record_number(diff) for diff in result.diffs], "seeds": result.seeds}


def _nan_stat(statistic, values: np.ndarray, **options):
    """``statistic`` (np.nanmean, np.nanstd) over the seeds, quietly NaN where every seed's value is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return statistic(values, axis=0, **options)


def record_number(value) -> float | None:
    """A reading as a record writes it: 4 decimals, None (JSON null) for a NaN or infinity."""
    value = float(value)
    return round(value, 4) if np.isfinite(value) else None


def run_seeds(config: PlaygroundConfig, data: PlaygroundData, features: Features,
              seeds: list[int] | None = None, seconds: float | None = None) -> dict:
    """Train a run of ``config`` (on ``seeds``, default ``0 .. config.seeds - 1``) to its last step and measure it
    once: :func:`summary`, each twin's best selection value (mean over seeds), and the seconds it took. With
    ``seconds`` (a wall-clock limit), the run stops at the first :data:`SELECT_EVERY` boundary past it and is
    measured there; ``stopped_early`` says whether it did."""
    started = time.perf_counter()
    playground = Playground(config, data, features, shown=0, seeds=seeds)
    while not playground.finished:
        if seconds is not None and time.perf_counter() - started > seconds:
            break
        playground.step(min(STEPS_BETWEEN_CLOCKS, config.steps - playground.steps_done))
    result = summary(playground.measure())
    result["stopped_early"] = not playground.finished
    result["stopped_at_best"]["selection"] = {name: record_number(playground.best_selection[:, twin].mean())
                                              for twin, name in enumerate(TWIN_NAMES)}
    return {**result, "engine": ENGINE, "seconds": round(time.perf_counter() - started, 3)}
