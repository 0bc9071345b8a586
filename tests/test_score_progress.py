"""Scoring a file says how far it is (issue 40): its sentences are embedded in chunks, longest first, each
distinct one once, and the Score tab streams a progress bar with the time left at the pace so far; the scored
file is the one scoring it at once gives."""

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from stsdemo.app.score import view as score_view
from stsdemo.data import load_csv
from stsdemo.scoring import embedding_steps, score_pairs

SENTENCES = [
    "A man is playing a guitar on the stage tonight.",
    "A dog runs.",
    "A man is playing a guitar on the stage tonight.",
    "Two women are talking in a small kitchen about the weather.",
    "Stocks fell.",
]


def test_sentences_are_embedded_in_chunks_each_distinct_one_once(embedded_model):
    embedded = []
    counting = SimpleNamespace(
        token_counts=embedded_model.token_counts,
        max_length=embedded_model.max_length,
        encoder=embedded_model.encoder,
        encode=lambda chunk: embedded.append(list(chunk)) or embedded_model.encode(chunk),
    )
    steps = list(embedding_steps(counting, SENTENCES, chunk_tokens=16))
    fractions = [fraction for fraction, _ in steps]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(steps) >= 3
    assert sorted(s for chunk in embedded for s in chunk) == sorted(set(SENTENCES))  # each distinct one once
    assert embedded[0] == [SENTENCES[3]]  # the longest first
    together = embedded_model.encode(SENTENCES)
    np.testing.assert_allclose(steps[-1][1], together, atol=1e-5)


@pytest.fixture
def pairs_file(tmp_path):
    path = tmp_path / "pairs.csv"
    rows = [f"{a},{b},{i % 6}" for i, (a, b) in enumerate(itertools.permutations(SENTENCES, 2))]
    path.write_text("sentence1,sentence2,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_the_score_tab_streams_the_share_embedded_and_the_time_left(pairs_file, tmp_path, embedded_model):
    state = SimpleNamespace(models=SimpleNamespace(get=lambda source: embedded_model))
    ticks = itertools.count(step=10.0)  # ten seconds pass between two readings of the clock
    steps = list(
        score_view.score_file_steps(
            state,
            "progress",
            "default",
            str(pairs_file),
            score_view.SCHEMES["own"],
            clock=lambda: next(ticks),
            chunk_tokens=16,
        )
    )
    texts = [step.progress for step in steps]
    assert "Scoring 20 pairs: estimating time left…" in texts[0]
    assert any("% embedded, about " in text and " s left" in text for text in texts[1:-1])
    assert 'data-state="done"' in texts[-1] and "Scored 20 pairs in " in texts[-1]
    assert all(step.path is None for step in steps[:-1]) and len(steps) >= 4
    direct = score_pairs(
        embedded_model,
        load_csv(pairs_file, embedded_model.scheme, require_label=False),
        tmp_path / "direct.csv",
    )
    streamed, whole = pd.read_csv(steps[-1].path), pd.read_csv(direct)
    np.testing.assert_allclose(streamed["prediction"], whole["prediction"], atol=1e-3)
    assert list(steps[-1].rows.columns) == list(whole.columns) and "labelled pairs" in steps[-1].summary
