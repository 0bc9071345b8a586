"""bench.evidence.merge_runs: another machine's runs join docs/results.json checked, and its speed sits beside this
machine's instead of over it."""

from __future__ import annotations

import copy
import json

import pytest

from bench.common import load_results
from bench.evidence import merge_runs
from bench.schema import quality_runs

GPU = "Some GPU"


def _folder(tmp_path, results, key="minilm/sk2-cosine@lr=9e-05/seed42/tuned", extra=None):
    record = copy.deepcopy(
        next(run for run in quality_runs(results).values() if run.get("budget_tag") == "tuned")
    )
    record.update(machine=GPU, **(extra or {}))
    speed = {part: {**copy.deepcopy(results["speed"][part]), "device": GPU} for part in ("train", "eval7")}
    (tmp_path / "records.json").write_text(json.dumps({"quality": {"runs": {key: record}}, "speed": speed}))
    rows = [
        dict(
            precision="fp32", chosen="no", pairs_per_s=500.0, gpu=GPU, model_tflops=4.0, share_of_peak=0.008
        ),
        dict(
            precision="bf16", chosen="bf16", pairs_per_s=750.0, gpu=GPU, model_tflops=7.0, share_of_peak=0.007
        ),
    ]
    (tmp_path / "precision-1.log").write_text("\n".join(["warming up", *map(json.dumps, rows)]) + "\n")
    return key, record


def test_a_folder_merges_its_runs_and_keeps_each_machines_speed_apart(tmp_path):
    results = load_results()
    cpu_train = copy.deepcopy(results["speed"]["train"])
    key, record = _folder(tmp_path, results)
    merged, added = merge_runs.merged(copy.deepcopy(results), tmp_path, {("precision-1.log", 3): 64})
    assert added == [key] and merged["quality"]["runs"][key] == record
    assert merged["speed"]["train"] == cpu_train  # this machine's figure is untouched
    gpu = merged["speed"]["machines"][GPU]
    assert gpu["train"]["device"] == GPU and gpu["eval7"]["device"] == GPU
    assert [(row["precision"], row["batch_size"], row["log"]) for row in gpu["precision"]] == [
        ("fp32", merge_runs.DEFAULT_BATCH, "precision-1.log:2"),
        ("bf16", 64, "precision-1.log:3"),
    ]
    from bench.perf.speed_tables import machine_tables

    table = "\n".join(machine_tables(merged))
    assert f"**{GPU}**" in table and "bf16, batch 64" in table and "0.70 % of the dense peak" in table


def test_a_run_already_recorded_or_off_the_schema_is_refused(tmp_path):
    results = load_results()
    key, _ = _folder(tmp_path, results)
    once, _ = merge_runs.merged(copy.deepcopy(results), tmp_path, {})
    with pytest.raises(ValueError, match="recorded already"):
        merge_runs.merged(once, tmp_path, {})
    _folder(tmp_path, results, extra={"surprise": 1})
    with pytest.raises(ValueError, match="unknown fields"):
        merge_runs.merged(copy.deepcopy(results), tmp_path, {})
