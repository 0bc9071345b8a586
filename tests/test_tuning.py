"""The tuning protocol (bench.evidence.tuning): the same learning-rate grid for every arm, the buffer losses chosen at
the paper's x0 and k only (their x0 x k sweep apart, as an ablation), a point chosen on dev from a whole grid only,
keys that never collide; and the tuned evidence (bench.evidence.tuning_report): a verdict reads the chosen point on one
machine and precision, and names what it leaves out and what is not run."""

from __future__ import annotations

import json
import sys

import pytest

from bench.common import load_results
from bench.evidence import quality, tuning, tuning_evidence, tuning_report
from stsdemo.losses.spec import PAPER_X0
from stsdemo.paired import paired

BUFFER_ARMS = ("sk2-cosine", "trelu-cosine")


def test_every_arm_chooses_among_the_same_learning_rates_and_the_buffer_losses_at_the_papers_x0_and_k():
    for arm in tuning.ARMS:
        points = tuning.grid_points(arm)
        assert [p["lr"] for p in points] == list(tuning.LRS)  # the same points, as many, for every arm
        if arm in BUFFER_ARMS:
            assert all(p["k"] == tuning.arm_paper_k(arm) and p["x0"] == PAPER_X0 for p in points)
        else:
            assert all(set(p) == {"lr"} for p in points)
    assert tuning.fixed_point("sk2-cosine") == {"lr": 2e-5, "k": 2.0, "x0": 0.25}


def test_the_x0_k_sweep_is_an_ablation_apart_from_the_grid():
    for arm in tuning.ARMS:
        sweep = tuning.ablation_points(arm)
        if arm not in BUFFER_ARMS:
            assert sweep == []
            continue
        paper = tuning.arm_paper_k(arm)
        assert not any(point in tuning.grid_points(arm) for point in sweep)
        together = sweep + tuning.grid_points(arm)
        assert len(together) == len(tuning.LRS) * len(tuning.X0S) * len(tuning.K_SHARES)
        assert {(p["lr"], p["k"], p["x0"]) for p in together} == {
            (lr, paper * share, x0) for lr in tuning.LRS for share in tuning.K_SHARES for x0 in tuning.X0S
        }


def test_plan_keys_are_unique_and_the_grid_seed_is_not_a_reported_seed():
    keys = [tuning.entry_key(entry) for step in tuning.STEPS for entry in tuning.plan(step)]
    assert len(keys) == len(set(keys))
    assert tuning.GRID_SEED not in quality.SEEDS
    assert all(
        key.endswith("/grid") for key in map(tuning.entry_key, tuning.plan("grid") + tuning.plan("ablation"))
    )
    # the keys of the grid and the ablation are those the recorded runs have (16 per buffer arm, 4 per other arm)
    sk2 = [e for e in tuning.plan("grid") + tuning.plan("ablation") if e["arm"] == "sk2-cosine"]
    assert tuning.entry_key(sk2[0]) == "minilm/sk2-cosine@lr=1e-05,k=2,x0=0.25/seed41/grid" and len(sk2) == 16


def test_a_tuned_run_is_keyed_by_its_point_and_found_by_its_fields():
    runs = _grid_runs()
    entry = tuning.resolve(next(e for e in tuning.plan("tuned") if e["arm"] == "sk2-cosine"), runs)
    assert entry["point"] == {"lr": 5e-5, "k": 2.0, "x0": 0.25} and len(entry["chosen_from"]) == len(
        tuning.LRS
    )
    assert tuning.entry_key(entry) == "minilm/sk2-cosine@lr=5e-05,k=2,x0=0.25/seed42/tuned"
    results = {
        "tuning": {"runs": runs},
        "quality": {
            "runs": {
                "minilm/sk2-cosine/seed42/tuned": _tuned(
                    "sk2-cosine", 42, {"lr": 5e-5, "k": 2.0, "x0": 0.25}, 81.0, CPU
                )
            }
        },
    }
    assert tuning.recorded(results, entry)  # an older key, the same arm, seed and point
    assert not tuning.recorded(results, entry, machine=GPU)  # ... but not on the machine of the verdicts
    results["quality"]["runs"]["minilm/sk2-cosine/seed42/tuned"]["point"] = {"lr": 5e-5, "k": 1.0, "x0": 0.1}
    assert not tuning.recorded(results, entry)  # a run at another point is not this run


GPU, CPU = "GPU-X", "CPU (2 cores)"
LR_DEV = {1e-5: 87.0, 2e-5: 87.5, 5e-5: 88.2, 1e-4: 87.9}  # every arm's grid: lr 5e-5 is best


def _grid_runs(ablation_dev: float = 99.0) -> dict:
    """Every arm's grid and ablation on the grid seed; each ablation point scores ``ablation_dev``, above the grid."""
    runs = {}
    for arm in tuning.ARMS:
        for point in tuning.grid_points(arm) + tuning.ablation_points(arm):
            dev = LR_DEV[point["lr"]] if point in tuning.grid_points(arm) else ablation_dev
            runs[tuning.grid_key("minilm", arm, point)] = dict(
                point=point, dev_best=dev, best_step="1:380", machine=GPU, budget_tag="grid"
            )
    return runs


def _tuned(
    arm: str, seed: int, point: dict | None, avg: float, machine: str = GPU, model: str = "minilm"
) -> dict:
    return dict(
        arm=arm,
        seed=seed,
        point=point,
        model=model,
        budget_tag="tuned",
        machine=machine,
        label=f"label {arm}",
        test={"Avg.": avg},
        dev_best=88.0,
        stsb_node_accuracy=40.0,
    )


def test_a_point_is_chosen_by_dev_and_only_from_a_whole_grid():
    runs = _grid_runs()
    runs[tuning.grid_key("minilm", "mse-cosine", {"lr": 2e-5})]["dev_best"] = 88.5
    point, devs = tuning.chosen_point("mse-cosine", runs)
    assert point == {"lr": 2e-5} and len(devs) == 4
    del runs[tuning.grid_key("minilm", "mse-cosine", {"lr": 1e-4})]
    assert tuning.chosen_point("mse-cosine", runs)[0] is None


def test_a_buffer_arm_is_chosen_at_the_papers_x0_and_k_even_where_the_sweep_scores_higher():
    runs = _grid_runs(ablation_dev=99.0)  # every off-paper setting beats the grid
    for arm in BUFFER_ARMS:
        point, devs = tuning.chosen_point(arm, runs)
        assert point == {"lr": 5e-5, "k": tuning.arm_paper_k(arm), "x0": PAPER_X0}
        assert all(runs[key]["point"] in tuning.grid_points(arm) for key in devs) and len(devs) == len(
            tuning.LRS
        )
    for arm in set(tuning.ARMS) - set(BUFFER_ARMS):  # the others on the same four rates
        assert tuning.chosen_point(arm, runs)[0] == {"lr": 5e-5}
    results = {"tuning": {"runs": runs}, "quality": {"runs": {}}}
    rows = {(r["arm"], r["lr"]): r for r in tuning_evidence.ablation_rows(results)}
    assert len(rows) == len(BUFFER_ARMS) * len(tuning.LRS)  # reported apart: it chose nothing
    assert rows[("sk2-cosine", 5e-5)]["paper"] == 88.2 and rows[("sk2-cosine", 5e-5)][
        "best_minus_paper"
    ] == pytest.approx(99.0 - 88.2)
    assert (
        tuning_evidence.former_choice(results, "sk2-cosine")["x0"] != PAPER_X0
    )  # what the 16-point grid took


def _evidence_results() -> dict:
    """A fixture: MiniLM's grid; CosineSimilarityLoss at seeds 42-44 on the GPU; MSE at 42-43 on the GPU and 44 on
    the CPU; Smooth K2 at seeds 42-44 only at an earlier, off-paper choice; Translated ReLU, L1 and the rest none."""
    cossim, mse = {42: 81.5, 43: 81.2, 44: 81.3}, {42: 81.2, 43: 81.0, 44: 79.0}
    runs = {
        f"minilm/st-cossim/seed{s}/tuned": _tuned("st-cossim", s, {"lr": 5e-5}, v) for s, v in cossim.items()
    }
    runs |= {
        f"minilm/mse-cosine/seed{s}/tuned": _tuned("mse-cosine", s, {"lr": 5e-5}, v, GPU if s < 44 else CPU)
        for s, v in mse.items()
    }
    runs |= {
        f"minilm/sk2-cosine/seed{s}/tuned": _tuned("sk2-cosine", s, {"lr": 5e-5, "k": 1.0, "x0": 0.1}, 90.0)
        for s in (42, 43, 44)
    }
    return {
        "tuning": {"runs": _grid_runs(), "machines": {GPU: {"precision": "bf16 autocast (training)"}}},
        "quality": {"runs": runs},
    }


def _line(block: dict, a: str, b: str) -> dict:
    return next(
        line
        for claim in block["claims"]
        if claim["encoder"] == "all-MiniLM-L6-v2"
        for line in claim["lines"]
        if (line["a"], line["b"]) == (a, b)
    )


def test_a_seed_from_another_machine_and_precision_is_left_out_of_the_verdict():
    results = _evidence_results()
    assert tuning_evidence.verdict_machine(results, "minilm") == GPU
    block = tuning_evidence.evidence_block(results)
    line = _line(block, "st-cossim", "mse-cosine")
    expected = paired({42: 81.5, 43: 81.2}, {42: 81.2, 43: 81.0})  # seed 44's MSE ran on the CPU
    assert line["n"] == 2 and line["seeds"] == [42, 43] and line["diffs"] == pytest.approx(expected.diffs)
    assert line["verdict"] == expected.verdict and line["mean"] == pytest.approx(expected.mean)
    assert line["left_out"] == [f"label mse-cosine seed 44 ({CPU}, fp32)"]
    assert any("n = 2" in rule for rule in block["rules"])
    mse = [r for r in block["rows"] if r["arm"] == "mse-cosine" and r["encoder"] == "all-MiniLM-L6-v2"]
    assert [(r["seeds"], r["status"]) for r in mse] == [
        ([42, 43], "in the verdicts"),
        ([44], "other machine"),
    ]
    reading = next(text for text in block["readings"] if text.startswith("Left out"))
    assert "seed 44" in reading and "79.00, below both of its seeds" in reading


def test_seeds_at_an_earlier_choice_enter_no_verdict_and_the_chosen_point_reads_not_run():
    block = tuning_evidence.evidence_block(_evidence_results())
    for a, b in (("sk2-cosine", "mse-cosine"), ("st-cossim", "sk2-cosine")):
        line = _line(block, a, b)
        assert (line["verdict"], line["n"], line["diffs"]) == ("not run", 0, [])
    sk2 = [r for r in block["rows"] if r["arm"] == "sk2-cosine" and r["encoder"] == "all-MiniLM-L6-v2"]
    assert [(r["status"], r["seeds"]) for r in sk2] == [("not run", []), ("superseded", [42, 43, 44])]
    missing = {(m["encoder"], m["arm"]): m for m in block["missing"]}
    assert missing[("all-MiniLM-L6-v2", "sk2-cosine")]["point"] == "lr=5e-05,k=2,x0=0.25"
    assert missing[("all-MiniLM-L6-v2", "sk2-cosine")]["seeds"] == [42, 43, 44]
    assert missing[("all-MiniLM-L6-v2", "mse-cosine")]["seeds"] == [44]  # only on the CPU
    assert "--this-machine" in block["run_missing"]
    c2 = next(c for c in block["claims"] if c["claim"] == "C2" and c["encoder"] == "all-MiniLM-L6-v2")
    assert c2["verdict"] == "not run"


def test_the_report_rewrites_only_its_own_section_and_block(tmp_path):
    results = _evidence_results()
    md, evidence = tmp_path / "results.md", tmp_path / "evidence.json"
    md.write_text(
        "# R\n<!-- BEGIN AUTO -->\n### Verdicts\nkept\n### Tuned evidence: stale\nSTALE-SECTION\n"
        "### NLI accuracy\nkept too\n<!-- END AUTO -->\n"
    )
    evidence.write_text(json.dumps({"version": 1, "rows": ["kept"], "tuning": {"old": True}}))
    tuning_report.write(results, md, evidence)
    text = md.read_text()
    assert text.startswith("# R\n<!-- BEGIN AUTO -->\n### Verdicts\nkept\n" + tuning_report.TITLE)
    assert text.endswith("\n### NLI accuracy\nkept too\n<!-- END AUTO -->\n") and "STALE" not in text
    assert "\n".join(tuning_report.markdown(results)) in text
    written = json.loads(evidence.read_text())
    assert written["rows"] == ["kept"]
    assert written["tuning"] == json.loads(json.dumps(tuning_evidence.evidence_block(results)))


def test_quick_mode_refuses_to_write_under_the_real_tags(monkeypatch):
    monkeypatch.delenv("BENCH_RESULTS", raising=False)
    with pytest.raises(SystemExit) as exited:
        tuning.main(["--quick"])
    assert exited.value.code == 2


def test_seeds_is_a_count_and_a_seed_value_is_refused():
    with pytest.raises(SystemExit) as exited:
        quality.main(["--seeds", "45", "--list"])
    assert exited.value.code == 2


def test_the_recorded_tuned_evidence_reads_the_chosen_point_on_one_machine():
    results = load_results()
    block = tuning_evidence.evidence_block(results)
    if not block["grid"]:
        pytest.skip("no tuning runs recorded")
    chosen = {row["arm"]: row for row in block["grid"]}
    for row in block["rows"]:
        if row["tag"] == "tuned" and row["arm"] in chosen and row["status"] != "superseded":
            assert (
                row["point"] == chosen[row["arm"]]["point"]
            )  # every seed in a verdict ran at the chosen point
        if row["status"] == "in the verdicts" and row["tag"] == "tuned":
            encoder = next(m for m, name in quality.MODELS.items() if name == row["encoder"])
            machine = tuning_evidence.verdict_machine(results, encoder)
            assert row["machine"] == tuning_evidence.machine_text(results, machine)
    for claim in block["claims"]:
        for line in claim["lines"]:
            if line["n"]:
                assert line["n"] == len(line["diffs"]) and line["mean"] == pytest.approx(
                    sum(line["diffs"]) / line["n"]
                )
            else:
                assert line["verdict"] == "not run"


def test_the_benchmark_tab_shows_the_shipped_tuned_evidence_and_a_notice_without_it(tmp_path):
    from stsdemo.app.benchmark import tuning_view

    block = tuning_view.load_tuning()
    assert block is not None, (
        "the shipped evidence.json has no tuning block: run python -m bench.evidence.report"
    )
    table, grid = tuning_view.tuned_frame(block), tuning_view.grid_frame(block)
    assert len(table) == len(block["rows"]) and set(table["encoder"]) == {
        "all-MiniLM-L6-v2",
        "all-mpnet-base-v2",
    }
    assert len(grid) == len(block["grid"]) and all("lr" in point for point in grid["chosen point"])
    text = tuning_view.claims_markdown(block)
    for claim in block["claims"]:
        assert f"{claim['claim']} on {claim['encoder']}" in text and claim["verdict"] in text
    assert " se, n = 3" in text  # a paired difference names its standard error
    assert all(rule in text for rule in block["rules"]) and all(m["point"] in text for m in block["missing"])
    empty = tmp_path / "evidence.json"
    empty.write_text('{"version": 1, "rows": [], "claims": []}')
    assert tuning_view.load_tuning(empty) is None
    assert (
        tuning_view.claims_markdown(None) == tuning_view.UNAVAILABLE and tuning_view.tuned_frame(None).empty
    )


def test_the_grid_runs_one_after_another_without_ray_and_records_each_run_and_each_twice_failed_run(
    monkeypatch, tmp_path
):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails: the default needs none
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path / "results.json"))
    monkeypatch.setenv("BENCH_OUT", str(tmp_path / "out"))
    calls = []

    def run_one(arm, seed, budget, sets, model, model_path, point=None, tag=None):
        calls.append(arm)
        if arm == "st-angle":
            raise RuntimeError("out of\nluck")
        return dict(
            arm=arm,
            seed=seed,
            point=point,
            lr=point["lr"],
            budget={},
            budget_key=budget.key(),
            budget_tag=tag,
            dev_best=80.0,
            best_step="1:2",
            dev_curve=[],
            steps=2,
            wall_seconds=0.5,
            machine=CPU,
            finished="2026-12-03 18:00:00",
        )

    monkeypatch.setattr(quality, "run_one", run_one)
    monkeypatch.setattr(quality, "test_sets", lambda budget: {})
    with pytest.raises(SystemExit, match="^4 run\\(s\\) failed: minilm/st-angle@lr=1e-05/seed41/grid: "):
        tuning.main(["--steps", "grid", "--quick", "--skip-done"])
    results = load_results()
    angle = {tuning.entry_key(e) for e in tuning.plan("grid") if e["arm"] == "st-angle"}
    assert set(results["tuning"]["runs"]) == {tuning.entry_key(e) for e in tuning.plan("grid")} - angle
    assert results["tuning"]["failed"] == dict.fromkeys(angle, "RuntimeError: out of luck")
    assert len(calls) == len(tuning.plan("grid")) + len(angle)  # each failed run was tried twice
    calls.clear()
    with pytest.raises(SystemExit):  # --skip-done: only the failed runs again
        tuning.main(["--steps", "grid", "--quick", "--skip-done"])
    assert calls == ["st-angle"] * 2 * len(angle) and sys.modules["ray"] is None


def test_tuning_on_a_bad_ray_address_exits_2_with_one_line_before_it_loads_anything(monkeypatch, capsys):
    monkeypatch.setattr(quality, "test_sets", lambda budget: pytest.fail("loaded the test sets"))
    with pytest.raises(SystemExit) as exited:
        tuning.main(["--steps", "grid", "--ray", "127.0.0.1:1"])
    err = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2 and len(err) == 1
    assert err[0].startswith("python -m bench.evidence.tuning: error: no Ray cluster answers at 127.0.0.1:1")
