"""Where does the buffer pay off? The Playground's paired difference buffer - none over a grid of label noise x
training size, for Smooth K2 against k·MSE and Translated ReLU against k·L1 (each loss against itself at x0 = 0), on
STS (STS-B train -> dev) and NLI (SNLI dev -> its 1,000 held-out pairs), for the paper's head and a one-hidden-
layer head, from frozen all-MiniLM-L6-v2 embeddings.

Each cell is :func:`stsdemo.playground.run.run_seeds` of the Playground's default settings at that noise and size
(:func:`stsdemo.playground.payoff.cell_config`: 1,000 steps of batch 32, Adam lr 0.01, the loss's paper k, x0 = 0.25,
20 seeds), recorded with both readings: each twin stopped at its best step on the selection set, and both twins at
step 1,000, with every head's chosen step. A paper-head cell adds the tuned reading: each twin's lr in
{0.001, 0.003, 0.01, 0.03} and its step are chosen on the selection set over seeds 0-19 (the mean of each seed's best
selection value), then both twins run at their chosen lr on fresh seeds 20-39 and are read at their best steps.
Verdicts: :mod:`stsdemo.paired`'s t-test, corrected over the cells of a reading (Benjamini-Hochberg at 5 %). This is
compute, not timing: the figures do not depend on how busy the machine is.

    python -m bench.evidence.payoff --skip-done             # the whole grid, resumable (about an hour on 2 CPU cores)
    python -m bench.evidence.payoff --data sts --heads paper --no-record
    python -m bench.evidence.payoff --export                # only write the app's map from docs/results.json

Every cell is merged into docs/results.json, section ``playground``, under its cell key as soon as it is done;
the map the app shows (``stsdemo/playground/payoff.json``) is then written from the recorded cells.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace

import numpy as np

from stsdemo.atomic import atomic_write
from stsdemo.errors import InputError
from stsdemo.playground import payoff, pinned
from stsdemo.playground.config import BUFFER_LOSSES, BUILT_IN_DATA, PlaygroundConfig
from stsdemo.playground.metrics import PAIRED, READ_BY
from stsdemo.playground.run import (
    ENGINE,
    TWIN_NAMES,
    Playground,
    paired_entry,
    paired_over_seeds,
    pinned_source,
    run_seeds,
)

from .. import schema, sweep
from ..common import device_name, load_results, log, setup_environment, update_results

SECTION = "playground"
CPUS_PER_CELL = 2  # a cell's run splits its seeds over two engines (stsdemo.playground.run.PARTS)


def run_cell(cell: tuple, source, tuned: bool = True) -> dict:
    """One cell, as recorded: its settings, both readings (at the last step; each twin stopped at its best, with
    the chosen steps), the tuned reading for the paper's head (unless ``tuned`` is off: it costs five more runs),
    its machine."""
    config = payoff.cell_config(*cell)
    result = run_seeds(config, source)
    if config.head == "paper" and tuned:
        result["tuned"] = tuned_reading(config, source, result)
    return {
        "config": config.to_dict(),
        **result,
        "machine": device_name(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def tuned_reading(config, source, at_default: dict) -> dict:
    """Each twin's lr chosen on the selection set (seeds 0-19, the mean of each seed's best selection value;
    ``at_default`` is the run at the cell's own lr), then each twin run at its lr on fresh seeds and read at its
    best steps: the paired differences, the chosen lrs, the grid they were chosen from and the chosen steps."""
    grid = {}
    for lr in payoff.TUNED_LRS:
        found = at_default if lr == config.lr else run_seeds(replace(config, lr=lr), source)
        grid[lr] = found["stopped_at_best"]["selection"]

    def selected(lr, name):  # None: every seed's selection value was undefined (a constant head)
        return -math.inf if grid[lr][name] is None else grid[lr][name]

    chosen = {name: max(payoff.TUNED_LRS, key=lambda lr: selected(lr, name)) for name in TWIN_NAMES}
    fresh = list(range(config.seeds, 2 * config.seeds))
    runs = {}
    for lr in set(chosen.values()):
        with Playground(replace(config, lr=lr), source, seeds=fresh) as playground:
            playground.step(config.steps)
            runs[lr] = playground.measure()
    best = {
        metric: np.stack(
            [runs[chosen[name]].best[metric][:, twin] for twin, name in enumerate(TWIN_NAMES)], 1
        )
        for metric in PAIRED
    }
    return {
        "lr": chosen,
        "grid": {f"{lr:g}": values for lr, values in grid.items()},
        "seeds": fresh,
        "paired": {metric: paired_entry(paired_over_seeds(best[metric], fresh)) for metric in PAIRED},
        "steps": {
            name: runs[chosen[name]].best_steps[:, twin].tolist() for twin, name in enumerate(TWIN_NAMES)
        },
    }


def confirm_cell(entry: dict, source, chunk: int = 20) -> dict:
    """A marked cell run again on :data:`~stsdemo.playground.payoff.CONFIRM_SEEDS`, ``chunk`` seeds at a time (each
    seed trains alone, so the chunks change nothing but memory): both readings at its own settings and, for a
    paper-head cell, the tuned reading at each twin's chosen lr."""
    config = PlaygroundConfig(**entry["config"])
    seeds = list(payoff.CONFIRM_SEEDS)

    def measured(lr: float):
        parts = []
        for start in range(0, len(seeds), chunk):
            with Playground(replace(config, lr=lr), source, seeds=seeds[start : start + chunk]) as playground:
                playground.step(config.steps)
                parts.append(playground.measure())
        return (
            {metric: np.concatenate([part.values[metric] for part in parts]) for metric in PAIRED},
            {metric: np.concatenate([part.best[metric] for part in parts]) for metric in PAIRED},
        )

    now, best = measured(config.lr)
    readings = {
        "step": {m: paired_entry(paired_over_seeds(now[m], seeds)) for m in PAIRED},
        "best": {m: paired_entry(paired_over_seeds(best[m], seeds)) for m in PAIRED},
    }
    if "tuned" in entry:
        chosen = entry["tuned"]["lr"]
        at = {lr: measured(lr)[1] for lr in set(chosen.values())}
        tuned = {
            m: np.stack([at[chosen[name]][m][:, twin] for twin, name in enumerate(TWIN_NAMES)], 1)
            for m in PAIRED
        }
        readings["tuned"] = {m: paired_entry(paired_over_seeds(tuned[m], seeds)) for m in PAIRED}
    return {
        "config": entry["config"],
        "seeds": seeds,
        "readings": readings,
        "engine": ENGINE,
        "data_sha256": source.checksum,
        "machine": device_name(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def confirm_key(key: str) -> str:
    """``confirm/sts/sk2/paper/noise0.5/pairs200`` for the cell ``payoff/sts/...``."""
    return "confirm/" + key.split("/", 1)[1]


def to_confirm(results: dict) -> list[str]:
    """The recorded cells that any reading marks and whose confirmation (by today's engine) is not recorded."""
    found = map_from_results(results)
    recorded = schema.section(results, SECTION)
    marked = {
        key
        for label in payoff.READINGS
        for key, verdict in payoff.verdicts(found, label).items()
        if verdict.marked
    }
    return sorted(key for key in marked if not on_todays_data(recorded.get(confirm_key(key)) or {}))


def on_todays_data(entry: dict) -> bool:
    """Whether a record was made by today's engine on its data set's pinned file (:mod:`stsdemo.playground.pinned`):
    a record is shown only beside the data it was made on."""
    data = (entry.get("config") or {}).get("data")
    return (
        entry.get("engine") == ENGINE
        and data in BUILT_IN_DATA
        and entry.get("data_sha256") == pinned.checksum(data)
    )


def is_done(entry: dict | None, tuned: bool = False) -> bool:
    """Whether a recorded cell was trained by today's engine and holds both readings (and, asked for ``tuned``, the
    tuned reading of a paper-head cell)."""
    return (
        bool(entry)
        and on_todays_data(entry)
        and "stopped_at_best" in entry
        and (not tuned or entry["config"]["head"] != "paper" or "tuned" in entry)
    )


def shipped_cell(entry: dict, confirmed: dict | None = None) -> dict:
    """A recorded cell as the app reads it: its settings, seeds and machine, and for each reading only the per-seed
    differences of its data set's own metric (the rest stays in docs/results.json); the tuned reading's lrs; and its
    confirmation on fresh seeds (``confirmed``, when recorded by today's engine)."""
    metric = READ_BY[entry["config"]["data"]]

    def compact(part: dict) -> dict:
        return {"paired": {metric: {field: part["paired"][metric][field] for field in ("diffs", "seeds")}}}

    cell = {"config": entry["config"], "seeds": entry["seeds"], "machine": entry["machine"], **compact(entry)}
    for part in ("stopped_at_best", "tuned"):
        if part in entry:
            cell[part] = compact(entry[part])
    if "tuned" in entry:
        cell["tuned"]["lr"] = entry["tuned"]["lr"]
    if confirmed and on_todays_data(confirmed):
        cell["confirmation"] = {
            label: compact({"paired": found}) for label, found in confirmed["readings"].items()
        }
    return cell


def map_from_results(results: dict) -> dict:
    """The map as the app reads it, from the recorded cells (every cell key of the grid found in ``results``)."""
    recorded = schema.section(results, SECTION)
    cells = {
        key: shipped_cell(recorded[key], recorded.get(confirm_key(key)))
        for key in (payoff.cell_key(*cell) for cell in payoff.grid())
        if is_done(recorded.get(key))
    }
    machines = sorted({entry["machine"] for entry in cells.values()})
    return {"version": payoff.MAP_VERSION, "machine": ", ".join(machines), "cells": cells}


def export(path=payoff.MAP_FILE) -> dict:
    """Write the app's map from docs/results.json, as compact JSON (it ships with the package)."""
    found = map_from_results(load_results())
    with atomic_write(path) as handle:
        handle.write(json.dumps(found, separators=(",", ":")))
    return found


def markdown(found: dict) -> list[str]:
    """Each recorded map under each reading as a Markdown table of paired differences (buffer − none, mean ± se;
    ▲ holds, ▼ reversed after the correction) under its title, then its reading, and how the reading's marks stand
    after their confirmations: what ``report`` prints and docs/results.md holds. A mark is shown as the app shows it
    (:func:`stsdemo.playground.payoff.shown_marks`): only once confirmed on fresh seeds."""
    parts = []
    for label in payoff.READINGS:
        marks = payoff.shown_marks(found, label)
        tables = [
            map_table(cells, marks, len(marks), label, (dataset, loss, head))
            for dataset in BUILT_IN_DATA
            for loss in BUFFER_LOSSES
            for head in payoff.HEADS
            if (cells := payoff.cells_of(found, dataset, loss, head))
            and any(payoff.cell_reading(entry, label) for entry in cells.values())
        ]
        if tables:
            parts += [*tables, payoff.confirmation_text(found, label) + "\n"]
    return parts


def map_table(cells: dict, marks: dict, total: int, label: str, title: tuple) -> str:
    """One map under one reading: the table and what it shows."""
    dataset, loss, head = title
    metric = READ_BY[dataset]
    rows = [
        f"**{dataset.upper()} · {loss} vs its x0 = 0 twin · {head} head · {metric} · {payoff.READINGS[label]}** "
        "(buffer − none, mean ± se; ▲ holds, ▼ reversed, after the correction)\n",
        "| noise σ \\ training pairs | "
        + " | ".join("all" if size == 0 else f"{size:,}" for size in payoff.SIZES)
        + " |",
        "| ---: |" + " ---: |" * len(payoff.SIZES),
    ]
    for noise in payoff.NOISES:
        row = []
        for size in payoff.SIZES:
            entry = cells.get((noise, size))
            result = payoff.cell_paired(entry, metric, label) if entry else None
            mark = payoff.VERDICT_MARKS.get(marks.get(payoff.cell_key_of(entry), ""), "") if result else ""
            row.append(f"{result.mean:+.2f} ± {result.se:.2f}{mark and ' ' + mark}" if result else "")
        rows.append(f"| {noise:g} | " + " | ".join(row) + " |")
    return "\n".join(rows) + "\n\n" + payoff.reading(cells, marks, total, label) + "\n"


def report(found: dict) -> None:
    print("\n".join(markdown(found)))


def confirm_marked(args) -> None:
    """Run and record the confirmation of every marked cell of the chosen data sets, losses and heads."""
    recorded = schema.section(load_results(), SECTION)
    keys = [
        key
        for key in to_confirm(load_results())
        if recorded[key]["config"]["data"] in args.data
        and recorded[key]["config"]["loss"] in args.losses
        and recorded[key]["config"]["head"] in args.heads
    ]
    log(f"{len(keys)} marked cells to confirm")

    def record(key: str, confirmed: dict) -> None:
        metric = READ_BY[confirmed["config"]["data"]]
        log(
            key,
            " · ".join(
                f"{label} {found[metric]['text']} {found[metric]['verdict']}"
                for label, found in confirmed["readings"].items()
            ),
        )
        update_results(SECTION, {key: confirmed})

    tasks = [sweep.Task(confirm_key(key), recorded[key], num_cpus=CPUS_PER_CELL) for key in keys]
    sweep.run_sweep(tasks, confirm_work, record, ray=args.ray)


def cell_work(task: sweep.Task) -> dict:
    """One cell of the map (``task.args``: the cell and whether to add the tuned reading), in this process or a
    Ray worker: it returns its record, the driver writes it."""
    cell, tuned = task.args
    return run_cell(cell, pinned_source(cell[0]), tuned=tuned)


def confirm_work(task: sweep.Task) -> dict:
    """One marked cell's confirmation (``task.args``: the cell's record)."""
    return confirm_cell(task.args, pinned_source(task.args["config"]["data"]))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.payoff",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--data", nargs="+", default=list(BUILT_IN_DATA), choices=BUILT_IN_DATA)
    parser.add_argument("--losses", nargs="+", default=list(BUFFER_LOSSES), choices=BUFFER_LOSSES)
    parser.add_argument("--heads", nargs="+", default=list(payoff.HEADS), choices=payoff.HEADS)
    parser.add_argument(
        "--noises",
        nargs="+",
        type=float,
        default=list(payoff.NOISES),
        metavar="SIGMA",
        help="these label-noise rows only",
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=int,
        default=list(payoff.SIZES),
        metavar="PAIRS",
        help="these training-size columns only (0: all)",
    )
    parser.add_argument("--skip-done", action="store_true", help="skip cells already in the results file")
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the cells as Ray tasks: alone, on a local Ray of this machine's cores; with "
        "HOST:PORT, on the cluster there (docs/sweeps.md). Default: one after another, here",
    )
    parser.add_argument(
        "--no-tuned",
        action="store_true",
        help="leave out the tuned reading (five more runs a paper-head cell)",
    )
    parser.add_argument(
        "--no-record", action="store_true", help="print only: write neither results nor the map"
    )
    parser.add_argument(
        "--export", action="store_true", help="only write the app's map from the recorded cells"
    )
    parser.add_argument(
        "--confirm",
        action="store_true",
        help=f"run every marked cell again on {len(payoff.CONFIRM_SEEDS)} fresh seeds (resumable)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1: the steps are small, and two threads spin against other jobs)",
    )
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    ran = {}
    try:
        with sweep.session(args.ray):
            found = sweep_cells(args, ran)
    except InputError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    return found


def sweep_cells(args, ran: dict) -> dict:
    """The cells (or their confirmations) the arguments ask for, then the map written from the records; with
    ``--no-record`` the cells' records alone (``ran``), nothing written."""
    if args.confirm and not args.no_record:
        confirm_marked(args)
    elif not args.export:
        recorded = schema.section(load_results(), SECTION) if args.skip_done else {}
        cells = [
            cell
            for cell in payoff.grid()
            if cell[0] in args.data
            and cell[1] in args.losses
            and cell[2] in args.heads
            and cell[3] in args.noises
            and cell[4] in args.sizes
            and not is_done(recorded.get(payoff.cell_key(*cell)), tuned=not args.no_tuned)
        ]
        log(f"{len(cells)} cells to run")

        def record(key: str, entry: dict) -> None:
            metric = READ_BY[entry["config"]["data"]]
            readings = [
                f"{label} {payoff.cell_paired(entry, metric, label).numbers()}"
                for label in payoff.READINGS
                if payoff.cell_reading(entry, label)
            ]
            log(key, f"{entry['seconds']:.1f}s", metric, " · ".join(readings))
            ran[key] = entry
            if not args.no_record:
                update_results(SECTION, {key: entry})

        tasks = [
            sweep.Task(payoff.cell_key(*cell), (cell, not args.no_tuned), num_cpus=CPUS_PER_CELL)
            for cell in cells
        ]
        sweep.run_sweep(tasks, cell_work, record, ray=args.ray)
    if args.no_record:
        return ran
    found = export()
    report(found)
    return found


if __name__ == "__main__":
    main()
