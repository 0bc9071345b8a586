"""On a GPU: a training step never waits for the device (the loss is read only at logged steps), and
precision=auto times its candidates and trains in the fastest. Skipped without CUDA."""

import json
import warnings

import pytest
import torch

from stsdemo.labels import STS
from stsdemo.losses.registry import build_loss
from stsdemo.train import TrainConfig, train

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

QUICK = dict(loss="sk2", data="stsb", batch_size=16, max_length=48, eval_every=10**6, max_dev_pairs=16)


class MarkingLoss(torch.nn.Module):
    """The run's loss, noting at each call how many synchronising CUDA calls were warned of so far."""

    def __init__(self, inner, caught: list):
        super().__init__()
        self.inner, self.caught, self.marks = inner, caught, []
        self.regression, self.x0, self.k = (
            inner.regression,
            getattr(inner, "x0", 0.0),
            getattr(inner, "k", None),
        )

    def forward(self, output, target):
        self.marks.append(len(self.caught))
        return self.inner(output, target)

    def inside_buffer(self, output, target):
        return self.inner.inside_buffer(output, target)


def test_steps_between_logged_ones_never_synchronise(tmp_path):
    log_every, steps = 8, 24
    config = TrainConfig(
        max_steps=steps, log_every=log_every, precision="fp32", output_dir=str(tmp_path), **QUICK
    )
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = MarkingLoss(build_loss("sk2", None, 0.25, STS), caught)
            list(train(config, loss=loss))
    finally:
        torch.cuda.set_sync_debug_mode("default")
    between = [
        later - earlier
        for step, (earlier, later) in enumerate(zip(loss.marks, loss.marks[1:]), start=1)
        if step % log_every
    ]
    assert len(loss.marks) == steps and between and all(count == 0 for count in between), loss.marks


def test_auto_times_each_candidate_and_trains_in_the_fastest(tmp_path):
    list(train(TrainConfig(max_steps=4, log_every=2, output_dir=str(tmp_path), **QUICK)))
    record = json.loads((tmp_path / "run.json").read_text())["precision"]
    timings = record["step_seconds"]
    assert {"fp32", "tf32", "fp16"} <= set(timings)
    assert timings[record["chosen"]] == min(timings.values())
