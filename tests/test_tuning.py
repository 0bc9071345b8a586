"""The tuning protocol (bench.tuning): the same grid for every arm, a point chosen on dev from a whole grid only,
keys that never collide, and the tuned evidence read from the recorded runs."""

from __future__ import annotations

import pytest

from bench import quality, tuning, tuning_report
from bench.common import load_results


def test_every_arm_gets_the_learning_rates_and_the_buffer_losses_also_k_and_x0():
    for arm in tuning.ARMS:
        points = tuning.grid_points(arm)
        assert sorted({p["lr"] for p in points}) == sorted(tuning.LRS)
        if arm in ("sk2-cosine", "trelu-cosine"):
            paper = tuning.paper_k(arm)
            assert {p["k"] for p in points} == {paper, paper / 2} and {p["x0"] for p in points} == set(tuning.X0S)
            assert len(points) == len(tuning.LRS) * 4
        else:
            assert all(set(p) == {"lr"} for p in points)
    assert tuning.fixed_point("sk2-cosine") == {"lr": 2e-5, "k": 2.0, "x0": 0.25}


def test_plan_keys_are_unique_and_the_grid_seed_is_not_a_reported_seed():
    keys = [tuning.entry_key(entry) for step in tuning.STEPS for entry in tuning.plan(step)]
    assert len(keys) == len(set(keys))
    assert tuning.GRID_SEED not in quality.SEEDS
    assert all(key.endswith("/grid") for key in map(tuning.entry_key, tuning.plan("grid")))


def _grid_runs(arm: str, devs: list[float]) -> dict:
    return {tuning.grid_key("minilm", arm, point): dict(point=point, dev_best=dev, best_step="1:380")
            for point, dev in zip(tuning.grid_points(arm), devs)}


def test_a_point_is_chosen_by_dev_and_only_from_a_whole_grid():
    runs = _grid_runs("mse-cosine", [87.0, 88.5, 88.1, 87.9])
    point, devs = tuning.chosen_point("mse-cosine", runs)
    assert point == {"lr": 2e-5} and len(devs) == 4
    del runs[tuning.grid_key("minilm", "mse-cosine", {"lr": 1e-4})]
    assert tuning.chosen_point("mse-cosine", runs)[0] is None


def test_quick_mode_refuses_to_write_under_the_real_tags(monkeypatch):
    monkeypatch.delenv("BENCH_RESULTS", raising=False)
    with pytest.raises(SystemExit) as exited:
        tuning.main(["--quick"])
    assert exited.value.code == 2


def test_seeds_is_a_count_and_a_seed_value_is_refused():
    with pytest.raises(SystemExit) as exited:
        quality.main(["--seeds", "45", "--list"])
    assert exited.value.code == 2


def test_the_recorded_tuned_evidence_pairs_each_claim_with_its_fixed_setting_verdict():
    results = load_results()
    block = tuning_report.evidence_block(results)
    if not block["grid"]:
        pytest.skip("no tuning runs recorded")
    chosen = {row["arm"]: row for row in block["grid"]}
    for row in block["rows"]:
        if row["tag"] == "tuned" and row["arm"] in chosen:
            assert row["point"] == chosen[row["arm"]]["point"]  # every seed ran at the point its grid chose
    for claim in block["claims"]:
        for line in claim["lines"]:
            assert line["n"] == len(line["diffs"]) and line["mean"] == pytest.approx(sum(line["diffs"]) / line["n"])


def test_the_benchmark_tab_shows_the_shipped_tuned_evidence_and_a_notice_without_it(tmp_path):
    from stsdemo.app import tuning_view

    block = tuning_view.load_tuning()
    assert block is not None, "the shipped evidence.json has no tuning block: run python -m bench.report"
    table, grid = tuning_view.tuned_frame(block), tuning_view.grid_frame(block)
    assert len(table) == len(block["rows"]) and set(table["encoder"]) == {"all-MiniLM-L6-v2", "all-mpnet-base-v2"}
    assert len(grid) == len(block["grid"]) and all("lr" in point for point in grid["chosen point"])
    text = tuning_view.claims_markdown(block)
    for claim in block["claims"]:
        assert f"{claim['claim']} on {claim['encoder']}" in text and claim["verdict"] in text
    assert " se, n = 3" in text  # a paired difference names its standard error
    empty = tmp_path / "evidence.json"
    empty.write_text('{"version": 1, "rows": [], "claims": []}')
    assert tuning_view.load_tuning(empty) is None
    assert tuning_view.claims_markdown(None) == tuning_view.UNAVAILABLE and tuning_view.tuned_frame(None).empty
