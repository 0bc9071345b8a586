"""Quality on the 7-task SentEval protocol (SimCSE's: Spearman x100 of cosine, STS12-16 "all", STS-B, SICK-R).

The paper's budget, the default: one full epoch over the 6,080 leakage-filtered STS-B + SICK-R train pairs
(380 steps at batch 16), max length 256, STS-B dev (cosine Spearman) at step 0, every 95 steps and at the
end; the best checkpoint by dev is kept, and the 7 test sets are scored once on it after the run. Stage 1
of the two-stage recipe (head on SNLI, encoder frozen) is capped at ``STAGE1_MAX_STEPS`` steps.

    python -m bench.quality --list                               # arms, groups, plan groups
    python -m bench.quality --arms minilm-main --seeds 3 --skip-done
    python -m bench.quality --model mpnet --arms mpnet-main --skip-done
    python -m bench.quality --arms sk2-2stage,st-cosent --max-steps 150     # a reduced budget, same for all
    python -m bench.quality --quick                              # tiny sizes: a smoke test

``--model``: ``minilm`` (the embedded all-MiniLM-L6-v2, default), ``mpnet`` (all-mpnet-base-v2 assembled by
``bench.mpnet``) or a folder / hub id. Every run record names its ``model``, ``arm``, ``seed`` and
``budget`` and is merged into docs/results.json (section ``quality``) as soon as it finishes, under the key
``model/arm/seedN/budget-tag``; ``--skip-done`` skips what is there, so a plan can be stopped and resumed.
The best checkpoint of every run is kept under ``bench/out/checkpoints/`` (``bench.fusion`` reads them).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .common import (Timer, add_run, cuda_available, device_name, load_results, log, mean_sd, out_dir, results_lock,
                     results_path, setup_environment, st_module, update_results)
from .schema import check_record, quality_failed, quality_runs, record_model, run_key

SEEDS = (42, 43, 44)
STEPS_PER_EPOCH = 380       # 6,080 filtered pairs / batch 16
EVAL_EVERY = 95             # a quarter epoch: dev at steps 95, 190, 285 and 380 (and step 0)
STAGE1_MAX_STEPS = 190      # stage 1 of the two-stage recipe: 190 steps x 16 = 3,040 SNLI pairs, head only
MODELS = {"minilm": "all-MiniLM-L6-v2", "mpnet": "all-mpnet-base-v2"}

# sentence-transformers' trainer at two settings: "matched" = our loop's budget and optimiser settings
# (lr 2e-5, warm-up 20 %, weight decay 0.01, the table's epochs and batch size); "doc" = what the library's
# documentation recommends for STS fine-tuning of a trained sentence-transformers model (its example
# training_stsbenchmark_continue_training.py, written for all-mpnet-base-v2: 4 epochs, batch 16, warm-up
# ratio 0.1, and TrainingArguments' defaults lr 5e-5, weight decay 0, linear schedule; the losses at their
# default scale, 20 for CoSENT and AnglE).
ST_SETTINGS = {
    "matched": dict(lr=2e-5, warmup=0.2, weight_decay=0.01, epochs=None, batch_size=None),
    "doc": dict(lr=5e-5, warmup=0.1, weight_decay=0.0, epochs=4.0, batch_size=16),
}
ST_DOC_NOTE = ("sentence-transformers' documented STS recipe (examples/.../sts/training_stsbenchmark_continue_"
               "training.py + TrainingArguments defaults): 4 epochs, batch 16, lr 5e-5, warm-up ratio 0.1, weight "
               "decay 0, linear schedule, loss at its default scale (20 for CoSENT/AnglE)")

# ---- the arms ---------------------------------------------------------------------------------------
# kind: base (no training), ours (stsdemo.train), st (sentence-transformers' own SentenceTransformerTrainer).
# Order matters: a plan runs the main arms in this order, the four-epoch recipes (official, st-*-doc) last.
# family: "head" = the paper's head [u, v, |u-v|], "cosine" = the prediction a*cos(u, v) + b (a, b learned).

ARMS: dict[str, dict] = {
    "base": dict(kind="base", group="main", label="{encoder} (no training)"),
    # the paper's head, two-stage (the paper's recipe for contrastive encoders)
    "sk2-2stage": dict(kind="ours", group="main", family="head", label="ours: Smooth K2, paper head, two-stage "
                       "(paper recipe)", config=dict(loss="sk2", two_stage=True)),
    "trelu-2stage": dict(kind="ours", group="main", family="head",
                         label="ours: Translated ReLU, paper head, two-stage",
                         config=dict(loss="trelu", two_stage=True)),
    "mse-2stage": dict(kind="ours", group="main", family="head", label="MSE, paper head, two-stage",
                       config=dict(loss="mse", two_stage=True)),
    "l1-2stage": dict(kind="ours", group="main", family="head", label="L1, paper head, two-stage",
                      config=dict(loss="l1", two_stage=True)),
    # the cosine target: a*cos(u, v) + b, one stage (no head to fit first)
    "sk2-cosine": dict(kind="ours", group="main", family="cosine", label="ours: Smooth K2, cosine target",
                       config=dict(loss="sk2", target="cosine")),
    "trelu-cosine": dict(kind="ours", group="main", family="cosine", label="ours: Translated ReLU, cosine target",
                         config=dict(loss="trelu", target="cosine")),
    "mse-cosine": dict(kind="ours", group="main", family="cosine", label="MSE, cosine target",
                       config=dict(loss="mse", target="cosine")),
    "l1-cosine": dict(kind="ours", group="main", family="cosine", label="L1, cosine target",
                      config=dict(loss="l1", target="cosine")),
    "ce": dict(kind="ours", group="main", family="head", label="cross-entropy head (Sentence-BERT classification)",
               config=dict(loss="ce")),
    "infonce": dict(kind="ours", group="main", label="+Contrast: InfoNCE on pairs >= 4.0",
                    config=dict(loss="infonce", threshold=4.0)),
    "pcc": dict(kind="ours", group="main", label="Pcc-tuning: 1 - Pearson(cos, label) per batch",
                config=dict(loss="pcc")),
    "st-cossim": dict(kind="st", group="main", loss="CosineSimilarityLoss", settings="matched",
                      label="sentence-transformers CosineSimilarityLoss (our settings)"),
    "st-cosent": dict(kind="st", group="main", loss="CoSENTLoss", settings="matched",
                      label="sentence-transformers CoSENTLoss (our settings)"),
    "st-angle": dict(kind="st", group="main", loss="AnglELoss", settings="matched",
                     label="sentence-transformers AnglELoss (our settings)"),
    "official": dict(kind="ours", group="main", family="head", preset="tune-official",
                     label="official code's tune settings (SK2 k 3.5, x0 0.2, lr 5e-5, 4 epochs, batch 8, two-stage)",
                     notes="preset tune-official (ZBWpro/STS-Regression tune-jina-nomic.py); its own epochs, batch "
                           "size and lr; dev every 1,520 pairs like the others"),
    "st-cossim-doc": dict(kind="st", group="main", loss="CosineSimilarityLoss", settings="doc",
                          label="sentence-transformers CosineSimilarityLoss (documented recipe)", notes=ST_DOC_NOTE),
    "st-cosent-doc": dict(kind="st", group="main", loss="CoSENTLoss", settings="doc",
                          label="sentence-transformers CoSENTLoss (documented recipe, scale 20)", notes=ST_DOC_NOTE),
    "st-angle-doc": dict(kind="st", group="main", loss="AnglELoss", settings="doc",
                         label="sentence-transformers AnglELoss (documented recipe, scale 20)", notes=ST_DOC_NOTE),
    # one-stage versions of the paper-head losses
    "sk2-1stage": dict(kind="ours", group="stages", family="head", label="ours: Smooth K2, paper head, one stage",
                       config=dict(loss="sk2")),
    "trelu-1stage": dict(kind="ours", group="stages", family="head",
                         label="ours: Translated ReLU, paper head, one stage", config=dict(loss="trelu")),
    "mse-1stage": dict(kind="ours", group="stages", family="head", label="MSE, paper head, one stage",
                       config=dict(loss="mse")),
    "l1-1stage": dict(kind="ours", group="stages", family="head", label="L1, paper head, one stage",
                      config=dict(loss="l1")),
    # the cosine target without rounding the training labels to the nodes 0..5 (the paper rounds its tune data)
    "sk2-cosine-raw": dict(kind="ours", group="variant", family="cosine",
                           label="ours: Smooth K2, cosine target, unrounded labels",
                           config=dict(loss="sk2", target="cosine", snap_labels=False)),
    # head ablation (paper Table 6); [u,v,|u-v|] is sk2-2stage
    "head-uv": dict(kind="ours", group="head", family="head", label="head [u,v] (Smooth K2, two-stage)",
                    config=dict(loss="sk2", two_stage=True, features="u,v")),
    "head-absdiff": dict(kind="ours", group="head", family="head", label="head [|u-v|] (Smooth K2, two-stage)",
                         config=dict(loss="sk2", two_stage=True, features="|u-v|")),
    # paper Table 1's question on NLI data (SNLI dev+test): regression vs classification, buffer vs none
    "nli-sk2": dict(kind="ours", group="nli", label="NLI: regression, Smooth K2 (buffer)",
                    config=dict(loss="sk2", data="nli")),
    "nli-trelu": dict(kind="ours", group="nli", label="NLI: regression, Translated ReLU (buffer)",
                      config=dict(loss="trelu", data="nli")),
    "nli-mse": dict(kind="ours", group="nli", label="NLI: regression, MSE (no buffer)",
                    config=dict(loss="mse", data="nli")),
    "nli-l1": dict(kind="ours", group="nli", label="NLI: regression, L1 (no buffer)",
                   config=dict(loss="l1", data="nli")),
    "nli-ce": dict(kind="ours", group="nli", label="NLI: classification, cross-entropy",
                   config=dict(loss="ce", data="nli")),
}
# k / x0 sweep like the paper's Table 5 (Smooth K2, two-stage), dev-selected: one knob at a time around
# k = 2, x0 = 0.25 (that point is sk2-2stage); x0 = 0 is the same loss without a buffer zone.
SWEEP = [(2.0, 0.0), (2.0, 0.1), (2.0, 0.5), (1.0, 0.25), (3.0, 0.25)]
for _k, _x0 in SWEEP:
    ARMS[f"sweep-k{_k:g}-x{_x0:g}"] = dict(kind="ours", group="sweep", family="head",
                                           label=f"Smooth K2 k={_k:g} x0={_x0:g}, two-stage",
                                           config=dict(loss="sk2", two_stage=True, k=_k, x0=_x0))
GROUPS = sorted({spec["group"] for spec in ARMS.values()})
MAIN = [name for name, spec in ARMS.items() if spec["group"] == "main"]

# Plan groups: the arms of one launch, and which of them get the extra seeds of ``--seeds``. "best:a|b" is
# whichever of a and b had the higher STS-B dev on the first seed (decided when its second seed is due,
# from the recorded runs: dev only, never test).
BEST_HEAD = "best:sk2-2stage|trelu-2stage"          # ours, paper head
BEST_COSINE = "best:sk2-cosine|trelu-cosine"        # ours, cosine target
PLAN_GROUPS = {
    "minilm-main": dict(arms=MAIN, seeded=[BEST_HEAD, BEST_COSINE, "best:st-cossim|st-cossim-doc",
                                           "best:st-cosent|st-cosent-doc", "pcc"]),
    "mpnet-main": dict(arms=MAIN, seeded=[BEST_HEAD, BEST_COSINE]),
}


@dataclass
class Budget:
    """What every arm gets; the same for all of them in one table (arms with their own recipe, such as
    ``official`` and the ``st-*-doc`` arms, override epochs, batch size and lr, and say so)."""

    epochs: float = 1.0
    max_steps: int | None = None       # None = the full epoch(s)
    batch_size: int = 16
    max_length: int = 256
    eval_every: int = EVAL_EVERY
    stage1_max_steps: int | None = STAGE1_MAX_STEPS
    max_pairs: int | None = None       # quick mode only
    dev_pairs: int | None = None       # quick mode only (None = all 1,500 STS-B dev pairs)
    test_pairs: int | None = None      # quick mode only (None = every test pair)

    def key(self) -> str:
        return ",".join(f"{k}={v}" for k, v in asdict(self).items())

    def tag(self) -> str:
        """A short name for result keys: ``paper`` (the default), ``quick``, or a hash of the settings."""
        if self == Budget():
            return "paper"
        if self == quick_budget():
            return "quick"
        return "b" + hashlib.sha1(self.key().encode()).hexdigest()[:8]

    def eval_every_for(self, batch_size: int) -> int:
        """Dev cadence for an arm with its own batch size: every as many pairs as the table's cadence."""
        return max(1, round(self.eval_every * self.batch_size / batch_size))


def quick_budget() -> Budget:
    return Budget(max_steps=2, batch_size=8, max_length=32, eval_every=2, stage1_max_steps=1, max_pairs=32,
                  dev_pairs=24, test_pairs=12)


def arm_label(name: str, model: str) -> str:
    return ARMS[name]["label"].format(encoder=MODELS.get(model, model))


# ---- running one arm --------------------------------------------------------------------------------


def checkpoint_dir(model: str, arm: str, seed: int, tag: str) -> Path:
    """Where a run's best checkpoint is kept (bench.fusion reads it): ``bench/out/checkpoints/...``."""
    return out_dir() / "checkpoints" / model / tag / f"{arm}-s{seed}"


def test_sets(budget: Budget) -> dict:
    from stsdemo.data import senteval_test_sets

    sets = senteval_test_sets()
    if budget.test_pairs:
        sets = {name: pairs.spaced(budget.test_pairs) for name, pairs in sets.items()}
    return sets


def base_scores(budget: Budget, model: str) -> dict | None:
    """Test scores of the recorded base run of ``model`` (same max length, full test sets), if any.

    When an arm's best dev checkpoint is step 0, that checkpoint *is* the untrained encoder, so its test
    scores are the base run's (deterministic, same evaluation): they are reused, saving a 7-task pass, and
    the run is marked ``test_from = "base"``. This looks at dev only, never at test.
    """
    if budget.test_pairs:
        return None
    for key, result in quality_runs(load_results()).items():
        if (result["arm"] == "base" and record_model(result) == model and not key.endswith("quick")
                and result["budget"]["max_length"] == budget.max_length):
            return result["test"]
    return None


def evaluate_encoder(encode, sets) -> tuple[dict, float]:
    from stsdemo.evaluate import evaluate_senteval

    with Timer() as timer:
        scores = evaluate_senteval(encode, test_sets=sets)
    return scores, timer.seconds


def stsb_node_accuracy(model, sets, own_prediction: bool, dev_pairs: int | None = None) -> dict:
    """STS-B test node accuracy (%): the share of pairs whose prediction rounds to the gold label's node.

    The prediction is the model's own (its head or a*cos + b) where the run trained one (``own_prediction``);
    an encoder without one (no training, sentence-transformers' losses, Pcc-tuning, InfoNCE) gets
    ``a*cos + b`` fitted by least squares on STS-B dev, never on test: the core's readings
    (:func:`stsdemo.final_eval.scoring_steps`).
    """
    from stsdemo.config import TrainConfig
    from stsdemo.final_eval import scoring_steps
    from stsdemo.train import load_dev

    dev = None if own_prediction else load_dev(TrainConfig(max_dev_pairs=dev_pairs))
    *_, (_, scores) = scoring_steps(model, {"STSBenchmark": sets["STSBenchmark"]},
                                    "prediction" if own_prediction else "fitted", dev)
    return dict(stsb_node_accuracy=scores.node_accuracy["STSBenchmark"], node_accuracy_from=scores.node_from)


def run_base(budget: Budget, sets, model_path: str | None) -> dict:
    from stsdemo.model import SiameseRegressor

    model = SiameseRegressor.from_encoder(model_path, max_length=budget.max_length)
    scores, seconds = evaluate_encoder(model.encode, sets)
    return dict(test=scores, eval_seconds=seconds, steps=0, pairs_seen=0,
                **stsb_node_accuracy(model, sets, False, budget.dev_pairs))


def ours_config(spec: dict, seed: int, budget: Budget, model_path: str | None, workdir: Path,
                point: dict | None = None):
    """The TrainConfig of one of our arms under ``budget`` (a preset arm keeps its own epochs, batch and lr);
    ``point`` overrides the arm's settings (a tuning grid point: ``lr``, ``k``, ``x0``)."""
    from stsdemo.config import TrainConfig

    common = dict(seed=seed, max_length=budget.max_length, max_steps=budget.max_steps, log_every=50,
                  max_pairs=budget.max_pairs, max_dev_pairs=budget.dev_pairs, output_dir=str(workdir),
                  model=model_path or "")
    if spec.get("preset"):
        config = TrainConfig.from_preset(spec["preset"], **common)
    else:
        config = TrainConfig(epochs=budget.epochs, batch_size=budget.batch_size, **common,
                             **{**spec.get("config", {}), **(point or {})})
    config.eval_every = budget.eval_every_for(config.batch_size)
    config.stage1_max_steps = budget.stage1_max_steps if config.two_stage else None
    return config


def run_ours(spec: dict, seed: int, budget: Budget, sets, workdir: Path, model_path: str | None, model: str,
             point: dict | None = None) -> dict:
    """Train one of our arms through the core workflow (:func:`stsdemo.workflow.train_and_evaluate`), which then
    scores its best checkpoint; ``sets=None`` stops after training (dev only: a tuning grid run)."""
    from stsdemo.events import DoneEvent, EvalEvent, FinalEvalEvent, StartEvent
    from stsdemo.losses.spec import LOSSES
    from stsdemo.model import SiameseRegressor
    from stsdemo.workflow import train_and_evaluate

    config = ours_config(spec, seed, budget, model_path, workdir, point)
    evals, done, starts = [], None, []
    events = train_and_evaluate(config, evaluate=sets is not None, test_sets=sets)
    with Timer() as timer:
        for event in events:
            if isinstance(event, EvalEvent):
                evals.append(dict(stage=event.stage, step=event.step, dev_cosine=round(event.dev_cosine, 3),
                                  dev_head=round(event.dev_head, 3)))
            elif isinstance(event, StartEvent):
                starts.append(dict(stage=event.stage, name=event.stage_name, train_pairs=event.train_pairs,
                                   total_steps=event.total_steps))
            elif isinstance(event, DoneEvent):
                done = event
                break   # the evaluation, if any, comes next from the same generator
    if done is None or done.outcome != "finished":
        events.close()
        raise RuntimeError(f"training did not finish: {done and (done.message or done.outcome)}")
    final = starts[-1]
    settings = {k: getattr(config, k) for k in ("loss", "target", "k", "x0", "lr", "epochs", "batch_size",
                                                 "eval_every", "two_stage", "stage1_max_steps", "snap_labels")}
    trained = dict(dev_best=done.best, best_step=str(done.best_step), dev_curve=evals, stages=starts, settings=settings,
                   steps=final["total_steps"], pairs_seen=final["total_steps"] * config.batch_size,
                   train_pairs=final["train_pairs"], train_seconds=timer.seconds, pairs_per_s=done.pairs_per_s)
    reuse = base_scores(budget, model) if sets is not None and done.best_step == (1, 0) else None
    if sets is None or reuse is not None:
        events.close()   # no 7-task pass: a tuning run, or the step-0 checkpoint is the base encoder
    if sets is None:
        return trained
    if reuse is not None:
        node = stsb_node_accuracy(SiameseRegressor.load(done.checkpoint), sets,
                                  LOSSES[config.loss].trains_prediction, budget.dev_pairs)
        return dict(trained, test=dict(reuse), eval_seconds=0.0, test_from="base", checkpoint=str(done.checkpoint),
                    **node)
    with Timer() as evaluation:
        scores = [e for e in events if isinstance(e, FinalEvalEvent) and e.results is not None][-1]
    return dict(trained, test=scores.results, eval_seconds=evaluation.seconds, test_from="checkpoint",
                checkpoint=str(done.checkpoint), stsb_node_accuracy=scores.node_accuracy["STSBenchmark"],
                node_accuracy_from=scores.node_from)


# Training data of sentence-transformers' arms; the tuning's CoSENT/AnglE diagnosis varies it one factor at a time.
ST_DATA = {
    "stsb+sick": "STS-B + SICK-R train, leakage-filtered, mixed in every batch (ours)",
    "stsb+sick/one-set-a-batch": "the same pairs, each batch from one data set (sentence-transformers' proportional "
                                 "multi-dataset sampler)",
    "stsb-filtered": "STS-B train alone, leakage-filtered",
    "sick-filtered": "SICK-R train alone, leakage-filtered",
    "stsb": "STS-B train alone, unfiltered (the documented recipe's data)",
}


def st_training_parts(data: str) -> dict:
    """``{part name: PairSet}`` for a key of ``ST_DATA``: one part, or one per data set where each batch must come
    from one set."""
    from stsdemo.data import filter_leakage, load_sick, load_stsb, load_training_data, senteval_test_sets

    if data == "stsb+sick":
        return {"train": load_training_data("stsb+sick")}
    if data == "stsb":
        return {"train": load_stsb("train")}
    tests = list(senteval_test_sets().values())
    parts = {"stsb": filter_leakage(load_stsb("train"), tests)[0], "sick": filter_leakage(load_sick("train"), tests)[0]}
    if data == "stsb+sick/one-set-a-batch":
        return parts
    return {"train": parts[data.split("-")[0]]}


def st_trainer(loss_name: str, seed: int, budget: Budget, workdir, dev=None, train_pairs=None, evaluate=True,
               model_path: str | None = None, settings: str = "matched", point: dict | None = None):
    """sentence-transformers' own trainer on our training pairs (labels scaled to 0..1), ready to ``.train()``.

    ``settings="matched"``: the same model, pairs, batch size, max length, steps, warm-up share, weight decay
    and (encoder) lr as our loop. ``"doc"``: the library's documented STS recipe (``ST_SETTINGS``), capped by
    ``budget.max_steps`` when that is set. ``point`` overrides ``lr``, the loss's ``scale`` and the training
    ``data`` (a key of ``ST_DATA``). Dev: ``EmbeddingSimilarityEvaluator`` on STS-B dev.
    """
    from datasets import Dataset
    from sentence_transformers import (SentenceTransformer, SentenceTransformerTrainer,
                                       SentenceTransformerTrainingArguments)

    from stsdemo import environment as stsdemo_environment

    point = point or {}
    recipe = {**ST_SETTINGS[settings], **{k: v for k, v in point.items() if k == "lr"}}
    batch_size = recipe["batch_size"] or budget.batch_size
    epochs = recipe["epochs"] or budget.epochs
    parts = {"train": train_pairs} if train_pairs is not None else st_training_parts(point.get("data", "stsb+sick"))
    if budget.max_pairs:
        parts = {name: pairs.select(range(min(budget.max_pairs, len(pairs)))) for name, pairs in parts.items()}
    model = SentenceTransformer(str(model_path or stsdemo_environment.default_model_path()),
                                device="cuda" if cuda_available() else "cpu")
    model.max_seq_length = budget.max_length
    datasets = {name: Dataset.from_dict({"sentence1": pairs.sentences1, "sentence2": pairs.sentences2,
                                         "score": (pairs.labels / 5.0).tolist()}) for name, pairs in parts.items()}
    data = datasets["train"] if len(datasets) == 1 else datasets  # a dict: each batch from one set
    steps_per_epoch = sum(-(-len(pairs) // batch_size) for pairs in parts.values())
    total = max(1, int(np.ceil(steps_per_epoch * epochs)))
    if budget.max_steps:
        total = min(total, budget.max_steps)
    evaluator = None
    if evaluate and dev is not None:
        evaluator = st_module("evaluation").EmbeddingSimilarityEvaluator(
            dev.sentences1, dev.sentences2, (dev.labels / 5.0).tolist(), main_similarity="cosine", name="stsb-dev",
            batch_size=64, write_csv=False)
    args = SentenceTransformerTrainingArguments(
        output_dir=str(workdir), max_steps=total, per_device_train_batch_size=batch_size,
        learning_rate=recipe["lr"], warmup_steps=int(recipe["warmup"] * total), weight_decay=recipe["weight_decay"],
        lr_scheduler_type="linear", max_grad_norm=1.0, seed=seed, data_seed=seed,
        eval_strategy="steps" if evaluator else "no", eval_steps=budget.eval_every_for(batch_size),
        save_strategy="no", logging_steps=50, report_to=[], disable_tqdm=True, bf16=cuda_available(),
        # pinned memory only helps a GPU; on a CPU torch warns it is unused
        dataloader_num_workers=0, dataloader_pin_memory=cuda_available())
    loss = getattr(st_module("losses"), loss_name)(model, **{k: v for k, v in point.items() if k == "scale"})
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data, loss=loss, evaluator=evaluator)
    info = dict(loss=loss_name, settings=settings, lr=recipe["lr"], warmup=recipe["warmup"],
                weight_decay=recipe["weight_decay"], epochs=epochs, batch_size=batch_size,
                eval_every=budget.eval_every_for(batch_size), scale=getattr(loss, "scale", None),
                data=point.get("data", "stsb+sick") if train_pairs is None else "given")
    return trainer, model, evaluator, total, sum(len(pairs) for pairs in parts.values()), info


def run_st(spec: dict, seed: int, budget: Budget, sets, workdir: Path, model_path: str | None, model_tag: str,
           point: dict | None = None) -> dict:
    """Train a sentence-transformers arm with its own trainer; ``sets=None`` stops after training (dev only)."""
    import torch
    from transformers import TrainerCallback

    from stsdemo.config import TrainConfig
    from stsdemo.model import SiameseRegressor
    from stsdemo.train import load_dev

    dev = load_dev(TrainConfig(max_dev_pairs=budget.dev_pairs))  # the same dev pairs as our arms score
    torch.manual_seed(seed)
    trainer, model, evaluator, total, n_pairs, info = st_trainer(
        spec["loss"], seed, budget, workdir / "trainer", dev=dev, model_path=model_path, settings=spec["settings"],
        point=point)
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
    if total % info["eval_every"]:
        consider(float(evaluator(model)[metric]), total)
    shutil.rmtree(workdir / "trainer", ignore_errors=True)
    trained = dict(dev_best=best["score"] * 100, best_step=f"1:{best['step']}", dev_curve=curve, settings=info,
                   steps=total, pairs_seen=total * info["batch_size"], train_pairs=n_pairs,
                   train_seconds=timer.seconds, train_runtime=output.metrics.get("train_runtime"))
    if sets is None:
        return trained
    model.load_state_dict(best["state"])
    model.save(str(workdir))  # a sentence-transformers folder; SiameseRegressor.load reads its encoder
    reuse = base_scores(budget, model_tag) if best["step"] == 0 else None
    tuned = SiameseRegressor.load(str(workdir))
    if reuse is not None:
        scores, seconds = dict(reuse), 0.0
    else:
        scores, seconds = evaluate_encoder(tuned.encode, sets)
    return dict(trained, test=scores, eval_seconds=seconds, test_from="base" if reuse is not None else "checkpoint",
                checkpoint=str(workdir), **stsb_node_accuracy(tuned, sets, False, budget.dev_pairs))


def run_one(name: str, seed: int, budget: Budget, sets, model: str = "minilm", model_path: str | None = None,
            point: dict | None = None, tag: str | None = None) -> dict:
    """Run one arm; its best checkpoint stays in :func:`checkpoint_dir` (the base arm keeps none).

    ``point`` overrides the arm's settings (``bench.tuning``'s grid points); ``tag`` names the budget in
    keys and records (default :meth:`Budget.tag`); ``sets=None`` records dev only and keeps no checkpoint."""
    spec = ARMS[name]
    tag = tag or budget.tag()
    workdir = checkpoint_dir(model, f"{name}@{point_slug(point)}".replace("/", "_") if point else name, seed, tag)
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
    result.update(model=model, model_path=MODELS.get(model, model_path or MODELS["minilm"]), arm=name, seed=seed,
                  label=arm_label(name, model), group=spec["group"], kind=spec["kind"], family=spec.get("family"),
                  notes=spec.get("notes", ""), budget=asdict(budget), budget_key=budget.key(), budget_tag=tag,
                  lr=run_lr(spec, point), wall_seconds=time.perf_counter() - started,
                  finished=time.strftime("%Y-%m-%d %H:%M:%S"), machine=device_name())
    return result


def point_slug(point: dict) -> str:
    """Settings that override an arm's, as a run key shows them: ``lr=5e-05,k=1,x0=0.1``."""
    return ",".join(f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"
                    for name, value in point.items())


def run_lr(spec: dict, point: dict | None) -> float | None:
    """The (encoder) learning rate a run trains at: the point's, else its recipe's; None for no training."""
    from stsdemo.config import PRESETS, TrainConfig

    if point and "lr" in point:
        return point["lr"]
    if spec["kind"] == "st":
        return ST_SETTINGS[spec["settings"]]["lr"]
    if spec["kind"] == "ours":
        return PRESETS[spec["preset"]].settings().get("lr", TrainConfig.lr) if spec.get("preset") else TrainConfig.lr
    return None


# ---- aggregation ------------------------------------------------------------------------------------


def summarize(runs: dict, budget_key: str | None = None, model: str | None = None) -> dict:
    """Per arm: mean and sd over seeds of each task and Avg., dev best, and how many seeds ran.

    Only runs of ``model`` (when given) and ``budget_key`` (when given; the untrained base run belongs to
    every budget of its model) count."""
    from stsdemo.evaluate import TASKS

    by_arm: dict[str, list] = {}
    for result in runs.values():
        if model is not None and record_model(result) != model:
            continue
        if budget_key is None or result.get("budget_key") == budget_key or result["arm"] == "base":
            by_arm.setdefault(result["arm"], []).append(result)
    summary = {}
    for arm, results in by_arm.items():
        if arm == "base":  # one base row per model: the most recent record
            results = sorted(results, key=lambda r: r.get("finished", ""))[-1:]
        row = {"label": results[0]["label"], "group": results[0]["group"], "kind": results[0].get("kind"),
               "family": results[0].get("family", ARMS.get(arm, {}).get("family")),
               "seeds": sorted(r["seed"] for r in results)}
        for task in (*TASKS, "Avg."):
            row[task], row[f"{task} sd"] = mean_sd([r["test"][task] for r in results])
        row["per_seed"] = {r["seed"]: r["test"]["Avg."] for r in results}
        row["best_steps"] = [r.get("best_step", "-") for r in sorted(results, key=lambda r: r["seed"])]
        devs = [r["dev_best"] for r in results if r.get("dev_best") is not None]
        if devs:
            row["dev"], row["dev sd"] = mean_sd(devs)
        nodes = [r["stsb_node_accuracy"] for r in results if "stsb_node_accuracy" in r]
        if nodes:
            (row["node"], row["node sd"]), row["node n"] = mean_sd(nodes), len(nodes)
        # where training ended up on dev, whatever was selected: cosine, and the head's own Spearman
        last = [r["dev_curve"][-1] for r in results if r.get("dev_curve")]
        if last:
            row["last dev cosine"] = float(np.mean([e["dev_cosine"] for e in last]))
            heads = [e["dev_head"] for e in last if "dev_head" in e]
            row["last dev head"] = float(np.mean(heads)) if heads else None
        row["train_seconds"] = sum(r.get("train_seconds", 0.0) or 0.0 for r in results)
        row["wall_seconds"] = sum(r.get("wall_seconds", 0.0) or 0.0 for r in results)
        summary[arm] = row
    return summary


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
        entries += PLAN_GROUPS[part]["seeded"] if part in PLAN_GROUPS else [a for a in expand(part) if a != "base"]
    return list(dict.fromkeys(entries))


def build_plan(selection: str, seeds: int) -> list[tuple[str, int]]:
    """(arm or ``best:a|b`` selector, seed) in seed-major order: every arm's first seed before any arm's
    second, so a job cut short still has one run of every arm."""
    plan = [(name, SEEDS[0]) for name in expand(selection)]
    for seed in SEEDS[1:max(1, seeds)]:
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


def complete(result: dict | None, budget: Budget) -> bool:
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
        print(f"\n{name}: {', '.join(group['arms'])}\n  extra seeds (--seeds N): {', '.join(group['seeded'])}")
    print(f"\nBudget 'paper': 1 epoch = {STEPS_PER_EPOCH} steps x batch 16, max length 256, dev every {EVAL_EVERY} "
          f"steps; stage 1 capped at {STAGE1_MAX_STEPS} steps.")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm", help="minilm (embedded all-MiniLM-L6-v2), mpnet "
                        "(all-mpnet-base-v2 via bench.mpnet) or a model folder / hub id")
    parser.add_argument("--arms", default="minilm-main", help="comma-separated arms, groups "
                        f"({', '.join(GROUPS)}), plan groups ({', '.join(PLAN_GROUPS)}) or all")
    parser.add_argument("--seeds", type=int, default=1, choices=range(1, len(SEEDS) + 1), metavar="N",
                        help=f"how many of the seeds {', '.join(map(str, SEEDS))} the seeded entries of a plan group "
                             "(or every arm named) run: 1 to 3; --plan arm@seed names other seeds")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--max-steps", type=int, default=None,
                        help="same step budget for every arm (default: the full epoch)")
    parser.add_argument("--stage1-max-steps", type=int, default=STAGE1_MAX_STEPS,
                        help="cap on stage 1 (head on SNLI) of two-stage arms")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--eval-every", type=int, default=EVAL_EVERY, help="steps between STS-B dev evaluations")
    parser.add_argument("--plan", default=None, help="explicit run order as arm@seed entries, e.g. "
                        "sk2-2stage@42,st-cosent@42,sk2-2stage@43 (overrides --arms/--seeds)")
    parser.add_argument("--only-seeds", default=None, help="run only these seeds of the plan, e.g. 43,44")
    parser.add_argument("--skip-done", action="store_true", help="skip runs already in the results file")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (2 steps, 32 pairs, 12 test pairs per task)")
    parser.add_argument("--list", action="store_true", help="list arms and plan groups and exit")
    args = parser.parse_args(argv)
    if args.list:
        list_arms()
        return {}
    setup_environment(args.threads)
    from .mpnet import model_tag, resolve_model

    model, model_path = model_tag(args.model), resolve_model(args.model)
    if args.quick:
        budget = quick_budget()
    else:
        budget = Budget(epochs=args.epochs, max_steps=args.max_steps, batch_size=args.batch_size,
                        max_length=args.max_length, eval_every=args.eval_every, stage1_max_steps=args.stage1_max_steps)
    tag = budget.tag()
    plan = build_plan(args.arms, args.seeds)
    if args.plan:  # explicit order: arm@seed entries (seed 42 when none is given)
        plan = [(entry.split("@")[0].strip(), int(entry.split("@")[1]) if "@" in entry else SEEDS[0])
                for entry in args.plan.split(",") if entry.strip()]
        for name, _ in plan:
            if not name.startswith("best:"):
                expand(name)  # validates
    if args.only_seeds:
        wanted = {int(x) for x in args.only_seeds.split(",") if x.strip()}
        plan = [(name, seed) for name, seed in plan if seed in wanted]
    sets = test_sets(budget)
    finished = {}
    log(f"quality: {len(plan)} runs planned on {model} ({model_path or MODELS['minilm']}), "
        f"budget {tag}: {budget.key()}")
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
            log(f"FAILED {key}: {type(error).__name__}: {error}")
            failed = {**quality_failed(load_results()), key: f"{type(error).__name__}: {error}"}
            update_results("quality", {"failed": failed})
            if args.quick:
                raise
            continue
        if devs:
            result["chosen_by_dev"] = dict(entry=entry, first_seed_dev=devs)
        check_record("quality", result)
        finished[key] = result
        add_run("quality", key, result)
        log(f"done {key}: Avg. {result['test']['Avg.']:.2f} dev {result.get('dev_best', float('nan')):.2f} "
            f"in {result['wall_seconds']:.0f}s")
    return finished


if __name__ == "__main__":
    main(sys.argv[1:])
