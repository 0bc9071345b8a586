"""Fair tuning: every STS arm gets the same learning-rate grid, picks its rate on STS-B dev, then runs at three seeds.

The fixed-setting evidence ran every arm at one learning rate (2e-5) and the paper's k and x0, although the losses
pull with different strengths (Translated ReLU's gradient is k, Smooth K2's 2k(x - x0), CoSENT's is scaled by 20).
Here each arm of ``ARMS`` gets the same chance, and only that:

1. **grid** (tag ``grid``, section ``tuning``): learning rate in ``LRS`` for every arm, the buffer-zone losses at
   the paper's x0 (0.25) and k, so every arm chooses among the same four points. One seed, ``GRID_SEED`` (41): not
   one of the reported seeds, so the luck of the winning point on its seed does not enter the reported figures.
   STS-B dev only, no test set is read. Budget: the paper's (one epoch of the 6,080 filtered pairs, 380 steps at
   batch 16, dev every 95 steps; the best dev checkpoint is what the run scores).
2. **ablation** (tag ``grid`` too, section ``tuning``): the buffer-zone losses' x0 x k sweep at every learning rate
   (x0 in ``X0S``, k at the paper's value and half of it), the points of (1) excepted. Reported apart
   (``bench.evidence.tuning_report``); it chooses nothing. (An earlier version chose among all 16 points of the buffer
   arms and 4 of the others; the seeds it ran at x0 0.1 are kept in the records and read as superseded.)
3. **tuned** (tag ``tuned``, section ``quality``): each arm at the grid point with the highest STS-B dev, seeds 42,
   43 and 44, scored on the 7 test sets like every quality run; ``chosen_from`` records the grid it chose from.
   A tuned run's key names its point (``minilm/sk2-cosine@lr=5e-05,k=2,x0=0.25/seed42/tuned``), so a run at a
   re-selected point never replaces the record of an earlier choice; a run counts as done when a record of its
   arm, seed and point exists, whatever its key (records from before keys named the point have none in the key).
   The untrained encoder runs here too (``base``), so each machine has its own reference.
4. **fixed** (tag ``fixed``): the same arms at the fixed settings on this machine (where the tuned runs ran on
   another machine than the fixed-setting evidence, this separates the machine from the tuning).
5. **diagnosis** (tag ``diagnosis``, section ``tuning``): why CoSENT and AnglE lower STS-B dev at our settings, one
   factor at a time (``DIAGNOSIS``), seeds 42-44, dev only; CosineSimilarityLoss on the same data as the control.
6. **doc** (tag ``doc``): sentence-transformers' documented recipe for CoSENT and AnglE (``st-cosent-doc``,
   ``st-angle-doc``), seeds 42-44, with test scores.
7. **mpnet** (tag ``tuned``): all-mpnet-base-v2 untrained, Smooth K2 and MSE on the cosine target and
   CosineSimilarityLoss, seeds 42-44, each at the point MiniLM's grid chose. all-mpnet-base-v2 is not tuned: no
   grid runs on it (each record says so).

A verdict reads one machine and precision (``bench.evidence.tuning_report``), so a run recorded on another machine does
not stand in for one on the machine of the verdicts: ``--this-machine`` counts only this machine's records as done.

Each step is one sweep (:mod:`bench.sweep`): its runs one after another here, or with ``--ray`` side by
side on a local Ray or a Ray cluster, ``--gpus-per-run 0.25`` putting four runs on a GPU (docs/sweeps.md).
Every run is recorded by this process as soon as it finishes; a run that fails is tried once more, then
recorded in its section's ``failed``, and the step goes on. ``--skip-done`` skips what is recorded and what
another live job holds (a job holds a step's runs from the step's start), so jobs on one results file never
run a run twice.

    python -m bench.evidence.tuning --list
    python -m bench.evidence.tuning --steps grid,tuned --skip-done
    python -m bench.evidence.tuning --steps grid,tuned --skip-done --ray --gpus-per-run 0.25   # 4 runs a GPU, all GPUs
    python -m bench.evidence.tuning --steps mpnet --skip-done --ray 10.0.0.1:6379              # on a Ray cluster
    python -m bench.evidence.tuning --steps tuned,mpnet --skip-done --this-machine   # on the machine of the verdicts
"""

from __future__ import annotations

import argparse
import os
import sys

from stsdemo.errors import InputError
from stsdemo.losses.spec import PAPER_X0, paper_k

from .. import sweep
from ..common import add_failure, add_run, load_results, log, setup_environment
from ..schema import check_record, quality_runs, record_model, run_key, tuning_runs
from . import quality

ARMS = ("sk2-cosine", "mse-cosine", "trelu-cosine", "l1-cosine", "st-cossim", "st-cosent", "st-angle", "pcc")
LRS = (1e-5, 2e-5, 5e-5, 1e-4)
X0S = (0.1, PAPER_X0)  # the ablation's x0; the grid holds the paper's
K_SHARES = (1.0, 0.5)  # the ablation's k: the paper's, and half of it
GRID_SEED = 41
FAMILY = "bert"  # the encoder family of every tuned model: MiniLM and mpnet are not RoBERTa-style
FIXED_LR = 2e-5
MPNET_ARMS = ("sk2-cosine", "mse-cosine", "st-cossim")
DOC_ARMS = ("st-cosent-doc", "st-angle-doc")
# The diagnosis: one factor changed from our settings at a time; CosineSimilarityLoss runs the data factors as
# the control (a factor that hurts every loss is about the data, one that hurts CoSENT/AnglE alone is theirs).
DIAGNOSIS = {
    "ours": {},
    "scale-5": {"scale": 5.0},
    "one-set-a-batch": {"data": "stsb+sick/one-set-a-batch"},
    "stsb-filtered": {"data": "stsb-filtered"},
    "sick-filtered": {"data": "sick-filtered"},
    "stsb-unfiltered": {"data": "stsb"},
}
DIAGNOSIS_ARMS = {
    "st-cosent": tuple(DIAGNOSIS),
    "st-angle": tuple(DIAGNOSIS),
    "st-cossim": ("ours", "one-set-a-batch", "stsb-filtered", "sick-filtered", "stsb-unfiltered"),
}
STEPS = ("grid", "ablation", "tuned", "fixed", "diagnosis", "doc", "mpnet")
QUALITY_TAGS = ("tuned", "fixed", "doc")  # the tags of its runs in the quality section (with test scores)


def arm_paper_k(arm: str) -> float | None:
    """The paper's k of a buffer-zone arm's loss for ``FAMILY`` (:func:`stsdemo.losses.spec.paper_k`), else None."""
    loss = quality.ARMS[arm].get("config", {}).get("loss")
    return paper_k(loss, FAMILY) if loss else None


def grid_points(arm: str) -> list[dict]:
    """The points ``arm`` chooses among: every rate of ``LRS``, a buffer-zone loss at the paper's k and x0. Every
    arm has the same number of points, so none gets more chances to be lucky on the grid seed."""
    k = arm_paper_k(arm)
    return [{"lr": lr} if k is None else {"lr": lr, "k": k, "x0": PAPER_X0} for lr in LRS]


def ablation_points(arm: str) -> list[dict]:
    """The x0 x k sweep of a buffer-zone arm at every rate, its grid points excepted (none for other arms): run
    and reported apart, never chosen from."""
    k = arm_paper_k(arm)
    if k is None:
        return []
    sweep = [{"lr": lr, "k": k * share, "x0": x0} for lr in LRS for share in K_SHARES for x0 in X0S]
    return [point for point in sweep if point not in grid_points(arm)]


def fixed_point(arm: str) -> dict:
    """The fixed settings the earlier evidence used, as a point."""
    k = arm_paper_k(arm)
    return {"lr": FIXED_LR} if k is None else {"lr": FIXED_LR, "k": k, "x0": PAPER_X0}


def grid_key(model: str, arm: str, point: dict) -> str:
    return run_key(model, f"{arm}@{quality.point_slug(point)}", GRID_SEED, "grid")


def chosen_point(arm: str, runs: dict | None = None, model: str = "minilm") -> tuple[dict | None, dict]:
    """The point of ``grid_points(arm)`` with the best STS-B dev, and ``{grid key: dev}``; None until every point
    of the arm's grid is recorded (a point is never chosen from part of its grid). The ablation's runs are never
    candidates. A tie goes to the first point in ``LRS`` order."""
    runs = runs if runs is not None else tuning_runs(load_results())
    devs = {}
    for point in grid_points(arm):
        result = runs.get(grid_key(model, arm, point))
        if result is None:
            return None, devs
        devs[grid_key(model, arm, point)] = float(result["dev_best"])
    best = max(devs, key=devs.get)
    return dict(runs[best]["point"]), devs


def same_point(a: dict | None, b: dict | None) -> bool:
    """Whether two points are the same settings (as their run keys spell them)."""
    return quality.point_slug(a or {}) == quality.point_slug(b or {})


def tuned_records(
    results: dict,
    model: str,
    arm: str,
    point: dict | None = None,
    seed: int | None = None,
    machine: str | None = None,
) -> list[dict]:
    """The recorded tuned runs of ``arm`` on ``model`` (at ``point``, of ``seed``, on ``machine`` where given),
    whatever their keys."""
    return [
        run
        for run in quality_runs(results).values()
        if run.get("budget_tag") == "tuned"
        and run.get("arm") == arm
        and record_model(run) == model
        and (point is None or arm == "base" or same_point(run.get("point"), point))
        and (seed is None or arm == "base" or run.get("seed") == seed)
        and (machine is None or run.get("machine") == machine)
    ]


# ---- the plan ---------------------------------------------------------------------------------------


def plan(step: str) -> list[dict]:
    """The runs of one step: ``{arm, seed, point, tag, section, model, test}``; a tuned entry's point is None
    until it is decided (from the recorded grid, when the entry is due: :func:`resolve`)."""
    seeds = quality.SEEDS

    def grid(points) -> list[dict]:
        return [
            dict(
                arm=arm, seed=GRID_SEED, point=point, tag="grid", section="tuning", model="minilm", test=False
            )
            for arm in ARMS
            for point in points(arm)
        ]

    def tuned(model: str, arms) -> list[dict]:
        return [
            dict(
                arm="base", seed=seeds[0], point=None, tag="tuned", section="quality", model=model, test=True
            )
        ] + [
            dict(arm=arm, seed=seed, point=None, tag="tuned", section="quality", model=model, test=True)
            for seed in seeds
            for arm in arms
        ]

    if step == "grid":
        return grid(grid_points)
    if step == "ablation":
        return grid(ablation_points)
    if step == "tuned":
        return tuned("minilm", ARMS)
    if step == "fixed":
        return [
            dict(
                arm=arm,
                seed=seed,
                point=fixed_point(arm),
                tag="fixed",
                section="quality",
                model="minilm",
                test=True,
            )
            for seed in seeds
            for arm in ARMS
        ]
    if step == "diagnosis":
        return [
            dict(
                arm=arm,
                seed=seed,
                point=DIAGNOSIS[factor],
                factor=factor,
                tag="diagnosis",
                section="tuning",
                model="minilm",
                test=False,
            )
            for seed in seeds
            for arm, factors in DIAGNOSIS_ARMS.items()
            for factor in factors
        ]
    if step == "doc":
        return [
            dict(arm=arm, seed=seed, point=None, tag="doc", section="quality", model="minilm", test=True)
            for seed in seeds
            for arm in DOC_ARMS
        ]
    if step == "mpnet":
        return tuned("mpnet", MPNET_ARMS)
    raise ValueError(f"unknown step {step!r}")


def resolve(entry: dict, runs: dict | None = None) -> dict | None:
    """A tuned entry with its point decided from MiniLM's recorded grid (for mpnet too: its grid is not run), and
    ``chosen_from``; None while that grid is incomplete. Other entries as they are."""
    if entry["tag"] != "tuned" or entry["arm"] == "base" or entry["point"] is not None:
        return entry
    point, chosen_from = chosen_point(entry["arm"], runs)
    return None if point is None else dict(entry, point=point, chosen_from=chosen_from)


def entry_key(entry: dict) -> str:
    if entry["tag"] == "grid":
        return grid_key(entry["model"], entry["arm"], entry["point"])
    if entry["tag"] == "diagnosis":
        return run_key(entry["model"], f"{entry['arm']}@{entry['factor']}", entry["seed"], "diagnosis")
    if entry["tag"] == "tuned" and entry["point"]:
        return run_key(
            entry["model"], f"{entry['arm']}@{quality.point_slug(entry['point'])}", entry["seed"], "tuned"
        )
    return run_key(entry["model"], entry["arm"], entry["seed"], entry["tag"])


def recorded(results: dict, entry: dict, machine: str | None = None) -> bool:
    """Whether ``entry`` (resolved) is recorded, on ``machine`` where given: a tuned entry by its arm, seed and
    point, whatever the record's key; any other by its key."""
    if entry["tag"] == "tuned":
        return bool(
            tuned_records(results, entry["model"], entry["arm"], entry["point"], entry["seed"], machine)
        )
    runs = tuning_runs(results) if entry["section"] == "tuning" else quality_runs(results)
    run = runs.get(entry_key(entry))
    return run is not None and (machine is None or run.get("machine") == machine)


def run_entry(task: sweep.Task) -> dict:
    """Run one (resolved) plan entry, here or in a Ray worker: its record, checked; the driver writes it
    (:func:`bench.sweep.run_sweep`). ``task.args``: the entry, the budget, the test sets (None for a dev-only
    run), the encoder's folder and the torch threads."""
    entry, budget, sets, model_path, threads = task.args
    setup_environment(threads)
    result = quality.run_one(
        entry["arm"],
        entry["seed"],
        budget,
        sets,
        entry["model"],
        model_path,
        point=entry["point"],
        tag=entry["tag"],
    )
    if entry.get("chosen_from"):
        result["chosen_from"] = entry["chosen_from"]
        if entry["model"] != "minilm":
            result["notes"] = (result.get("notes", "") + " point chosen on all-MiniLM-L6-v2's grid").strip()
    if entry["tag"] == "diagnosis":
        result["notes"] = f"{entry['factor']}: {describe_factor(entry['factor'])}"
    check_record(entry["section"], result)
    return result


def describe_factor(factor: str) -> str:
    point = DIAGNOSIS[factor]
    if "data" in point:
        return quality.ST_DATA[point["data"]]
    if "scale" in point:
        return f"loss scale {point['scale']:g} instead of 20"
    return "our settings (lr 2e-5, the loss's default scale, STS-B + SICK-R filtered, mixed batches)"


def list_plan() -> None:
    for step in STEPS:
        entries = plan(step)
        print(f"{step}: {len(entries)} runs")
        for entry in entries[:3]:
            print(f"  {entry_key(entry)}  point={entry['point']}")
        if len(entries) > 3:
            print("  ...")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.tuning",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--steps", default="grid,tuned", help=f"some of: {', '.join(STEPS)}, in the order given"
    )
    parser.add_argument(
        "--skip-done", action="store_true", help="skip recorded runs and runs another job holds"
    )
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test of the whole plan)")
    parser.add_argument("--list", action="store_true", help="list the plan and exit")
    parser.add_argument(
        "--this-machine",
        action="store_true",
        help="with --skip-done: a run recorded on another machine counts as not done (a verdict "
        "reads one machine and precision)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the runs on Ray: alone, a local Ray on this machine's cores; with "
        "HOST:PORT, the cluster there (docs/sweeps.md). Default: one after another, here",
    )
    parser.add_argument(
        "--gpus-per-run",
        type=float,
        default=None,
        help="with --ray: GPUs a run reserves, 0.25 puts four runs on a GPU (default: 1 "
        "where this machine has a GPU, else 0)",
    )
    parser.add_argument("--cpus-per-run", type=float, default=1, help="with --ray: CPU cores a run reserves")
    args = parser.parse_args(argv)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    if unknown := [s for s in steps if s not in STEPS]:
        parser.error(f"unknown step(s) {', '.join(unknown)}; choose from {', '.join(STEPS)}")
    if args.list:
        list_plan()
        return
    if args.quick and "BENCH_RESULTS" not in os.environ:
        parser.error("--quick writes under the real tags: point BENCH_RESULTS at a scratch results file")
    setup_environment(args.threads)
    try:
        with sweep.session(args.ray):
            failures = run_steps(steps, args)
    except InputError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    if failures and args.quick:
        raise SystemExit(
            f"{len(failures)} run(s) failed: " + "; ".join(f"{key}: {line}" for key, line in failures.items())
        )


def run_steps(steps: list[str], args) -> dict[str, str]:
    """Run the steps in order, each as one sweep of its due runs; ``{run key: error line}`` of the runs that
    failed twice (recorded in their section's ``failed``)."""
    from ..common import cuda_available, device_name
    from .mpnet import model_location

    budget = quality.quick_budget() if args.quick else quality.QualityBudget()
    sets = quality.test_sets(budget)
    model_paths = {"minilm": None}
    machine = device_name() if args.this_machine else None
    gpus = args.gpus_per_run if args.gpus_per_run is not None else float(cuda_available())
    failures = {}
    for step in steps:
        entries = plan(step)
        log(f"== tuning step {step}: {len(entries)} runs, budget {budget.key()}")
        tasks, sections = [], {}
        for planned in entries:
            entry = resolve(planned, tuning_runs(load_results()))
            if entry is None:
                log(f"wait {entry_key(planned)}: the grid of {planned['arm']} is not complete")
                continue
            key = entry_key(entry)
            if entry["model"] not in model_paths:
                model_paths[entry["model"]] = model_location(entry["model"])
            if args.skip_done and (
                recorded(load_results(), entry, machine) or not quality.claim(key, budget.key())
            ):
                continue
            sections[key] = entry["section"]
            inputs = (
                entry,
                budget,
                sets if entry["test"] else None,
                model_paths[entry["model"]],
                args.threads,
            )
            tasks.append(sweep.Task(key, inputs, num_cpus=args.cpus_per_run, num_gpus=gpus))

        def record(key: str, result: dict, sections: dict = sections) -> None:
            add_run(sections[key], key, result)
            test = result.get("test", {}).get("Avg.")
            log(
                f"done {key}: dev {result.get('dev_best', float('nan')):.2f}"
                + (f" Avg. {test:.2f}" if test is not None else "")
                + f" in {result['wall_seconds']:.0f}s"
            )

        def failed(key: str, line: str, sections: dict = sections) -> None:
            log(f"FAILED {key}: {line}")
            add_failure(sections[key], key, line)

        failures |= sweep.run_sweep(tasks, run_entry, record, ray=args.ray, failed=failed)
    return failures


if __name__ == "__main__":
    main(sys.argv[1:])
