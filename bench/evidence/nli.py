"""NLI accuracy: the regression framework on its home turf, three ordered labels on one line.

Contradiction 0, neutral 1, entailment 2 (gap d = 1). Every arm trains all-MiniLM-L6-v2 (mean pooling, the
paper's head on ``[u, v, |u-v|]``) for one epoch at batch 16 on SNLI dev (9,842 pairs) less a fixed
1,000 pairs held out to select the checkpoint (accuracy on them, at step 0, every quarter epoch and at the
end). The kept checkpoint is then scored once on SNLI test (9,824 pairs): accuracy and macro-F1.

Arms: Sentence-BERT's softmax classifier (cross-entropy over the three classes, its arg-max is the class),
and the paper head trained as a regression with Translated ReLU, Smooth K2 (both with the buffer zone
x0 = 0.25 and the paper's BERT k), MSE and L1 (no buffer), where the class is the nearest node.
This is claim C1 (regression vs classification) and C2 (buffer vs none) where the paper's framing is native.

``--train-pairs N`` keeps only N training pairs (a fixed, seed-independent sample) and ``--epochs E`` passes
over them: the small-data condition of ``bench.evidence`` (the same arms, 500 pairs x 10 epochs, recorded
under the budget tag ``10epochs-500pairs``), where a regulariser such as the buffer zone should matter most.

    python -m bench.evidence.nli --seeds 3 --skip-done                # the 5 arms x 3 seeds (about 5 CPU-minutes each)
    python -m bench.evidence.nli --arms nli-sk2,nli-mse --train-pairs 500 --epochs 10 --seeds 3 --skip-done
    python -m bench.evidence.nli --quick                              # tiny sizes: a smoke test

Each run is merged into docs/results.json, section ``nli``, under ``model/arm/seedN/budget-tag`` as soon as
it finishes; ``--skip-done`` skips what is there.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from stsdemo.data import SNLI_HELD_OUT

from .. import schema
from ..common import Timer, device_name, load_results, log, out_dir, setup_environment, update_results

SEEDS = (42, 43, 44)

ARMS = {
    "nli-ce": dict(loss="ce", label="Sentence-BERT softmax classifier (cross-entropy)"),
    "nli-trelu": dict(loss="trelu", label="regression, Translated ReLU (buffer x0 = 0.25)"),
    "nli-sk2": dict(loss="sk2", label="regression, Smooth K2 (buffer x0 = 0.25)"),
    "nli-mse": dict(loss="mse", label="regression, MSE (no buffer)"),
    "nli-l1": dict(loss="l1", label="regression, L1 (no buffer)"),
}


@dataclass
class NliBudget:
    """What every NLI arm gets: one epoch over the training pairs at batch 16, dev every quarter epoch."""

    epochs: float = 1.0
    batch_size: int = 16
    max_length: int = 128  # no SNLI dev or test sentence is longer than 63 tokens: none is cut
    train_pairs: int | None = None  # None = all 8,842 pairs left after the held-out 1,000
    max_steps: int | None = None  # quick mode only
    test_pairs: int | None = None  # quick mode only (None = all 9,824)
    held_out: int = SNLI_HELD_OUT

    def tag(self) -> str:
        if self == quick_budget():
            return "quick"
        epochs = "epoch" if self.epochs == 1 else f"{self.epochs:g}epochs"
        return epochs if self.train_pairs is None else f"{epochs}-{self.train_pairs}pairs"


def quick_budget() -> NliBudget:
    return NliBudget(batch_size=8, max_length=32, train_pairs=40, max_steps=4, test_pairs=30, held_out=24)


def run_key(arm: str, seed: int, budget: NliBudget) -> str:
    return schema.run_key("minilm", arm, seed, budget.tag())


def split_dev(budget: NliBudget):
    """(training pairs, held-out selection pairs): SNLI dev split by ``stsdemo.data.snli_dev_split``, the
    same for every arm and seed."""
    from stsdemo.data import snli_dev_split

    return snli_dev_split(budget.held_out, budget.train_pairs)


def test_set(budget: NliBudget):
    from stsdemo.data import load_snli

    test = load_snli("test")
    return test.spaced(budget.test_pairs) if budget.test_pairs else test


def run_one(arm: str, seed: int, budget: NliBudget, train_pairs, held_out, test) -> dict:
    """Train one arm, keep the checkpoint with the best held-out accuracy, score it on SNLI test. Not through
    stsdemo.workflow: its evaluation is the 7 STS tasks, and an NLI arm is read by SNLI test accuracy instead."""
    from stsdemo.config import TrainConfig
    from stsdemo.events import Outcome
    from stsdemo.model import SiameseRegressor
    from stsdemo.train import DoneEvent, EvalEvent, train

    workdir = out_dir() / "checkpoints" / "nli" / budget.tag() / f"{arm}-s{seed}"
    shutil.rmtree(workdir, ignore_errors=True)
    steps = math.ceil(math.ceil(len(train_pairs) / budget.batch_size) * budget.epochs)  # dev 4 times a run
    # what the checkpoint's run.json records: trained on (a sample of) snli-train, chosen by held-out accuracy
    config = TrainConfig(
        loss=ARMS[arm]["loss"],
        data="snli-train",
        dev_data="snli-heldout",
        select_by="accuracy",
        seed=seed,
        epochs=budget.epochs,
        batch_size=budget.batch_size,
        max_length=budget.max_length,
        max_steps=budget.max_steps,
        eval_every=max(1, steps // 4),
        log_every=50,
        output_dir=str(workdir),
    )
    curve, done = [], None
    started = time.perf_counter()
    with Timer() as timer:
        for event in train(config, train_sets=[train_pairs], dev=held_out):
            if isinstance(event, EvalEvent):
                curve.append(dict(step=event.step, accuracy=round(event.dev_accuracy, 2)))
            elif isinstance(event, DoneEvent):
                done = event
    if done is None or done.outcome is not Outcome.FINISHED:
        raise RuntimeError(f"training did not finish: {done and (done.message or done.outcome)}")
    with Timer() as evaluation:
        metrics = snli_metrics(SiameseRegressor.load(done.checkpoint), test)
    return dict(
        arm=arm,
        seed=seed,
        label=ARMS[arm]["label"],
        loss=config.loss,
        k=config.k,
        x0=config.x0,
        budget=asdict(budget),
        budget_tag=budget.tag(),
        train_pairs=len(train_pairs),
        held_out_pairs=len(held_out),
        test_pairs=len(test),
        held_out_best=done.best,
        best_step=str(done.best_step),
        held_out_curve=curve,
        test_accuracy=metrics["accuracy"],
        test_macro_f1=metrics["macro_f1"],
        confusion=metrics["confusion"],
        categories=list(test.scheme.categories),
        steps=done.steps,
        train_seconds=timer.seconds,
        eval_seconds=evaluation.seconds,
        wall_seconds=time.perf_counter() - started,
        machine=device_name(),
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
        checkpoint=str(workdir),
    )


SLICE = 500  # evenly spread SNLI test pairs whose metrics a shipped scorer's test re-checks


def snli_metrics(model, test) -> dict:
    """Accuracy and macro-F1 (%) of ``model`` on ``test``, and its confusion matrix (rows: gold)."""
    from sklearn.metrics import confusion_matrix

    from stsdemo.evaluate import EncodeCache, dev_metrics

    cache = EncodeCache(model.encode)  # each test sentence encoded once for the metrics and the confusion
    metrics = dev_metrics(cache.scorer(model), test)
    predicted = model.classify_embeddings(cache(test.sentences1), cache(test.sentences2))
    confusion = confusion_matrix(
        test.scheme.nearest_index(test.labels), predicted, labels=list(range(len(test.scheme.categories)))
    )
    return dict(
        accuracy=metrics["accuracy"],
        macro_f1=metrics["macro_f1"],
        pairs=len(test),
        confusion=confusion.tolist(),
    )


def evaluate_scorer(folder: str) -> dict:
    """SNLI test metrics of a saved scorer, on all 9,824 pairs and on an evenly spread slice (which its test
    re-checks), written to ``snli.json`` beside it."""
    from stsdemo.atomic import write_json_atomic
    from stsdemo.model import SiameseRegressor

    model, test = SiameseRegressor.load(folder), test_set(NliBudget())
    with Timer() as timer:
        record = dict(test=snli_metrics(model, test), slice=snli_metrics(model, test.spaced(SLICE)))
    record.update(seconds=timer.seconds, machine=device_name(), finished=time.strftime("%Y-%m-%d %H:%M:%S"))
    write_json_atomic(Path(folder) / "snli.json", record)
    return record


def build_plan(arms: list[str], seeds: int) -> list[tuple[str, int]]:
    """Seed-major: every arm's first seed before any arm's second, so a cut plan still covers every arm."""
    return [(arm, seed) for seed in SEEDS[: max(1, seeds)] for arm in arms]


def run_plan(arms: list[str], seeds: int, budget: NliBudget, skip_done: bool) -> dict:
    train_pairs, held_out = split_dev(budget)
    test = test_set(budget)
    finished = {}
    for arm, seed in build_plan(arms, seeds):
        key = run_key(arm, seed, budget)
        if skip_done and key in schema.nli_runs(load_results()):
            log(f"skip {key} (done)")
            continue
        log(f"start {key} ({len(train_pairs)} training pairs)")
        result = run_one(arm, seed, budget, train_pairs, held_out, test)
        schema.check_record("nli", result)
        finished[key] = result
        update_results("nli", {"runs": {**schema.nli_runs(load_results()), key: result}})
        log(
            f"done {key}: accuracy {result['test_accuracy']:.2f} macro-F1 {result['test_macro_f1']:.2f} "
            f"(held-out {result['held_out_best']:.2f} at {result['best_step']}) in {result['wall_seconds']:.0f}s"
        )
    return finished


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.nli",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated arms of: {', '.join(ARMS)}")
    parser.add_argument(
        "--seeds",
        type=int,
        default=3,
        choices=range(1, len(SEEDS) + 1),
        metavar="N",
        help=f"how many of the seeds {', '.join(map(str, SEEDS))} each arm runs: 1 to 3",
    )
    parser.add_argument(
        "--train-pairs", type=int, default=None, help="keep only N training pairs (fixed sample)"
    )
    parser.add_argument(
        "--epochs", type=float, default=1.0, help="passes over the training pairs (default 1)"
    )
    parser.add_argument("--skip-done", action="store_true", help="skip runs already in the results file")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    parser.add_argument(
        "--evaluate",
        metavar="FOLDER",
        help="only score a saved scorer on SNLI test (all pairs and "
        f"a {SLICE}-pair slice) into FOLDER/snli.json",
    )
    args = parser.parse_args(argv)
    if args.evaluate:
        setup_environment(args.threads)
        record = evaluate_scorer(args.evaluate)
        log(
            f"{args.evaluate}: SNLI test accuracy {record['test']['accuracy']:.2f}, macro-F1 "
            f"{record['test']['macro_f1']:.2f}"
        )
        return record
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        parser.error(f"unknown arm(s) {', '.join(unknown)}; choose from {', '.join(ARMS)}")
    setup_environment(args.threads)
    budget = quick_budget() if args.quick else NliBudget(epochs=args.epochs, train_pairs=args.train_pairs)
    return run_plan(arms, args.seeds, budget, args.skip_done)


if __name__ == "__main__":
    main(sys.argv[1:])
