"""Where does the buffer pay off? The Playground's paired difference buffer - none over a grid of label noise x
training size, for Smooth K2 against k·MSE and Translated ReLU against k·L1 (each loss against itself at x0 = 0),
on STS (STS-B train -> dev) and NLI (SNLI dev -> its 1,000 held-out pairs), for the paper's head and a one-hidden-
layer head, from frozen all-MiniLM-L6-v2 embeddings.

Each cell is :func:`stsdemo.playground.run.run_seeds` of the Playground's default settings at that noise and size
(:func:`stsdemo.playground.payoff.cell_config`: 1,000 steps of batch 32, Adam lr 0.01, the loss's paper k, x0 = 0.25,
20 seeds), read by the paired-seed rule (:mod:`stsdemo.paired`). This is compute, not timing: the figures do not
depend on how busy the machine is.

    python -m bench.payoff --skip-done             # the whole grid, resumable (minutes on 2 CPU cores)
    python -m bench.payoff --data sts --heads paper --no-record
    python -m bench.payoff --export                # only write the app's map from docs/results.json

Every cell is merged into docs/results.json, section ``playground``, under its cell key as soon as it is done;
the map the app shows (``stsdemo/playground/payoff.json``) is then written from the recorded cells.
"""

from __future__ import annotations

import argparse
import json
import time

from stsdemo.atomic import atomic_write
from stsdemo.playground import payoff
from stsdemo.playground.config import BUFFER_LOSSES, DATASETS
from stsdemo.playground.metrics import PAIRED
from stsdemo.playground.prepared import default_encoder, embedded
from stsdemo.playground.run import prepare_features, run_seeds

from . import schema
from .common import device_name, load_results, log, setup_environment, update_results

SECTION = "playground"


def run_cell(cell: tuple, data, features) -> dict:
    """One cell, as recorded: its settings, both twins' metrics, the paired differences, its machine."""
    config = payoff.cell_config(*cell)
    result = run_seeds(config, data, features)
    return {"config": config.to_dict(), **result, "machine": device_name(),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S")}


SHIPPED = ("config", "seeds", "paired", "machine")   # what the app reads of a cell (the rest stays in the record)


def recorded_map(results: dict) -> dict:
    """The map as the app reads it, from the recorded cells (every cell key of the grid found in ``results``), each
    cell with the fields the app reads."""
    recorded = schema.section(results, SECTION)
    cells = {key: {field: recorded[key][field] for field in SHIPPED}
             for key in (payoff.cell_key(*cell) for cell in payoff.grid()) if key in recorded}
    machines = sorted({entry["machine"] for entry in cells.values()})
    return {"version": payoff.MAP_VERSION, "machine": ", ".join(machines), "cells": cells}


def export(path=payoff.MAP_FILE) -> dict:
    """Write the app's map from docs/results.json, as compact JSON (it ships with the package)."""
    found = recorded_map(load_results())
    with atomic_write(path) as handle:
        handle.write(json.dumps(found, separators=(",", ":")))
    return found


def markdown(found: dict) -> list[str]:
    """Each recorded map as a Markdown table of paired differences (buffer − none, mean ± se; ▲ holds, ▼ reversed)
    under its title, then its reading: what ``report`` prints and docs/results.md holds."""
    parts = []
    for dataset in DATASETS:
        for loss in BUFFER_LOSSES:
            for head in payoff.HEADS:
                cells = payoff.cells_of(found, dataset, loss, head)
                if not cells:
                    continue
                metric = payoff.PRIMARY[dataset]
                rows = [f"**{dataset.upper()} · {loss} vs its x0 = 0 twin · {head} head · {metric}** "
                        "(buffer − none, mean ± se; ▲ holds, ▼ reversed)\n",
                        "| noise σ \\ training pairs | " + " | ".join("all" if size == 0 else f"{size:,}"
                                                                   for size in payoff.SIZES) + " |",
                        "| ---: |" + " ---: |" * len(payoff.SIZES)]
                for noise in payoff.NOISES:
                    row = []
                    for size in payoff.SIZES:
                        entry = cells.get((noise, size))
                        found_pair = payoff.cell_paired(entry, metric) if entry else None
                        mark = {"holds": " ▲", "reversed": " ▼"}.get(found_pair.verdict, "") if found_pair else ""
                        row.append(f"{found_pair.mean:+.2f} ± {found_pair.se:.2f}{mark}" if found_pair else "")
                    rows.append(f"| {noise:g} | " + " | ".join(row) + " |")
                parts.append("\n".join(rows) + "\n\n" + payoff.reading(cells, metric) + "\n")
    return parts


def report(found: dict) -> None:
    print("\n".join(markdown(found)))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.payoff", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--losses", nargs="+", default=list(BUFFER_LOSSES), choices=BUFFER_LOSSES)
    parser.add_argument("--heads", nargs="+", default=list(payoff.HEADS), choices=payoff.HEADS)
    parser.add_argument("--skip-done", action="store_true", help="skip cells already in the results file")
    parser.add_argument("--no-record", action="store_true", help="print only: write neither results nor the map")
    parser.add_argument("--export", action="store_true", help="only write the app's map from the recorded cells")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the steps are small, and "
                                                                  "two threads spin against other jobs)")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    if not args.export:
        done = set(schema.section(load_results(), SECTION)) if args.skip_done else set()
        cells = [cell for cell in payoff.grid() if cell[0] in args.data and cell[1] in args.losses
                 and cell[2] in args.heads and payoff.cell_key(*cell) not in done]
        log(f"{len(cells)} cells to run")
        encoder, loaded = default_encoder(), {}
        for cell in cells:
            dataset, _, head = cell[:3]
            if dataset not in loaded:
                loaded[dataset] = embedded(dataset, encoder)
            data, embeddings = loaded[dataset]
            entry = run_cell(cell, data, prepare_features(data, embeddings.vectors, head))
            diffs = " · ".join(f"{m} {entry['paired'][m]['text']} ({entry['paired'][m]['verdict']})" for m in PAIRED)
            log(payoff.cell_key(*cell), f"{entry['seconds']:.1f}s", diffs)
            if not args.no_record:
                update_results(SECTION, {payoff.cell_key(*cell): entry})
    if args.no_record:
        return {}
    found = export()
    report(found)
    return found


if __name__ == "__main__":
    main()
