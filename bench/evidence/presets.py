"""The story presets' recorded runs: each preset of :mod:`stsdemo.playground.presets` trained at its own settings
(20 seeds) by the page's engine on the pinned all-MiniLM-L6-v2 embeddings (:mod:`stsdemo.playground.pinned`),
measured every 250 steps (:func:`stsdemo.playground.run.run_checkpoints`) with both readings (each
twin stopped at its best on the selection set; both at that step) and each twin's median best step. The presets'
sentences are written from these records, and a test checks their verdicts against them.

    python -m bench.evidence.presets              # every preset (a minute or two on 2 CPU cores)
    python -m bench.evidence.presets --only memorisation
    python -m bench.evidence.presets --confirm --ray      # the presets' fresh seeds as Ray tasks (docs/sweeps.md)

Each preset is merged into docs/results.json, section ``playground``, under ``preset/<name>``.
"""

from __future__ import annotations

import argparse
import time

from stsdemo.errors import InputError
from stsdemo.paired import Paired
from stsdemo.playground.metrics import PAIRED, READ_BY
from stsdemo.playground.payoff import CONFIRM_SEEDS
from stsdemo.playground.presets import BY_NAME, PRESETS
from stsdemo.playground.run import pinned_source, run_checkpoints

from .. import sweep
from ..common import device_name, log, setup_environment, update_results

SECTION = "playground"


def run_preset(preset, seeds: list[int] | None = None) -> dict:
    """One preset's run (on ``seeds``, default its own 0 .. seeds - 1), checkpoint by checkpoint, as recorded."""
    started = time.perf_counter()
    config = preset.config()
    found = run_checkpoints(config, pinned_source(config.data), seeds)
    return {
        **found,
        "seconds": round(time.perf_counter() - started, 2),
        "machine": device_name(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def _readings(point: dict, metric: str) -> list[str]:
    """A checkpoint's two readings of ``metric`` (stopped at the best, then at the step): mean ± se and today's
    verdict."""
    return [
        f"{found['text']}: {Paired(found['diffs'], found['seeds'], metric).verdict}"
        for found in (point[f"{label}_reading"][metric] for label in ("best", "step"))
    ]


def markdown(results: dict) -> list[str]:
    """The recorded presets as a table: each one's settings and both readings at its last step (buffer − none of
    its data set's metric, mean ± se over 20 seeds, with the verdict), the same on its 100 fresh seeds where that
    run is recorded (``--confirm``), and the twins' median best steps on both (the 20 seeds' alone can order the
    twins the other way round from the fresh seeds')."""
    recorded = results.get(SECTION, {})
    rows = [
        "| preset | settings | stopped at its best | at the last step | on 100 fresh seeds (best · last step) | "
        "median best step, buffer / none (20 seeds · fresh) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for preset in PRESETS:
        entry = recorded.get(f"preset/{preset.name}")
        if entry is None:
            rows.append(f"| {preset.title.en} | not run (`python -m bench.evidence.presets`) | | | | |")
            continue
        metric, last = READ_BY[entry["config"]["data"]], entry["checkpoints"][-1]
        cells = _readings(last, metric)
        confirm = recorded.get(f"preset/{preset.name}/confirm")
        again = " · ".join(_readings(confirm["checkpoints"][-1], metric)) if confirm else "not run"
        steps = " · ".join(
            f"{found['best_steps']['buffer']:g} / {found['best_steps']['none']:g}"
            for found in (last, *([confirm["checkpoints"][-1]] if confirm else []))
        )
        settings = ", ".join(f"{name} {value}" for name, value in preset.settings.items())
        rows.append(
            f"| {preset.title.en} | {settings} ({metric}) | {cells[0]} | {cells[1]} (step {last['step']:,}) | "
            f"{again} | {steps} |"
        )
    machines = sorted({recorded[key]["machine"] for key in recorded if key.startswith("preset/")})
    return [
        "\n".join(rows) + f"\n\nMachine: {', '.join(machines) or '–'}. The Playground's story presets "
        "(stsdemo/playground/presets.py); their sentences quote these records, and each mark (holds, reversed) a "
        "sentence quotes from the 20 seeds repeats on the 100 fresh seeds (tests/test_presets.py).\n"
    ]


def preset_work(task: sweep.Task) -> dict:
    """One preset's run (``task.args``: its name and whether on the fresh seeds), here or in a Ray worker."""
    name, confirm = task.args
    return run_preset(BY_NAME[name], list(CONFIRM_SEEDS) if confirm else None)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.presets",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--only", nargs="+", choices=sorted(BY_NAME), help="these presets only")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--confirm",
        action="store_true",
        help=f"run each preset again on {len(CONFIRM_SEEDS)} fresh seeds (preset/<name>/confirm): "
        "what its pooled reading over every seed reads",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the presets as Ray tasks: alone, on a local Ray; with HOST:PORT, on that cluster "
        "(docs/sweeps.md). Default: one after another, here",
    )
    parser.add_argument("--no-record", action="store_true", help="print only")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    found = {}

    def record(key: str, entry: dict) -> None:
        last = entry["checkpoints"][-1]
        log(
            key,
            f"{entry['seconds']:.1f}s",
            *(
                f"{label} {last[f'{label}_reading'][m]['text']} ({last[f'{label}_reading'][m]['verdict']})"
                for label in ("best", "step")
                for m in PAIRED
            ),
        )
        if not args.no_record:
            update_results(SECTION, {key: entry})
        found[key.split("/")[1]] = entry

    tasks = [
        sweep.Task(
            f"preset/{preset.name}" + ("/confirm" if args.confirm else ""),
            (preset.name, args.confirm),
            num_cpus=2,
        )
        for preset in PRESETS
        if not args.only or preset.name in args.only
    ]
    try:
        with sweep.session(args.ray):
            sweep.run_sweep(tasks, preset_work, record, ray=args.ray)
    except InputError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    return found


if __name__ == "__main__":
    main()
