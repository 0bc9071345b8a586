"""Merge a folder of runs made on another machine into docs/results.json, keeping the machine each names.

    python -m bench.evidence.merge_runs docs/runs/h100-2026-11-27 --batch-size precision-1.log:3=64

Copy the folder into the repository first (docs/runs/<gpu>-<date>/, its small text logs only), so that the
``source`` it is recorded with is a repository path (tests/test_record_sources.py checks every record's). The folder
holds ``records.json`` (entries in docs/results.json's layout: ``quality.runs`` and ``speed`` parts, as
the commands that made them wrote them) and, optionally, the JSON lines of ``python -m bench.perf.precision`` in
``precision-*.log``. Every run record is checked against :mod:`bench.schema` and must name its machine; a run key
already recorded is refused (a rerun replaces nothing silently). Speed parts and precision rows are stored per
machine under ``speed.machines[<machine>]`` with the folder they came from, so a GPU's figures never replace the
CPU's (``speed.train``, ``speed.eval7``, ...). A precision row older than the ``batch_size`` and ``max_length``
fields ran at bench.perf.precision's defaults unless ``--batch-size LOG:LINE=N`` names the batch its command ran at.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from stsdemo.atomic import write_json_atomic

from ..common import REPO, load_results, log, portable, results_lock, results_path
from ..schema import check_record

DEFAULT_BATCH, DEFAULT_MAX_LENGTH = 16, 256  # bench.perf.precision's defaults


def precision_rows(folder: Path, batches: dict[tuple[str, int], int]) -> list[dict]:
    """Every JSON line of the folder's ``precision-*.log`` files, in file and line order, with its batch size and
    where it was read (``log``: file name and line)."""
    rows = []
    for path in sorted(folder.glob("precision-*.log")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("{"):
                row = json.loads(line)
                row.setdefault("batch_size", batches.get((path.name, number), DEFAULT_BATCH))
                row.setdefault("max_length", DEFAULT_MAX_LENGTH)
                rows.append({**row, "log": f"{path.name}:{number}"})
    return rows


def merged(results: dict, folder: Path, batches: dict[tuple[str, int], int]) -> tuple[dict, list[str]]:
    """``results`` with the folder's runs and per-machine speed added, and the run keys added."""
    found = json.loads((folder / "records.json").read_text(encoding="utf-8"))
    runs = found.get("quality", {}).get("runs", {})
    recorded = results.setdefault("quality", {}).setdefault("runs", {})
    for key, record in runs.items():
        check_record("quality", record)
        if not record.get("machine"):
            raise ValueError(f"{key}: the record names no machine")
        if key in recorded:
            raise ValueError(f"{key} is recorded already; remove it first to replace it")
    recorded.update(portable(runs))
    source = os.path.relpath(folder.resolve(), REPO)
    machines = {part["device"] for part in found.get("speed", {}).values()}
    rows = precision_rows(folder, batches)
    machines |= {row["gpu"] for row in rows}
    if len(machines) > 1:
        raise ValueError(f"one machine per folder, found {sorted(machines)}")
    if machines:
        entry = {**found.get("speed", {}), "source": source}
        if rows:
            entry["precision"] = rows
        results.setdefault("speed", {}).setdefault("machines", {})[machines.pop()] = portable(entry)
    return results, sorted(runs)


def _batch(text: str) -> tuple[tuple[str, int], int]:
    where, size = text.split("=")
    name, line = where.split(":")
    return (name, int(line)), int(size)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.merge_runs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument(
        "--batch-size",
        type=_batch,
        action="append",
        default=[],
        metavar="LOG:LINE=N",
        help="the batch size of a precision row whose log line lacks it",
    )
    args = parser.parse_args(argv)
    path = results_path()
    with results_lock(path):
        results, added = merged(load_results(path), args.folder, dict(args.batch_size))
        write_json_atomic(path, results)
    log(f"merged {len(added)} runs from {args.folder} into {path}: {', '.join(added)}")


if __name__ == "__main__":
    main(sys.argv[1:])
