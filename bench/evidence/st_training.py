"""sentence-transformers' own trainer (``SentenceTransformerTrainer``) as a ``bench.evidence.quality`` arm: the same
training pairs, budget and dev pairs as our arms, at our settings or at the library's documented recipe, keeping
the checkpoint with the best STS-B dev. ``bench.perf.speed`` times the same trainer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from ..common import Timer, cuda_available, st_module
from .quality_arms import ST_SETTINGS, QualityBudget
from .quality_scoring import base_scores, evaluate_encoder, stsb_node_accuracy

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
    parts = {
        "stsb": filter_leakage(load_stsb("train"), tests)[0],
        "sick": filter_leakage(load_sick("train"), tests)[0],
    }
    if data == "stsb+sick/one-set-a-batch":
        return parts
    return {"train": parts[data.split("-")[0]]}


def st_trainer(
    loss_name: str,
    seed: int,
    budget: QualityBudget,
    workdir,
    dev=None,
    train_pairs=None,
    evaluate=True,
    model_path: str | None = None,
    settings: str = "matched",
    point: dict | None = None,
    precision: str | None = None,
):
    """sentence-transformers' own trainer on our training pairs (labels scaled to 0..1), ready to ``.train()``.

    ``settings="matched"``: the same model, pairs, batch size, max length, steps, warm-up share, weight decay
    and (encoder) lr as our loop. ``"doc"``: the library's documented STS recipe (``ST_SETTINGS``), capped by
    ``budget.max_steps`` when that is set. ``point`` overrides ``lr``, the loss's ``scale`` and the training
    ``data`` (a key of ``ST_DATA``). Dev: ``EmbeddingSimilarityEvaluator`` on STS-B dev. ``precision`` (fp32,
    tf32, bf16 or fp16): by default bf16 on a GPU, as the quality runs trained, else fp32.
    """
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )

    from stsdemo import environment as stsdemo_environment

    point = point or {}
    precision = precision or ("bf16" if cuda_available() else "fp32")  # the quality runs' bf16 on a GPU
    recipe = {**ST_SETTINGS[settings], **{k: v for k, v in point.items() if k == "lr"}}
    batch_size = recipe["batch_size"] or budget.batch_size
    epochs = recipe["epochs"] or budget.epochs
    parts = (
        {"train": train_pairs}
        if train_pairs is not None
        else st_training_parts(point.get("data", "stsb+sick"))
    )
    if budget.max_pairs:
        parts = {
            name: pairs.select(range(min(budget.max_pairs, len(pairs)))) for name, pairs in parts.items()
        }
    model = SentenceTransformer(
        str(model_path or stsdemo_environment.default_model_path()),
        device="cuda" if cuda_available() else "cpu",
    )
    model.max_seq_length = budget.max_length
    datasets = {
        name: Dataset.from_dict(
            {
                "sentence1": pairs.sentences1,
                "sentence2": pairs.sentences2,
                "score": (pairs.labels / 5.0).tolist(),
            }
        )
        for name, pairs in parts.items()
    }
    data = datasets["train"] if len(datasets) == 1 else datasets  # a dict: each batch from one set
    steps_per_epoch = sum(-(-len(pairs) // batch_size) for pairs in parts.values())
    total = max(1, int(np.ceil(steps_per_epoch * epochs)))
    if budget.max_steps:
        total = min(total, budget.max_steps)
    evaluator = None
    if evaluate and dev is not None:
        evaluator = st_module("evaluation").EmbeddingSimilarityEvaluator(
            dev.sentences1,
            dev.sentences2,
            (dev.labels / 5.0).tolist(),
            main_similarity="cosine",
            name="stsb-dev",
            batch_size=64,
            write_csv=False,
        )
    args = SentenceTransformerTrainingArguments(
        output_dir=str(workdir),
        max_steps=total,
        per_device_train_batch_size=batch_size,
        learning_rate=recipe["lr"],
        warmup_steps=int(recipe["warmup"] * total),
        weight_decay=recipe["weight_decay"],
        lr_scheduler_type="linear",
        max_grad_norm=1.0,
        seed=seed,
        data_seed=seed,
        eval_strategy="steps" if evaluator else "no",
        eval_steps=budget.eval_every_for(batch_size),
        save_strategy="no",
        logging_steps=50,
        report_to=[],
        disable_tqdm=True,
        bf16=precision == "bf16",
        fp16=precision == "fp16",
        tf32=True if precision == "tf32" else None,
        # pinned memory only helps a GPU; on a CPU torch warns it is unused
        dataloader_num_workers=0,
        dataloader_pin_memory=cuda_available(),
    )
    loss = getattr(st_module("losses"), loss_name)(model, **{k: v for k, v in point.items() if k == "scale"})
    trainer = SentenceTransformerTrainer(
        model=model, args=args, train_dataset=data, loss=loss, evaluator=evaluator
    )
    info = dict(
        loss=loss_name,
        settings=settings,
        lr=recipe["lr"],
        warmup=recipe["warmup"],
        weight_decay=recipe["weight_decay"],
        epochs=epochs,
        batch_size=batch_size,
        eval_every=budget.eval_every_for(batch_size),
        scale=getattr(loss, "scale", None),
        data=point.get("data", "stsb+sick") if train_pairs is None else "given",
    )
    return trainer, model, evaluator, total, sum(len(pairs) for pairs in parts.values()), info


def run_st(
    spec: dict,
    seed: int,
    budget: QualityBudget,
    sets,
    workdir: Path,
    model_path: str | None,
    model_tag: str,
    point: dict | None = None,
) -> dict:
    """Train a sentence-transformers arm with its own trainer; ``sets=None`` stops after training (dev only). Not
    through stsdemo.workflow: sentence-transformers' trainer (its loop, its keep-the-best) is the baseline measured."""
    import torch
    from transformers import TrainerCallback

    from stsdemo.config import TrainConfig
    from stsdemo.model import SiameseRegressor
    from stsdemo.train import load_dev

    dev = load_dev(TrainConfig(max_dev_pairs=budget.dev_pairs))  # the same dev pairs as our arms score
    torch.manual_seed(seed)
    trainer, model, evaluator, total, n_pairs, info = st_trainer(
        spec["loss"],
        seed,
        budget,
        workdir / "trainer",
        dev=dev,
        model_path=model_path,
        settings=spec["settings"],
        point=point,
    )
    initial = evaluator(model)  # sets evaluator.primary_metric
    metric = evaluator.primary_metric or "stsb-dev_spearman_cosine"
    best = dict(score=-np.inf, step=0, state=None)
    curve = []

    def consider(score: float, step: int):
        curve.append(dict(stage=1, step=step, dev_cosine=round(score * 100, 3)))
        if score > best["score"]:
            best.update(
                score=score,
                step=step,
                state={k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
            )

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
    trained = dict(
        dev_best=best["score"] * 100,
        best_step=f"1:{best['step']}",
        dev_curve=curve,
        settings=info,
        steps=total,
        pairs_seen=total * info["batch_size"],
        train_pairs=n_pairs,
        train_seconds=timer.seconds,
        train_runtime=output.metrics.get("train_runtime"),
    )
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
    return dict(
        trained,
        test=scores,
        eval_seconds=seconds,
        test_from="base" if reuse is not None else "checkpoint",
        checkpoint=str(workdir),
        **stsb_node_accuracy(tuned, sets, False, budget.dev_pairs),
    )
