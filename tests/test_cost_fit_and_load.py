"""The two benchmarks of issue 40 read their figures right: bench.perf.cost_fit names each cost model's worst
under-estimate and the case it came from; bench.perf.load counts each kind of visitor's outcomes and latencies, and
calls the app's endpoints with arguments they declare."""

import random

import pytest

from bench.perf.cost_fit import worst
from bench.perf.load import FINE_TUNE, Tally, arguments


def test_the_worst_under_estimate_of_each_model_is_the_largest_ratio_with_its_case():
    runs = [
        {"data": "short", "batch_size": 4, "max_length": 32, "ratio": {"run": 1.4, "memory": 0.8}},
        {"data": "long", "batch_size": 8, "max_length": 256, "ratio": {"run": 1.9, "memory": 0.7}},
    ]
    encodes = [{"data": "short", "sentences": 1004, "max_length": 128, "ratio": {"encode": 0.9}}]
    assert worst(runs + encodes) == {
        "run": {"ratio": 1.9, "case": "long b8 L256"},
        "memory": {"ratio": 0.8, "case": "short b4 L32"},
        "encode": {"ratio": 0.9, "case": "short x1004 L128"},
    }


def test_a_kind_of_visitor_is_summed_up_by_its_outcomes_and_its_answered_latencies():
    tally = Tally()
    for seconds in (0.1, 0.2, 0.3, 0.4):
        tally.add("ok", seconds)
    tally.add("http 503", 0.01)
    tally.add("error", 5.0)
    summary = tally.summary()
    assert summary["calls"] == 6 and summary["success_rate"] == pytest.approx(4 / 6, abs=1e-3)
    assert summary["outcomes"] == {"ok": 4, "http 503": 1, "error": 1}
    assert summary["p50_s"] == pytest.approx(0.25) and summary["p95_s"] <= 0.4  # refusals are not latencies


def test_the_visitors_call_with_arguments_the_endpoints_declare():
    from stsdemo.app.finetune import form
    from stsdemo.app.ui.tools import PLAYGROUND_ARGUMENTS

    rng = random.Random(0)
    assert set(arguments("playground", rng)) <= set(PLAYGROUND_ARGUMENTS)
    assert set(FINE_TUNE) <= set(form.FORM_FIELDS)
    assert set(arguments("score_pair", rng)) == {"sentence1", "sentence2"}
    assert set(arguments("loss_at", rng)) == {"prediction", "label"}
