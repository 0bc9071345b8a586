"""The shipped scorer (stsdemo/default_scorer/): it loads as what its README says, and the STS-B test
metrics recorded beside it (senteval.json, written by ``python -m stsdemo eval ... --head --json``) still
come out of today's code."""

from __future__ import annotations

import json

import pytest

from stsdemo import environment
from stsdemo.data import senteval_test_sets
from stsdemo.evaluate import dev_metrics
from stsdemo.model import SiameseRegressor
from stsdemo.save_format import CONFIG_NAME

FOLDER = environment.default_scorer_dir()
pytestmark = pytest.mark.skipif(
    not (FOLDER / CONFIG_NAME).is_file(), reason="no shipped scorer in this checkout"
)


def _recorded(suffix: str) -> float:
    rows = json.loads((FOLDER / "senteval.json").read_text())
    (row,) = [values for name, values in rows.items() if name.endswith(suffix)]
    return row["STSBenchmark"]


def test_the_shipped_scorer_is_a_compact_cosine_scorer():
    saved = json.loads((FOLDER / CONFIG_NAME).read_text())
    assert saved["target"] == "cosine" and saved["encoder_weights"] == "lora"
    assert sum(f.stat().st_size for f in FOLDER.rglob("*") if f.is_file()) < 50 * 2**20


def test_the_shipped_scorer_reproduces_its_recorded_sts_b_test_metrics():
    model = SiameseRegressor.load(str(FOLDER))
    stsb = senteval_test_sets()["STSBenchmark"]
    metrics = dev_metrics(model, stsb)
    assert metrics["head_spearman"] == pytest.approx(_recorded("(prediction)"), abs=0.01)
    assert metrics["accuracy"] == pytest.approx(_recorded("(on the right node %)"), abs=0.01)
    assert metrics["cosine_spearman"] == pytest.approx(_recorded("default_scorer"), abs=0.01)
