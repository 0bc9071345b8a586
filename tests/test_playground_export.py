"""A Playground run exported as a scorer, on real embeddings of the embedded all-MiniLM-L6-v2: the folder predicts
what the run's head predicted at its best step (through ``SiameseRegressor.load``), loads in sentence-transformers,
holds the run's record and a card written from it; the head kept is the one at the chosen step; a head that is
no scorer's and a run not trained yet are refused."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from stsdemo.errors import InputError
from stsdemo.labels import STS
from stsdemo.model import SiameseRegressor
from stsdemo.playground.compact import compact_bytes, dequantize, quantize
from stsdemo.playground.config import PlaygroundConfig
from stsdemo.playground.datasets import PairIndex, PlaygroundData
from stsdemo.playground.embeddings import MAX_LENGTH, embed_sentences
from stsdemo.playground.export_run import export_playground, run_record
from stsdemo.playground.prepared import default_encoder
from stsdemo.playground.run import Playground, Source, twin_labels

TOPICS = [
    [
        "A man is playing a guitar.",
        "A man plays the guitar on stage.",
        "Someone strums an acoustic guitar.",
        "A guitarist performs a song.",
    ],
    [
        "A dog runs across the park.",
        "A puppy is running on the grass.",
        "The dog chases a ball outside.",
        "A brown dog sprints through a field.",
    ],
    [
        "A woman is slicing an onion.",
        "Someone chops vegetables in the kitchen.",
        "A cook cuts a tomato.",
        "A woman is cooking dinner.",
    ],
    [
        "The stock market fell sharply today.",
        "Shares dropped on Wall Street.",
        "Investors sold stocks in a panic.",
        "The index closed lower after heavy losses.",
    ],
    [
        "A child is reading a book.",
        "A girl reads a story in bed.",
        "The boy studies at his desk.",
        "Kids are reading in the library.",
    ],
    [
        "It is raining heavily in the city.",
        "A storm hits the coast.",
        "Heavy rain floods the streets.",
        "The weather is wet and windy.",
    ],
]
SENTENCES = [sentence for topic in TOPICS for sentence in topic]
REPORT_PAIRS = 60
SETTINGS = dict(seeds=2, steps=60, batch_size=8, lr=0.02, noise=0.3)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """The 24 sentences' vectors under the embedded encoder (its cache in a temporary folder) and every pair of
    them, labelled 0..5 by their cosine: 60 held out as the report set, the rest the pool; the data as the engine
    reads it (a compact file), and the int8-coded vectors it trains on."""
    embeddings = embed_sentences(SENTENCES, default_encoder(), folder=tmp_path_factory.mktemp("cache"))
    vectors = embeddings.vectors
    u, v = (np.array(side) for side in zip(*itertools.combinations(range(len(SENTENCES)), 2)))
    cosine = torch.nn.functional.cosine_similarity(vectors[u], vectors[v], dim=-1).numpy()
    labels = np.clip(np.round(5 * cosine, 1), 0, 5)
    order = np.random.default_rng(0).permutation(len(u))
    held, pool = order[:REPORT_PAIRS], order[REPORT_PAIRS:]
    data = PlaygroundData(
        "sts",
        SENTENCES,
        PairIndex(u[pool], v[pool], labels[pool]),
        PairIndex(u[held], v[held], labels[held]),
        STS,
        "six topics",
    )
    return data, Source(compact_bytes(data, embeddings.codes, embeddings.scales, "all-MiniLM-L6-v2")), vectors


def new_run(embedded, source=None, **changes) -> Playground:
    config = replace(PlaygroundConfig(), **{**SETTINGS, **changes})
    return Playground(config, source or embedded[1], parts=1)


def head_predictions(head, data, vectors) -> np.ndarray:
    """What a paper head (weights, then bias) predicts of the report pairs on ``vectors``."""
    held, params = data.held_out, np.asarray(head.params)
    a, b = vectors[held.u].numpy(), vectors[held.v].numpy()
    return np.concatenate([a, b, np.abs(a - b)], 1) @ params[:-1] + params[-1]


@pytest.fixture(scope="module")
def trained(embedded):
    run = new_run(embedded)
    run.step(run.config.steps)
    run.test_data, run.coded = embedded[0], coded_vectors(run.source)
    yield run
    run.close()


def coded_vectors(source: Source) -> torch.Tensor:
    from safetensors.numpy import load

    tensors = load(source.payload)
    return dequantize(tensors["codes"], tensors["scales"])


@pytest.fixture(scope="module")
def exported(trained, tmp_path_factory):
    return export_playground(trained, None, tmp_path_factory.mktemp("out") / "scorer")


def test_the_exported_scorer_predicts_what_the_head_predicted_at_its_best_step(trained, exported):
    scorer = SiameseRegressor.load(str(exported))
    data = trained.test_data
    held = data.held_out
    first, second = [SENTENCES[i] for i in held.u], [SENTENCES[i] for i in held.v]
    predicted, params = scorer.predict(first, second), np.asarray(trained.best_head(0).params)
    u, v = (scorer.encode(part, max_length=MAX_LENGTH) for part in (first, second))
    on_its_vectors = np.concatenate([u, v, np.abs(u - v)], 1) @ params[:-1] + params[-1]
    np.testing.assert_allclose(predicted, on_its_vectors, atol=1e-4)  # the run's head, exactly
    # the run trained on the int8-coded vectors the page reads too: the scorer's float32 ones differ by that rounding
    np.testing.assert_allclose(
        predicted, head_predictions(trained.best_head(0), data, trained.coded), atol=0.05
    )
    assert scorer.scheme == trained.source.scheme(1.0) and scorer.max_length == MAX_LENGTH
    assert scorer.features == "u,v,|u-v|"
    assert list(exported.parent.iterdir()) == [exported]  # no staging folder left beside it


def test_the_gap_d_carries_into_the_scorers_scheme(embedded, tmp_path):
    with new_run(embedded, d=0.5, x0=0.2) as run:
        run.step(20)
        folder = export_playground(run, "", tmp_path / "scorer", twin=1)
        best = run.best_head(1)
    scorer = SiameseRegressor.load(str(folder))
    assert scorer.scheme.gap == 0.5 and scorer.scheme.high == 2.5
    held = embedded[0].held_out
    predicted = scorer.predict([SENTENCES[i] for i in held.u], [SENTENCES[i] for i in held.v])
    coded = coded_vectors(embedded[1])
    np.testing.assert_allclose(
        predicted, head_predictions(best, embedded[0], coded), atol=0.05
    )  # int8 coding
    from stsdemo.app.model_cache import training_x0

    assert training_x0(str(folder)) == 0.0  # the no-buffer twin's x0, not the run's (the app reads it)


def test_the_export_loads_in_sentence_transformers(embedded, exported):
    from sentence_transformers import SentenceTransformer

    vectors = SentenceTransformer(str(exported), device="cpu").encode(SENTENCES)
    coded = coded_vectors(embedded[1]).numpy()  # int8 codes x each sentence's scale: within half a step of it
    assert (np.abs(vectors - coded) <= np.abs(vectors).max(1, keepdims=True) / 127 / 2 + 1e-6).all()


def test_run_json_and_the_card_name_the_twin_the_best_step_and_the_settings(trained, exported):
    record = json.loads((exported / "run.json").read_text())
    best, measured = trained.best_head(0), trained.measure()
    assert record["kind"] == "playground" and record["config"] == trained.config.to_dict()
    assert record["twin"] == {
        "index": 0,
        "name": "buffer",
        "label": twin_labels(trained.config)[0],
        "loss": "sk2",
        "k": trained.config.k,
        "x0": trained.config.x0,
    }
    assert (
        record["seed"] == 0
        and record["steps"] == 60
        and record["best_step"] == int(measured.best_steps[0, 0])
    )
    assert record["selection"] == {
        "metric": "spearman",
        "value": pytest.approx(measured.best_selection[0, 0], abs=1e-4),
    }
    assert record["data_sha256"] == trained.source.checksum
    assert record["report"] == pytest.approx(best.report, abs=1e-4)
    assert set(best.report) == {"spearman", "accuracy", "error"}
    assert record["data"] == {
        "name": "sts",
        "title": "six topics",
        "pairs": {
            "training": trained.sizes["training"],
            "selection": trained.sizes["selection"],
            "report": REPORT_PAIRS,
        },
    }
    card = (exported / "README.md").read_text()
    assert f"with a Playground head: {record['twin']['label']} (stsdemo)" in card
    assert f"* Data six topics (`sts`): {record['data']['pairs']['training']} training pairs" in card
    assert f"Kept: step {record['best_step']} of 60, the best on the selection set by spearman" in card
    assert f"| Spearman ×100 | {record['report']['spearman']:.2f} |" in card
    assert f"| mean \\|error\\| | {record['report']['error']:.2f} |" in card
    assert f"the buffer twin ({record['twin']['label']}) of seed 0" in card
    for name in ("noise", "lr", "x0", "seeds"):
        assert f"- `{name}`: {record['config'][name]}" in card
    assert 'base_model: "sentence-transformers/all-MiniLM-L6-v2"' in card
    assert f"**Maximum Sequence Length:** {MAX_LENGTH} tokens" in card and str(exported.parent) not in card
    assert run_record(trained, trained.best_head(1))["twin"]["x0"] == 0.0  # the twin without a buffer


def test_the_kept_head_is_the_one_at_the_chosen_step(embedded, trained):
    chosen = [trained.best_head(twin).step for twin in (0, 1)]
    assert any(0 < step < trained.steps_done for step in chosen)  # not a trivial start or end
    for twin, step in enumerate(chosen):  # the best so far at the chosen step is the head of that step
        with new_run(embedded) as again:
            again.step(step)
            assert again.best_head(twin).params == trained.best_head(twin).params


@pytest.mark.parametrize("head", ["cosine", "mlp"])
def test_only_a_trained_paper_head_is_exported(embedded, tmp_path, head):
    with new_run(embedded, head=head, width=4) as other:
        other.step(10)
        with pytest.raises(InputError, match=f"only the paper head .* this run's head is '{head}'"):
            export_playground(other, None, tmp_path / head)
    with pytest.raises(InputError, match="no best step yet"):
        export_playground(new_run(embedded), None, tmp_path / "fresh")
    assert not list(tmp_path.iterdir())


def test_an_encoder_of_another_width_is_refused(embedded, tmp_path):
    narrow = np.random.default_rng(1).normal(size=(len(SENTENCES), 12)).astype(np.float32)
    run = new_run(embedded, Source(compact_bytes(embedded[0], *quantize(narrow), "narrow")))
    run.step(10)
    with pytest.raises(InputError, match="the run's head reads 36 features, but the encoder .* gives 1152"):
        export_playground(run, None, tmp_path / "scorer")
    assert not list(tmp_path.iterdir())
