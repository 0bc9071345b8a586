"""Where does the buffer pay off? The paired difference ``buffer - none`` over a grid of label noise x training
size, for each buffer-zone loss against its ``x0 = 0`` twin (Smooth K2 vs k·MSE, Translated ReLU vs k·L1), on STS
and NLI, for the paper's head and a one-hidden-layer head.

Each cell is one :func:`~stsdemo.playground.run.run_seeds` of the default Playground settings at that noise and
size, over :data:`SEEDS` seeds, read three ways (:data:`READINGS`):

* ``best``: each twin of each seed stopped at its own best step on the selection set (the default reading);
* ``step``: both twins at the run's last step (1,000), the one fixed budget of the first map;
* ``tuned`` (paper head): each twin's learning rate in :data:`TUNED_LRS` and its step chosen on the selection
  set over seeds 0-19, then reported on fresh seeds 20-39.

A data set is read by its own measure (:data:`~stsdemo.playground.metrics.READ_BY`): held-out Spearman on STS, the
share on the gold node (accuracy) on NLI. A cell's verdict is :mod:`stsdemo.paired`'s t-test, corrected over all
the recorded cells of a reading by Benjamini-Hochberg at 5 % (:func:`verdicts`). ``python -m bench.evidence.payoff``
computes the grid, records every cell in ``docs/results.json`` and writes the map the app shows (``payoff.json``
beside this module).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

from .. import strings
from ..losses.spec import paper_k
from ..paired import LEVEL, Paired, benjamini_hochberg
from ..verdict import Verdict
from .config import BUFFER_LOSSES, BUILT_IN_DATA, PlaygroundConfig
from .metrics import READ_BY

NOISES = (0.0, 0.25, 0.5, 1.0, 1.5)  # sigma of the label noise on the line (node gap d = 1)
SIZES = (50, 200, 800, 3200, 0)  # training pairs per seed; 0 = all the selection set leaves
SEEDS = 20
HEADS = ("paper", "mlp")  # the paper's head, and one with more capacity than 50 noisy pairs need
TUNED_LRS = (0.001, 0.003, 0.01, 0.03)  # the learning rates each twin chooses from in the tuned reading
# each reading in words: strings.json's map_reading_<name>, which the page shows in its language
READINGS = {name: strings.text("page", f"map_reading_{name}") for name in ("best", "step", "tuned")}
VERDICT_MARKS = {Verdict.HOLDS: "▲", Verdict.REVERSED: "▼"}  # the marked verdicts; any other is unmarked
# A marked cell is run again on these fresh seeds, disjoint from the discovery seeds (0-19; the tuned reading's
# 20-39): its mark is shown only when that confirmation, tested alone, gives the same verdict.
CONFIRM_SEEDS = tuple(range(1000, 1100))
CONFIRMED, NOT_CONFIRMED, NOT_RUN = "confirmed", "not confirmed", "confirmation not run yet"
MAP_FILE = Path(__file__).with_name("payoff.json")
MAP_VERSION = 2


def cell_config(dataset: str, loss: str, head: str, noise: float, size: int) -> PlaygroundConfig:
    """The Playground settings of one cell: the defaults, with the loss's paper k, this noise and size."""
    return replace(
        PlaygroundConfig(),
        data=dataset,
        loss=loss,
        head=head,
        k=paper_k(loss),
        noise=noise,
        train_pairs=size,
        seeds=SEEDS,
    )


def cell_key(dataset: str, loss: str, head: str, noise: float, size: int) -> str:
    """``payoff/sts/sk2/paper/noise0.5/pairs200`` (``pairs0``: all)."""
    return f"payoff/{dataset}/{loss}/{head}/noise{noise:g}/pairs{size}"


def grid() -> list[tuple[str, str, str, float, int]]:
    """Every cell: ``(dataset, loss, head, noise, size)``."""
    return [
        (dataset, loss, head, noise, size)
        for dataset in BUILT_IN_DATA
        for loss in BUFFER_LOSSES
        for head in HEADS
        for noise in NOISES
        for size in SIZES
    ]


def cell_reading(entry: dict, reading: str) -> dict | None:
    """A recorded cell's part for one of :data:`READINGS` (``paired``, and ``steps`` where each twin chose its
    own), or None when the cell was not read that way (the mlp head has no tuned reading)."""
    return {"step": entry, "best": entry.get("stopped_at_best"), "tuned": entry.get("tuned")}[reading]


def cell_paired(entry: dict, metric: str, reading: str = "best") -> Paired | None:
    """A recorded cell's paired difference under ``reading``, from its per-seed differences (None: not read)."""
    part = cell_reading(entry, reading)
    if part is None:
        return None
    found = part["paired"][metric]
    return Paired(list(found["diffs"]), list(found["seeds"]))


def verdicts(payoff: dict, reading: str = "best") -> dict[str, Verdict]:
    """Every recorded cell's verdict under ``reading``, by cell key: each cell read by its data set's metric, its
    t-test corrected over all the recorded cells of that reading by Benjamini-Hochberg at 5 %
    (:func:`stsdemo.paired.benjamini_hochberg`)."""
    found = {
        key: cell_paired(entry, READ_BY[entry["config"]["data"]], reading)
        for key, entry in payoff.get("cells", {}).items()
    }
    found = {key: result for key, result in found.items() if result is not None}
    discovered = benjamini_hochberg([result.p_value for result in found.values()])
    return {
        key: result.verdict_given(significant)
        for (key, result), significant in zip(found.items(), discovered)
    }


def confirmation(entry: dict, metric: str, reading: str) -> Paired | None:
    """A recorded cell's confirmation on :data:`CONFIRM_SEEDS` under ``reading`` (None: not run)."""
    found = (entry.get("confirmation") or {}).get(reading)
    return (
        None
        if found is None
        else Paired(list(found["paired"][metric]["diffs"]), list(found["paired"][metric]["seeds"]), metric)
    )


def marks(payoff: dict, reading: str = "best") -> dict[str, tuple[Verdict, str | None]]:
    """Every recorded cell's verdict under ``reading`` (:func:`verdicts`) and, for a marked one (holds or reversed),
    whether its confirmation agrees: :data:`CONFIRMED` when the confirmation alone gives the same verdict,
    :data:`NOT_CONFIRMED` when it does not, :data:`NOT_RUN` before it is run; None for an unmarked cell."""
    found = verdicts(payoff, reading)
    out = {}
    for key, verdict in found.items():
        if not verdict.marked:
            out[key] = (verdict, None)
            continue
        entry = payoff["cells"][key]
        again = confirmation(entry, READ_BY[entry["config"]["data"]], reading)
        out[key] = (
            verdict,
            NOT_RUN if again is None else CONFIRMED if again.verdict == verdict else NOT_CONFIRMED,
        )
    return out


def shown_marks(payoff: dict, reading: str = "best") -> dict[str, Verdict]:
    """The verdict each cell shows under ``reading``: a mark only when confirmed, else "no measurable difference"
    for a mark that is not (its own figures and its confirmation's are said beside it)."""
    return {
        key: verdict if status in (None, CONFIRMED) else Verdict.NO_DIFFERENCE
        for key, (verdict, status) in marks(payoff, reading).items()
    }


def correction_text(cells: int) -> str:
    """How the map's marks were made, in words."""
    return (
        f"Each cell is a paired t-test over its seeds, corrected for the {cells} cells of this reading by "
        f"Benjamini-Hochberg at {LEVEL:.0%}: if the buffer made no difference anywhere, the whole grid would show "
        f"any mark at all in at most 1 run in {round(1 / LEVEL)}, and of the marks it shows at most {LEVEL:.0%} "
        "are expected to be false. A difference whose 95 % interval lies inside ± 0.1 points is negligible and never "
        "marked. Neighbouring cells share seeds, starts, noise draws and (along a row) training subsets, so a run "
        "of marks down a column is not independent evidence."
    )


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


def reading(
    cells: dict[tuple[float, int], dict], marks: dict[str, Verdict], total: int, label: str = "best"
) -> str:
    """What a map shows, plainly: in how many of its cells the buffer pays off (holds), costs (reversed), makes a
    negligible or no measurable difference (``marks``: :func:`verdicts` over all ``total`` cells of the reading),
    and where it pays off ("nowhere" when it does not)."""
    if not cells:
        return "This map has not been recorded yet (`python -m bench.evidence.payoff`)."
    found = {place: marks.get(cell_key_of(entry)) for place, entry in cells.items()}
    found = {place: verdict for place, verdict in found.items() if verdict is not None}
    if not found:
        return (
            f"This map has no {READINGS[label]} reading (the paper's head has one; "
            "`python -m bench.evidence.payoff`)."
        )
    holds = sorted(place for place, verdict in found.items() if verdict == Verdict.HOLDS)
    costs = sorted(place for place, verdict in found.items() if verdict == Verdict.REVERSED)
    negligible = sum(verdict == Verdict.NEGLIGIBLE for verdict in found.values())

    def places(chosen):
        return ", ".join(f"σ {noise:g} × {'all' if size == 0 else size} pairs" for noise, size in chosen)

    where = "nowhere on this grid" if not holds else "at " + places(holds)
    against = f" (at {places(costs)})" if costs else ""
    return (
        f"With {READINGS[label]}, the buffer pays off {where}: it holds in {len(holds)} of {len(found)} cells, is "
        f"reversed in {len(costs)}{against}, negligible in {negligible} and shows no measurable difference in "
        f"{len(found) - len(holds) - len(costs) - negligible}. " + correction_text(total)
    )


def confirmation_counts(payoff: dict, label: str = "best") -> dict[str, int]:
    """How the marks of a reading stand after their confirmations on fresh seeds: ``marks``, ``confirmed``,
    ``not_confirmed``, ``waiting`` (not run yet) and the fresh ``seeds`` each confirmation runs."""
    found = [status for _, status in marks(payoff, label).values() if status is not None]
    return {
        "marks": len(found),
        "confirmed": found.count(CONFIRMED),
        "not_confirmed": found.count(NOT_CONFIRMED),
        "waiting": found.count(NOT_RUN),
        "seeds": len(CONFIRM_SEEDS),
    }


def confirmation_text(payoff: dict, label: str = "best", language: str = "en") -> str:
    """:func:`confirmation_counts` in words (strings.json's, which the page fills the same way)."""
    counts = confirmation_counts(payoff, label)
    if not counts["marks"]:
        return strings.text("page", "map_confirmed_none", language)
    waiting = (
        strings.text("page", "map_waiting", language, count=counts["waiting"]) if counts["waiting"] else ""
    )
    return strings.text("page", "map_confirmations", language, **{**counts, "waiting": waiting})


MATCHED = (
    "model",
    "head",
    "width",
    "loss",
    "k",
    "x0",
    "d",
    "round_labels",
    "lr",
    "batch_size",
    "steps",
    "seeds",
)


def match_text(config: PlaygroundConfig, entry: dict) -> str:
    """Whether the recorded cell ``entry`` was run at ``config``'s settings beyond noise and size (the model, head,
    loss, k, x0, d, rounding, lr, batch, steps and seeds), or which of them differ."""
    recorded = entry["config"]

    def value(name: str, given):  # the embedded encoder is "" in a config and "default" in a choice
        return "" if name == "model" and given in ("", "default") else given

    differ = [
        f"{name} {getattr(config, name)!r} (map: {recorded[name]!r})"
        for name in MATCHED
        if name in recorded and value(name, getattr(config, name)) != value(name, recorded[name])
    ]
    exact = config.noise == recorded["noise"] and config.train_pairs == recorded["train_pairs"]
    if not differ:
        return (
            "A recorded cell matches your settings exactly."
            if exact
            else "A recorded cell matches your lr, steps, batch and the rest; only your noise or size lies "
            "between the grid's."
        )
    return (
        "No recorded cell matches your settings: "
        + ", ".join(differ).replace("'", "")
        + ". The map reads its own settings, not yours."
    )


def cell_key_of(entry: dict) -> str:
    """The cell key of a recorded cell, from its settings."""
    config = entry["config"]
    return cell_key(config["data"], config["loss"], config["head"], config["noise"], config["train_pairs"])
