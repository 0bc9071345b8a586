"""The training loop, as a generator of typed events that any front end (CLI, app, benchmark) consumes.

    for event in train(TrainConfig(loss="sk2", max_steps=200)):
        print(event.to_dict())

One loop serves both stages of the paper's recipe for contrastive encoders: stage 1 freezes the encoder
and fits the head on NLI; stage 2 trains everything on the leakage-filtered STS-B + SICK-R train data.
After every ``eval_every`` steps the model is scored on the dev set (STS-B dev unless ``dev_data`` names
another) and the best checkpoint is written, so a stop (``stop.set()`` from another thread, or closing the
generator) always leaves the best one on disk.
It runs under Accelerate: one process on CPU or GPU, or several with ``torchrun`` / ``accelerate launch``, each
taking its share of every batch. On a GPU ``precision=auto`` trains in whichever of fp32, TF32, bf16 and fp16 a
few timed steps found fastest for this run (:mod:`stsdemo.precision`; the run's record says which and why); the
CPU trains in fp32. A step never waits for the GPU: batches go up without a synchronisation and the loss is read
only every ``log_every`` steps. The settings are declared once, in :mod:`stsdemo.config`.
"""

from __future__ import annotations

import ctypes
import math
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from accelerate import Accelerator, DistributedDataParallelKwargs, PartialState
from accelerate.state import AcceleratorState
from accelerate.utils import broadcast_object_list

from . import environment
from .atomic import write_json_atomic
from .config import PRESETS, TrainConfig, encoder_family
from .data import PairSet, builtin_scheme, load_dev_data, load_training_data
from .errors import InputError
from .evaluate import DevEvaluator
from .events import DoneEvent, EvalEvent, Event, Outcome, StageStep, StartEvent, StepEvent
from .labels import LabelScheme, get_scheme
from .losses.registry import build_loss
from .losses.spec import run_k
from .model import SiameseRegressor, cuda_bf16, to_device
from .model_card import framework_versions, write_card
from .model_source import check_max_length, is_saved_run
from .precision import PrecisionChoice, allow_tf32, choose, training_step_timer
from .preflight import preflight
from .save_format import RUN_RECORD
from .stages import Stage, plan_stages

__all__ = [
    "TrainConfig",
    "PRESETS",
    "train",
    "run_precision",
    "Event",
    "StartEvent",
    "StepEvent",
    "EvalEvent",
    "DoneEvent",
    "Checkpointer",
    "parameter_groups",
    "output_folder",
]


# ---- building blocks --------------------------------------------------------------------------------


def parameter_groups(
    model: SiameseRegressor, lr: float, head_lr: float, layer_decay: float, weight_decay: float
) -> list[dict]:
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
    for param in model.head.parameters():
        groups.setdefault((head_lr, 0.0 if param.ndim < 2 else weight_decay), []).append(param)
    return [
        {"params": params, "lr": group_lr, "weight_decay": decay}
        for (group_lr, decay), params in groups.items()
    ]


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def load_pairs(config: TrainConfig, data_name: str) -> PairSet:
    """A stage's training pairs as the config names them (``max_pairs`` applied)."""
    pairs = load_training_data(data_name, scheme=builtin_scheme(data_name) or get_scheme(config.scheme))
    if config.max_pairs:
        pairs = pairs.select(range(min(config.max_pairs, len(pairs))))
    if len(pairs) == 0:
        raise InputError("training_data_empty", data_name=repr(data_name))
    return pairs


def load_dev(config: TrainConfig) -> PairSet:
    """The config's dev set (STS-B dev by default), or ``max_dev_pairs`` of it evenly spread (STS-B dev is
    ordered by genre, so its first pairs are all image captions)."""
    dev = load_dev_data(config.dev_data)
    return dev.spaced(config.max_dev_pairs) if config.max_dev_pairs else dev


def set_trainable(model: SiameseRegressor, encoder: bool) -> None:
    """The head always learns; the encoder learns when ``encoder`` (through its adapter alone under LoRA)."""
    for name, param in model.encoder.named_parameters():
        param.requires_grad_(encoder and (not model.lora or "lora_" in name))
    model.head.requires_grad_(True)


def _load_model(config: TrainConfig, scheme: LabelScheme) -> SiameseRegressor:
    if is_saved_run(config.model):
        # A warm start, head or calibration included; a head-only run keeps a LoRA scorer's adapter as it is,
        # so it saves compactly again.
        return SiameseRegressor.load(config.model, keep_adapter=config.head_only)
    return SiameseRegressor.from_encoder(
        config.model or None,
        features=config.features,
        target=config.target,
        classification=config.loss == "ce",
        scheme=scheme,
        max_length=config.max_length,
    )


def prepare_model(
    config: TrainConfig, model: SiameseRegressor | None, scheme: LabelScheme, device: torch.device
) -> SiameseRegressor:
    """The model a run starts from (``model``, else what ``config.model`` names) at the run's max length,
    with its LoRA adapter when asked, on ``device``."""
    try:
        if model is None:
            model = _load_model(config, scheme)
        check_max_length(config.max_length, model.max_positions)
        model.max_length = config.max_length
        if config.lora_rank:
            model.add_lora(config.lora_rank)
        return model.to(device)
    except (torch.OutOfMemoryError, MemoryError) as error:
        raise InputError("out_of_memory", device=device, type=type(error).__name__) from None


LossChoice = torch.nn.Module | Callable[[int], torch.nn.Module] | None


def stage_loss(
    config: TrainConfig, stage: Stage, index: int, scheme: LabelScheme, family: str, given: LossChoice
) -> torch.nn.Module:
    """The loss of stage ``index``: ``given`` (a module, or ``stage -> module``), else the stage's own."""
    if given is not None:
        return given if isinstance(given, torch.nn.Module) else given(index)
    # A stage with another loss than the run's takes that loss's own paper k.
    k = config.k if stage.loss == config.loss else None
    return build_loss(stage.loss, k, config.x0, scheme, config.clamp, config.threshold, family)


def output_folder(config: TrainConfig) -> Path:
    """Where a run writes its checkpoints: ``config.output_dir``, else a new folder under ``STSDEMO_OUTPUT_DIR``."""
    if config.output_dir:
        return Path(config.output_dir).expanduser().resolve()
    name = config.run_name or time.strftime("%Y%m%d-%H%M%S") + f"-{config.loss}"
    return environment.output_dir() / name


def process_state() -> PartialState:
    # cpu=True lets several CPU processes (torchrun) form a gloo group; on CUDA each takes its own GPU.
    return PartialState(cpu=not torch.cuda.is_available())


def make_accelerator(precision: PrecisionChoice) -> Accelerator:
    """An Accelerator in ``precision``. Accelerate keeps one mixed precision per process; a single process (the app,
    a notebook) whose earlier run chose another starts its state afresh."""
    earlier = AcceleratorState._shared_state.get(
        "_mixed_precision"
    )  # None: no Accelerator yet in this process
    if earlier not in (None, precision.mixed_precision) and process_state().num_processes == 1:
        AcceleratorState._reset_state()
    # Encoders may hold parts the mean pooling never uses (BERT's pooler), which DDP must be told about.
    unused = DistributedDataParallelKwargs(find_unused_parameters=True)
    return Accelerator(
        cpu=not torch.cuda.is_available(), mixed_precision=precision.mixed_precision, kwargs_handlers=[unused]
    )


PROBE_BATCHES = 3  # distinct batches the precision probe cycles through


def run_precision(
    config: TrainConfig,
    model: SiameseRegressor,
    pairs: PairSet,
    loss_fn: torch.nn.Module,
    state: PartialState,
    step_seconds=None,
) -> PrecisionChoice:
    """The precision ``config`` trains in on this process's device (:func:`stsdemo.precision.choose`). ``auto`` on a
    GPU times training steps of ``model`` on batches of ``pairs`` at the run's batch size and length, with
    ``loss_fn`` (``step_seconds`` replaces that timer); the main process chooses and every process takes its
    choice. The random state is put back, so a run trains as it would have without the probe."""
    if state.device.type != "cuda" or config.precision != "auto" or step_seconds is not None:
        return choose(config.precision, state.device, step_seconds, cuda_bf16(), _where(config, state))
    chosen = [None]
    if state.is_main_process:
        batches = probe_batches(config, model, pairs, state.device)
        saved = torch.get_rng_state(), torch.cuda.get_rng_state_all()
        chosen[0] = choose(
            "auto",
            state.device,
            training_step_timer(model, loss_fn, batches),
            cuda_bf16(),
            _where(config, state),
        )
        torch.set_rng_state(saved[0])
        torch.cuda.set_rng_state_all(saved[1])
    if state.num_processes > 1:
        broadcast_object_list(chosen)
    return chosen[0]


def probe_batches(config: TrainConfig, model: SiameseRegressor, pairs: PairSet, device: torch.device) -> list:
    """:data:`PROBE_BATCHES` batches of ``pairs`` at the run's batch size (drawn from its seed), tokenized as the
    run tokenizes them, their targets on ``device``: what the precision probe trains on."""
    rng = np.random.default_rng(config.seed)
    size = min(config.batch_size, len(pairs))
    batches = []
    for _ in range(PROBE_BATCHES):
        shard = rng.choice(len(pairs), size, replace=False)
        target = torch.as_tensor(pairs.labels[shard], dtype=torch.float32, device=device)
        batches.append(
            (
                model.tokenize([pairs.sentences1[i] for i in shard]),
                model.tokenize([pairs.sentences2[i] for i in shard]),
                target,
            )
        )
    return batches


def _where(config: TrainConfig, state: PartialState) -> str:
    device = torch.cuda.get_device_name(state.device) if state.device.type == "cuda" else "CPU"
    return f"{device}, batch {config.batch_size}, max length {config.max_length}"


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` says the machine ran out of memory. PyTorch's CPU allocator raises no typed error
    (a plain RuntimeError from ``alloc_cpu.cpp``), so for it alone the message is the only sign."""
    if isinstance(error, (torch.OutOfMemoryError, MemoryError)):
        return True
    return isinstance(error, RuntimeError) and "DefaultCPUAllocator" in str(error)


def _steps(count: int) -> str:
    return f"{count} step" + ("" if count == 1 else "s")


def trim_heap() -> None:
    """Hand freed heap pages back to the system (after ``Accelerator.free_memory``, which collects the garbage: a
    second collection costs about half a second in a process as large as the app's).

    glibc keeps freed memory in per-thread arenas; in a long-lived app (a worker thread per request) a
    stopped run's few hundred MB would stay counted against the process. ``malloc_trim`` returns them.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass


# ---- the loop ---------------------------------------------------------------------------------------


class Checkpointer:
    """Scores the model on dev and keeps the best checkpoint so far in ``folder``, with ``run.json``: the
    config, the best dev score and step, its dev metrics and the dev curve so far (rewritten at each
    evaluation)."""

    def __init__(
        self,
        evaluator: DevEvaluator,
        folder: Path,
        config: TrainConfig,
        started: float,
        precision: PrecisionChoice,
    ):
        self.evaluator, self.folder, self.config, self.started = evaluator, folder, config, started
        self.precision = precision
        self.key = (-math.inf, -math.inf)
        self.best = -math.inf
        self.best_step = StageStep(0, 0)
        self.best_metrics: dict = {}
        self.curve: list[dict] = []
        self.stages: list[dict] = []  # each stage's data, pairs, steps and loss (k, x0), as it starts

    def evaluate(self, model: SiameseRegressor, stage: int, step: int, total: int, loss_fn) -> EvalEvent:
        metrics = self.evaluator(model)
        # Ties on the primary metric go to the better node accuracy: a cosine target's a, b never change
        # its ranking, only where its predictions fall.
        key = (metrics["score"], metrics["accuracy"])
        is_best = key > self.key
        self.curve.append(
            {
                "stage": stage,
                "step": step,
                "dev_cosine": metrics["cosine_spearman"],
                "dev_head": metrics["head_spearman"],
                "dev_accuracy": metrics["accuracy"],
            }
        )
        if is_best:  # the new weights and the record that names them are swapped in as one
            self.key, self.best, self.best_step = key, metrics["score"], StageStep(stage, step)
            self.best_metrics = metrics
            model.save(self.folder, head_only=self.config.head_only, beside=self.write_record)
        else:
            self.write_record()
        return EvalEvent(
            stage,
            step,
            total,
            metrics["cosine_spearman"],
            metrics["head_spearman"],
            metrics["accuracy"],
            self.best,
            self.best_step,
            is_best,
            time.perf_counter() - self.started,
            metrics["error_hist"],
            getattr(loss_fn, "x0", 0.0),
            self.evaluator.dev.scheme.gap,
        )

    def write_record(self, folder: Path | None = None, **ending) -> None:
        """``run.json`` beside the best checkpoint (in ``folder``: the checkpoint's staging folder while it is
        written); ``ending``: how the run ended (``outcome``, ``message``, ``steps``), added by the last call."""
        write_json_atomic(
            (folder or self.folder) / RUN_RECORD,
            {
                "config": self.config.to_dict(),
                "best_dev": self.best,
                "best_step": self.best_step,
                "dev_metrics": self.best_metrics,
                "dev_pairs": len(self.evaluator.dev),
                "stages": self.stages,
                "dev_curve": self.curve,
                "precision": self.precision.to_dict(),
                "versions": framework_versions(),
                **ending,
            },
        )


@dataclass
class Run:
    """What the stages of one run share, and its totals across them."""

    config: TrainConfig
    accelerator: Accelerator
    stop: threading.Event
    checkpointer: Checkpointer
    steps: int = 0
    pairs: int = 0
    train_seconds: float = 0.0  # in training steps only (evaluations not counted)

    def count(self, pairs: int, seconds: float) -> None:
        self.steps, self.pairs, self.train_seconds = (
            self.steps + 1,
            self.pairs + pairs,
            self.train_seconds + seconds,
        )

    def elapsed(self) -> float:
        return time.perf_counter() - self.checkpointer.started


@dataclass
class Window:
    """The steps since the last logged one. The sums stay on the device: read (one sync) only when logged."""

    device: torch.device
    loss: torch.Tensor = field(init=False)
    inside: torch.Tensor = field(init=False)
    batches: int = 0
    pairs: int = 0
    seconds: float = 0.0

    def __post_init__(self):
        self.loss = torch.zeros((), device=self.device)
        self.inside = torch.zeros((), device=self.device, dtype=torch.long)

    def count(self, pairs: int, seconds: float) -> None:
        self.batches, self.pairs, self.seconds = self.batches + 1, self.pairs + pairs, self.seconds + seconds


def shuffled_batches(count: int, batch_size: int, generator: torch.Generator) -> Iterator[list[int]]:
    """Batches of indices into ``count`` pairs, epoch after epoch, each epoch in a fresh random order."""
    while True:
        order = torch.randperm(count, generator=generator).tolist()
        for start in range(0, count, batch_size):
            yield order[start : start + batch_size]


def run_stage(
    index: int, stage: Stage, pairs: PairSet, model: SiameseRegressor, loss_fn: torch.nn.Module, run: Run
) -> Generator[Event, None, SiameseRegressor]:
    """Train stage ``index``, yielding its events; returns the trained model for the next stage.

    It evaluates (keeping the best checkpoint) every ``eval_every`` steps and at its end; the first stage
    also scores the starting point, so a run never ends below it on dev."""
    config, accelerator, main = run.config, run.accelerator, run.accelerator.is_main_process
    device, processes = accelerator.device, accelerator.num_processes
    regression = getattr(loss_fn, "regression", False)
    labels = pairs.scheme.snap(pairs.labels) if config.snap_labels else pairs.labels
    set_trainable(model, not stage.frozen)
    # The fused kernel updates all parameters at once; the default loops over ~100 tensors.
    optimizer = torch.optim.AdamW(
        parameter_groups(model, stage.lr, stage.head_lr, config.layer_decay, config.weight_decay),
        fused=device.type in ("cpu", "cuda"),
    )
    total = stage.total_steps(len(pairs), config.batch_size)
    # imported when a run trains: transformers.optimization imports peft (about 4 s), and a command refused for its
    # input should not wait for that
    from transformers import get_linear_schedule_with_warmup

    scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup * total), total)
    wrapped, optimizer = accelerator.prepare(model, optimizer)
    if main:
        run.checkpointer.stages.append(
            {
                "stage": index,
                "name": stage.name,
                "data": pairs.name,
                "pairs": len(pairs),
                "steps": total,
                "loss": stage.loss,
                "k": getattr(loss_fn, "k", None),
                "x0": getattr(loss_fn, "x0", None),
            }
        )
        yield StartEvent(
            index,
            stage.name,
            len(pairs),
            total,
            str(device),
            processes,
            str(run.checkpointer.folder),
            config.to_dict(),
        )
        if index == 1:
            yield run.checkpointer.evaluate(model, index, 0, total, loss_fn)
    batches = shuffled_batches(
        len(pairs), config.batch_size, torch.Generator().manual_seed(config.seed + index)
    )
    window = Window(device)
    for step in range(1, total + 1):
        if run.stop.is_set():
            break
        tick = time.perf_counter()
        model.train()
        if stage.frozen:
            model.encoder.eval()  # frozen features: no dropout noise
        batch = next(batches)
        # Each process takes its share of the batch; the gradients are averaged across them.
        shard = batch[accelerator.process_index :: processes] or batch[:1]
        target = to_device(torch.as_tensor(labels[shard], dtype=torch.float32), device)
        output = wrapped(
            model.tokenize([pairs.sentences1[i] for i in shard]),
            model.tokenize([pairs.sentences2[i] for i in shard]),
        )
        loss = loss_fn(output, target)
        accelerator.backward(loss)
        if config.max_grad_norm:
            accelerator.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        window.loss += loss.detach()
        if regression:
            window.inside += loss_fn.inside_buffer(output, target).sum()
        seconds = time.perf_counter() - tick
        run.count(len(batch), seconds)
        window.count(len(shard), seconds)
        if main and (step % config.log_every == 0 or step == total):
            tick = time.perf_counter()  # the one wait for the GPU: the steps queued since the last reading
            mean_loss = float(window.loss) / window.batches
            share = int(window.inside) / window.pairs if regression else None
            waited = time.perf_counter() - tick
            window.seconds, run.train_seconds = window.seconds + waited, run.train_seconds + waited
            yield StepEvent(
                index,
                step,
                total,
                mean_loss,
                scheduler.get_last_lr()[-1],
                share,
                window.pairs * processes / window.seconds,
                run.elapsed(),
            )
            window = Window(device)
        if step == total or (step % config.eval_every == 0 and not run.stop.is_set()):
            if main:
                yield run.checkpointer.evaluate(model, index, step, total, loss_fn)
            accelerator.wait_for_everyone()
    return accelerator.unwrap_model(wrapped)


def train(
    config: TrainConfig,
    stop: threading.Event | None = None,
    *,
    train_sets: list[PairSet] | None = None,
    dev: PairSet | DevEvaluator | None = None,
    loss: LossChoice = None,
    model: SiameseRegressor | None = None,
) -> Iterator[Event]:
    """Train as configured, yielding events; the best checkpoint on the dev set is kept in ``output_folder(config)``.

    ``stop``: set it from any thread to end the run after the current step. Closing the generator
    (a front end that goes away) ends it the same way. What the run would otherwise build can be given:
    ``train_sets`` (one PairSet per stage), ``dev`` (a PairSet, or a :class:`DevEvaluator` that names its
    selection metric), ``loss`` (a module, or ``stage -> module``) and ``model`` (the model to start from,
    instead of the one ``config.model`` names).
    """
    config = preflight(config)
    stop = stop or threading.Event()
    state = process_state()
    seed_everything(config.seed)
    stages = plan_stages(config)
    if train_sets is None:
        train_sets = [load_pairs(config, stage.data) for stage in stages]
    if len(train_sets) != len(stages):
        raise InputError("stages_and_sets", n_stages=len(stages), n_train_sets=len(train_sets))
    evaluator = (
        dev if isinstance(dev, DevEvaluator) else DevEvaluator(dev or load_dev(config), config.select_by)
    )
    model = prepare_model(config, model, train_sets[-1].scheme, state.device)
    family = encoder_family(getattr(model.encoder.config, "model_type", None))
    config = replace(config, k=run_k(config.loss, config.k, family))  # what the run's record shows
    set_trainable(model, not stages[-1].frozen)  # the precision is timed on the main stage's work
    precision = run_precision(
        config,
        model,
        train_sets[-1],
        stage_loss(config, stages[-1], len(stages), train_sets[-1].scheme, family, loss),
        state,
    )
    accelerator = make_accelerator(precision)
    out_dir = output_folder(config)
    run = Run(
        config, accelerator, stop, Checkpointer(evaluator, out_dir, config, time.perf_counter(), precision)
    )
    outcome, message = Outcome.FINISHED, ""
    tf32_before = allow_tf32(precision.chosen == "tf32")  # process-wide: put back when the run ends
    try:
        for index, (stage, pairs) in enumerate(zip(stages, train_sets), start=1):
            if stage.from_best:
                model = SiameseRegressor.load(str(out_dir), keep_adapter=True).to(accelerator.device)
            loss_fn = stage_loss(config, stage, index, pairs.scheme, family, loss)
            model = yield from run_stage(index, stage, pairs, model, loss_fn, run)
            if stop.is_set():
                outcome = Outcome.STOPPED
                break
    except (RuntimeError, MemoryError) as error:  # torch.OutOfMemoryError is a RuntimeError
        if not out_of_memory(error):
            raise
        outcome = Outcome.FAILED
        message = (
            f"out of memory ({type(error).__name__}) after {_steps(run.steps)}: try a smaller batch size "
            "or max length; the best checkpoint so far is kept"
        )
    finally:
        # Drop this run's tensors (activations, gradients, optimiser state) before reporting, so a stopped
        # or failed run gives its memory back to the process at once.
        model = loss_fn = None  # noqa: F841
        allow_tf32(*tf32_before)
        accelerator.free_memory()  # drops the accelerator's references and collects the garbage
        trim_heap()
    if accelerator.is_main_process:
        best = run.checkpointer
        if (
            best.curve
        ):  # a checkpoint was written: its record says how the run ended, and its card says it all
            best.write_record(outcome=outcome, message=message, steps=run.steps)
            write_card(out_dir)
        yield DoneEvent(
            outcome,
            message,
            best.best,
            best.best_step,
            str(out_dir),
            run.steps,
            run.pairs / run.train_seconds if run.train_seconds else 0.0,
            run.elapsed(),
        )
