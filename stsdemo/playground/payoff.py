"""Where does the buffer pay off? The paired difference ``buffer - none`` over a grid of label noise x training
size, for each buffer-zone loss against its ``x0 = 0`` twin (Smooth K2 vs k·MSE, Translated ReLU vs k·L1), on STS
and NLI.

Each cell is one :func:`~stsdemo.playground.run.run_seeds` of the default Playground settings at that noise and
size, over :data:`SEEDS` seeds; its verdict is :mod:`stsdemo.paired`'s (holds: the mean difference is more than two
standard errors above zero). A data set is read by its own measure (:data:`PRIMARY`): held-out Spearman on STS,
the share on the gold node (accuracy) on NLI. ``python -m bench.payoff`` computes the grid, records every cell in
``docs/results.json`` and writes the map the app shows (``payoff.json`` beside this module).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

from ..losses.spec import paper_k
from ..paired import Paired
from .config import BUFFER_LOSSES, DATASETS, PlaygroundConfig

NOISES = (0.0, 0.25, 0.5, 1.0, 1.5)          # sigma of the label noise on the line (node gap d = 1)
SIZES = (50, 200, 800, 3200, 0)             # training pairs per seed; 0 = all (STS-B 5,749, SNLI 8,842)
SEEDS = 20
HEADS = ("paper", "mlp")                     # the paper's head, and one with more capacity than 50 noisy pairs need
PRIMARY = {"sts": "spearman", "nli": "accuracy"}
MAP_FILE = Path(__file__).with_name("payoff.json")
MAP_VERSION = 1


def cell_config(dataset: str, loss: str, head: str, noise: float, size: int) -> PlaygroundConfig:
    """The Playground settings of one cell: the defaults, with the loss's paper k, this noise and size."""
    return replace(PlaygroundConfig(), data=dataset, loss=loss, head=head, k=paper_k(loss), noise=noise,
                   train_pairs=size, seeds=SEEDS).validate()


def cell_key(dataset: str, loss: str, head: str, noise: float, size: int) -> str:
    """``payoff/sts/sk2/paper/noise0.5/pairs200`` (``pairs0``: all)."""
    return f"payoff/{dataset}/{loss}/{head}/noise{noise:g}/pairs{size}"


def grid() -> list[tuple[str, str, str, float, int]]:
    """Every cell: ``(dataset, loss, head, noise, size)``."""
    return [(dataset, loss, head, noise, size) for dataset in DATASETS for loss in BUFFER_LOSSES for head in HEADS
            for noise in NOISES for size in SIZES]


def cell_paired(entry: dict, metric: str) -> Paired:
    """A recorded cell's paired difference as :class:`~stsdemo.paired.Paired`, from its per-seed differences."""
    found = entry["paired"][metric]
    return Paired(list(found["diffs"]), list(found["seeds"]))


def load_map(path: Path = MAP_FILE) -> dict:
    """The shipped map: ``{"version", "machine", "cells": {cell key: entry}}`` (no cells when none was written)."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": MAP_VERSION, "cells": {}}
    return found if found.get("version") == MAP_VERSION else {"version": MAP_VERSION, "cells": {}}


def cells_of(payoff: dict, dataset: str, loss: str, head: str) -> dict[tuple[float, int], dict]:
    """The recorded cells of one map, by ``(noise, size)``."""
    out = {}
    for noise in NOISES:
        for size in SIZES:
            entry = payoff.get("cells", {}).get(cell_key(dataset, loss, head, noise, size))
            if entry is not None:
                out[(noise, size)] = entry
    return out


def nearest_cell(noise: float, size: int, pool: int) -> tuple[float, int]:
    """The grid cell closest to a setting: the nearest noise, and the nearest size on a log scale (0 = all, which
    is ``pool`` pairs)."""
    chosen_noise = min(NOISES, key=lambda n: abs(n - noise))
    wanted = pool if size <= 0 or size >= pool else size
    chosen_size = min(SIZES, key=lambda s: abs(math.log((s or pool) / wanted)))
    return chosen_noise, chosen_size


def reading(cells: dict[tuple[float, int], dict], metric: str) -> str:
    """What a map shows, plainly: in how many cells the buffer pays off (holds), costs (reversed) or makes no
    measurable difference, and where it pays off ("nowhere" when it does not)."""
    if not cells:
        return "This map has not been recorded yet (`python -m bench.payoff`)."
    verdicts = {key: cell_paired(entry, metric).verdict for key, entry in cells.items()}
    holds = [key for key, verdict in verdicts.items() if verdict == "holds"]
    reversed_ = [key for key, verdict in verdicts.items() if verdict == "reversed"]
    neutral = len(verdicts) - len(holds) - len(reversed_)
    where = ("nowhere on this grid" if not holds else
             "at " + ", ".join(f"σ {noise:g} × {'all' if size == 0 else size} pairs" for noise, size in sorted(holds)))
    chance = len(verdicts) / 20
    return (f"The buffer pays off {where}: it holds in {len(holds)} of {len(verdicts)} cells, is reversed in "
            f"{len(reversed_)} and makes no measurable difference in {neutral}. By chance alone about {chance:.1f} "
            f"of {len(verdicts)} cells would read holds or reversed (the 2-se rule errs about 1 time in 20), so a "
            "lone marked cell is weak evidence; a run of them along a row or a column is not.")
