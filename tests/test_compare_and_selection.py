"""Issue 27: Compare teaches (each difference from the values shown, a paired mean ± se over 1 to 3 seeds, what
x0 = 0 makes of the loss, a stop that keeps the pairs that finished) and a preset's run picks its checkpoint by
what it trains, saying so in words (and why, when it keeps the start)."""

from __future__ import annotations

import re
from dataclasses import asdict

import pytest
from tiny_models import tiny_encoder

from stsdemo.config import PRESETS, TrainConfig
from stsdemo.errors import InputError
from stsdemo.events import DoneEvent, EvalEvent, StageStep

TINY = dict(
    data="STS-B train",
    loss="Smooth K2 (ours) [sk2]",
    target="head",
    k=2.0,
    x0=0.25,
    batch_size=16,
    max_steps=2,
    eval_every=2,
    log_every=1,
    max_length=32,
    max_pairs=32,
    max_dev_pairs=120,
    seed=42,
    select_by="head Spearman (what Score a pair uses)",
    final_eval=False,
)


def _run(label: str, x0: float, last: float, status: str = "finished", accuracy: float = 30.0):
    from stsdemo.serving import session_files

    evals = [
        EvalEvent(1, step, 4, cosine, cosine, accuracy, cosine, StageStep(1, step), True, 1.0, {}, x0, 1.0)
        for step, cosine in ((0, 85.0), (4, last))
    ]
    return session_files.RunInfo(label.replace(" ", "-"), label, status, config={"x0": x0}, events=evals)


def _pairs(*scores):
    from stsdemo.buffer_comparison import Pair

    return [
        Pair(
            42 + index,
            (None, None),
            [_run(f"#{2 * index + 1} sk2", 0.25, a), _run(f"#{2 * index + 2} sk2", 0.0, b)],
        )
        for index, (a, b) in enumerate(scores)
    ]


def test_the_difference_is_taken_from_the_values_shown():
    from stsdemo.app.finetune.compare import verdict_text

    # 90.1251 and 90.1449 show as 90.13 and 90.14: the difference shown is theirs (-0.01), not -0.0198's -0.02
    text = verdict_text(_pairs((90.1251, 90.1449)), TrainConfig(loss="sk2", k=2.0, x0=0.25))
    assert "| 42 | 90.13 | 90.14 | -0.01 |" in text and "-0.02" not in text
    assert "One pair of runs is one seed" in text and "no verdict" in text


def test_three_seeds_give_the_paired_mean_and_se_under_the_benchmark_rule():
    from stsdemo.app.finetune.compare import verdict_text
    from stsdemo.paired import paired

    text = verdict_text(
        _pairs((90.20, 90.00), (90.27, 90.05), (90.28, 90.10)), TrainConfig(loss="sk2", x0=0.25)
    )
    rule = paired({42: 90.20, 43: 90.27, 44: 90.28}, {42: 90.00, 43: 90.05, 44: 90.10})
    assert (
        rule.verdict == "holds"
        and f"mean difference {rule.numbers()}, {rule.interval_text()}: **holds**" in text
    )
    assert "+0.20 ± 0.01 (se), n = 3" in text and "4.30 standard errors" in text
    assert [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| 4")] == [
        "42",
        "43",
        "44",
    ]
    level = verdict_text(_pairs((90.50, 90.00), (90.00, 90.20)), TrainConfig(loss="sk2", x0=0.25))
    assert "**no measurable difference**" in level


def test_the_comparison_is_said_in_the_visitors_language():
    """The Fine-tune step's outcome (Compare with and without the buffer) in 简体中文: the reading, the rule, the
    verdict's words and what x0 = 0 does, with the same numbers as the English."""
    from stsdemo.app.finetune.compare import verdict_text
    from stsdemo.paired import rule_text

    pairs, config = _pairs((90.50, 90.00), (90.00, 90.20)), TrainConfig(loss="sk2", x0=0.25)
    english, chinese = verdict_text(pairs, config), verdict_text(pairs, config, language="zh")
    assert "**no measurable difference**" in english and "**无可测差异**" in chinese
    assert "按 2 个种子配对" in chinese and rule_text(2, "spearman", "zh") in chinese
    assert "x0 = 0 意味着什么" in chinese and "| 种子 | x0 = 0.25 | x0 = 0 | 差值 |" in chinese
    rows = [line for line in english.splitlines() if re.match(r"\| \d", line)]  # each seed's values
    assert len(rows) == 2 and all(row in chinese for row in rows)
    mean = re.search(r"mean difference (.+ \(se\), n = 2)", english).group(1)
    assert f"平均差值 {mean}" in chinese


def test_two_seeds_with_equal_shown_differences_do_not_hold():
    """Rounded scores can give two equal differences: no spread, so no verdict of a difference (stsdemo.paired)."""
    from stsdemo.app.finetune.compare import verdict_text

    text = verdict_text(_pairs((80.60, 80.30), (80.90, 80.60)), TrainConfig(loss="sk2", x0=0.25))
    assert "| +0.30 |" in text and "**no measurable difference**" in text and "**holds**" not in text


def test_node_accuracy_is_compared_in_percentage_points_under_its_own_margin():
    """Node accuracy is recorded in percent where it is computed: Compare reads it as it is, so a difference of a
    few pairs in 100 is read in points against the 0.1-point margin, not as a thousandth."""
    from stsdemo.app.finetune.compare import verdict_text
    from stsdemo.buffer_comparison import Pair
    from stsdemo.paired import MARGINS, paired

    accuracies = ((60.0, 55.0), (62.0, 55.0), (61.0, 57.0))
    pairs = [
        Pair(
            42 + i,
            (None, None),
            [
                _run(f"#{2 * i + 1} sk2", 0.25, 90.0, accuracy=a),
                _run(f"#{2 * i + 2} sk2", 0.0, 90.0, accuracy=b),
            ],
        )
        for i, (a, b) in enumerate(accuracies)
    ]
    text = verdict_text(pairs, TrainConfig(loss="sk2", x0=0.25, select_by="accuracy"))
    rule = paired(
        {i: a for i, (a, _) in enumerate(accuracies)},
        {i: b for i, (_, b) in enumerate(accuracies)},
        "accuracy",
    )
    assert "| 42 | 60.00 | 55.00 | +5.00 |" in text and "node accuracy (%)" in text
    assert rule.verdict == "holds" and f"{rule.numbers()}, {rule.interval_text()}: **holds**" in text
    assert f"± {MARGINS['accuracy'].points:g} {MARGINS['accuracy'].unit}" in text


@pytest.mark.parametrize(
    "loss, formula",
    [
        ("sk2", "Smooth K2 becomes k·x², i.e. MSE scaled by k (k = 2)"),
        ("trelu", "Translated ReLU becomes k·|x|, i.e. L1 scaled by k (k = 2)"),
    ],
)
def test_the_comparison_says_what_x0_0_makes_of_the_loss_and_why_the_loss_curves_differ_in_height(
    loss, formula
):
    from stsdemo.app.finetune.compare import verdict_text

    text = verdict_text(_pairs((90.0, 89.0)), TrainConfig(loss=loss, k=2.0, x0=0.25))
    assert formula in text
    assert "not comparable in height" in text and "The higher curve is not the worse model" in text


@pytest.mark.parametrize("value", [0, 4, 2.5, "two"])
def test_compare_seeds_are_bounded_by_their_one_declaration(value):
    from stsdemo.app.finetune import form
    from stsdemo.buffer_comparison import CompareSettings, compare_seeds

    with pytest.raises(InputError, match="compare seeds must be"):
        compare_seeds(value)
    assert compare_seeds(None) == 1 and compare_seeds(3.0) == 3
    spec = form.field_spec("seeds", CompareSettings)
    assert (spec.minimum, spec.maximum, spec.integer, spec.label) == (1, 3, True, "Compare seeds")


def test_a_stopped_comparison_keeps_the_pairs_that_finished(tmp_path):
    """Two seeds as one job: after the first pair, the stop ends the third run; the comparison reads the finished
    pair, and the charts keep every run of every pair, each named by its seed and x0."""
    from stsdemo.app.app_state import AppState
    from stsdemo.app.finetune import compare as compare_view
    from stsdemo.app.finetune import form
    from stsdemo.serving import session_files

    state, session = AppState(), "compare-stop"
    views = []
    values = {**form.form_defaults(), **TINY, "model": tiny_encoder(), "seeds": 2}
    for view in compare_view.stream_comparison(state, session, values):
        views.append(view)
        if view.status.startswith("Pair 2 of 2") and state.active_run(session):
            state.request_stop(session)
    runs = session_files.list_runs(session)
    assert [(run.config["seed"], run.config["x0"], run.status) for run in runs] == [
        (42, 0.25, "finished"),
        (42, 0.0, "finished"),
        (43, 0.25, "stopped"),
    ]
    final = views[-1]
    assert final.finished and "reads the 1 pair that finished" in final.status and "| 42 |" in final.status
    assert (
        {"#1 x0=0.25 · head", "#2 x0=0 · head"}
        <= set(final.curves.dev["run"])
        <= {"#1 x0=0.25 · head", "#2 x0=0 · head", "#3 x0=0.25 · head"}
    )
    assert (
        {"#1 x0=0.25", "#2 x0=0"} <= set(final.curves.loss_colors) <= {"#1 x0=0.25", "#2 x0=0", "#3 x0=0.25"}
    )
    assert [trace.name.split(" · ")[0] for trace in final.histogram.data] == ["#1 x0=0.25", "#2 x0=0"]
    assert state.active_run(session) is None


def _settings(config: TrainConfig) -> dict:
    """A run's settings, without its name and folder."""
    return {name: value for name, value in asdict(config).items() if name not in ("run_name", "output_dir")}


def test_the_benchmark_compares_the_runs_a_visitor_compares(tmp_path, monkeypatch):
    """bench.perf.app_default runs the core's default fine-tune and comparison: a visitor's form at its defaults and
    their Compare plan the same runs (only names and folders differ), and the core's runs each get a folder."""
    from stsdemo.app.finetune import form
    from stsdemo.buffer_comparison import alongside, plan_pairs
    from stsdemo.default_finetune import default_config

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    values = form.form_defaults()
    visitor = form.build_config("visitor", "run-1", values, runs=4)
    core = default_config("compare", str(tmp_path / "compare"))
    assert _settings(core) == _settings(visitor)
    app_plan = plan_pairs(
        visitor, 2, lambda changes: form.build_config("visitor", "run-2", {**values, **changes})
    )
    core_plan = plan_pairs(core, 2, alongside(core))
    assert [[_settings(c) for c in pair.configs] for pair in core_plan] == [
        [_settings(c) for c in pair.configs] for pair in app_plan
    ]
    assert [(pair.seed, [c.x0 for c in pair.configs]) for pair in core_plan] == [
        (42, [0.25, 0]),
        (43, [0.25, 0]),
    ]
    assert len({c.output_dir for pair in core_plan for c in pair.configs}) == 4


def test_the_core_compares_a_pair_it_trains_itself(tmp_path):
    """``bench.perf.app_default --compare``: the core trains the run and its x0 = 0 twin, each in its own folder, and
    reads each at its last evaluation; one seed gives no verdict."""
    from stsdemo.buffer_comparison import compare, final_dev
    from stsdemo.preflight import preflight

    config = preflight(
        TrainConfig(
            model=tiny_encoder(),
            loss="sk2",
            target="head",
            k=2.0,
            x0=0.25,
            batch_size=16,
            max_steps=2,
            eval_every=2,
            log_every=1,
            max_length=32,
            max_pairs=32,
            max_dev_pairs=120,
            select_by="head",
            run_name="pair",
            output_dir=str(tmp_path / "pair"),
        )
    )
    comparison = compare(config)
    (pair,) = comparison.pairs
    assert [run.status for run in pair.runs] == ["finished", "finished"] and comparison.ending == ""
    assert [c.x0 for c in pair.configs] == [0.25, 0] and pair.configs[1].output_dir == str(
        tmp_path / "pair-seed42-x00"
    )
    a, b = (round(final_dev(run, "head"), 2) for run in pair.runs)
    assert comparison.values() == {42: (a, b)}
    assert comparison.result().n == 1 and not comparison.result().verdict.decided


def test_a_preset_picks_its_checkpoint_by_what_it_trains():
    for name in PRESETS:
        config = TrainConfig.from_preset(name)
        own = "select_by" in PRESETS[name].recipe
        if not own and (config.head_only or (config.target == "head" and not config.two_stage)):
            assert config.select_by == "head", name
    assert TrainConfig.from_preset("paper-bert-sk2").select_by == "head"
    assert TrainConfig.from_preset("tune-sk2").select_by == "cosine"  # the paper's, for the 7-task benchmark
    assert TrainConfig.from_preset("nli-scorer").select_by == "accuracy"  # a recipe's own choice stays


def test_the_paper_preset_keeps_its_trained_head_and_says_which_metric_picked_it():
    """A tiny real run of "Paper · BERT · Smooth K2 (NLI)" from the form: the head is picked by its dev Spearman,
    so the kept checkpoint is a trained step, not the untouched start."""
    from stsdemo.app.finetune import form
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.serving import session_files
    from stsdemo.train import train

    values = {
        **form.form_defaults(),
        **form.preset_values("paper-bert-sk2"),
        **{
            name: TINY[name]
            for name in ("max_steps", "eval_every", "log_every", "max_length", "max_pairs", "max_dev_pairs")
        },
    }
    config = form.build_config("preset", session_files.new_run_id(), values)
    assert (config.select_by, config.data, config.target) == ("head", "nli", "head")
    events = list(train(config))
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.outcome == "finished"
    evals = [event for event in events if isinstance(event, EvalEvent)]
    assert done.best == max(event.dev_head for event in evals) and done.best_step != StageStep(1, 0)
    info = session_files.RunInfo(
        "r",
        "#1 sk2 k=2",
        "finished",
        config=asdict(config),
        events=events,
        best=done.best,
        best_step=done.best_step,
    )
    summary = finetune_view.run_summary(info)
    picked = (
        f"Checkpoint picked by the STS-B dev head Spearman: {done.best:.2f} at step {done.best_step.step}."
    )
    assert picked in summary
    assert "one stage" in summary and "False" not in summary and "True" not in summary


def test_a_kept_start_is_explained():
    from stsdemo.selection import selection_text

    start = {"stage": 1, "step": 0, "dev_cosine": 88.40, "dev_head": 10.56, "dev_accuracy": 15.0}
    later = {"stage": 1, "step": 60, "dev_cosine": 88.36, "dev_head": 57.80, "dev_accuracy": 17.0}
    cosine = dict(select_by="cosine", target="head", dev_data="stsb")
    text = selection_text(cosine, 88.40, [1, 0], [start, later])
    assert text.startswith("Checkpoint picked by the STS-B dev cosine Spearman: 88.40 at step 0 (the start).")
    assert (
        "The start was kept: no later evaluation beat the start's cosine Spearman (88.40; the best later was "
        "88.36)" in text
    )
    assert "head Spearman went from 10.56 to 57.80" in text and "select by the head" in text
    frozen = selection_text({**cosine, "head_only": True}, 88.40, [1, 0], [start, later])
    assert "the encoder was frozen in every evaluated stage, so the cosine could not change" in frozen
    head = selection_text(
        {**cosine, "select_by": "head", "two_stage": True}, 57.80, [2, 60], [start, later], 2
    )
    assert head == "Checkpoint picked by the STS-B dev head Spearman: 57.80 at stage 2, step 60."
    # the two-stage recipe by the cosine: a checkpoint of its first stage holds the start's encoder, and says so
    head_fitted = {"stage": 1, "step": 20, "dev_cosine": 88.40, "dev_head": 68.51, "dev_accuracy": 21.0}
    stage2 = {"stage": 2, "step": 20, "dev_cosine": 88.37, "dev_head": 60.01, "dev_accuracy": 22.0}
    text = selection_text({**cosine, "two_stage": True}, 88.40, [1, 20], [start, head_fitted, stage2], 2)
    assert text.endswith(
        "at stage 1, step 20. The encoder kept is the start's: stage 1 trains the head alone, so "
        "the cosine there is the start's (node accuracy broke the tie with the start), and no "
        "evaluation of a later stage beat its cosine Spearman (88.40; the best later was 88.37)."
    )


def test_a_summary_prints_words_not_booleans():
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.serving import session_files

    for name, words in (
        ("tune-sk2", "two stages (the head on nli with the encoder frozen, then everything)"),
        ("calibrate", "one stage, encoder frozen"),
        ("paper-bert-sk2", "one stage"),
    ):
        info = session_files.RunInfo("r", "#1", "finished", config=TrainConfig.from_preset(name).to_dict())
        summary = finetune_view.run_summary(info)
        assert words in summary and "True" not in summary and "False" not in summary, summary


def test_a_calibrated_two_stage_run_counts_three_stages_in_its_live_text_and_its_summary():
    """The stage plan is the one the training loop follows (head stage, main stage, calibration): the live
    progress and the summary count the same stages and name the same place."""
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.selection import encoder_frozen, stage_plan
    from stsdemo.serving import session_files

    config = TrainConfig(two_stage=True, calibrate_data="stsb", select_by="cosine")
    assert stage_plan(config.to_dict()) == [True, False, True]
    assert [encoder_frozen(config.to_dict(), stage) for stage in (0, 1, 2, 3, 4)] == [
        False,
        True,
        False,
        True,
        False,
    ]
    info = session_files.RunInfo(
        "r", "#1", "finished", config=config.to_dict(), events=[], best=88.0, best_step=StageStep(3, 10)
    )
    live = finetune_view.LiveRun("s", info, config, [])
    assert live.progress.stages == 3
    assert "at stage 3, step 10." in finetune_view.selection_of(info)
