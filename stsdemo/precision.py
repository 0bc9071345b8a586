"""The arithmetic a run trains in: ``precision=auto`` takes the fastest the device has for this run's model,
batch and length, by timing a few training steps of each candidate before the run starts.

Why measure rather than follow a rule: on one H100 (``docs/runs/h100-2026-11-27``) all-MiniLM-L6-v2 at
batch 16, length 256 trained at 508-516 pairs/s in fp32, 285-335 under bf16 autocast and 245-265 in fp16 with a
gradient scaler, yet bf16 at batch 64 reached 753: a small model's step is bound by kernel launches, where
autocast's extra casts cost more than its faster matrix products save, and which side wins moves with the model,
batch, length and GPU. A rule fitted to one table would be wrong elsewhere; a few timed steps are not.

Candidates on a GPU: ``fp32``; ``tf32`` (fp32 weights and activations, matrix products in TensorFloat-32);
``bf16`` autocast where the GPU has bf16 natively; ``fp16`` autocast with a gradient scaler. On the CPU a run
trains in fp32 without timing: PyTorch's CPU autocast is bf16 only, which runs slower than fp32 on CPUs without
bf16 matrix instructions (AVX512-BF16 or AMX; this project's 2-core machine has neither), and fp32 keeps the
scores exact. A precision set explicitly is taken as set.

The choice (:class:`PrecisionChoice`) goes into the run's record, ``run.json``: what was chosen, why, and the
timings it was chosen from.
"""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field

import torch

GPU_CANDIDATES = ("fp32", "tf32", "bf16", "fp16")
PROBE_WARMUP_STEPS = 2  # kernel selection, allocator growth
PROBE_TIMED_STEPS = 5  # median of these

StepSeconds = Callable[[str], float]  # precision -> seconds one training step takes in it


@dataclass(frozen=True)
class PrecisionChoice:
    """What a run trains in: ``chosen`` (fp32, tf32, bf16 or fp16) for the ``setting`` asked, ``why`` in words and
    the median seconds per training step of each candidate timed (empty when nothing was timed)."""

    setting: str
    chosen: str
    why: str
    step_seconds: dict = field(default_factory=dict)

    @property
    def mixed_precision(self) -> str:
        """Accelerate's ``mixed_precision``: ``no`` for fp32 and tf32 (fp32 tensors), else the autocast type."""
        return "no" if self.chosen in ("fp32", "tf32") else self.chosen

    def to_dict(self) -> dict:
        return asdict(self)


def gpu_candidates(bf16_native: bool) -> tuple[str, ...]:
    """The precisions timed on a GPU: bf16 only where the GPU computes it natively (on a T4 or V100 it is emulated)."""
    return tuple(p for p in GPU_CANDIDATES if p != "bf16" or bf16_native)


def fastest(
    setting: str, candidates: tuple[str, ...], step_seconds: StepSeconds, where: str
) -> PrecisionChoice:
    """Time each of ``candidates`` with ``step_seconds`` and choose the one measured fastest (a tie goes to the
    first, the more exact: the candidates run from fp32 down). A candidate that fails (out of memory, an
    unsupported kernel) is timed as infinitely slow; fp32 is chosen when every one failed."""
    timings = {}
    for precision in candidates:
        try:
            timings[precision] = float(step_seconds(precision))
        except (RuntimeError, MemoryError) as error:  # torch.OutOfMemoryError is a RuntimeError
            timings[precision] = float("inf")
            where += f"; {precision} failed ({type(error).__name__})"
    chosen = min(timings, key=timings.get) if timings else "fp32"
    if timings[chosen] == float("inf"):
        chosen = "fp32"
    shown = ", ".join(f"{p} {1000 * s:.1f} ms" for p, s in timings.items() if s != float("inf"))
    why = f"auto: the fastest of {len(timings)} timed on {where} (median ms per training step: {shown})"
    return PrecisionChoice(setting, chosen, why, timings)


def choose(
    setting: str,
    device: torch.device,
    step_seconds: StepSeconds | None = None,
    bf16_native: bool = False,
    where: str = "",
) -> PrecisionChoice:
    """The precision of a run asking for ``setting`` on ``device``. ``auto`` on a GPU times each candidate with
    ``step_seconds``; everywhere else nothing is timed."""
    if device.type != "cuda":
        why = (
            "CPU: fp32, not timed (CPU autocast is bf16 only, slower than fp32 without bf16 matrix instructions, "
            "and fp32 keeps the scores exact)"
        )
        return PrecisionChoice(
            setting, "fp32", why if setting == "auto" else f"{why}; {setting} is a GPU setting"
        )
    if setting != "auto":
        return PrecisionChoice(setting, setting, "set in the run's settings")
    return fastest(setting, gpu_candidates(bf16_native), step_seconds, where)


def allow_tf32(matmul: bool, cudnn: bool | None = None) -> tuple[bool, bool]:
    """Whether fp32 matrix products (and cuDNN's, as ``matmul`` unless given) run in TensorFloat-32, for the whole
    process; returns the two settings before, to put back."""
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = matmul
    torch.backends.cudnn.allow_tf32 = matmul if cudnn is None else cudnn
    return before


@contextmanager
def matmul_precision(precision: str):
    """fp32 matrix products in TensorFloat-32 for ``tf32``, in full fp32 otherwise, inside the block."""
    before = allow_tf32(precision == "tf32")
    try:
        yield
    finally:
        allow_tf32(*before)


def training_step_timer(model, loss_fn, batches: list[tuple[dict, dict, torch.Tensor]]) -> StepSeconds:
    """A :data:`StepSeconds` on the device of ``batches`` (tokenized pairs and their targets): a copy of ``model`` (so
    the run starts from the weights it was given) trains on them with a fused AdamW, as the loop does; the median of
    :data:`PROBE_TIMED_STEPS` steps after :data:`PROBE_WARMUP_STEPS`, each between two CUDA synchronisations on a
    GPU. The loop times only a GPU's candidates; ``bench.perf.precision`` times the CPU's too, to check the CPU rule."""
    device = batches[0][2].device
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    def step_seconds(precision: str) -> float:
        probe, loss = copy.deepcopy(model).train(), copy.deepcopy(loss_fn)
        optimizer = torch.optim.AdamW([p for p in probe.parameters() if p.requires_grad], lr=1e-9, fused=True)
        half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
        scaler = torch.amp.GradScaler(device.type, enabled=precision == "fp16")
        autocast = torch.autocast(device.type, dtype=half) if half else nullcontext()
        seconds = []
        try:
            with matmul_precision(precision):
                for step in range(PROBE_WARMUP_STEPS + PROBE_TIMED_STEPS):
                    first, second, target = batches[step % len(batches)]
                    synchronize()
                    tick = time.perf_counter()
                    with autocast:
                        value = loss(probe(first, second), target)
                    scaler.scale(value).backward()
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(probe.parameters(), 1.0)
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad(set_to_none=True)
                    synchronize()
                    seconds.append(time.perf_counter() - tick)
        finally:
            del probe, optimizer
            if device.type == "cuda":
                torch.cuda.empty_cache()
        return statistics.median(seconds[PROBE_WARMUP_STEPS:])

    return step_seconds
