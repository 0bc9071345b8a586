"""One smoke test of the benchmark code (bench/) at --quick sizes, so it cannot rot.

It trains our loop (with the labelled cosine variant) and sentence-transformers' trainer for 2 steps on
32 pairs, scores 12 pairs per SentEval task, times both evaluators on 16 pairs, measures one memory
child in-process, and renders the results tables; every number goes to a temporary results file.
"""

import json


def test_bench_quick(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_RESULTS", str(tmp_path / "results.json"))
    monkeypatch.setenv("BENCH_OUT", str(tmp_path / "out"))
    from bench import memory, quality, report, speed

    finished = quality.main(["--quick", "--arms", "sk2-cos,st-cosent"])
    assert set(finished) == {"sk2-cos/seed42/quick", "st-cosent/seed42/quick"}
    for result in finished.values():
        assert set(result["test"]) >= {"STS12", "SICKRelatedness", "Avg."}
        assert result["dev_best"] > 0 and result["steps"] == 2

    timed = speed.bench_eval(["STS16", "STSBenchmark"], repeats=1, test_pairs=8)
    assert timed["max_abs_diff"] < 0.5  # same numbers out, padded or not

    peak = memory.child("ours", steps=1, max_length=32, batch_size=4)
    assert peak["peak_rss_mib"] > 0 and peak["reason"] == "finished"

    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results["quality"]["runs"]) == 2
    table = report.render(results, md_path=tmp_path / "results.md", include_quick=True)
    assert "Smooth K2 on 5*cos" in table and "CoSENTLoss" in table
