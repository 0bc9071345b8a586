"""One rule per concept (issue 31): each rule is declared once, and every user of it gives the rule's answer.

Each test walks the rule's own cases (every preset with every stage switch, every dev metric, every loss and
encoder family, every bench module that takes a percentile) instead of a list of expected values, so a case added
to a rule is checked here with no change to this file."""

from __future__ import annotations

import ast
import itertools
import json
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

from stsdemo import selection
from stsdemo.config import PRESETS, TrainConfig

REPO = Path(__file__).resolve().parent.parent
SOURCES = (REPO / "stsdemo", REPO / "bench")


def top_level_definitions(name: str) -> list[str]:
    """The files of stsdemo/ and bench/ whose top level defines a function or class called ``name``."""
    found = []
    for path in (path for root in SOURCES for path in sorted(root.rglob("*.py"))):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name for node in tree.body):
            found.append(path.relative_to(REPO).as_posix())
    return found


RULES = {
    "planned_stages": "stsdemo/selection.py",
    "dev_score": "stsdemo/selection.py",
    "percentile": "bench/common.py",
    "paper_k": "stsdemo/losses/spec.py",
}


@pytest.mark.parametrize("name, home", RULES.items())
def test_each_rule_is_declared_in_one_place(name, home):
    assert top_level_definitions(name) == [home]


# ---- the stage plan ---------------------------------------------------------------------------------------


def stage_cases() -> dict[str, TrainConfig]:
    """The default config and every preset, each with every combination of the settings that decide a run's
    stages (:data:`stsdemo.selection.STAGE_SETTINGS`) off and on."""
    bases = {"default": TrainConfig(), **{name: TrainConfig.from_preset(name) for name in PRESETS}}
    switches = {
        name: (False, True) if isinstance(getattr(TrainConfig(), name), bool) else ("", "stsb")
        for name in selection.STAGE_SETTINGS
    }
    cases = {}
    for (base_name, base), values in itertools.product(bases.items(), itertools.product(*switches.values())):
        changed = dict(zip(switches, values))
        cases[f"{base_name} {changed}"] = replace(base, **changed)
    return cases


def test_training_and_the_run_summaries_follow_one_stage_plan():
    """The stages the training loop runs (:func:`stsdemo.stages.plan_stages`) are those the summaries count and
    read (:func:`stsdemo.selection.stage_plan` on the config, as the app hands it or as run.json holds it)."""
    from stsdemo.stages import plan_stages

    for case, config in stage_cases().items():
        frozen = [stage.frozen for stage in plan_stages(config)]
        recorded = json.loads(json.dumps(config.to_dict()))
        assert frozen == selection.stage_plan(recorded) == selection.stage_plan(asdict(config)), case
        assert [selection.encoder_frozen(recorded, stage) for stage in range(len(frozen) + 2)] == [
            False,
            *frozen,
            False,
        ], case


# ---- which dev metric picks the checkpoint ----------------------------------------------------------------


class _Saved:
    """A model whose save writes only the record beside its weights: the checkpointer's part of a save."""

    def save(self, folder, head_only=False, beside=None):
        beside(Path(folder))


READINGS = (
    {"cosine_spearman": 80.0, "head_spearman": 60.0, "accuracy": 0.5},  # every metric its own value,
    {"cosine_spearman": 70.0, "head_spearman": 65.0, "accuracy": 0.6},
)  # and not every one rises


def checkpointed_run(select_by: str, folder: Path, monkeypatch) -> tuple[list, object]:
    """Two evaluations of ``READINGS`` through the training loop's own scorer and checkpointer."""
    from stsdemo import evaluate
    from stsdemo.data import PairSet
    from stsdemo.labels import STS
    from stsdemo.precision import PrecisionChoice
    from stsdemo.train import Checkpointer

    readings = iter(READINGS)
    monkeypatch.setattr(
        evaluate, "dev_metrics", lambda model, dev: {**next(readings), "macro_f1": 0.0, "errors": np.zeros(1)}
    )
    dev = PairSet("dev", ["a"], ["b"], [1.0], STS)
    checkpointer = Checkpointer(
        evaluate.DevEvaluator(dev, select_by),
        folder,
        TrainConfig(select_by=select_by),
        0.0,
        PrecisionChoice("fp32", "fp32", "asked for"),
    )
    return [checkpointer.evaluate(_Saved(), 1, step, 10, None) for step in (0, 10)], checkpointer


def test_the_scorer_accepts_exactly_the_metrics_selection_declares():
    from stsdemo.evaluate import DevEvaluator

    assert set(DevEvaluator.METRICS) == set(selection.METRICS)


@pytest.mark.parametrize("select_by", list(selection.METRICS))
def test_the_kept_checkpoint_is_the_best_of_the_metric_selection_reads(select_by, tmp_path, monkeypatch):
    events, checkpointer = checkpointed_run(select_by, tmp_path, monkeypatch)
    scores = [selection.dev_score(event, select_by) for event in events]
    assert (
        events[-1].best == max(scores) and events[-1].best_step == events[scores.index(max(scores))].best_step
    )
    assert [selection.dev_score(point, select_by) for point in checkpointer.curve] == scores
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["best_dev"] == max(selection.dev_score(point, select_by) for point in record["dev_curve"])


@pytest.mark.parametrize("select_by", list(selection.METRICS))
def test_the_app_default_benchmark_reports_the_metric_that_kept_its_checkpoint(
    select_by, tmp_path, monkeypatch
):
    from bench.perf import app_default
    from stsdemo import default_finetune, train
    from stsdemo.events import DoneEvent

    events, checkpointer = checkpointed_run(select_by, tmp_path, monkeypatch)
    done = DoneEvent("finished", "", checkpointer.best, checkpointer.best_step, str(tmp_path), 10, 1.0, 1.0)
    monkeypatch.setattr(default_finetune, "default_config", lambda *args: TrainConfig(select_by=select_by))
    monkeypatch.setattr(train, "train", lambda config: iter([*events, done]))
    row = app_default.default_run(str(tmp_path))
    assert (row["start_dev"], row["last_dev"]) == tuple(
        selection.dev_score(event, select_by) for event in events
    )
    assert row["kept_dev"] == max(row["start_dev"], row["last_dev"])


# ---- percentile -------------------------------------------------------------------------------------------


def percentile_users() -> list[str]:
    """The bench modules that take a percentile."""
    return sorted(
        ".".join(path.relative_to(REPO).with_suffix("").parts)
        for path in (REPO / "bench").rglob("*.py")
        if "percentile(" in path.read_text(encoding="utf-8")
    )


def test_every_bench_percentile_is_numpys():
    import importlib

    from bench import common

    values = np.random.default_rng(0).normal(size=17)
    for q in np.linspace(0, 100, 21):
        assert common.percentile(values, q) == pytest.approx(np.percentile(values, q))
    assert np.isnan(common.percentile([], 50))
    users = percentile_users()
    assert "bench.perf.robustness" in users
    for module in users:
        assert importlib.import_module(module).percentile is common.percentile, module


# ---- the paper's k and the encoder family -----------------------------------------------------------------


def test_every_loss_and_family_takes_the_specs_paper_k():
    from stsdemo.losses.registry import build_loss
    from stsdemo.losses.spec import DEFAULT_FAMILY, FAMILIES, LOSSES, paper_k, run_k

    for name, spec in LOSSES.items():
        for family in FAMILIES:
            declared = None if spec.paper_k is None else spec.paper_k[family]
            assert paper_k(name, family) == run_k(name, None, family) == declared, (name, family)
            if declared is not None:
                assert build_loss(name, family=family).k == declared, (name, family)
        assert paper_k(name) == paper_k(name, DEFAULT_FAMILY)
        if spec.paper_k is not None:
            assert build_loss(name).k == paper_k(name, DEFAULT_FAMILY)


def test_no_family_default_is_written_anywhere_but_its_one_declaration():
    """A parameter called ``family`` defaults to :data:`stsdemo.losses.spec.DEFAULT_FAMILY`, never to a word."""
    written = []
    for path in (path for root in SOURCES for path in sorted(root.rglob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args.posonlyargs + node.args.args
                pairs = list(zip(arguments[len(arguments) - len(node.args.defaults) :], node.args.defaults))
                pairs += [(arg, default) for arg, default in zip(node.args.kwonlyargs, node.args.kw_defaults)]
                written += [
                    f"{path.relative_to(REPO)}: {node.name}"
                    for arg, default in pairs
                    if arg.arg == "family" and isinstance(default, ast.Constant)
                ]
    assert not written, written


def test_the_tuning_grid_takes_the_paper_k_of_the_encoder_it_runs_on():
    """bench.evidence.tuning's grid runs on the embedded MiniLM: its family is the one the core reads off that encoder,
    and every buffer arm's k is the spec's for it."""
    from bench.evidence import quality, tuning
    from stsdemo.losses.spec import paper_k
    from stsdemo.model_source import start_family

    assert tuning.FAMILY == start_family(None)
    for arm in tuning.ARMS:
        loss = quality.ARMS[arm].get("config", {}).get("loss")
        expected = paper_k(loss, tuning.FAMILY) if loss else None
        assert tuning.arm_paper_k(arm) == expected, arm
        assert all(point.get("k") == expected for point in tuning.grid_points(arm)), arm


def test_the_links_read_x0_by_the_losses_rule():
    """A Fine-tune link falls back on x0 exactly where the losses' own rule (check_x0) refuses it (the Loss
    explorer's page calls a setting invalid by the same rule: tests/test_loss_page.py)."""
    from stsdemo.app import links
    from stsdemo.errors import InputError
    from stsdemo.losses.buffer import check_x0

    def refused(x0, d):
        try:
            check_x0(x0, d)
        except InputError:
            return True
        return False

    for x0 in (0.0, 0.25, 0.5, 0.6, 1.0):
        train = links.parse(f"?tab=train&loss=sk2&x0={x0}")
        assert any("d/2" in notice for notice in train.notices) == refused(x0, 1.0), x0


def test_every_declared_range_of_k_x0_and_d_lies_inside_the_losses_hard_bounds():
    """The training settings take the losses' hard bound on k; the Playground's and the Loss explorer's ranges are
    teaching ranges, each inside it (their declarations say why they are narrower)."""
    from stsdemo.config import describe
    from stsdemo.losses.explorer import SLIDERS
    from stsdemo.losses.spec import MAX_GAP, MAX_K
    from stsdemo.playground.config import declaration

    assert describe("k")["high"] == MAX_K
    assert 0 < declaration("k")["high"] <= MAX_K and 0 < SLIDERS["k"][1] <= MAX_K
    assert 0 < declaration("d")["high"] <= MAX_GAP and 0 < SLIDERS["d"][1] <= MAX_GAP
    assert declaration("x0")["high"] >= declaration("d")["high"] / 2  # x0 can reach d/2 at the widest gap


def test_a_thinned_curve_keeps_the_evenly_spread_points_of_the_one_rule():
    import pandas as pd

    from stsdemo.app.finetune.curves import MAX_POINTS, thin_curves
    from stsdemo.data.pairs import spaced_positions

    frame = pd.DataFrame({"run": ["a"] * 1000 + ["b"] * 5, "step": list(range(1000)) + list(range(5))})
    thinned = thin_curves(frame, "run")
    kept = thinned[thinned["run"] == "a"]["step"].tolist()
    assert kept == spaced_positions(1000, MAX_POINTS).tolist()
    assert thinned[thinned["run"] == "b"]["step"].tolist() == [0, 1, 2, 3, 4]
