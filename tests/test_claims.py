"""The verdict rule on paired seeds (bench.evidence.claims) and the evidence the app shows
(stsdemo.app.benchmark.evidence_view), rendered from a fixture results file."""

from __future__ import annotations

import json
import math
import re

import pytest

from bench.evidence import claims, report, tuning_evidence
from stsdemo import claims_text, evidence_cells
from stsdemo.app.benchmark import evidence_view
from stsdemo.app.benchmark import view as benchmark_view


@pytest.mark.parametrize(
    "a, b, verdict",
    [
        ({42: 81.0, 43: 81.2, 44: 80.9}, {42: 80.5, 43: 80.6, 44: 80.5}, "holds"),  # +0.5, +0.6, +0.4
        ({42: 80.0, 43: 80.1, 44: 79.9}, {42: 80.5, 43: 80.6, 44: 80.5}, "reversed"),
        ({42: 81.1, 43: 80.3, 44: 80.6}, {42: 80.5, 43: 80.6, 44: 80.3}, "no measurable difference"),
        ({42: 80.6}, {42: 80.5}, "one seed"),
        ({42: 80.6}, {43: 80.5}, "not measured"),  # no shared seed
    ],
)
def test_the_verdict_rule_on_paired_differences(a, b, verdict):
    assert claims.paired(a, b).verdict == verdict


def _diffs_at(ratio: float, n: int, sd: float = 1.0, shift: float = 0.0) -> list[float]:
    """``n`` paired differences whose mean is ``shift`` plus ``ratio`` standard errors (standard deviation
    ``sd``)."""
    import numpy as np

    noise = np.random.default_rng(n).standard_normal(n)
    noise = (noise - noise.mean()) / noise.std(ddof=1)
    return list(shift + sd * (ratio / np.sqrt(n) + noise))


def _paired(diffs: list[float], metric: str = "spearman"):
    from stsdemo.paired import paired

    return paired(dict(enumerate(diffs)), {None: 0.0}, metric)


@pytest.mark.parametrize("n, verdict", [(3, "no measurable difference"), (20, "holds")])
def test_a_mean_of_2_5_standard_errors_is_read_by_the_t_quantile_of_its_n(n, verdict):
    result = _paired(_diffs_at(2.5, n))
    assert result.mean / result.se == pytest.approx(2.5)
    assert result.verdict == verdict


def test_the_threshold_is_the_two_sided_95_percent_t_quantile():
    from scipy.stats import t

    from stsdemo.paired import rule_text, t_quantile

    for n in (2, 3, 20):
        assert t_quantile(n) == pytest.approx(t.ppf(0.975, n - 1))
    assert f"{t_quantile(3):.2f} standard errors" in rule_text(3) and "2 degrees of freedom" in rule_text(3)


# ---- equivalence: negligible only when the interval lies inside the margin ---------------------------------


def _interval_at(low: float, high: float, n: int = 10):
    """A comparison of ``n`` differences whose 95 % interval runs from ``low`` to ``high``."""
    from stsdemo.paired import t_quantile

    sd = (high - low) / 2 / t_quantile(n) * n**0.5
    return _paired(_diffs_at(0.0, n, sd=sd, shift=(low + high) / 2))


def test_an_interval_inside_the_margin_is_negligible_even_when_the_test_marks_it():
    from stsdemo.paired import MARGINS

    margin = MARGINS["spearman"].points
    result = _interval_at(0.1 * margin, 0.9 * margin)
    assert result.interval == pytest.approx((0.1 * margin, 0.9 * margin))
    assert result.p_value < 0.05 and result.verdict == "negligible"


def test_a_small_mean_whose_interval_straddles_the_margin_is_not_negligible():
    from stsdemo.paired import MARGINS

    margin = MARGINS["spearman"].points
    result = _interval_at(-20 * margin, 21 * margin)  # mean half a margin, interval far wider than it
    assert abs(result.mean) < margin and result.verdict == "no measurable difference"
    across = _interval_at(0.5 * margin, 1.5 * margin)  # above zero, one end past the margin
    assert across.verdict == "holds"


def test_an_interval_outside_the_margin_holds_or_is_reversed_by_its_side():
    from stsdemo.paired import MARGINS

    margin = MARGINS["accuracy"].points
    assert _interval_at(2 * margin, 5 * margin).verdict == "holds"
    assert _interval_at(-5 * margin, -2 * margin).verdict == "reversed"


def test_the_margin_is_declared_per_metric_and_an_unknown_metric_is_refused():
    from stsdemo.paired import MARGINS, paired

    diffs = _diffs_at(0.0, 10, sd=0.01, shift=0.0)
    for metric, margin in MARGINS.items():
        assert _paired(diffs, metric).equivalent and _paired(diffs, metric).metric == metric
        assert margin.points > 0 and margin.unit and margin.meaning
    with pytest.raises(ValueError, match="no margin"):
        paired({1: 1.0}, {1: 0.0}, metric="loss")


def test_two_equal_differences_have_no_spread_so_no_verdict():
    """Two rounded scores whose differences agree (their float differences differ by rounding only) show no
    spread: not evidence of a difference, nor of its absence."""
    from stsdemo.paired import paired

    result = paired({42: 80.6, 43: 80.9}, {42: 80.3, 43: 80.6})
    assert result.n == 2 and result.mean == pytest.approx(0.3)
    assert math.isnan(result.p_value) and math.isnan(result.interval[0])
    assert (
        result.verdict == "no measurable difference"
        and result.verdict_given(True) == "no measurable difference"
    )
    assert paired({42: 1.0, 43: 1.0}, {None: 1.0}).verdict == "no measurable difference"  # all zero, too


def test_one_seed_and_no_seed_give_no_verdict_and_no_interval():
    from stsdemo.paired import paired
    from stsdemo.verdict import Verdict

    one, none = paired({42: 80.6}, {42: 80.5}), paired({42: 80.6}, {43: 80.5})
    assert one.verdict is Verdict.ONE_SEED and none.verdict is Verdict.NOT_MEASURED
    assert math.isnan(one.se) and math.isnan(none.mean) and none.numbers() == "" and one.interval_text() == ""


def test_the_mean_and_spread_do_not_depend_on_the_order_of_the_seeds():
    import random

    diffs = [0.1] * 7 + [1e16, -1e16] + [0.2, 0.3]
    shuffled = list(diffs)
    random.Random(0).shuffle(shuffled)
    assert _paired(diffs).mean == _paired(shuffled).mean == pytest.approx(math.fsum(diffs) / len(diffs))
    assert _paired(diffs).sd == _paired(shuffled).sd


def test_the_rule_as_data_is_json_and_matches_the_rule():
    from stsdemo.paired import LEVEL, MARGINS, RULE_IN_WORDS, rule_as_data, t_quantile
    from stsdemo.verdict import Verdict

    data = json.loads(json.dumps(rule_as_data(max_n=30)))
    assert data["level"] == LEVEL and data["in_words"] == RULE_IN_WORDS
    assert {metric: entry["points"] for metric, entry in data["margins"].items()} == {
        metric: margin.points for metric, margin in MARGINS.items()
    }
    assert sorted(map(int, data["t_quantiles"])) == list(range(2, 31))
    assert all(data["t_quantiles"][str(n)] == t_quantile(n) for n in range(2, 31))
    assert data["verdicts"] == [verdict.value for verdict in Verdict]


def test_benjamini_hochberg_keeps_the_smallest_p_values_under_their_rank_line():
    from stsdemo.paired import benjamini_hochberg

    # m = 4: lines 0.0125, 0.025, 0.0375, 0.05; the third p-value is under its line, so the three smallest pass
    assert benjamini_hochberg([0.03, 0.001, 0.2, 0.02]) == [True, True, False, True]
    assert benjamini_hochberg([0.04, 0.2, 0.3, float("nan")]) == [False] * 4  # 0.04 > 0.0125: nothing
    assert benjamini_hochberg([0.04]) == [True]


def test_the_rule_uses_the_standard_error_of_the_differences_not_of_the_arms():
    # both arms vary a lot across seeds, but always move together: the paired difference is clear
    result = claims.paired({42: 78.0, 43: 81.0, 44: 84.0}, {42: 77.8, 43: 80.7, 44: 83.8})
    assert result.diffs == pytest.approx([0.2, 0.3, 0.2]) and result.verdict == "holds"
    assert result.se == pytest.approx(0.0333, abs=1e-3) and "n = 3" in result.numbers()


def test_an_untrained_base_pairs_with_every_seed():
    result = claims.paired({42: 77.0, 43: 77.5, 44: 77.2}, {None: 78.87})
    assert result.seeds == [42, 43, 44] and result.verdict == "reversed"


def test_a_claim_combines_its_comparisons():
    from stsdemo.verdict import Verdict

    both = claims.combine([Verdict.HOLDS, Verdict.HOLDS])
    assert str(both) == "holds" and both.shared is Verdict.HOLDS and not both.partial
    partial = claims.combine(["holds", "not measured"])  # a recorded word is read as its Verdict
    assert (
        str(partial) == "holds (comparisons with 2+ seeds)"
        and partial.shared is Verdict.HOLDS
        and partial.partial
    )
    assert str(claims.combine([Verdict.NO_DIFFERENCE, Verdict.REVERSED])).startswith("mixed: 1 reversed")
    none_read = claims.combine([Verdict.ONE_SEED, Verdict.NOT_MEASURED])
    assert str(none_read) == "one seed only" and none_read.shared is None and not none_read.partial
    mixed = claims.combine([Verdict.NEGLIGIBLE, Verdict.NO_DIFFERENCE])
    assert str(mixed) == "mixed: 1 negligible, 1 no measurable difference" and mixed.shared is None
    assert mixed.counts == {Verdict.NEGLIGIBLE: 1, Verdict.NO_DIFFERENCE: 1}
    with pytest.raises(ValueError):
        claims.combine(["helps"])  # no such verdict


def _sts_run(arm, seed, avg, node=45.0, dev=88.0):
    test = {t: avg for t in report.TASKS} | {"Avg.": avg}
    return dict(
        arm=arm,
        seed=seed,
        model="minilm",
        label=f"label of {arm}",
        group="main",
        kind="ours",
        family="cosine",
        budget=dict(
            epochs=1.0, max_steps=None, batch_size=16, max_length=256, eval_every=95, stage1_max_steps=190
        ),
        budget_key="paper-key",
        budget_tag="paper",
        test=test,
        dev_best=dev,
        best_step="1:380",
        stsb_node_accuracy=node,
        machine="CPU (2 cores)",
        finished=f"2026-11-23 0{seed - 40}:00",
    )


def _nli_run(arm, seed, accuracy, pairs=8842):
    return dict(
        arm=arm,
        seed=seed,
        loss=arm.split("-")[1],
        train_pairs=pairs,
        budget_tag="epoch",
        budget=dict(epochs=1.0),
        test_accuracy=accuracy,
        test_macro_f1=accuracy - 1,
        held_out_best=accuracy + 1,
        wall_seconds=240,
        machine="CPU (2 cores)",
    )


@pytest.fixture
def results():
    runs = {}
    for seed, (sk2, mse) in zip((42, 43, 44), ((80.8, 80.95), (80.7, 80.95), (80.9, 81.05))):
        runs[f"minilm/sk2-cosine/seed{seed}/paper"] = _sts_run("sk2-cosine", seed, sk2, dev=88.0 + seed / 100)
        runs[f"minilm/mse-cosine/seed{seed}/paper"] = _sts_run("mse-cosine", seed, mse)
    runs["minilm/base/seed42/paper"] = _sts_run("base", 42, 78.87)
    nli = {
        f"minilm/{arm}/seed{seed}/epoch": _nli_run(arm, seed, acc)
        for arm, accs in (("nli-sk2", (74.1, 74.5, 74.2)), ("nli-ce", (76.2, 76.3, 76.4)))
        for seed, acc in zip((42, 43, 44), accs)
    }
    return {"quality": {"runs": runs}, "nli": {"runs": nli}, "machine": {"cpus": 2}}


def test_a_comparison_reads_only_runs_at_its_budget(results):
    runs = results["quality"]["runs"]
    runs["minilm/base/seed42/quick"] = dict(
        _sts_run("base", 42, 12.0), budget_tag="quick"
    )  # a smoke run's base
    runs["minilm/sk2-cosine/seed45/quick"] = dict(_sts_run("sk2-cosine", 45, 10.0), budget_tag="quick")
    assert claims.arm_values(results, "sts", "base") == {None: 78.87}
    assert sorted(claims.arm_values(results, "sts", "sk2-cosine")) == [42, 43, 44]


@pytest.mark.parametrize(
    "node, node_n, seeds, shown",
    [
        (41.29, 3, 3, "41.29 ± 0.40"),
        (41.29, 2, 3, "41.29 ± 0.40 (n = 2)"),  # one run predates the node accuracy
        (41.29, 1, 3, "41.29 (n = 1)"),
        (None, 0, 3, "–"),
    ],
)
def test_a_node_cell_names_its_count_only_when_some_seeds_lack_it(node, node_n, seeds, shown):
    assert evidence_cells.node_cell(node, 0.40, node_n, seeds) == shown


def test_a_recorded_claim_verdict_is_its_comparisons_read_as_one():
    """The app reads a claim's verdict from its comparisons' verdicts (``Claim.combined``), the words recorded beside
    them are what those give."""
    from stsdemo.verdict import Verdict

    found = evidence_view.load_evidence()
    assert all(isinstance(line.verdict, Verdict) for claim in found.claims for line in claim.lines)
    assert all(claim.verdict == str(claim.combined) for claim in found.claims if claim.lines)


def test_the_shipped_evidence_is_what_the_recorded_results_give():
    """stsdemo/app/evidence.json and the evidence block of docs/evidence.md (moved there from the README, issue 27)
    are written by ``python -m bench.evidence.report`` from docs/results.json: rerun it whenever a run is recorded, so
    neither shows numbers the record does not give."""
    from bench.common import load_results

    results = load_results()
    shipped = json.loads(evidence_view.EVIDENCE_FILE.read_text(encoding="utf-8"))
    found = report.evidence(results)
    fresh = json.loads(json.dumps({**found.to_dict(), "tuning": tuning_evidence.evidence_block(results)}))
    shipped.pop("generated"), fresh.pop("generated")
    assert shipped == fresh, "stale stsdemo/app/evidence.json: run python -m bench.evidence.report"
    page = report.EVIDENCE_MD.read_text(encoding="utf-8")
    block = page.split(report.EVIDENCE_BEGIN, 1)[1].split(report.EVIDENCE_END, 1)[0]
    dated = re.compile(r"recorded \d{4}-\d{2}-\d{2}")
    assert dated.sub("", block.strip()) == dated.sub("", report.evidence_page_block(found).strip()), (
        "stale evidence block in docs/evidence.md: run python -m bench.evidence.report"
    )


def test_the_evidence_table_and_verdicts_render_from_a_results_file(results, tmp_path):
    path = report.write_evidence(report.evidence(results), tmp_path / "evidence.json")
    found = evidence_view.load_evidence(path)
    frame = evidence_view.evidence_frame(found, {"my model": {"Avg.": 79.5}})
    assert list(frame.columns) == evidence_view.COLUMNS
    rows = {row["arm"]: row for row in frame.to_dict("records")}
    sk2 = rows["label of sk2-cosine (sk2-cosine)"]
    assert sk2["seeds"] == "42, 43, 44" and sk2["7-task mean ± sd"] == "80.80 ± 0.10"
    assert sk2["STS-B test on node (%)"] == "45.00 ± 0.00" and sk2["machine"] == "CPU (2 cores)"
    nli = next(row for name, row in rows.items() if name.endswith("(nli-ce)"))
    assert nli["SNLI test accuracy (%)"] == "76.30 ± 0.10" and nli["7-task mean ± sd"] == "–"
    assert rows["my model (evaluated here)"]["7-task mean ± sd"] == "79.50"
    text = claims_text.claims_markdown(found)
    # SK2 - MSE on the cosine target: -0.15, -0.25, -0.15 -> reversed (t = -5.5 with 2 df, the interval reaches
    # past -0.1); NLI SK2 - CE: -2.1, -1.8, -2.2 -> C1 reversed
    assert "**C2** the buffer zone helps: **reversed (comparisons with 2+ seeds)**" in text
    assert "STS, cosine target: Smooth K2 vs MSE -0.18 ± 0.03 (n = 3)" in text
    assert "**C1** regression beats classification: **reversed (comparisons with 2+ seeds)**" in text
    headline = evidence_view.headline(found)
    assert "no measurable difference" not in headline and "reversed" in headline
    assert "n = 3" in evidence_view.buffer_spread(found, "sk2", "cosine")
    sts, nli = (evidence_view.evidence_figure(found, task) for task in (evidence_view.STS, evidence_view.NLI))
    assert len(sts.data[0].y) == 3 and len(nli.data[0].y) == 2  # base, sk2, mse | the two NLI arms
    assert list(sts.data[0].error_x.array) == pytest.approx([0.0, 0.1, 0.0577], abs=1e-3)


def test_a_fusion_entry_is_one_row_of_the_evidence(results, tmp_path):
    """A fused model is one model: its row has the seeds it merged, one figure and no sd or node figure."""
    results["fusion"] = {
        "minilm/sk2-cosine/seeds42+43+44/paper/delta": dict(
            kind="delta",
            runs=[f"minilm/sk2-cosine/seed{s}/paper" for s in (42, 43, 44)],
            model="minilm",
            arm="sk2-cosine",
            seeds=[44, 42, 43],
            label="label of sk2-cosine + delta-guided fusion of 3 seeds (alpha=0.9)",
            alpha=0.9,
            dev_by_alpha={},
            dev=88.5,
            run_dev=88.4,
            run_test_avg=80.8,
            test={"Avg.": 81.25},
            test_from="fused",
            eval_seconds=50.0,
            budget_key="paper-key",
            budget_tag="paper",
            run_finished=[],
            wall_seconds=110.0,
            finished="2026-11-24 02:29:40",
        )
    }
    found = evidence_view.load_evidence(
        report.write_evidence(report.evidence(results), tmp_path / "evidence.json")
    )
    rows = {row["arm"]: row for row in evidence_view.evidence_frame(found).to_dict("records")}
    fused = rows["label of sk2-cosine + delta-guided fusion of 3 seeds (alpha=0.9) (sk2-cosine+delta)"]
    assert fused["seeds"] == "42, 43, 44" and fused["7-task mean ± sd"] == "81.25"
    assert fused["STS-B test on node (%)"] == "–" and fused["machine"] == "CPU (2 cores)"
    assert found.row("sk2-cosine+delta").dev == 88.5


@pytest.mark.parametrize(
    "content", [None, "{not json", json.dumps({"version": 99}), json.dumps({"version": 1})]
)
def test_a_missing_or_corrupt_evidence_file_leaves_the_tab_working(content, tmp_path, monkeypatch):
    path = tmp_path / "evidence.json"
    if content is not None:
        path.write_text(content)
    monkeypatch.setattr(evidence_view, "EVIDENCE_FILE", path)
    with pytest.raises(evidence_view.EvidenceUnavailable):
        evidence_view.load_evidence()
    table, sts, nli, verdicts = benchmark_view.evidence_views({"my model": {"Avg.": 79.5}})
    assert "evidence is unavailable" in verdicts and len(table) == 1
    assert sts.layout.annotations[-1].text == nli.layout.annotations[-1].text == "evidence unavailable"
    assert evidence_view.headline(None).startswith("The project's measurements are unavailable")
