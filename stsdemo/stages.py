"""A run's stages: which, in which order, each with its data, which parameters learn, its learning rates, length
and loss. No torch: the cost model and the GPU-time request read the plan the training loop runs."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .config import TrainConfig
from .selection import planned_stages


@dataclass(frozen=True)
class Stage:
    """One stage of a run: its data, which parameters learn, its learning rates, length and loss, and whether
    it starts from the best checkpoint so far (the calibration stage does)."""

    name: str
    data: str
    frozen: bool  # the encoder is frozen: only the head (or the cosine's a, b) learns
    lr: float
    head_lr: float
    epochs: float
    max_steps: int | None
    loss: str
    from_best: bool = False

    def total_steps(self, pairs: int, batch_size: int) -> int:
        total = max(1, math.ceil(math.ceil(pairs / batch_size) * self.epochs))
        return min(total, self.max_steps) if self.max_steps else total


def plan_stages(config: TrainConfig) -> list[Stage]:
    """The stages of a run, as :func:`stsdemo.selection.planned_stages` plans them (which, in which order, which
    freeze the encoder): the head on NLI first (two-stage recipe), the main stage, then calibration."""

    def head_stage(name: str, data: str, frozen: bool, from_best: bool = False, loss: str = "") -> Stage:
        return Stage(
            f"{name} on {data} (encoder frozen)",
            data,
            frozen,
            config.stage1_lr,
            config.stage1_lr,
            config.stage1_epochs,
            config.stage1_max_steps,
            loss or config.loss,
            from_best,
        )

    def stage(kind: str, frozen: bool) -> Stage:
        if kind == "head":
            return head_stage("head", config.stage1_data, frozen)
        if kind == "calibration":
            return head_stage(
                "calibration", config.calibrate_data, frozen, from_best=True, loss=config.calibrate_loss
            )
        return Stage(
            "head only" if frozen else "full",
            config.data,
            frozen,
            config.lr,
            config.head_lr,
            config.epochs,
            config.max_steps,
            config.loss,
        )

    return [stage(kind, frozen) for kind, frozen in planned_stages(config.to_dict())]
