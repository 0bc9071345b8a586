"""A short real fine-tune of the embedded model; stopping, warm starts and calibration on a tiny encoder; the
optimiser's layer-wise decay."""

import json
import threading

import pytest
from tiny_models import tiny_encoder

from stsdemo.errors import InputError
from stsdemo.model import SiameseRegressor
from stsdemo.train import DoneEvent, EvalEvent, StartEvent, StepEvent, TrainConfig, parameter_groups, train

# 120 evenly spread STS-B dev pairs: a run's step-0 evaluation on all 1,500 took most of a short test's time
QUICK = dict(data="stsb", max_length=48, batch_size=16, log_every=5, max_dev_pairs=120)


def test_short_fine_tune_raises_dev_spearman_of_the_head(tmp_path):
    # 300 evenly spread STS-B dev pairs score the head well enough and take a fifth of the time of all 1,500; 10
    # steps at a head learning rate of 3e-3 lift the fresh head from about -1 to about 20
    config = TrainConfig(
        loss="sk2",
        max_steps=10,
        eval_every=10,
        head_lr=3e-3,
        output_dir=str(tmp_path / "run"),
        **dict(QUICK, max_dev_pairs=300),
    )
    events = list(train(config))
    evals = [e for e in events if isinstance(e, EvalEvent)]
    steps = [e for e in events if isinstance(e, StepEvent)]
    done = events[-1]
    assert isinstance(events[0], StartEvent) and isinstance(done, DoneEvent) and done.outcome == "finished"
    assert [e.step for e in evals] == [0, 10] and len(steps) == 2
    assert evals[-1].dev_head > evals[0].dev_head + 15  # a fresh head starts near chance
    assert all(0 <= s.buffer_share <= 1 and s.pairs_per_s > 0 and s.lr >= 0 for s in steps)
    assert steps[-1].loss < steps[0].loss
    best = SiameseRegressor.load(done.checkpoint)
    assert best.scheme.name == "sts"
    precision = json.loads((tmp_path / "run" / "run.json").read_text())["precision"]
    assert precision["setting"] == "auto" and precision["chosen"] == "fp32" and "CPU" in precision["why"]


def test_stop_flag_ends_the_run_between_steps_and_keeps_the_best(tmp_path):
    stop = threading.Event()
    config = TrainConfig(
        model=tiny_encoder(),
        loss="trelu",
        max_steps=1000,
        eval_every=1000,
        output_dir=str(tmp_path / "run"),
        **QUICK,
    )
    events = []
    for event in train(config, stop):
        events.append(event)
        if isinstance(event, StepEvent) and event.step == 5:
            stop.set()
    done = events[-1]
    assert done.outcome == "stopped" and done.steps == 5
    assert (tmp_path / "run" / "stsdemo.json").is_file()  # the step-0 evaluation saved a checkpoint
    SiameseRegressor.load(done.checkpoint)


def test_closing_the_generator_ends_the_run(tmp_path):
    run = train(
        TrainConfig(
            model=tiny_encoder(), max_steps=1000, eval_every=1000, output_dir=str(tmp_path / "run"), **QUICK
        )
    )
    for event in run:
        if isinstance(event, StepEvent):
            break
    run.close()
    assert run.gi_frame is None


def test_layer_wise_decay(embedded_model):
    groups = parameter_groups(embedded_model, lr=1e-4, head_lr=1e-3, layer_decay=0.5, weight_decay=0.01)
    rates = {g["lr"] for g in groups}
    # MiniLM-L6: head 1e-3; pooler 1e-4; layers 5..0 at 1e-4 * 0.5^1..0.5^6; embeddings 1e-4 * 0.5^7
    assert rates == {1e-3, 1e-4, *(1e-4 * 0.5**i for i in range(1, 8))}
    no_decay = [p for g in groups if g["weight_decay"] == 0 for p in g["params"]]
    assert all(p.ndim == 1 for p in no_decay)
    assert sum(p.numel() for g in groups for p in g["params"]) == sum(
        p.numel() for p in embedded_model.parameters()
    )


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(lr=0), "learning rate must be > 0"),
        (dict(batch_size=0), "batch size must be >= 1"),
        (dict(max_length=100000), "max length"),
        (dict(x0=0.6), "0 <= x0 <= d/2"),
        (dict(k=-1), "slope k"),
        (dict(loss="ce", two_stage=True), "two-stage"),
        (dict(max_steps=0), "max steps"),
        (dict(epochs=float("nan")), "finite"),
        (dict(loss="nope"), "unknown loss"),
        (dict(loss="infonce", calibrate_data="stsb"), "calibration stage needs a regression loss"),
        (dict(head_only=True, calibrate_data="stsb"), "no calibration stage"),
        (dict(calibrate_loss="trelu"), "calibration loss needs calibration data"),
        (dict(calibrate_data="stsb", calibrate_loss="ce"), "calibration loss must be a regression loss"),
    ],
)
def test_bad_settings_fail_before_any_work(options, message):
    with pytest.raises(InputError, match=message):
        next(train(TrainConfig(**options)))


def test_presets():
    config = TrainConfig.from_preset("paper-roberta-sk2")
    assert (config.loss, config.k, config.x0, config.batch_size, config.warmup, config.layer_decay) == (
        "sk2",
        3.0,
        0.25,
        16,
        0.2,
        0.95,
    )
    with pytest.raises(InputError, match="unknown preset"):
        TrainConfig.from_preset("nope")


def test_warm_start_begins_at_its_starting_point_and_never_ends_below_it(tmp_path):
    from stsdemo.evaluate import dev_metrics
    from stsdemo.train import load_dev

    # on the tiny encoder: this checks how a warm start begins, not what it learns
    quick = dict(QUICK, target="cosine", head_lr=0.05)
    first = list(
        train(
            TrainConfig(
                model=tiny_encoder(),
                head_only=True,
                max_steps=6,
                eval_every=6,
                output_dir=str(tmp_path / "a"),
                **quick,
            )
        )
    )
    start = SiameseRegressor.load(first[-1].checkpoint)
    expected = dev_metrics(start, load_dev(TrainConfig(**quick)))
    events = list(
        train(
            TrainConfig(
                model=first[-1].checkpoint,
                max_steps=3,
                eval_every=3,
                lr=1e-3,
                output_dir=str(tmp_path / "b"),
                **quick,
            )
        )
    )
    evals = [e for e in events if isinstance(e, EvalEvent)]
    assert evals[0].step == 0 and evals[0].dev_cosine == pytest.approx(expected["cosine_spearman"], abs=1e-6)
    assert evals[0].dev_accuracy == pytest.approx(expected["accuracy"])
    assert events[-1].best >= evals[0].best  # the start counts in the best-dev selection
    assert sum(evals[0].error_hist["counts"]) == 120 and evals[0].x0 == 0.25 and evals[0].gap == 1.0


def starts_config(events) -> dict:
    return next(e for e in events if isinstance(e, StartEvent)).config


def test_the_calibration_stage_starts_from_the_best_checkpoint_and_moves_only_a_and_b(tmp_path):
    from stsdemo.evaluate import dev_metrics
    from stsdemo.train import load_dev

    quick = dict(
        QUICK,
        model=tiny_encoder(),
        target="cosine",
        lora_rank=4,
        lr=5e-4,
        max_steps=4,
        eval_every=2,
        calibrate_data="sick",
        calibrate_loss="translated-relu",
        stage1_lr=0.05,
        stage1_max_steps=4,
        max_pairs=64,
    )
    config = TrainConfig(output_dir=str(tmp_path / "run"), **quick)
    events = list(train(config))
    # the alias is made canonical in the run (the caller's config is left as it was given)
    assert starts_config(events)["calibrate_loss"] == "trelu" and config.calibrate_loss == "translated-relu"
    starts = [e for e in events if isinstance(e, StartEvent)]
    assert [e.stage_name for e in starts] == ["full", "calibration on sick (encoder frozen)"]
    evals = [e for e in events if isinstance(e, EvalEvent)]
    best_full = max((e for e in evals if e.stage == 1), key=lambda e: (e.dev_head, e.dev_accuracy))
    # From the best checkpoint with the encoder frozen: the cosine ranking is that checkpoint's throughout.
    assert all(e.dev_cosine == pytest.approx(best_full.dev_cosine, abs=1e-4) for e in evals if e.stage == 2)
    saved = SiameseRegressor.load(events[-1].checkpoint)
    assert dev_metrics(saved, load_dev(TrainConfig(**quick)))["head_spearman"] == pytest.approx(
        events[-1].best
    )
    assert (tmp_path / "run" / "adapter_config.json").is_file()  # still saved as the adapter alone


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(target="head"), "cannot warm-start from .*its target is 'cosine', this run's is 'head'"),
        (
            dict(target="cosine", data="nli"),
            "its labels are 0, 1, 2, 3, 4, 5; this run's data has contradiction",
        ),
    ],
)
def test_a_warm_start_that_does_not_fit_fails_before_any_work(embedded_model, tmp_path, options, message):
    saved = SiameseRegressor(
        embedded_model.encoder, embedded_model.tokenizer, target="cosine", base_model="all-MiniLM-L6-v2"
    ).save(tmp_path / "start", head_only=True)
    with pytest.raises(InputError, match=message):
        next(train(TrainConfig(model=str(saved), output_dir=str(tmp_path / "never"), **options)))
    assert not (tmp_path / "never").exists()


def test_a_calibration_loss_with_a_buffer_is_checked_before_the_main_stage_trains():
    """x0 = 0.9 means nothing to MSE, but the Translated ReLU calibration stage would refuse it: preflight says
    so before the first step rather than after the main stage has trained."""
    from stsdemo.preflight import preflight

    config = TrainConfig(
        loss="mse", x0=0.9, data="stsb", calibrate_data="stsb", calibrate_loss="trelu", max_steps=1
    )
    with pytest.raises(InputError, match=r"buffer x0 must satisfy 0 <= x0 <= d/2 = 0.5, got 0.9"):
        preflight(config)
    assert (
        preflight(
            TrainConfig(
                loss="mse", x0=0.9, data="stsb", calibrate_data="stsb", calibrate_loss="mse", max_steps=1
            )
        ).calibrate_loss
        == "mse"
    )
