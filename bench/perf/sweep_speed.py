"""What a sweep gains on local Ray workers: the same CPU-bound tasks (each sorts a million numbers
``--rounds`` times, 75 by default: about 5 s on one core, single-threaded, as numpy's sort uses no BLAS
threads) timed one after another in this process, then on a local Ray of ``--workers`` cores, with the load
before and after each.

    python -m bench.perf.sweep_speed                  # 6 tasks, 2 workers (about a minute on 2 cores)
    python -m bench.perf.sweep_speed --no-record
    python -m bench.perf.sweep_speed --payoff         # a slice of the payoff map: 4 cells serially, then on Ray

Recorded in docs/results.json, section ``sweep``, under ``speedup`` (docs/sweeps.md quotes it). The records
of both runs are checked equal. On a shared machine the ratio reads with the load: another job on a core
takes it from the workers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from .. import sweep
from ..common import device_name, log, machine_load, update_results


def sorts(task: sweep.Task) -> dict:
    """One task: ``task.args`` is (seed, rounds): ``rounds`` sorts of a million normal draws of ``seed``; a
    checksum and its seconds."""
    seed, rounds = task.args
    started = time.perf_counter()
    values = np.random.default_rng(seed).normal(size=1_000_000)
    total = 0.0
    for shift in range(rounds):
        total += float(np.sort(values + shift)[::1000].sum())
    return {"checksum": total, "seconds": time.perf_counter() - started}


def timed(tasks: list[sweep.Task], ray: str | None, workers: int) -> dict:
    """The sweep's wall time (with ``ray``: Ray's start apart from the tasks'), its tasks' seconds and
    checksums, and the load before and after."""
    records = {}
    before = machine_load()
    started = time.perf_counter()
    with sweep.session(ray, workers):
        ready = time.perf_counter()
        sweep.run_sweep(tasks, sorts, records.__setitem__, ray=ray)
    ended = time.perf_counter()
    return {
        "wall_seconds": round(ended - started, 2),
        "start_seconds": round(ready - started, 2),
        "tasks_seconds": round(ended - ready, 2),
        "task_seconds": [round(records[task.key]["seconds"], 2) for task in tasks],
        "checksums": [records[task.key]["checksum"] for task in tasks],
        **machine_load(before),
    }


CLOCK_FIELDS = ("seconds", "finished")  # what differs between two runs of one cell: when and how long
PAYOFF_SLICE = [
    "--data",
    "sts",
    "--losses",
    "sk2",
    "--heads",
    "paper",
    "--noises",
    "0.5",
    "1",
    "--sizes",
    "50",
    "200",
    "--no-tuned",
    "--no-record",
]


def payoff_slice() -> dict:
    """A slice of the payoff map (4 cells at the grid's settings, no tuned reading) by ``bench.evidence.payoff``,
    serially and on a local Ray: wall times, the load, and whether the records are the same."""
    from ..evidence import payoff

    runs, found = {}, {}
    for name, extra in (("serial", []), ("ray", ["--ray"])):
        before = machine_load()
        started = time.perf_counter()
        runs[name] = payoff.main([*PAYOFF_SLICE, *extra])
        found[name] = {"wall_seconds": round(time.perf_counter() - started, 2), **machine_load(before)}

    def readings(entry: dict) -> dict:
        return {name: value for name, value in entry.items() if name not in CLOCK_FIELDS}

    same = all(readings(runs["serial"][key]) == readings(runs["ray"][key]) for key in runs["serial"])
    if not same or runs["serial"].keys() != runs["ray"].keys():
        raise SystemExit("the Ray run's records differ from the serial run's")
    return {
        "device": device_name(),
        "cells": sorted(runs["serial"]),
        "command": "python -m bench.evidence.payoff " + " ".join(PAYOFF_SLICE),
        **found,
        "speedup": round(found["serial"]["wall_seconds"] / found["ray"]["wall_seconds"], 2),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.sweep_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=75, help="sorts a task (75: about 5 s on one core)")
    parser.add_argument("--workers", type=int, default=2, help="cores of the local Ray")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--payoff", action="store_true", help="time a slice of the payoff map instead")
    args = parser.parse_args(argv)
    if args.payoff:
        found = payoff_slice()
        log(
            f"payoff slice: serial {found['serial']['wall_seconds']:.1f}s, ray {found['ray']['wall_seconds']:.1f}s: "
            f"{found['speedup']}x"
        )
        if not args.no_record:
            update_results("sweep", {"payoff_slice": found})
        return found
    tasks = [sweep.Task(f"sorts/seed{seed}", (seed, args.rounds)) for seed in range(args.tasks)]
    serial = timed(tasks, None, args.workers)
    log(f"serial: {serial['wall_seconds']:.1f}s for {args.tasks} tasks")
    on_ray = timed(tasks, "", args.workers)
    log(
        f"ray ({args.workers} workers): {on_ray['wall_seconds']:.1f}s, {on_ray['start_seconds']:.1f}s of it "
        "starting Ray"
    )
    if on_ray.pop("checksums") != serial.pop("checksums"):
        raise SystemExit("the Ray run's records differ from the serial run's")
    found = {
        "device": device_name(),
        "tasks": args.tasks,
        "workers": args.workers,
        "rounds": args.rounds,
        "serial": serial,
        "ray": on_ray,
        "speedup": round(serial["wall_seconds"] / on_ray["wall_seconds"], 2),
        "speedup_without_start": round(serial["wall_seconds"] / on_ray["tasks_seconds"], 2),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    log(f"speed-up {found['speedup']}x ({found['speedup_without_start']}x without Ray's start)")
    if not args.no_record:
        update_results("sweep", {"speedup": found})
    return found


if __name__ == "__main__":
    main()
