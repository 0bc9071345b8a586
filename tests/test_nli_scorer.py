"""The shipped NLI scorer (stsdemo/nli_scorer/): a compact scorer on the NLI line whose SNLI test metrics,
recorded beside it (snli.json, written by ``python -m bench.evidence.nli --evaluate``), still come out of today's code
on the recorded slice; and scoring with the NLI scheme uses it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from stsdemo import environment
from stsdemo.data import load_snli
from stsdemo.evaluate import dev_metrics
from stsdemo.model import SiameseRegressor
from stsdemo.save_format import CONFIG_NAME

FOLDER = environment.nli_scorer_dir()
pytestmark = pytest.mark.skipif(not (FOLDER / CONFIG_NAME).is_file(), reason="no NLI scorer in this checkout")


def test_the_nli_scorer_is_a_small_adapter_on_the_nli_line():
    saved = json.loads((FOLDER / CONFIG_NAME).read_text())
    assert saved["encoder_weights"] == "lora" and saved["scheme"]["categories"] == [
        "contradiction",
        "neutral",
        "entailment",
    ]
    assert sum(f.stat().st_size for f in FOLDER.rglob("*") if f.is_file()) <= 5 * 2**20


def test_the_nli_scorer_reproduces_its_recorded_snli_test_slice():
    recorded = json.loads((FOLDER / "snli.json").read_text())
    test = load_snli("test")
    assert recorded["test"]["pairs"] == len(test) == 9824
    pairs = test.select(np.linspace(0, len(test) - 1, recorded["slice"]["pairs"]).round().astype(int))
    metrics = dev_metrics(SiameseRegressor.load(str(FOLDER)), pairs)
    assert metrics["accuracy"] == pytest.approx(recorded["slice"]["accuracy"], abs=0.01)
    assert metrics["macro_f1"] == pytest.approx(recorded["slice"]["macro_f1"], abs=0.01)


def test_scoring_with_the_nli_scheme_picks_the_nli_scorer(tmp_path):
    import pandas as pd

    from stsdemo.app import model_cache
    from stsdemo.app.app_state import AppState
    from stsdemo.app.score import view as score_view

    state = AppState()
    view = score_view.score_view(
        state,
        "nli-test",
        model_cache.DEFAULT_CHOICE,
        "A man plays a guitar.",
        "A man is playing an instrument.",
        score_view.SCHEMES["nli"],
    )
    assert view.model_choice == model_cache.NLI_CHOICE and not view.mismatch
    assert (
        view.scheme.categories == ("contradiction", "neutral", "entailment") and "Switched to" in view.notice
    )
    # a file scored with the NLI scheme goes through the NLI scorer too, and says so
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "sentence1,sentence2\nA man plays a guitar.,A man is playing an instrument.\n", encoding="utf-8"
    )
    out, rows, switched = score_view.score_file_view(
        state, "nli-test", model_cache.DEFAULT_CHOICE, str(pairs), score_view.SCHEMES["nli"]
    )
    assert "Switched to" in switched
    scored = pd.read_csv(out)
    assert scored["prediction"][0] == pytest.approx(view.score.prediction, abs=1e-4)
    assert scored["category"][0] in view.scheme.categories


def test_the_cli_scores_with_the_nli_scorer_for_the_nli_scheme(capsys):
    from stsdemo import cli

    assert (
        cli.main(["score", "--scheme", "nli", "A woman plays the flute.", "A woman is playing the flute."])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    # the STS scorer puts this pair near 5 (clamped to "entailment" on the NLI line); the NLI scorer near 2
    assert result["category"] == "entailment" and result["prediction"] < 3.5
