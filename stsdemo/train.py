"""The training loop, as a generator of typed events that any front end (CLI, app, benchmark) consumes.

    for event in train(TrainConfig(loss="sk2", max_steps=200)):
        print(event.to_dict())

One loop serves both stages of the paper's recipe for contrastive encoders: stage 1 freezes the encoder
and fits the head on NLI; stage 2 trains everything on the leakage-filtered STS-B + SICK-R train data.
After every ``eval_every`` steps the model is scored on STS-B dev and the best checkpoint is written, so
a stop (``stop.set()`` from another thread, or closing the generator) always leaves the best one on disk.
It runs under Accelerate: one process on CPU or GPU (bf16 autocast on GPUs that have it natively, fp16 with a
gradient scaler on older ones), or several with ``torchrun`` / ``accelerate launch``, each taking its share of
every batch. The settings are declared once, in :mod:`stsdemo.config`.
"""

from __future__ import annotations

import ctypes
import gc
import math
import random
import re
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import torch
from accelerate import Accelerator, DistributedDataParallelKwargs
from transformers import get_linear_schedule_with_warmup

from . import settings
from .atomic import write_json_atomic
from .config import PAPER_DEFAULTS, PRESETS, TrainConfig, encoder_family
from .data import PairSet, load_stsb, load_training_data
from .errors import InputError
from .evaluate import DevEvaluator
from .labels import NLI, get_scheme
from .losses import build_loss
from .model import SiameseRegressor, cuda_bf16, is_saved_run

__all__ = ["TrainConfig", "PRESETS", "PAPER_DEFAULTS", "train", "mixed_precision", "Event",
           "StartEvent", "StepEvent", "EvalEvent", "DoneEvent", "parameter_groups", "run_dir"]


def mixed_precision(setting: str = "auto") -> str:
    """Accelerate's ``mixed_precision`` for a ``precision`` setting: ``auto`` takes bf16 where the GPU has
    it natively (Ampere and newer), fp16 autocast with a gradient scaler on older GPUs (T4, V100), fp32 on
    the CPU (where bf16 matmuls are slower than fp32)."""
    if not torch.cuda.is_available() or setting == "fp32":
        return "no"
    if setting == "auto":
        return "bf16" if cuda_bf16() else "fp16"
    return setting


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
    error_hist: dict = field(default_factory=dict)  # |prediction - label| on dev: {"width", "counts"}
    x0: float = 0.0              # the buffer zone of this stage's loss (0 for losses without one)
    gap: float = 1.0             # the gap d between nodes


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
    """The stages of a run: what data, which parameters learn, lr and length, and whether the stage starts
    from the best checkpoint so far (the calibration stage does)."""
    def head_stage(name: str, data: str, from_best: bool = False, loss: str = "") -> dict:
        return dict(name=f"{name} on {data} (encoder frozen)", data=data, frozen=True, lr=config.stage1_lr,
                    head_lr=config.stage1_lr, epochs=config.stage1_epochs, max_steps=config.stage1_max_steps,
                    from_best=from_best, loss=loss or config.loss)

    full = dict(name="head only" if config.head_only else "full", data=config.data, frozen=config.head_only,
                lr=config.lr, head_lr=config.head_lr, epochs=config.epochs, max_steps=config.max_steps,
                from_best=False, loss=config.loss)
    stages = [head_stage("head", config.stage1_data)] if config.two_stage else []
    stages.append(full)
    if config.calibrate_data:
        stages.append(head_stage("calibration", config.calibrate_data, from_best=True, loss=config.calibrate_loss))
    return stages


def load_pairs(config: TrainConfig, data_name: str) -> PairSet:
    """A stage's training pairs as the config names them (``max_pairs`` applied)."""
    scheme = NLI if data_name == "nli" else get_scheme(config.scheme)
    pairs = load_training_data(data_name, scheme=scheme)
    if config.max_pairs:
        pairs = pairs.select(range(min(config.max_pairs, len(pairs))))
    if len(pairs) == 0:
        raise InputError(f"training data {data_name!r} has no pairs")
    return pairs


def load_dev(config: TrainConfig) -> PairSet:
    """STS-B dev, or ``max_dev_pairs`` of it evenly spread (the file is ordered by genre, so its first
    pairs are all image captions)."""
    dev = load_stsb("dev")
    if config.max_dev_pairs and config.max_dev_pairs < len(dev):
        dev = dev.select(np.linspace(0, len(dev) - 1, config.max_dev_pairs).round().astype(int))
    return dev


def set_trainable(model: SiameseRegressor, encoder: bool) -> None:
    """The head always learns; the encoder learns when ``encoder`` (through its adapter alone under LoRA)."""
    for name, param in model.encoder.named_parameters():
        param.requires_grad_(encoder and (not model.lora or "lora_" in name))
    model.head.requires_grad_(True)


def _load_model(config: TrainConfig, scheme) -> SiameseRegressor:
    if is_saved_run(config.model):
        # A warm start, head or calibration included; a head-only run keeps a LoRA scorer's adapter as it is,
        # so it saves compactly again.
        return SiameseRegressor.load(config.model, keep_adapter=config.head_only)
    return SiameseRegressor.from_encoder(config.model or None, features=config.features, target=config.target,
                                         classification=config.loss == "ce", scheme=scheme,
                                         max_length=config.max_length)


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


LossChoice = torch.nn.Module | Callable[[int], torch.nn.Module] | None


def train(config: TrainConfig, stop: threading.Event | None = None, *, train_sets: list[PairSet] | None = None,
          dev: PairSet | DevEvaluator | None = None, loss: LossChoice = None) -> Iterator[Event]:
    """Train as configured, yielding events; the best checkpoint by STS-B dev is kept in ``run_dir``.

    ``stop``: set it from any thread to end the run after the current step. Closing the generator
    (a front end that goes away) ends it the same way. What the run would otherwise build can be given:
    ``train_sets`` (one PairSet per stage), ``dev`` (a PairSet, or a :class:`DevEvaluator` that names its
    selection metric) and ``loss`` (a module, or ``stage -> module``).
    """
    config.validate()
    stop = stop or threading.Event()
    cuda = torch.cuda.is_available()
    # cpu=True lets several CPU processes (torchrun) form a gloo group; on CUDA each takes its own GPU.
    # Encoders may hold parts the mean pooling never uses (BERT's pooler), which DDP must be told about.
    unused = DistributedDataParallelKwargs(find_unused_parameters=True)
    accelerator = Accelerator(cpu=not cuda, mixed_precision=mixed_precision(config.precision),
                              kwargs_handlers=[unused])
    seed_everything(config.seed)
    stages = _stages(config)
    if train_sets is None:
        train_sets = [load_pairs(config, stage["data"]) for stage in stages]
    if len(train_sets) != len(stages):
        raise InputError(f"this run has {len(stages)} stage(s) but {len(train_sets)} training sets were given")
    evaluator = dev if isinstance(dev, DevEvaluator) else DevEvaluator(dev or load_dev(config), config.select_by)
    scheme = train_sets[-1].scheme
    try:
        model = _load_model(config, scheme)
        if config.max_length > model.max_positions:
            raise InputError(f"max length {config.max_length} is more than this model takes ({model.max_positions} "
                             f"tokens); allowed: 8 to {model.max_positions}")
        model.max_length = config.max_length
        if config.lora_rank:
            model.add_lora(config.lora_rank)
        model.to(accelerator.device)
    except (torch.OutOfMemoryError, MemoryError) as error:
        raise InputError(f"out of memory loading the model onto {accelerator.device} ({type(error).__name__}); "
                         "free memory or pick a smaller model") from None
    family = encoder_family(getattr(model.encoder.config, "model_type", None))
    out_dir = run_dir(config)
    main = accelerator.is_main_process
    started = time.perf_counter()
    best = dict(key=(-math.inf, -math.inf), score=-math.inf, step="0:0")
    steps_done, pairs_seen, train_seconds = 0, 0, 0.0
    reason = "finished"

    def evaluate(stage_index: int, step: int, total: int, loss_fn) -> EvalEvent:
        metrics = evaluator(model)
        # Ties on the primary metric go to the better node accuracy: a cosine target's a, b never change
        # its ranking, only where its predictions fall.
        key = (metrics["score"], metrics["accuracy"])
        is_best = key > best["key"]
        if is_best:
            best.update(key=key, score=metrics["score"], step=f"{stage_index}:{step}")
            model.save(out_dir, head_only=config.head_only)
            write_json_atomic(out_dir / "run.json", {"config": config.to_dict(), "best_dev": metrics["score"],
                                                     "best_step": best["step"], "dev_metrics": metrics})
        return EvalEvent(stage_index, step, total, metrics["cosine_spearman"], metrics["head_spearman"],
                         metrics["accuracy"], best["score"], best["step"], is_best, time.perf_counter() - started,
                         metrics["error_hist"], getattr(loss_fn, "x0", 0.0), evaluator.dev.scheme.gap)

    try:
        for stage_index, (stage, pairs) in enumerate(zip(stages, train_sets), start=1):
            scheme = pairs.scheme
            if stage["from_best"]:
                model = SiameseRegressor.load(str(out_dir), keep_adapter=True).to(accelerator.device)
            if loss is None:
                # A stage with another loss than the run's takes that loss's own paper k.
                k = config.k if stage["loss"] == config.loss else None
                loss_fn = build_loss(stage["loss"], k, config.x0, scheme, config.clamp, config.threshold, family)
            else:
                loss_fn = loss if isinstance(loss, torch.nn.Module) else loss(stage_index)
            regression = getattr(loss_fn, "regression", False)
            labels = scheme.snap(pairs.labels) if config.snap_labels else pairs.labels
            set_trainable(model, not stage["frozen"])
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
                                 accelerator.num_processes, str(out_dir), config.to_dict())
                if stage_index == 1:  # the starting point counts: a run never ends below it on dev
                    yield evaluate(stage_index, 0, total, loss_fn)
            generator = torch.Generator().manual_seed(config.seed + stage_index)
            # Running sums stay on the device; they are read (one sync) only when a step is logged.
            window_loss = torch.zeros((), device=accelerator.device)
            window_inside = torch.zeros((), device=accelerator.device, dtype=torch.long)
            window = dict(batches=0, pairs=0, seconds=0.0)
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
                    loss_value = loss_fn(output, target)
                    accelerator.backward(loss_value)
                    if config.max_grad_norm:
                        accelerator.clip_grad_norm_(model.parameters(), config.max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad(set_to_none=True)
                    step += 1
                    steps_done += 1
                    window_loss += loss_value.detach()
                    if regression:
                        window_inside += loss_fn.inside_buffer(output, target).sum()
                    seconds = time.perf_counter() - tick
                    train_seconds += seconds
                    pairs_seen += len(batch)
                    window["batches"] += 1
                    window["pairs"] += len(shard)
                    window["seconds"] += seconds
                    if main and (step % config.log_every == 0 or step == total):
                        share = int(window_inside) / window["pairs"] if regression else None
                        yield StepEvent(stage_index, step, total, float(window_loss) / window["batches"],
                                        scheduler.get_last_lr()[-1], share,
                                        window["pairs"] * accelerator.num_processes / window["seconds"],
                                        time.perf_counter() - started)
                        window_loss.zero_()
                        window_inside.zero_()
                        window = dict(batches=0, pairs=0, seconds=0.0)
                    if step == total or (step % config.eval_every == 0 and not stop.is_set()):
                        if main:
                            yield evaluate(stage_index, step, total, loss_fn)
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
        output = loss_value = target = optimizer = scheduler = wrapped = model = None  # noqa: F841
        accelerator.free_memory()
        release_memory()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    if main:
        yield DoneEvent(reason != "finished", reason, best["score"], best["step"], str(out_dir), steps_done,
                        pairs_seen / train_seconds if train_seconds else 0.0, time.perf_counter() - started)
