"""One budget (issue 40): the caps declared once in stsdemo.serving.caps and read by what enforces them, the fine-tune
memory estimate an upper bound on the measured peak with long pairs, and a wall-clock limit that stops a run and
keeps its partial result."""

import itertools

import numpy as np
import pytest
from fault_helpers import PAIRS
from tiny_models import tiny_model

from stsdemo import environment
from stsdemo.app.app_state import StopSignal
from stsdemo.config import TrainConfig, WorkBudget
from stsdemo.data import PairSet
from stsdemo.events import StepEvent
from stsdemo.labels import STS
from stsdemo.model import SiameseRegressor
from stsdemo.serving import budget, caps, run_cost
from stsdemo.train import train

GIB = 1024**3
MINILM = run_cost.Encoder(hidden=384, layers=6, heads=12, intermediate=1536, vocab=30522, positions=512)


def test_every_cap_is_declared_once_and_read_from_its_variable(monkeypatch):
    assert WorkBudget().minutes == caps.CAPS["train_minutes"].default
    assert environment.max_upload_bytes() == caps.CAPS["upload_bytes"].default
    monkeypatch.setenv("STSDEMO_MAX_UPLOAD", "6mb")
    monkeypatch.setenv("STSDEMO_EVENTS_PER_SESSION", "2")
    assert environment.max_upload_bytes() == 6 * 1024**2 and caps.value("events_per_session") == 2
    monkeypatch.setenv("STSDEMO_WALL_CLOCK_FACTOR", "-1")
    with pytest.raises(ValueError, match="STSDEMO_WALL_CLOCK_FACTOR='-1': expected a number > 0"):
        caps.value("wall_clock_factor")
    monkeypatch.delenv("STSDEMO_WALL_CLOCK_FACTOR")
    variables = [cap.variable for cap in caps.CAPS.values() if cap.variable]
    assert len(variables) == len(set(variables))
    assert all(name in caps.table() for name in caps.CAPS)


def test_the_memory_estimate_bounds_the_measured_long_pair_run():
    """Issue 40's run: batch 9, max length 512, 300 pairs of about 550 tokens grew the process by 7.5 GiB (peak
    RSS 8.67 GB); the estimate was 6.35 GiB."""
    config = TrainConfig(data="long", batch_size=9, max_length=512, max_steps=20, eval_every=20)
    long_pairs = run_cost.DataProfile(300, np.full(600, 550.0))
    dev = run_cost.DataProfile(1500, np.full(3000, 20.0))
    plan = budget.RunPlan(
        MINILM, {"long": long_pairs}, dev, run_cost.Machine(16 * GIB, 2, False), WorkBudget()
    )
    assert plan.estimate(config).memory >= max(7.5 * GIB, 8.67e9)


def test_a_signal_past_its_wall_clock_deadline_is_set(tmp_path):
    now = [100.0]
    signal = StopSignal(tmp_path / "STOP", deadline=150.0, clock=lambda: now[0])
    assert not signal.is_set() and not signal.past_deadline()
    now[0] = 151.0
    assert signal.is_set() and signal.past_deadline()


def test_a_run_past_its_wall_clock_limit_stops_and_keeps_its_partial_result(tmp_path):
    """The clock is injected (one second each time the trainer asks whether to stop) and the model is a 1-layer,
    32-wide BERT on 32 pairs: the run crosses its limit after a few steps, in about a second."""
    ticks = itertools.count()
    signal = StopSignal(tmp_path / "STOP", deadline=4.0, clock=lambda: float(next(ticks)))
    pairs = PairSet(
        "few",
        [PAIRS[0][i % 2] for i in range(32)],
        [PAIRS[1][i % 2] for i in range(32)],
        np.linspace(0, 5, 32),
        STS,
    )
    config = TrainConfig(
        data="stsb",
        loss="trelu",
        max_length=16,
        batch_size=4,
        log_every=1,
        max_steps=1000,
        eval_every=1000,
        output_dir=str(tmp_path / "run"),
    )
    events = list(
        train(config, signal, train_sets=[pairs], dev=pairs.select(range(8)), model=tiny_model(seed=1))
    )
    done = events[-1]
    assert done.outcome == "stopped" and signal.past_deadline()
    assert 0 < done.steps < 8 and max(e.step for e in events if isinstance(e, StepEvent)) == done.steps
    SiameseRegressor.load(done.checkpoint)  # the step-0 evaluation's checkpoint: the partial result


def test_a_scoring_file_over_its_work_cap_is_refused_before_it_is_embedded(tmp_path, embedded_model):
    from stsdemo.errors import InputError
    from stsdemo.scoring import score_csv

    path = tmp_path / "pairs.csv"
    path.write_text(
        "sentence1,sentence2\n" + "a man plays a guitar,a man is playing music\n" * 50, encoding="utf-8"
    )
    with pytest.raises(
        InputError, match=r"pairs.csv has [\d,]+ tokens to embed; one file may have at most 100"
    ):
        score_csv(embedded_model, path, tmp_path / "scored.csv", max_tokens=100)
    assert not (tmp_path / "scored.csv").exists()
    assert score_csv(embedded_model, path, tmp_path / "scored.csv", max_tokens=10_000).is_file()
