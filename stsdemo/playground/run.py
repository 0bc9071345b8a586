"""The lockstep trainer: the chosen loss with its buffer and its no-buffer twin, every seed at once.

Twin 0 trains with the loss as set (``k``, ``x0``), twin 1 with the same loss at ``x0 = 0`` (the same ``k``: Smooth
K2 becomes ``k·MSE``, Translated ReLU ``k·L1``). Both losses come from the project's registry
(:func:`stsdemo.losses.registry.build_loss`), applied per pair (``elementwise``) to the batched predictions. The
twins of a seed start from the same head and see the same training pairs, labels and batches; the sum over
heads of each head's batch-mean loss gives every head exactly its own gradient, and Adam acts elementwise, so a
seed trained among twenty ends where it ends alone (up to float rounding).

:class:`Playground` is what the tab steps and measures; :func:`run_seeds` runs one to its end for the API and the
payoff map. The paired difference ``buffer - none`` over seeds and its verdict are :mod:`stsdemo.paired`'s.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import torch

from ..labels import LabelScheme
from ..losses.registry import build_loss
from ..losses.spec import LossSpec, loss_spec
from ..paired import Paired, paired
from .conditions import BatchOrder, training_labels, training_subset
from .config import PlaygroundConfig
from .datasets import PlaygroundData
from .heads import build_head, pair_features
from .metrics import PAIRED, held_out_metrics

TWIN_NAMES = ("buffer", "none")
TRAIN_SAMPLE = 500        # training pairs per seed whose share inside the buffer is measured
MAX_HISTORY = 400         # curve points kept; beyond it every other older point is dropped
STEPS_AT_ONCE = 256       # batches drawn at a time (bounds the index memory of a long call)


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
    return Features(pair_features(vectors, data.train.u, data.train.v, head),
                    pair_features(vectors, data.held_out.u, data.held_out.v, head))


@dataclass
class Measurement:
    """One measurement of every head: ``values[metric]`` is ``(seeds, twins)``; ``shown`` the first seed's
    predictions ``(twins, dots)`` on the held-out pairs the view draws."""

    step: int
    seeds: list[int]
    values: dict[str, np.ndarray]
    shown: np.ndarray

    def mean(self, metric: str) -> np.ndarray:
        """The metric's mean over seeds, per twin (a seed's NaN left out; NaN when every seed's is)."""
        return _nan_stat(np.nanmean, self.values[metric])

    def paired(self, metric: str) -> Paired:
        """``buffer - none`` of ``metric`` over the seeds, with the verdict of :mod:`stsdemo.paired`."""
        values = self.values[metric]
        return paired({s: float(values[i, 0]) for i, s in enumerate(self.seeds) if np.isfinite(values[i]).all()},
                      {s: float(values[i, 1]) for i, s in enumerate(self.seeds)})


@dataclass
class StepRecord:
    """The last batch a :meth:`Playground.step` trained on: predictions ``(seeds, twins, batch)``, labels
    ``(seeds, batch)`` and the pull each pair got, ``d loss / d prediction`` times the batch size ``(seeds,
    twins, batch)``: exactly 0 for a pair inside the buffered twin's buffer."""

    predictions: torch.Tensor
    labels: torch.Tensor
    pulls: torch.Tensor


class Playground:
    """A run of ``config`` on ``data``: both twins of every seed, trained in lockstep by :meth:`step`, measured by
    :meth:`measure` (which also extends :attr:`history`, the curves' points)."""

    def __init__(self, config: PlaygroundConfig, data: PlaygroundData, features: Features, shown: int = 600,
                 seeds: list[int] | None = None):
        """``shown``: how many held-out pairs (evenly spread) :attr:`Measurement.shown` gives; ``seeds``: which
        seeds (default ``0 .. config.seeds - 1``)."""
        self.config = config = config.validate()
        self.data, self.features = data, features
        self.seeds = list(range(config.seeds)) if seeds is None else list(seeds)
        self.scheme = LabelScheme(data.scheme.name, data.scheme.categories, config.d)
        self.losses = (build_loss(config.loss, config.k, config.x0, self.scheme),
                       build_loss(config.loss, config.k, 0.0, self.scheme))
        pool = torch.from_numpy(data.train.labels).float() * config.d
        self.subsets = torch.stack([training_subset(len(pool), config.train_pairs, s) for s in self.seeds])
        self.labels = torch.stack([training_labels(pool[subset], self.scheme, config.noise, config.round_labels, s)
                                   for s, subset in zip(self.seeds, self.subsets)])
        pairs = self.subsets.shape[1]
        self.orders = [BatchOrder(pairs, config.batch_size, s) for s in self.seeds]
        self.sample = torch.linspace(0, pairs - 1, min(pairs, TRAIN_SAMPLE)).round().long()
        self.gold = data.held_out.labels * config.d
        self.shown = np.unique(np.linspace(0, len(self.gold) - 1, min(shown, len(self.gold))).round().astype(int))
        self.head = build_head(config.head, self.seeds, features.train.shape[1], self.scheme, config.width)
        self.optimizer = torch.optim.Adam(self.head.parameters(), lr=config.lr, fused=True)
        self.steps_done, self.history, self.last_step = 0, [], None

    @property
    def finished(self) -> bool:
        return self.steps_done >= self.config.steps

    def continue_with(self, config: PlaygroundConfig) -> None:
        """Go on under ``config``, the same run with another length or speed (:meth:`PlaygroundConfig.run_identity`)."""
        if config.run_identity() != self.config.run_identity():
            raise ValueError("a run continues only under another number of steps or speed")
        self.config = config.validate()

    def step(self, steps: int = 1) -> None:
        """Train every head ``steps`` steps; :attr:`last_step` keeps the last batch and the pull each pair got."""
        while steps > 0:
            block = min(steps, STEPS_AT_ONCE)
            batches = torch.stack([order.take(block) for order in self.orders])    # (seeds, block, batch)
            for index in range(block):
                self._one_step(batches[:, index], record=(steps == block and index == block - 1))
            steps -= block

    def _rows(self, positions: torch.Tensor) -> torch.Tensor:
        """The training features at pool ``positions`` ``(seeds, n)``: ``(seeds, n, F)``."""
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
    def measure(self) -> Measurement:
        """Every head on the held-out pairs, and the share of training pairs inside the buffer; appended to
        :attr:`history` as the twins' means over seeds."""
        held = self.head(self.features.held_out).numpy()                        # (seeds, twins, pairs)
        values = held_out_metrics(held, self.gold, self.scheme)
        sample = self.subsets[:, self.sample]
        predictions = self.head(self._rows(sample))                                # (seeds, twins, sample)
        labels = self.labels[:, self.sample].unsqueeze(1)
        values["inside"] = 100.0 * self.losses[0].in_buffer(predictions, labels).float().mean(-1).numpy()
        measurement = Measurement(self.steps_done, self.seeds, values, held[0][:, self.shown])
        self._remember(measurement)
        return measurement

    def _remember(self, measurement: Measurement) -> None:
        if self.history and self.history[-1]["step"] == measurement.step:
            self.history.pop()
        self.history.append({"step": measurement.step, **{name: measurement.mean(name) for name in measurement.values}})
        while len(self.history) > MAX_HISTORY:
            self.history = self.history[:-1:2] + self.history[-1:]


def summary(measurement: Measurement) -> dict:
    """The final metrics of both twins (mean and sd over seeds) and the paired differences with their verdicts:
    what the API answers and the payoff map records."""
    twins = {}
    for twin, name in enumerate(TWIN_NAMES):
        twins[name] = {metric: {"mean": _number(_nan_stat(np.nanmean, values[:, twin])),
                                "sd": _number(_nan_stat(np.nanstd, values[:, twin], ddof=1) if len(values) > 1
                                              else np.nan)}
                       for metric, values in measurement.values.items()}
    differences = {}
    for metric in PAIRED:
        result = measurement.paired(metric)
        differences[metric] = {"mean": _number(result.mean), "se": _number(result.se), "n": result.n,
                               "verdict": result.verdict, "text": result.numbers(),
                               "diffs": [_number(diff) for diff in result.diffs], "seeds": result.seeds}
    return {"step": measurement.step, "seeds": measurement.seeds, "twins": twins, "paired": differences}


def _nan_stat(statistic, values: np.ndarray, **options):
    """``statistic`` (np.nanmean, np.nanstd) over the seeds, quietly NaN where every seed's value is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return statistic(values, axis=0, **options)


def _number(value) -> float | None:
    value = float(value)
    return round(value, 4) if np.isfinite(value) else None


def run_seeds(config: PlaygroundConfig, data: PlaygroundData, features: Features) -> dict:
    """Train a run of ``config`` to its last step and measure it once: :func:`summary` plus the seconds it took."""
    started = time.perf_counter()
    playground = Playground(config, data, features, shown=0)
    playground.step(playground.config.steps)
    result = summary(playground.measure())
    return {**result, "seconds": round(time.perf_counter() - started, 3)}
