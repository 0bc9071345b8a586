"""Quality on the 7-task SentEval protocol (SimCSE's: Spearman x100 of cosine, STS12-16 "all", STS-B, SICK-R).

The paper's budget, the default: one full epoch over the 6,080 leakage-filtered STS-B + SICK-R train pairs
(380 steps at batch 16), max length 256, STS-B dev (cosine Spearman) at step 0, every 95 steps and at the
end; the best checkpoint by dev is kept, and the 7 test sets are scored once on it after the run. Stage 1
of the two-stage recipe (head on SNLI, encoder frozen) is capped at ``STAGE1_MAX_STEPS`` steps.

    python -m bench.evidence.quality --list                               # arms, groups, plan groups
    python -m bench.evidence.quality --arms minilm-main --seeds 3 --skip-done
    python -m bench.evidence.quality --model mpnet --arms mpnet-main --skip-done
    python -m bench.evidence.quality --arms sk2-2stage,st-cosent --max-steps 150     # a reduced budget, same for all
    python -m bench.evidence.quality --quick                              # tiny sizes: a smoke test

``--model``: ``minilm`` (the embedded all-MiniLM-L6-v2, default), ``mpnet`` (all-mpnet-base-v2 assembled by
``bench.evidence.mpnet``) or a folder / hub id. Every run record names its ``model``, ``arm``, ``seed`` and
``budget`` and is merged into docs/results.json (section ``quality``) as soon as it finishes, under the key
``model/arm/seedN/budget-tag``; ``--skip-done`` skips what is there, so a plan can be stopped and resumed.
The best checkpoint of every run is kept under ``bench/out/checkpoints/`` (``bench.evidence.fusion`` reads them).
"""
# The arms, seeds and budget are declared in bench.evidence.quality_arms, the scoring of an encoder is in
# bench.evidence.quality_scoring, sentence-transformers' trainer in bench.evidence.st_training; this module runs, plans
# and summarises the arms.

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

from ..common import (
    Timer,
    add_failure,
    add_run,
    device_name,
    load_results,
    log,
    out_dir,
    results_lock,
    results_path,
    setup_environment,
)
from ..schema import check_record, quality_runs, run_key
from ..sweep import error_line
from .quality_arms import (
    ARMS,
    EVAL_EVERY,
    GROUPS,
    MAIN,
    MODELS,
    SEEDS,
    ST_SETTINGS,
    STAGE1_MAX_STEPS,
    STEPS_PER_EPOCH,
    QualityBudget,
    arm_label,
    quick_budget,
)
from .quality_scoring import base_scores, evaluate_encoder, stsb_node_accuracy, test_sets

# bench.perf.speed and bench.evidence.tuning read sentence-transformers' trainer and its data sets through this module
from .st_training import ST_DATA, run_st, st_trainer  # noqa: F401

# Plan groups: the arms of one launch, and which of them get the extra seeds of ``--seeds``. "best:a|b" is
# whichever of a and b had the higher STS-B dev on the first seed (decided when its second seed is due,
# from the recorded runs: dev only, never test).
BEST_HEAD = "best:sk2-2stage|trelu-2stage"  # ours, paper head
BEST_COSINE = "best:sk2-cosine|trelu-cosine"  # ours, cosine target
PLAN_GROUPS = {
    "minilm-main": dict(
        arms=MAIN,
        seeded=[
            BEST_HEAD,
            BEST_COSINE,
            "best:st-cossim|st-cossim-doc",
            "best:st-cosent|st-cosent-doc",
            "pcc",
        ],
    ),
    "mpnet-main": dict(arms=MAIN, seeded=[BEST_HEAD, BEST_COSINE]),
}


# ---- running one arm --------------------------------------------------------------------------------


def checkpoint_dir(model: str, arm: str, seed: int, tag: str) -> Path:
    """Where a run's best checkpoint is kept (bench.evidence.fusion reads it): ``bench/out/checkpoints/...``."""
    return out_dir() / "checkpoints" / model / tag / f"{arm}-s{seed}"


def run_base(budget: QualityBudget, sets, model_path: str | None) -> dict:
    from stsdemo.model import SiameseRegressor

    model = SiameseRegressor.from_encoder(model_path, max_length=budget.max_length)
    scores, seconds = evaluate_encoder(model.encode, sets)
    return dict(
        test=scores,
        eval_seconds=seconds,
        steps=0,
        pairs_seen=0,
        **stsb_node_accuracy(model, sets, False, budget.dev_pairs),
    )


def ours_config(
    spec: dict,
    seed: int,
    budget: QualityBudget,
    model_path: str | None,
    workdir: Path,
    point: dict | None = None,
):
    """The TrainConfig of one of our arms under ``budget`` (a preset arm keeps its own epochs, batch and lr);
    ``point`` overrides the arm's settings (a tuning grid point: ``lr``, ``k``, ``x0``)."""
    from stsdemo.config import TrainConfig

    common = dict(
        seed=seed,
        max_length=budget.max_length,
        max_steps=budget.max_steps,
        log_every=50,
        max_pairs=budget.max_pairs,
        max_dev_pairs=budget.dev_pairs,
        output_dir=str(workdir),
        model=model_path or "",
    )
    if spec.get("preset"):
        config = TrainConfig.from_preset(spec["preset"], **common)
    else:
        config = TrainConfig(
            epochs=budget.epochs,
            batch_size=budget.batch_size,
            **common,
            **{**spec.get("config", {}), **(point or {})},
        )
    config.eval_every = budget.eval_every_for(config.batch_size)
    config.stage1_max_steps = budget.stage1_max_steps if config.two_stage else None
    return config


def run_ours(
    spec: dict,
    seed: int,
    budget: QualityBudget,
    sets,
    workdir: Path,
    model_path: str | None,
    model: str,
    point: dict | None = None,
) -> dict:
    """Train one of our arms through the core workflow (:func:`stsdemo.workflow.train_and_evaluate`), which then
    scores its best checkpoint; ``sets=None`` stops after training (dev only: a tuning grid run)."""
    from stsdemo.events import DoneEvent, EvalEvent, FinalEvalEvent, Outcome, StartEvent
    from stsdemo.losses.spec import LOSSES
    from stsdemo.model import SiameseRegressor
    from stsdemo.workflow import train_and_evaluate

    config = ours_config(spec, seed, budget, model_path, workdir, point)
    evals, done, starts = [], None, []
    events = train_and_evaluate(config, evaluate=sets is not None, test_sets=sets)
    with Timer() as timer:
        for event in events:
            if isinstance(event, EvalEvent):
                evals.append(
                    dict(
                        stage=event.stage,
                        step=event.step,
                        dev_cosine=round(event.dev_cosine, 3),
                        dev_head=round(event.dev_head, 3),
                    )
                )
            elif isinstance(event, StartEvent):
                starts.append(
                    dict(
                        stage=event.stage,
                        name=event.stage_name,
                        train_pairs=event.train_pairs,
                        total_steps=event.total_steps,
                    )
                )
            elif isinstance(event, DoneEvent):
                done = event
                break  # the evaluation, if any, comes next from the same generator
    if done is None or done.outcome is not Outcome.FINISHED:
        events.close()
        raise RuntimeError(f"training did not finish: {done and (done.message or done.outcome)}")
    final = starts[-1]
    settings = {
        k: getattr(config, k)
        for k in (
            "loss",
            "target",
            "k",
            "x0",
            "lr",
            "epochs",
            "batch_size",
            "eval_every",
            "two_stage",
            "stage1_max_steps",
            "snap_labels",
        )
    }
    trained = dict(
        dev_best=done.best,
        best_step=str(done.best_step),
        dev_curve=evals,
        stages=starts,
        settings=settings,
        steps=final["total_steps"],
        pairs_seen=final["total_steps"] * config.batch_size,
        train_pairs=final["train_pairs"],
        train_seconds=timer.seconds,
        pairs_per_s=done.pairs_per_s,
    )
    reuse = base_scores(budget, model) if sets is not None and done.best_step == (1, 0) else None
    if sets is None or reuse is not None:
        events.close()  # no 7-task pass: a tuning run, or the step-0 checkpoint is the base encoder
    if sets is None:
        return trained
    if reuse is not None:
        node = stsb_node_accuracy(
            SiameseRegressor.load(done.checkpoint),
            sets,
            LOSSES[config.loss].trains_prediction,
            budget.dev_pairs,
        )
        return dict(
            trained,
            test=dict(reuse),
            eval_seconds=0.0,
            test_from="base",
            checkpoint=str(done.checkpoint),
            **node,
        )
    with Timer() as evaluation:
        scores = [e for e in events if isinstance(e, FinalEvalEvent) and e.results is not None][-1]
    return dict(
        trained,
        test=scores.results,
        eval_seconds=evaluation.seconds,
        test_from="checkpoint",
        checkpoint=str(done.checkpoint),
        stsb_node_accuracy=scores.node_accuracy["STSBenchmark"],
        node_accuracy_from=scores.node_from,
    )


def run_one(
    name: str,
    seed: int,
    budget: QualityBudget,
    sets,
    model: str = "minilm",
    model_path: str | None = None,
    point: dict | None = None,
    tag: str | None = None,
) -> dict:
    """Run one arm; its best checkpoint stays in :func:`checkpoint_dir` (the base arm keeps none).

    ``point`` overrides the arm's settings (``bench.evidence.tuning``'s grid points); ``tag`` names the budget in
    keys and records (default :meth:`QualityBudget.tag`); ``sets=None`` records dev only and keeps no checkpoint."""
    spec = ARMS[name]
    tag = tag or budget.tag()
    workdir = checkpoint_dir(
        model, f"{name}@{point_slug(point)}".replace("/", "_") if point else name, seed, tag
    )
    shutil.rmtree(workdir, ignore_errors=True)
    started = time.perf_counter()
    try:
        if spec["kind"] == "base":
            result = run_base(budget, sets, model_path)
        elif spec["kind"] == "st":
            result = run_st(spec, seed, budget, sets, workdir, model_path, model, point)
        else:
            result = run_ours(spec, seed, budget, sets, workdir, model_path, model, point)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    finally:
        gc.collect()
    if sets is None:
        shutil.rmtree(workdir, ignore_errors=True)
    if point is not None:
        result["point"] = dict(point)
    # a known encoder by its name (its assembled folder is this machine's), any other as given
    result.update(
        model=model,
        model_path=MODELS.get(model, model_path or MODELS["minilm"]),
        arm=name,
        seed=seed,
        label=arm_label(name, model),
        group=spec["group"],
        kind=spec["kind"],
        family=spec.get("family"),
        notes=spec.get("notes", ""),
        budget=asdict(budget),
        budget_key=budget.key(),
        budget_tag=tag,
        lr=run_lr(spec, point),
        wall_seconds=time.perf_counter() - started,
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
        machine=device_name(),
    )
    return result


def point_slug(point: dict) -> str:
    """Settings that override an arm's, as a run key shows them: ``lr=5e-05,k=1,x0=0.1``."""
    return ",".join(
        f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"
        for name, value in point.items()
    )


def run_lr(spec: dict, point: dict | None) -> float | None:
    """The (encoder) learning rate a run trains at: the point's, else its recipe's; None for no training."""
    from stsdemo.config import PRESETS, TrainConfig

    if point and "lr" in point:
        return point["lr"]
    if spec["kind"] == "st":
        return ST_SETTINGS[spec["settings"]]["lr"]
    if spec["kind"] == "ours":
        return (
            PRESETS[spec["preset"]].settings().get("lr", TrainConfig.lr)
            if spec.get("preset")
            else TrainConfig.lr
        )
    return None


def expand(selection: str) -> list[str]:
    """Arm names from a comma-separated list of arms, groups, plan groups and ``all``."""
    names = []
    for part in [p.strip() for p in selection.split(",") if p.strip()]:
        if part == "all":
            names += list(ARMS)
        elif part in PLAN_GROUPS:
            names += PLAN_GROUPS[part]["arms"]
        elif part in GROUPS:
            names += [n for n, spec in ARMS.items() if spec["group"] == part]
        elif part in ARMS:
            names.append(part)
        else:
            raise SystemExit(f"unknown arm or group {part!r}; see --list")
    return list(dict.fromkeys(names))


def seeded_entries(selection: str) -> list[str]:
    """Which entries of ``selection`` get the extra seeds: a plan group's ``seeded`` list, else every arm
    named (the base run never needs a second seed)."""
    entries = []
    for part in [p.strip() for p in selection.split(",") if p.strip()]:
        entries += (
            PLAN_GROUPS[part]["seeded"] if part in PLAN_GROUPS else [a for a in expand(part) if a != "base"]
        )
    return list(dict.fromkeys(entries))


def build_plan(selection: str, seeds: int) -> list[tuple[str, int]]:
    """(arm or ``best:a|b`` selector, seed) in seed-major order: every arm's first seed before any arm's
    second, so a job cut short still has one run of every arm."""
    plan = [(name, SEEDS[0]) for name in expand(selection)]
    for seed in SEEDS[1 : max(1, seeds)]:
        plan += [(entry, seed) for entry in seeded_entries(selection)]
    return plan


def resolve(entry: str, model: str, tag: str, runs: dict | None = None) -> tuple[str | None, dict]:
    """An arm name for a plan entry: ``best:a|b`` becomes the candidate with the higher STS-B dev on the first
    seed (from the recorded runs of this model and budget); None when no candidate has a first seed yet.
    Returns ``(arm, {candidate: dev})``."""
    if not entry.startswith("best:"):
        return entry, {}
    runs = runs if runs is not None else quality_runs(load_results())
    devs = {}
    for candidate in entry.removeprefix("best:").split("|"):
        result = runs.get(run_key(model, candidate, SEEDS[0], tag))
        if result and result.get("dev_best") is not None:
            devs[candidate] = float(result["dev_best"])
    return (max(devs, key=devs.get) if devs else None), devs


def complete(result: dict | None, budget: QualityBudget) -> bool:
    """A recorded run counts as done for ``--skip-done`` when it ran at ``budget`` and has every figure a
    run records now (runs from before the STS-B node accuracy existed are run again)."""
    return bool(result) and result.get("budget_key") == budget.key() and "stsb_node_accuracy" in result


def claim(key: str, budget_key: str) -> bool:
    """Mark ``key`` as taken by this process, unless a live process has taken it: lets several jobs
    (``--skip-done``) work through one plan side by side without running a run twice."""
    path = results_path()
    with results_lock(path.with_name(path.name + ".claims")):
        claims_file = out_dir() / f"{path.name}.claims.json"
        claims = json.loads(claims_file.read_text()) if claims_file.is_file() else {}
        holder = claims.get(f"{key}|{budget_key}")
        if holder and holder != os.getpid():
            try:
                os.kill(holder, 0)
                return False
            except OSError:
                pass
        claims[f"{key}|{budget_key}"] = os.getpid()
        claims_file.write_text(json.dumps(claims))
    return True


def list_arms() -> None:
    for name, spec in ARMS.items():
        print(f"{name:18s} {spec['group']:8s} {spec['kind']:5s} {spec['label']}")
    for name, group in PLAN_GROUPS.items():
        print(
            f"\n{name}: {', '.join(group['arms'])}\n  extra seeds (--seeds N): {', '.join(group['seeded'])}"
        )
    print(
        f"\nBudget 'paper': 1 epoch = {STEPS_PER_EPOCH} steps x batch 16, max length 256, dev every {EVAL_EVERY} "
        f"steps; stage 1 capped at {STAGE1_MAX_STEPS} steps."
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.quality",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        default="minilm",
        help="minilm (embedded all-MiniLM-L6-v2), mpnet "
        "(all-mpnet-base-v2 via bench.evidence.mpnet) or a model folder / hub id",
    )
    parser.add_argument(
        "--arms",
        default="minilm-main",
        help="comma-separated arms, groups "
        f"({', '.join(GROUPS)}), plan groups ({', '.join(PLAN_GROUPS)}) or all",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        choices=range(1, len(SEEDS) + 1),
        metavar="N",
        help=f"how many of the seeds {', '.join(map(str, SEEDS))} the seeded entries of a plan group "
        "(or every arm named) run: 1 to 3; --plan arm@seed names other seeds",
    )
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument(
        "--max-steps", type=int, default=None, help="same step budget for every arm (default: the full epoch)"
    )
    parser.add_argument(
        "--stage1-max-steps",
        type=int,
        default=STAGE1_MAX_STEPS,
        help="cap on stage 1 (head on SNLI) of two-stage arms",
    )
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument(
        "--eval-every", type=int, default=EVAL_EVERY, help="steps between STS-B dev evaluations"
    )
    parser.add_argument(
        "--plan",
        default=None,
        help="explicit run order as arm@seed entries, e.g. "
        "sk2-2stage@42,st-cosent@42,sk2-2stage@43 (overrides --arms/--seeds)",
    )
    parser.add_argument("--only-seeds", default=None, help="run only these seeds of the plan, e.g. 43,44")
    parser.add_argument("--skip-done", action="store_true", help="skip runs already in the results file")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes (2 steps, 32 pairs, 12 test pairs per task)"
    )
    parser.add_argument("--list", action="store_true", help="list arms and plan groups and exit")
    args = parser.parse_args(argv)
    if args.list:
        list_arms()
        return {}
    setup_environment(args.threads)
    from .mpnet import model_location, model_tag

    model, model_path = model_tag(args.model), model_location(args.model)
    if args.quick:
        budget = quick_budget()
    else:
        budget = QualityBudget(
            epochs=args.epochs,
            max_steps=args.max_steps,
            batch_size=args.batch_size,
            max_length=args.max_length,
            eval_every=args.eval_every,
            stage1_max_steps=args.stage1_max_steps,
        )
    tag = budget.tag()
    plan = build_plan(args.arms, args.seeds)
    if args.plan:  # explicit order: arm@seed entries (seed 42 when none is given)
        plan = [
            (entry.split("@")[0].strip(), int(entry.split("@")[1]) if "@" in entry else SEEDS[0])
            for entry in args.plan.split(",")
            if entry.strip()
        ]
        for name, _ in plan:
            if not name.startswith("best:"):
                expand(name)  # validates
    if args.only_seeds:
        wanted = {int(x) for x in args.only_seeds.split(",") if x.strip()}
        plan = [(name, seed) for name, seed in plan if seed in wanted]
    sets = test_sets(budget)
    finished = {}
    log(
        f"quality: {len(plan)} runs planned on {model} ({model_path or MODELS['minilm']}), "
        f"budget {tag}: {budget.key()}"
    )
    for entry, seed in plan:
        runs = quality_runs(load_results())
        name, devs = resolve(entry, model, tag, runs)
        if name is None:
            log(f"skip {entry}@{seed}: no first-seed run of its candidates to choose by dev")
            continue
        if devs:
            scores = ", ".join(f"{k} {v:.2f}" for k, v in devs.items())
            log(f"{entry}: {name} (STS-B dev on seed {SEEDS[0]}: {scores})")
        key = run_key(model, name, seed, tag)
        if key in finished or (args.skip_done and complete(runs.get(key), budget)):
            log(f"skip {key} (done)")
            continue
        if args.skip_done and not claim(key, budget.key()):
            log(f"skip {key} (another job is running it)")
            continue
        log(f"start {key}")
        try:
            result = run_one(name, seed, budget, sets, model, model_path)
        except Exception as error:  # one broken arm must not lose the others
            log(f"FAILED {key}: {error_line(error)}")
            add_failure("quality", key, error_line(error))
            if args.quick:
                raise
            continue
        if devs:
            result["chosen_by_dev"] = dict(entry=entry, first_seed_dev=devs)
        check_record("quality", result)
        finished[key] = result
        add_run("quality", key, result)
        log(
            f"done {key}: Avg. {result['test']['Avg.']:.2f} dev {result.get('dev_best', float('nan')):.2f} "
            f"in {result['wall_seconds']:.0f}s"
        )
    return finished


if __name__ == "__main__":
    main(sys.argv[1:])
