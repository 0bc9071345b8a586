"""Quality on the 7-task SentEval protocol (SimCSE's: Spearman x100 of cosine, STS12-16 "all", STS-B, SICK-R).

Every trained arm sees the same training pairs (leakage-filtered STS-B + SICK-R train, or SNLI dev+test for
the NLI arms), the same number of steps, batch size and max length; its checkpoint is chosen on STS-B dev
(cosine Spearman) only, and the 7 test sets are scored once, on that checkpoint, after the run finishes.

    python -m bench.quality --arms main                  # the arms that matter most (starred ones x3 seeds)
    python -m bench.quality --arms sk2-2stage,st-cosent --seeds 3 --max-steps 300
    python -m bench.quality --list                       # every arm and group
    python -m bench.quality --quick                      # tiny sizes: a smoke test of the code paths

Full-size defaults are the real protocol (one epoch of ~10k pairs, batch 16, max length 256, dev every 100
steps); ``--max-steps`` gives a reduced budget that is identical for every arm. Results are merged into
docs/results.json (section ``quality``) after every finished run, so nothing is lost if the job dies.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import shutil
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np

from .common import (Timer, load_results, log, mean_sd, out_dir, setup_environment, small_dev, spaced_subset,
                     update_results)

# ---- the arms ---------------------------------------------------------------------------------------
# kind: base (no training), ours (stsdemo.train), cos (ours, loss on 5*cosine: a labelled variant),
# st (sentence-transformers' own SentenceTransformerTrainer). seeds: "*" arms run --seeds seeds.

ARMS: dict[str, dict] = {
    "base": dict(kind="base", group="main", label="all-MiniLM-L6-v2 (no training)"),
    "sk2-2stage": dict(kind="ours", group="main", star=True, label="ours: Smooth K2, two-stage",
                       config=dict(loss="sk2", two_stage=True)),
    "trelu-2stage": dict(kind="ours", group="main", label="ours: Translated ReLU, two-stage",
                         config=dict(loss="trelu", two_stage=True)),
    "mse-2stage": dict(kind="ours", group="main", label="MSE, two-stage", config=dict(loss="mse", two_stage=True)),
    "l1-2stage": dict(kind="ours", group="main", label="L1, two-stage", config=dict(loss="l1", two_stage=True)),
    "l1-1stage": dict(kind="ours", group="main", label="L1, one stage", config=dict(loss="l1")),
    "ce": dict(kind="ours", group="main", label="cross-entropy head (Sentence-BERT)", config=dict(loss="ce")),
    "infonce": dict(kind="ours", group="main", label="+Contrast: InfoNCE on pairs >= 4.0",
                    config=dict(loss="infonce", threshold=4.0)),
    "st-cosent": dict(kind="st", group="main", star=True, label="sentence-transformers CoSENTLoss", loss="CoSENTLoss"),
    "st-angle": dict(kind="st", group="main", label="sentence-transformers AnglELoss", loss="AnglELoss"),
    "st-cossim": dict(kind="st", group="main", label="sentence-transformers CosineSimilarityLoss",
                      loss="CosineSimilarityLoss"),
    # one-stage versions of the buffer-zone losses and MSE
    "sk2-1stage": dict(kind="ours", group="stages", label="ours: Smooth K2, one stage", config=dict(loss="sk2")),
    "trelu-1stage": dict(kind="ours", group="stages", label="ours: Translated ReLU, one stage",
                         config=dict(loss="trelu")),
    "mse-1stage": dict(kind="ours", group="stages", label="MSE, one stage", config=dict(loss="mse")),
    # labelled variant: the buffer-zone loss on 5 * cos(u, v), so training shapes the geometry cosine reads
    "sk2-cos": dict(kind="cos", group="variant", label="variant: Smooth K2 on 5*cos(u,v), one stage",
                    config=dict(loss="sk2")),
    "trelu-cos": dict(kind="cos", group="variant", label="variant: Translated ReLU on 5*cos(u,v), one stage",
                      config=dict(loss="trelu")),
    # the same without rounding the training labels to the nodes 0..5 (the paper rounds its tune data)
    "sk2-cos-raw": dict(kind="cos", group="variant",
                        label="variant: Smooth K2 on 5*cos(u,v), unrounded labels, one stage",
                        config=dict(loss="sk2", snap_labels=False)),
    # head ablation (paper Table 6); [u,v,|u-v|] is sk2-2stage
    "head-uv": dict(kind="ours", group="head", label="head [u,v] (Smooth K2, two-stage)",
                    config=dict(loss="sk2", two_stage=True, features="u,v")),
    "head-absdiff": dict(kind="ours", group="head", label="head [|u-v|] (Smooth K2, two-stage)",
                         config=dict(loss="sk2", two_stage=True, features="|u-v|")),
    # paper Table 1's question on NLI data (SNLI dev+test): regression vs classification, buffer vs none
    "nli-sk2": dict(kind="ours", group="nli", label="NLI: regression, Smooth K2 (buffer)",
                    config=dict(loss="sk2", data="nli")),
    "nli-trelu": dict(kind="ours", group="nli", label="NLI: regression, Translated ReLU (buffer)",
                      config=dict(loss="trelu", data="nli")),
    "nli-mse": dict(kind="ours", group="nli", label="NLI: regression, MSE (no buffer)",
                    config=dict(loss="mse", data="nli")),
    "nli-l1": dict(kind="ours", group="nli", label="NLI: regression, L1 (no buffer)", config=dict(loss="l1", data="nli")),
    "nli-ce": dict(kind="ours", group="nli", label="NLI: classification, cross-entropy",
                   config=dict(loss="ce", data="nli")),
}
# k / x0 sweep like the paper's Table 5 (Smooth K2, two-stage), dev-selected: one knob at a time around
# k = 2, x0 = 0.25 (that point is sk2-2stage); x0 = 0 is the same loss without a buffer zone.
SWEEP = [(2.0, 0.0), (2.0, 0.1), (2.0, 0.5), (1.0, 0.25), (3.0, 0.25)]
for _k, _x0 in SWEEP:
    ARMS[f"sweep-k{_k:g}-x{_x0:g}"] = dict(kind="ours", group="sweep",
                                           label=f"Smooth K2 k={_k:g} x0={_x0:g}, two-stage",
                                           config=dict(loss="sk2", two_stage=True, k=_k, x0=_x0))
GROUPS = sorted({spec["group"] for spec in ARMS.values()})
SEEDS = (42, 43, 44)


@dataclass
class Budget:
    """What every arm gets; the same for all of them in one table."""

    epochs: float = 1.0
    max_steps: int | None = None       # None = the full epoch(s)
    batch_size: int = 16
    max_length: int = 256
    eval_every: int = 100
    stage1_max_steps: int | None = None
    max_pairs: int | None = None       # quick mode only
    dev_pairs: int | None = None       # quick mode only (None = all 1,500 STS-B dev pairs)
    test_pairs: int | None = None      # quick mode only (None = every test pair)

    def key(self) -> str:
        return ",".join(f"{k}={v}" for k, v in asdict(self).items())


# ---- the variant: a buffer-zone loss on the scaled cosine -------------------------------------------


class CosineTarget:
    """Wraps a regression loss so its prediction is ``scheme.high * cos(u, v)`` instead of the head's.

    The head is then unused (it still exists and is saved), and the gradient shapes the embedding
    geometry that the SentEval protocol reads. Built by :func:`cosine_losses`.
    """

    regression = True

    def __init__(self, inner):
        import torch

        self.inner, self.scale = inner, float(inner.high)
        self._cos = torch.nn.functional.cosine_similarity

    def _output(self, output):
        from stsdemo.model import SiameseOutput

        prediction = self.scale * self._cos(output.u.float(), output.v.float(), dim=-1)
        return SiameseOutput(prediction, output.u, output.v)

    def __call__(self, output, labels):
        return self.inner(self._output(output), labels)

    def inside_buffer(self, output, labels):
        return self.inner.inside_buffer(self._output(output), labels)


@contextlib.contextmanager
def cosine_losses():
    """Inside this block, ``stsdemo.train`` builds its regression losses on the scaled cosine.

    (A bench-only patch: the core TrainConfig has no such option; see docs/results.md.)
    """
    import stsdemo.train as train_module

    original = train_module.build_loss

    def build(name, *args, **kwargs):
        loss = original(name, *args, **kwargs)
        return CosineTarget(loss) if getattr(loss, "regression", False) else loss

    train_module.build_loss = build
    try:
        yield
    finally:
        train_module.build_loss = original


# ---- running one arm --------------------------------------------------------------------------------


def test_sets(budget: Budget) -> dict:
    from stsdemo.data import senteval_test_sets

    sets = senteval_test_sets()
    if budget.test_pairs:
        sets = {name: spaced_subset(pairs, budget.test_pairs) for name, pairs in sets.items()}
    return sets


def base_scores(budget: Budget) -> dict | None:
    """Test scores of the recorded base run (same max length, full test sets), if there is one.

    When an arm's best dev checkpoint is step 0, that checkpoint *is* the untrained encoder, so its test
    scores are the base run's (deterministic, same evaluation): they are reused, saving a 7-task pass, and
    the run is marked ``test_from = "base"``. This looks at dev only, never at test.
    """
    if budget.test_pairs:
        return None
    for key, result in load_results().get("quality", {}).get("runs", {}).items():
        if result["arm"] == "base" and result["budget"]["max_length"] == budget.max_length and not key.endswith("quick"):
            return result["test"]
    return None


def evaluate_encoder(encode, sets) -> tuple[dict, float]:
    from stsdemo.evaluate import evaluate_senteval

    with Timer() as timer:
        scores = evaluate_senteval(encode, test_sets=sets)
    return scores, timer.seconds


def run_base(budget: Budget, sets) -> dict:
    from stsdemo.model import SiameseRegressor

    model = SiameseRegressor.from_encoder(None, max_length=budget.max_length)
    scores, seconds = evaluate_encoder(model.encode, sets)
    return dict(test=scores, eval_seconds=seconds, steps=0, pairs_seen=0)


def run_ours(spec: dict, seed: int, budget: Budget, sets, workdir) -> dict:
    from stsdemo.model import SiameseRegressor
    from stsdemo.train import DoneEvent, EvalEvent, StartEvent, TrainConfig, train

    overrides = dict(spec.get("config", {}))
    config = TrainConfig(seed=seed, epochs=budget.epochs, max_steps=budget.max_steps, batch_size=budget.batch_size,
                         max_length=budget.max_length, eval_every=budget.eval_every, log_every=50,
                         stage1_max_steps=budget.stage1_max_steps if overrides.get("two_stage") else None,
                         max_pairs=budget.max_pairs, output_dir=str(workdir), **overrides)
    patch = cosine_losses() if spec["kind"] == "cos" else contextlib.nullcontext()
    evals, done, starts = [], None, []
    with patch, small_dev(budget.dev_pairs), Timer() as timer:
        for event in train(config):
            if isinstance(event, EvalEvent):
                evals.append(dict(stage=event.stage, step=event.step, dev_cosine=round(event.dev_cosine, 3),
                                  dev_head=round(event.dev_head, 3)))
            elif isinstance(event, StartEvent):
                starts.append(dict(stage=event.stage, name=event.stage_name, train_pairs=event.train_pairs,
                                   total_steps=event.total_steps))
            elif isinstance(event, DoneEvent):
                done = event
    if done is None or done.reason != "finished":
        raise RuntimeError(f"training did not finish: {done and done.reason}")
    reuse = base_scores(budget) if done.best_step == "1:0" else None
    if reuse is not None:
        scores, seconds = dict(reuse), 0.0
    else:
        model = SiameseRegressor.load(done.checkpoint)
        scores, seconds = evaluate_encoder(model.encode, sets)
    final_stage = starts[-1]
    return dict(test=scores, eval_seconds=seconds, test_from="base" if reuse is not None else "checkpoint", dev_best=done.best, best_step=done.best_step, dev_curve=evals,
                stages=starts, steps=final_stage["total_steps"], pairs_seen=final_stage["total_steps"] * budget.batch_size,
                train_pairs=final_stage["train_pairs"], train_seconds=timer.seconds, pairs_per_s=done.pairs_per_s)


def st_trainer(loss_name: str, seed: int, budget: Budget, workdir, dev=None, train_pairs=None, evaluate=True):
    """sentence-transformers' own trainer on our training pairs (labels scaled to 0..1), ready to ``.train()``.

    Same model, pairs, batch size, max length, steps, warmup share and weight decay as our loop; the
    learning rate 2e-5 is the encoder lr of ours. Dev: ``EmbeddingSimilarityEvaluator`` on STS-B dev.
    """
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers import losses as st_losses
    from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator

    from stsdemo import settings
    from stsdemo.data import load_training_data

    pairs = train_pairs if train_pairs is not None else load_training_data("stsb+sick")
    if budget.max_pairs:
        pairs = pairs.select(range(min(budget.max_pairs, len(pairs))))
    model = SentenceTransformer(str(settings.default_model_path()), device="cpu" if not _cuda() else "cuda")
    model.max_seq_length = budget.max_length
    data = Dataset.from_dict({"sentence1": pairs.sentences1, "sentence2": pairs.sentences2,
                              "score": (pairs.labels / 5.0).tolist()})
    steps_per_epoch = -(-len(pairs) // budget.batch_size)
    total = max(1, int(np.ceil(steps_per_epoch * budget.epochs)))
    if budget.max_steps:
        total = min(total, budget.max_steps)
    evaluator = None
    if evaluate and dev is not None:
        evaluator = EmbeddingSimilarityEvaluator(dev.sentences1, dev.sentences2, (dev.labels / 5.0).tolist(),
                                                 main_similarity="cosine", name="stsb-dev", batch_size=64,
                                                 write_csv=False)
    args = SentenceTransformerTrainingArguments(
        output_dir=str(workdir), max_steps=total, per_device_train_batch_size=budget.batch_size,
        learning_rate=2e-5, warmup_steps=int(0.2 * total), weight_decay=0.01, lr_scheduler_type="linear",
        max_grad_norm=1.0, seed=seed, data_seed=seed, eval_strategy="steps" if evaluator else "no",
        eval_steps=budget.eval_every, save_strategy="no", logging_steps=50, report_to=[], disable_tqdm=True,
        bf16=_cuda(), dataloader_num_workers=0)
    loss = getattr(st_losses, loss_name)(model)
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data, loss=loss, evaluator=evaluator)
    return trainer, model, evaluator, total, len(pairs)


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def run_st(spec: dict, seed: int, budget: Budget, sets, workdir) -> dict:
    import torch
    from transformers import TrainerCallback

    from stsdemo.data import load_stsb

    dev = load_stsb("dev")
    if budget.dev_pairs:
        dev = spaced_subset(dev, budget.dev_pairs)
    torch.manual_seed(seed)
    trainer, model, evaluator, total, n_pairs = st_trainer(spec["loss"], seed, budget, workdir, dev=dev)
    initial = evaluator(model)  # sets evaluator.primary_metric
    metric = evaluator.primary_metric or "stsb-dev_spearman_cosine"
    best = dict(score=-np.inf, step=0, state=None)
    curve = []

    def consider(score: float, step: int):
        curve.append(dict(stage=1, step=step, dev_cosine=round(score * 100, 3)))
        if score > best["score"]:
            best.update(score=score, step=step,
                        state={k: v.detach().cpu().clone() for k, v in model.state_dict().items()})

    class KeepBest(TrainerCallback):
        def on_evaluate(self, args, state, control, metrics=None, **kwargs):
            value = (metrics or {}).get(f"eval_{metric}")
            if value is not None:
                consider(float(value), state.global_step)

    trainer.add_callback(KeepBest())
    consider(float(initial[metric]), 0)  # the untrained model is a candidate too, as in ours
    with Timer() as timer:
        output = trainer.train()
    if total % budget.eval_every:
        consider(float(evaluator(model)[metric]), total)
    reuse = base_scores(budget) if best["step"] == 0 else None
    if reuse is not None:
        scores, seconds = dict(reuse), 0.0
    else:
        model.load_state_dict(best["state"])
        scores, seconds = evaluate_encoder(lambda s: model.encode(s, batch_size=64, convert_to_numpy=True), sets)
    return dict(test=scores, eval_seconds=seconds, test_from="base" if reuse is not None else "checkpoint", dev_best=best["score"] * 100, best_step=f"1:{best['step']}",
                dev_curve=curve, steps=total, pairs_seen=total * budget.batch_size, train_pairs=n_pairs,
                train_seconds=timer.seconds, train_runtime=output.metrics.get("train_runtime"))


def run_one(name: str, seed: int, budget: Budget, sets) -> dict:
    spec = ARMS[name]
    workdir = out_dir() / "runs" / f"{name}-s{seed}"
    shutil.rmtree(workdir, ignore_errors=True)
    started = time.perf_counter()
    try:
        if spec["kind"] == "base":
            result = run_base(budget, sets)
        elif spec["kind"] == "st":
            result = run_st(spec, seed, budget, sets, workdir)
        else:
            result = run_ours(spec, seed, budget, sets, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        gc.collect()
    result.update(arm=name, seed=seed, label=spec["label"], group=spec["group"], kind=spec["kind"],
                  budget=asdict(budget), budget_key=budget.key(), wall_seconds=time.perf_counter() - started,
                  finished=time.strftime("%Y-%m-%d %H:%M:%S"))
    return result


# ---- aggregation ------------------------------------------------------------------------------------


def summarize(runs: dict, budget_key: str | None = None) -> dict:
    """Per arm: mean and sd over seeds of each task and Avg., dev best, and how many seeds ran."""
    from stsdemo.evaluate import TASKS

    by_arm: dict[str, list] = {}
    for result in runs.values():
        # the untrained base model does not depend on the training budget: it belongs to every table
        if budget_key is None or result.get("budget_key") == budget_key or result["arm"] == "base":
            by_arm.setdefault(result["arm"], []).append(result)
    summary = {}
    for arm, results in by_arm.items():
        row = {"label": results[0]["label"], "group": results[0]["group"], "seeds": sorted(r["seed"] for r in results)}
        for task in (*TASKS, "Avg."):
            row[task], row[f"{task} sd"] = mean_sd([r["test"][task] for r in results])
        row["best_steps"] = [r.get("best_step", "-") for r in sorted(results, key=lambda r: r["seed"])]
        devs = [r["dev_best"] for r in results if r.get("dev_best") is not None]
        if devs:
            row["dev"], row["dev sd"] = mean_sd(devs)
        # where training ended up on dev, whatever was selected: cosine, and the head's own Spearman
        last = [r["dev_curve"][-1] for r in results if r.get("dev_curve")]
        if last:
            row["last dev cosine"] = float(np.mean([e["dev_cosine"] for e in last]))
            heads = [e["dev_head"] for e in last if "dev_head" in e]
            row["last dev head"] = float(np.mean(heads)) if heads else None
        summary[arm] = row
    return summary


def expand(selection: str) -> list[str]:
    names = []
    for part in [p.strip() for p in selection.split(",") if p.strip()]:
        if part == "all":
            names += list(ARMS)
        elif part in GROUPS:
            names += [n for n, spec in ARMS.items() if spec["group"] == part]
        elif part in ARMS:
            names.append(part)
        else:
            raise SystemExit(f"unknown arm or group {part!r}; see --list")
    return list(dict.fromkeys(names))


def claim(key: str, budget_key: str) -> bool:
    """Mark ``key`` as taken by this process, unless a live process has taken it: lets several jobs
    (``--skip-done``) work through one plan side by side without running a run twice."""
    import os

    from .common import _locked, results_path

    path = results_path()
    with _locked(path.with_name(path.name + ".claims")):
        claims_file = out_dir() / f"{path.name}.claims.json"
        import json

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


def quick_budget() -> Budget:
    return Budget(max_steps=2, batch_size=8, max_length=32, eval_every=2, stage1_max_steps=1, max_pairs=32,
                  dev_pairs=24, test_pairs=12)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arms", default="main", help="comma-separated arms and/or groups "
                        f"({', '.join(GROUPS)}, all); default: main")
    parser.add_argument("--seeds", type=int, default=3, help="seeds for the starred arms (others run seed 42)")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--max-steps", type=int, default=None, help="same step budget for every arm (default: full epoch)")
    parser.add_argument("--stage1-max-steps", type=int, default=None, help="steps of stage 1 (head on NLI) of two-stage arms")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--eval-every", type=int, default=100, help="steps between STS-B dev evaluations")
    parser.add_argument("--plan", default=None, help="explicit run order as arm@seed entries, e.g. "
                        "sk2-2stage@42,st-cosent@42,sk2-2stage@43 (overrides --arms/--seeds)")
    parser.add_argument("--only-seeds", default=None, help="run only these seeds of the plan, e.g. 43,44 "
                        "(to split the seeds of the starred arms over two jobs)")
    parser.add_argument("--skip-done", action="store_true", help="skip runs already in the results file with this budget")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (2 steps, 32 pairs, 12 test pairs per task)")
    parser.add_argument("--list", action="store_true", help="list arms and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, spec in ARMS.items():
            print(f"{name:22s} {spec['group']:8s} {'*' if spec.get('star') else ' '} {spec['label']}")
        return {}
    setup_environment(args.threads)
    if args.quick:
        budget = quick_budget()
    else:
        budget = Budget(epochs=args.epochs, max_steps=args.max_steps, batch_size=args.batch_size,
                        max_length=args.max_length, eval_every=args.eval_every, stage1_max_steps=args.stage1_max_steps)
    names = expand(args.arms)
    done = load_results().get("quality", {}).get("runs", {}) if args.skip_done else {}
    sets = test_sets(budget)
    finished = {}
    # Seed-major order: every arm's first seed before any arm's second, so a cut-short job still has
    # one run of every arm.
    plan = [(name, seed) for index, seed in enumerate(SEEDS[: max(1, args.seeds)]) for name in names
            if index == 0 or (ARMS[name].get("star") and not args.quick)]
    if args.plan:  # explicit order: arm@seed entries (seed 42 when none is given)
        plan = [(entry.split("@")[0].strip(), int(entry.split("@")[1]) if "@" in entry else SEEDS[0])
                for entry in args.plan.split(",") if entry.strip()]
        for name, _ in plan:
            expand(name)  # validates
    if args.only_seeds:
        wanted = {int(x) for x in args.only_seeds.split(",") if x.strip()}
        plan = [(name, seed) for name, seed in plan if seed in wanted]
    log(f"quality: {len(plan)} runs planned, budget {budget.key()}")
    for name, seed in plan:
        if True:
            key = f"{name}/seed{seed}" + ("/quick" if args.quick else "")
            if args.skip_done:
                done = load_results().get("quality", {}).get("runs", {})
            if key in done and done[key].get("budget_key") == budget.key():
                log(f"skip {key} (done)")
                continue
            if args.skip_done and not claim(key, budget.key()):
                log(f"skip {key} (another job is running it)")
                continue
            log(f"start {key}")
            try:
                result = run_one(name, seed, budget, sets)
            except Exception as error:  # one broken arm must not lose the others
                log(f"FAILED {key}: {type(error).__name__}: {error}")
                update_results("quality", {"failed": {**load_results().get("quality", {}).get("failed", {}),
                                                      key: f"{type(error).__name__}: {error}"}})
                if args.quick:
                    raise
                continue
            finished[key] = result
            runs = {**load_results().get("quality", {}).get("runs", {}), key: result}
            update_results("quality", {"runs": runs})
            log(f"done {key}: Avg. {result['test']['Avg.']:.2f} dev {result.get('dev_best', float('nan')):.2f} "
                f"in {result['wall_seconds']:.0f}s")
    return finished


if __name__ == "__main__":
    main(sys.argv[1:])
