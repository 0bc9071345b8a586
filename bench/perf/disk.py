"""Disk the app takes per run, as visitors use it: each run a new visitor who fine-tunes at the form's defaults
and downloads the zip, through the app itself (``python app.py`` served in its own process by
:mod:`bench.perf.served_app`, its REST API; the form's defaults are the /train endpoint's own).

    python -m bench.perf.disk                   # 20 default runs; records memory/disk in docs/results.json
    python -m bench.perf.disk --quick           # a smoke check: 2 runs of 2 steps on 16 dev pairs (memory/disk_quick)

Everything the app writes goes to one temporary folder, measured after each run in three places: ``runs`` (the
output folder: each run's checkpoint and history), ``staged`` (the system temp folder: zips staged for download
until handed over) and ``gradio_cache`` (Gradio's copies of what it handed out, deleted on the app's schedule).
Reported: each run's sizes, the growth per run, and the disk after the last run once the app's sweeper has had
``--settle`` seconds to remove the handed-over zip (the steady state after the runs). The app's own schedule
runs unchanged (its schedule is declared in :mod:`stsdemo.serving.caps`: sweep every minute, a staged file removed a
minute after hand-over, Gradio's copies deleted after 10 minutes; sessions kept 24 h).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..common import Timer, device_name, log, median, out_dir, setup_environment, update_results
from .served_app import Served, serve_app, session_runs

MB = 10**6  # decimal megabytes, as issue 32 measured the disk
RUNS = 20
QUICK = dict(runs=2, max_steps=2, max_dev_pairs=16, settle=0.0)


def folder_mb(folder: Path) -> float:
    """MB the files under ``folder`` take (0 for no folder)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / MB if folder.is_dir() else 0.0


def isolate(root: Path) -> dict[str, Path]:
    """The app's output folder, Gradio's cache and the system temp folder (where downloads are staged), all in
    ``root``, so every byte the served app writes is counted and nothing else is (:func:`app_environment`)."""
    places = {
        "runs": root / "runs",
        "staged": root / "tmp",
        "gradio_cache": root / "gradio",
        "client": root / "client",
    }
    for folder in places.values():
        folder.mkdir(parents=True)
    return places


def app_environment(places: dict[str, Path]) -> dict[str, str]:
    """Where the served app writes besides its output folder (:func:`bench.perf.served_app.serve_app`'s ``output``):
    Gradio's cache and the temp folder of :func:`isolate`."""
    return {"GRADIO_TEMP_DIR": str(places["gradio_cache"]), "TMPDIR": str(places["staged"])}


def sizes(places: dict[str, Path]) -> dict[str, float]:
    """MB in each place the app writes to, and their total."""
    measured = {name: round(folder_mb(places[name]), 1) for name in ("runs", "staged", "gradio_cache")}
    return {**measured, "total": round(sum(measured.values()), 1)}


RUN_PICK = 9  # /train's outputs: progress, status, 3 curves, table, the 4 lists of runs (the Run list
# last), histogram


def run_choice(outputs: list) -> str:
    """The run a visitor just trained, as the Run list names it once the run ends (``run:<id>``): the visitor's
    one run."""
    lists = [output[RUN_PICK] for output in outputs if isinstance(output[RUN_PICK], dict)]
    ((_, run),) = next(found["choices"] for found in reversed(lists) if "choices" in found)
    return run


def one_visit(app: Served, output: Path, overrides: dict, downloads: Path) -> dict:
    """A new visitor fine-tunes at the form's defaults with ``overrides`` and downloads the run's zip; the run's
    seconds, checkpoint and zip sizes."""
    from stsdemo.events import Outcome

    client = app.client(download_files=str(downloads), httpx_kwargs={"timeout": 600})
    endpoint = client.view_api(return_format="dict", print_info=False)["named_endpoints"]["/train"]
    named = {p["parameter_name"] for p in endpoint["parameters"]}
    if not {"max_steps", "max_dev_pairs"} <= named:
        raise RuntimeError(f"/train takes no max_steps or max_dev_pairs: {sorted(named)}")
    with Timer() as timer:
        outputs = list(client.submit(api_name="/train", **overrides))
    info = session_runs(output, client.session_hash)[-1]
    if info["status"] != Outcome.FINISHED:
        raise RuntimeError(f"run {info['run_id']} ended {info['status']}: {info['message']}")
    archive = Path(client.predict(run_choice(outputs), api_name="/zip_run"))
    zip_mb = archive.stat().st_size / MB
    archive.unlink()  # the visitor's own copy, on their machine: not the server's disk
    return dict(
        seconds=round(timer.seconds, 1),
        checkpoint_mb=round(folder_mb(Path(info["config"]["output_dir"])), 1),
        zip_mb=round(zip_mb, 1),
    )


def measure(places: dict[str, Path], runs: int, overrides: dict, settle: float | None) -> dict:
    """Serve the app as app.py does, run ``runs`` visits, and measure the disk after each and after ``settle``
    seconds more (default: a sweep period and the hand-over time, so the last zip's staged copy is gone)."""
    from stsdemo import environment
    from stsdemo.serving import caps

    schedule = {
        name: int(caps.value(name))
        for name in (
            "sweep_every_seconds",
            "handed_over_seconds",
            "gradio_sweep_seconds",
            "gradio_keep_seconds",
            "session_keep_seconds",
        )
    }
    settle = schedule["sweep_every_seconds"] + schedule["handed_over_seconds"] if settle is None else settle
    with serve_app(places["runs"], **app_environment(places)) as app:
        before = sizes(places)
        visits = []
        for index in range(runs):
            visit = one_visit(app, places["runs"], overrides, places["client"])
            visits.append({**visit, "after": sizes(places)})
            log(f"run {index + 1}/{runs}: {json.dumps(visits[-1])}")
        last = visits[-1]["after"]
        time.sleep(settle)
        settled = sizes(places)
    totals = [before["total"]] + [visit["after"]["total"] for visit in visits]
    return dict(
        runs=runs,
        settings=overrides,
        before_mb=before,
        visits=visits,
        mb_per_run=round(median([b - a for a, b in zip(totals, totals[1:])]), 1),
        after_runs_mb=last,
        settled_mb=settled,
        settle_s=settle,
        schedule=dict(
            sweep_every_s=schedule["sweep_every_seconds"],
            handed_over_s=schedule["handed_over_seconds"],
            gradio_cache=[schedule["gradio_sweep_seconds"], schedule["gradio_keep_seconds"]],
            session_max_age_s=schedule["session_keep_seconds"],
            session_budget_mb=round(environment.session_disk_bytes() / MB),
        ),
    )


def markdown(results: dict) -> list[str]:
    """The recorded disk figures: the growth per default run and where the bytes sit after the runs and once
    settled."""
    from stsdemo.environment import DEFAULT_TOTAL_DISK

    row = results.get("memory", {}).get("disk")
    if row is None:
        return ["Not measured yet (`python -m bench.perf.disk`).\n"]
    lines = [
        "| after | runs (MB) | staged zips (MB) | Gradio's cache (MB) | total (MB) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    moments = (
        (f"{row['runs']} runs", row["after_runs_mb"]),
        (f"{row['settle_s']:g} s more", row["settled_mb"]),
    )
    for label, found in moments:
        lines.append(
            f"| {label} | {found['runs']} | {found['staged']} | {found['gradio_cache']} | {found['total']} |"
        )
    visit = row["visits"][-1]
    return [
        "\n".join(lines) + f"\n\nEach run a new visitor at the form's defaults who downloads the zip: "
        f"**{row['mb_per_run']} MB per run** (median growth; a checkpoint {visit['checkpoint_mb']} MB, a zip "
        f"{visit['zip_mb']} MB). Runs are kept {row['schedule']['session_max_age_s'] / 3600:g} h per session, "
        f"within {row['schedule']['session_budget_mb']:,} MB a session; all sessions together within "
        f"`STSDEMO_TOTAL_DISK` ({DEFAULT_TOTAL_DISK} by default), over which the sessions idle "
        f"longest go first. Machine: {row['machine']}.\n"
    ]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.disk",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="2 runs of 2 steps on 16 dev pairs, no settling")
    parser.add_argument("--runs", type=int, help=f"visits, one run each (default {RUNS})")
    parser.add_argument("--max-steps", type=int, help="training steps a run (default: the form's)")
    parser.add_argument(
        "--max-dev-pairs", type=int, help="dev pairs an evaluation scores (default: the form's)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        help="seconds to wait after the last run before the last measure "
        "(default: a sweep period plus the hand-over time)",
    )
    args = parser.parse_args(argv)
    quick = QUICK if args.quick else {}
    runs = args.runs or quick.get("runs", RUNS)
    overrides = {
        name: value
        for name in ("max_steps", "max_dev_pairs")
        if (value := getattr(args, name) or quick.get(name)) is not None
    }
    settle = args.settle if args.settle is not None else quick.get("settle")
    setup_environment()
    root = Path(tempfile.mkdtemp(prefix="disk-", dir=out_dir()))
    try:
        row = measure(isolate(root), runs, overrides, settle)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    row.update(machine=device_name(), finished=time.strftime("%Y-%m-%d %H:%M:%S"))
    update_results("memory", {"disk" if runs >= RUNS and not overrides else "disk_quick": row})
    print(json.dumps({key: row[key] for key in ("runs", "mb_per_run", "after_runs_mb", "settled_mb")}))
    return row


if __name__ == "__main__":
    main(sys.argv[1:])
