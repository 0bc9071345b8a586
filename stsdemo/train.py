"""The training loop, as a generator of typed events that any front end (CLI, app, benchmark) consumes.

    for event in train(TrainConfig(loss="sk2", max_steps=200)):
        print(event.to_dict())

One loop serves both stages of the paper's recipe for contrastive encoders: stage 1 freezes the encoder
and fits the head on NLI; stage 2 trains everything on the leakage-filtered STS-B + SICK-R train data.
After every ``eval_every`` steps the model is scored on STS-B dev and the best checkpoint is written, so
a stop (``stop.set()`` from another thread, or closing the generator) always leaves the best one on disk.
It runs under Accelerate: one process on CPU or GPU (bf16 autocast on CUDA), or several with ``torchrun``
/ ``accelerate launch``, each taking its share of every batch.
"""

from __future__ import annotations

import ctypes
import gc
import math
import os
import random
import re
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterator

import numpy as np
import torch
from accelerate import Accelerator, DistributedDataParallelKwargs
from transformers import get_linear_schedule_with_warmup

from . import settings
from .atomic import write_json_atomic
from .data import PairSet, load_stsb, load_training_data
from .errors import InputError, check_range
from .evaluate import dev_metrics
from .labels import NLI, get_scheme
from .losses import LOSSES, build_loss
from .model import HEAD_FEATURES, SiameseRegressor, is_saved_run, max_positions

# Settings of the paper (§4 and Table 2): k for BERT / RoBERTa encoders, x0 = 0.25, batch 16, one epoch,
# warmup 0.2, AdamW with weight decay 0.01, layer-wise lr decay 0.95, max length 256.
PRESETS = {
    "paper-bert-trelu": dict(loss="trelu", k=2.5, x0=0.25, data="nli"),
    "paper-bert-sk2": dict(loss="sk2", k=2.0, x0=0.25, data="nli"),
    "paper-roberta-trelu": dict(loss="trelu", k=1.0, x0=0.25, data="nli"),
    "paper-roberta-sk2": dict(loss="sk2", k=3.0, x0=0.25, data="nli"),
    # The paper's recipe for contrastive encoders such as all-MiniLM-L6-v2: frozen encoder on NLI, then
    # everything on STS-B + SICK-R train with test pairs removed.
    "tune-sk2": dict(loss="sk2", k=2.0, x0=0.25, data="stsb+sick", two_stage=True),
    "tune-trelu": dict(loss="trelu", k=2.5, x0=0.25, data="stsb+sick", two_stage=True),
}
PAPER_DEFAULTS = dict(batch_size=16, epochs=1.0, warmup=0.2, weight_decay=0.01, layer_decay=0.95, max_length=256)


@dataclass
class TrainConfig:
    """Everything a run needs; defaults are the paper's where it gives one."""

    model: str = ""                 # hub id, local folder or saved run; "" = embedded all-MiniLM-L6-v2
    data: str = "stsb+sick"         # stsb, sick, stsb+sick (leakage-filtered), nli, or a CSV/TSV path
    scheme: str = "sts"             # label scheme of a CSV: sts, nli or "a, b, c" (ordered)
    loss: str = "sk2"               # see losses.LOSSES
    k: float | None = None          # slope; None = the paper's BERT value for the loss
    x0: float = 0.25                # buffer zone half-width, 0 <= x0 <= d/2
    clamp: bool = True              # clamp predictions to the outermost nodes before the loss
    snap_labels: bool = True        # round training labels to nodes, as the paper's tune data was
    features: str = HEAD_FEATURES[0]
    lr: float = 2e-5
    head_lr: float = 1e-3           # the fresh head learns faster than the pretrained encoder (our choice)
    batch_size: int = 16
    epochs: float = 1.0
    max_steps: int | None = None    # stop after this many steps (per stage); None = run the epochs
    max_length: int = 256
    warmup: float = 0.2
    weight_decay: float = 0.01
    layer_decay: float = 0.95
    max_grad_norm: float = 1.0
    eval_every: int = 100
    log_every: int = 10
    select_by: str = "cosine"       # dev metric for the best checkpoint: "cosine" or "head" Spearman
    seed: int = 42
    two_stage: bool = False
    head_only: bool = False         # freeze the encoder, train and save only the head (a few KB)
    stage1_data: str = "nli"
    stage1_lr: float = 1e-3         # only the head learns in stage 1, so it takes a larger step
    stage1_epochs: float = 1.0
    stage1_max_steps: int | None = None
    threshold: float = 4.0          # InfoNCE positives: pairs labelled at least this
    max_pairs: int | None = None    # use only the first N training pairs (quick demos)
    max_dev_pairs: int | None = None  # score N evenly spread STS-B dev pairs (quick demos and tests)
    output_dir: str | None = None   # where the best checkpoint goes; None = <STSDEMO_OUTPUT_DIR>/<run name>
    run_name: str | None = None

    @classmethod
    def from_preset(cls, preset: str, **overrides) -> "TrainConfig":
        if preset not in PRESETS:
            raise InputError(f"unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
        return cls(**{**PAPER_DEFAULTS, **PRESETS[preset], **overrides})

    def validate(self) -> None:
        """Raise InputError for any setting outside its sane range, before any work starts."""
        if self.loss not in LOSSES:
            raise InputError(f"unknown loss {self.loss!r}; choose one of: {', '.join(LOSSES)}")
        if self.features not in HEAD_FEATURES:
            raise InputError(f"unknown head features {self.features!r}; choose one of: {', '.join(HEAD_FEATURES)}")
        if self.select_by not in ("cosine", "head"):
            raise InputError(f"select_by must be 'cosine' or 'head', got {self.select_by!r}")
        if self.head_only and (self.two_stage or self.loss == "infonce"):
            raise InputError("head-only training is one stage and needs a loss on the head (not infonce)")
        if self.two_stage and self.loss in ("ce", "infonce"):
            raise InputError("two-stage training needs a regression loss (sk2, trelu, mse or l1)")
        check_range("learning rate", self.lr, 0, 1.0, low_open=True)
        check_range("head learning rate", self.head_lr, 0, 1.0, low_open=True)
        check_range("stage-1 learning rate", self.stage1_lr, 0, 1.0, low_open=True)
        check_range("batch size", self.batch_size, 1, 4096, integer=True)
        check_range("epochs", self.epochs, 0, 100, low_open=True)
        check_range("stage-1 epochs", self.stage1_epochs, 0, 100, low_open=True)
        for name in ("max_steps", "stage1_max_steps", "max_pairs", "max_dev_pairs"):
            if getattr(self, name) is not None:
                check_range(name.replace("_", " "), getattr(self, name), 1, 10_000_000, integer=True)
        check_range("max length", self.max_length, 8, 8192, integer=True)
        check_range("warmup", self.warmup, 0, 1)
        check_range("weight decay", self.weight_decay, 0, 1)
        check_range("layer decay", self.layer_decay, 0, 1, low_open=True)
        check_range("eval every", self.eval_every, 1, 10_000_000, integer=True)
        check_range("log every", self.log_every, 1, 10_000_000, integer=True)
        check_range("seed", self.seed, 0, 2**32 - 1, integer=True)
        check_range("max grad norm", self.max_grad_norm, 0, 1e6)
        check_range("InfoNCE threshold", self.threshold)
        for name in ("model", "data", "scheme", "stage1_data"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise InputError(f"{name} must be text (a name or a path), got {type(value).__name__}")
        build_loss(self.loss, self.k, self.x0, get_scheme(self.scheme), self.clamp, self.threshold)
        # The model's place (allowed folders) and its token limit, from its config alone: no weights loaded.
        limit = max_positions(self.model)
        if limit is not None and self.max_length > limit:
            raise InputError(f"max length {self.max_length} is more than this model takes ({limit} tokens); "
                             f"allowed: 8 to {limit}")


# ---- events -----------------------------------------------------------------------------------------


@dataclass
class Event:
    def to_dict(self) -> dict:
        return {"event": type(self).__name__.removesuffix("Event").lower(), **asdict(self)}


@dataclass
class StartEvent(Event):
    stage: int
    stage_name: str
    train_pairs: int
    total_steps: int
    device: str
    processes: int
    output_dir: str
    config: dict = field(default_factory=dict)


@dataclass
class StepEvent(Event):
    stage: int
    step: int
    total_steps: int
    loss: float
    lr: float
    buffer_share: float | None   # share of this window's pairs inside the zero-gradient zone
    pairs_per_s: float
    elapsed: float


@dataclass
class EvalEvent(Event):
    stage: int
    step: int
    total_steps: int
    dev_cosine: float
    dev_head: float
    dev_accuracy: float
    best: float
    best_step: str               # "stage:step" of the best checkpoint so far
    is_best: bool
    elapsed: float


@dataclass
class DoneEvent(Event):
    stopped: bool
    reason: str
    best: float
    best_step: str
    checkpoint: str
    steps: int
    pairs_per_s: float
    elapsed: float


# ---- building blocks --------------------------------------------------------------------------------


def parameter_groups(model: SiameseRegressor, lr: float, head_lr: float, layer_decay: float,
                     weight_decay: float) -> list[dict]:
    """AdamW groups with layer-wise lr decay: the head gets ``head_lr``, encoder layer ``i`` of ``L``
    gets ``lr * layer_decay ** (L + 1 - i)``, the embeddings ``lr * layer_decay ** (L + 1)``.
    Biases and normalisation weights get no weight decay."""
    layer_of = re.compile(r"\.(?:layer|layers|h|block|blocks)\.(\d+)\.")
    named = [(n, p) for n, p in model.encoder.named_parameters() if p.requires_grad]
    depths = [int(m.group(1)) + 1 for n, _ in named if (m := layer_of.search(f".{n}"))]
    top = max(depths, default=0) + 1
    groups: dict[tuple[float, float], list] = {}
    for name, param in named:
        match = layer_of.search(f".{name}")
        depth = int(match.group(1)) + 1 if match else (0 if "embed" in name else top)
        decay = 0.0 if param.ndim < 2 else weight_decay
        groups.setdefault((lr * layer_decay ** (top - depth), decay), []).append(param)
    for name, param in model.head.named_parameters():
        groups.setdefault((head_lr, 0.0 if param.ndim < 2 else weight_decay), []).append(param)
    return [{"params": params, "lr": group_lr, "weight_decay": decay} for (group_lr, decay), params in groups.items()]


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _stages(config: TrainConfig) -> list[dict]:
    """The (one or two) stages of a run: what data, which parameters learn, lr and length."""
    full = dict(name="head only" if config.head_only else "full", data=config.data, frozen=config.head_only,
                lr=config.lr, head_lr=config.head_lr, epochs=config.epochs, max_steps=config.max_steps)
    if not config.two_stage:
        return [full]
    head = dict(name="head on NLI (encoder frozen)", data=config.stage1_data, frozen=True, lr=config.stage1_lr,
                head_lr=config.stage1_lr, epochs=config.stage1_epochs, max_steps=config.stage1_max_steps)
    return [head, full]


def _load_pairs(config: TrainConfig, data_name: str) -> PairSet:
    scheme = NLI if data_name == "nli" else get_scheme(config.scheme)
    pairs = load_training_data(data_name, scheme=scheme)
    if config.max_pairs:
        pairs = pairs.select(range(min(config.max_pairs, len(pairs))))
    if len(pairs) == 0:
        raise InputError(f"training data {data_name!r} has no pairs")
    return pairs


def run_dir(config: TrainConfig) -> Path:
    if config.output_dir:
        return Path(config.output_dir).expanduser().resolve()
    name = config.run_name or time.strftime("%Y%m%d-%H%M%S") + f"-{config.loss}"
    return settings.output_dir() / name


def _steps(count: int) -> str:
    return f"{count} step" + ("" if count == 1 else "s")


def release_memory() -> None:
    """Collect garbage and hand freed heap pages back to the system.

    glibc keeps freed memory in per-thread arenas; in a long-lived app (a worker thread per request) a
    stopped run's few hundred MB would stay counted against the process. ``malloc_trim`` returns them.
    """
    gc.collect()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass


# ---- the loop ---------------------------------------------------------------------------------------


def train(config: TrainConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train as configured, yielding events; the best checkpoint by STS-B dev is kept in ``run_dir``.

    ``stop``: set it from any thread to end the run after the current step. Closing the generator
    (a front end that goes away) ends it the same way.
    """
    config.validate()
    stop = stop or threading.Event()
    cuda = torch.cuda.is_available()
    # cpu=True lets several CPU processes (torchrun) form a gloo group; on CUDA each takes its own GPU.
    # Encoders may hold parts the mean pooling never uses (BERT's pooler), which DDP must be told about.
    unused = DistributedDataParallelKwargs(find_unused_parameters=True)
    accelerator = Accelerator(cpu=not cuda, mixed_precision="bf16" if cuda else "no", kwargs_handlers=[unused])
    seed_everything(config.seed)
    stages = _stages(config)
    train_sets = [_load_pairs(config, stage["data"]) for stage in stages]
    dev = load_stsb("dev")
    if config.max_dev_pairs and config.max_dev_pairs < len(dev):
        # An even spread: the dev file is ordered by genre, so its first pairs are all image captions.
        dev = dev.select(np.linspace(0, len(dev) - 1, config.max_dev_pairs).round().astype(int))
    scheme = train_sets[-1].scheme
    try:
        if is_saved_run(config.model):
            model = SiameseRegressor.load(config.model)  # go on training a saved run, head included
            if model.classification != (config.loss == "ce") or model.scheme.categories != scheme.categories:
                raise InputError(f"saved run {config.model!r} has a different head or label scheme than this run needs")
        else:
            model = SiameseRegressor.from_encoder(config.model or None, features=config.features,
                                                  classification=config.loss == "ce", scheme=scheme,
                                                  max_length=config.max_length)
        if config.max_length > model.max_positions:
            raise InputError(f"max length {config.max_length} is more than this model takes ({model.max_positions} "
                             f"tokens); allowed: 8 to {model.max_positions}")
        model.max_length = config.max_length
        model.to(accelerator.device)
    except (torch.OutOfMemoryError, MemoryError) as error:
        raise InputError(f"out of memory loading the model onto {accelerator.device} ({type(error).__name__}); "
                         "free memory or pick a smaller model") from None
    out_dir = run_dir(config)
    main = accelerator.is_main_process
    started = time.perf_counter()
    best = dict(score=-math.inf, step="0:0")
    steps_done, pairs_seen, train_seconds = 0, 0, 0.0
    reason = "finished"

    def evaluate(stage_index: int, step: int, total: int) -> EvalEvent:
        metrics = dev_metrics(model, dev)
        score = metrics["cosine_spearman" if config.select_by == "cosine" else "head_spearman"]
        is_best = score > best["score"]
        if is_best:
            best.update(score=score, step=f"{stage_index}:{step}")
            model.save(out_dir, head_only=config.head_only)
            write_json_atomic(out_dir / "run.json", {"config": asdict(config), "best_dev": score,
                                                     "best_step": best["step"], "dev_metrics": metrics})
        return EvalEvent(stage_index, step, total, metrics["cosine_spearman"], metrics["head_spearman"],
                         metrics["accuracy"], best["score"], best["step"], is_best,
                         time.perf_counter() - started)

    try:
        for stage_index, (stage, pairs) in enumerate(zip(stages, train_sets), start=1):
            scheme = pairs.scheme
            loss_fn = build_loss(config.loss, config.k, config.x0, scheme, config.clamp, config.threshold)
            labels = scheme.snap(pairs.labels) if config.snap_labels else pairs.labels
            model.encoder.requires_grad_(not stage["frozen"])
            # The fused kernel updates all parameters at once; the default loops over ~100 tensors.
            optimizer = torch.optim.AdamW(parameter_groups(model, stage["lr"], stage["head_lr"],
                                                           config.layer_decay, config.weight_decay),
                                          fused=accelerator.device.type in ("cpu", "cuda"))
            steps_per_epoch = math.ceil(len(pairs) / config.batch_size)
            total = max(1, math.ceil(steps_per_epoch * stage["epochs"]))
            if stage["max_steps"]:
                total = min(total, stage["max_steps"])
            scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup * total), total)
            wrapped, optimizer = accelerator.prepare(model, optimizer)
            if main:
                yield StartEvent(stage_index, stage["name"], len(pairs), total, str(accelerator.device),
                                 accelerator.num_processes, str(out_dir), asdict(config))
                if stage_index == 1:
                    yield evaluate(stage_index, 0, total)
            generator = torch.Generator().manual_seed(config.seed + stage_index)
            window = dict(loss=0.0, batches=0, inside=0, pairs=0, seconds=0.0)
            step = 0
            while step < total and not stop.is_set():
                order = torch.randperm(len(pairs), generator=generator).tolist()
                for start in range(0, len(order), config.batch_size):
                    if step >= total or stop.is_set():
                        break
                    tick = time.perf_counter()
                    model.train()
                    if stage["frozen"]:
                        model.encoder.eval()  # frozen features: no dropout noise
                    batch = order[start:start + config.batch_size]
                    # Each process takes its share of the batch; the gradients are averaged across them.
                    shard = batch[accelerator.process_index::accelerator.num_processes] or batch[:1]
                    target = torch.as_tensor(labels[shard], dtype=torch.float32, device=accelerator.device)
                    output = wrapped(model.tokenize([pairs.sentences1[i] for i in shard]),
                                     model.tokenize([pairs.sentences2[i] for i in shard]))
                    loss = loss_fn(output, target)
                    accelerator.backward(loss)
                    if config.max_grad_norm:
                        accelerator.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad(set_to_none=True)
                    step += 1
                    steps_done += 1
                    seconds = time.perf_counter() - tick
                    train_seconds += seconds
                    pairs_seen += len(batch)
                    window["loss"] += loss.item()
                    window["batches"] += 1
                    window["pairs"] += len(shard)
                    window["seconds"] += seconds
                    if getattr(loss_fn, "regression", False):
                        window["inside"] += int(loss_fn.inside_buffer(output, target).sum())
                    if main and (step % config.log_every == 0 or step == total):
                        share = window["inside"] / window["pairs"] if getattr(loss_fn, "regression", False) else None
                        yield StepEvent(stage_index, step, total, window["loss"] / window["batches"],
                                        scheduler.get_last_lr()[-1], share,
                                        window["pairs"] * accelerator.num_processes / window["seconds"],
                                        time.perf_counter() - started)
                        window = dict(loss=0.0, batches=0, inside=0, pairs=0, seconds=0.0)
                    if step == total or (step % config.eval_every == 0 and not stop.is_set()):
                        if main:
                            yield evaluate(stage_index, step, total)
                        accelerator.wait_for_everyone()
            model = accelerator.unwrap_model(wrapped)
            if stop.is_set():
                reason = "stopped"
                break
    except (torch.OutOfMemoryError, MemoryError) as error:
        reason = (f"out of memory ({type(error).__name__}) after {_steps(steps_done)}: try a smaller batch size "
                  "or max length; the best checkpoint so far is kept")
    except RuntimeError as error:
        text = str(error)
        if "allocate" not in text and "out of memory" not in text:  # CPU allocation failures: RuntimeError
            raise
        reason = (f"out of memory (RuntimeError) after {_steps(steps_done)}: try a smaller batch size or max "
                  "length; the best checkpoint so far is kept")
    except GeneratorExit:
        reason = "stopped"
        raise
    finally:
        # Drop this run's tensors (activations, gradients, optimiser state) before reporting, so a stopped
        # or failed run gives its memory back to the process at once.
        output = loss = target = optimizer = scheduler = wrapped = model = None  # noqa: F841
        accelerator.free_memory()
        release_memory()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    if main:
        yield DoneEvent(reason != "finished", reason, best["score"], best["step"], str(out_dir), steps_done,
                        pairs_seen / train_seconds if train_seconds else 0.0, time.perf_counter() - started)


def config_fields() -> list[str]:
    return [f.name for f in fields(TrainConfig)]
