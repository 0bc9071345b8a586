"""The Playground's core on a small synthetic data set, through the page's engine: seeds trained together against
seeds run alone (the same bits), the twins' common start, each head's best step, the metrics against the
evaluator's, the split sizes, the embedding cache and its keys, the settings' fallbacks and the payoff map's
reading."""

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from stsdemo.errors import InputError
from stsdemo.evaluate import spearman100
from stsdemo.labels import STS
from stsdemo.playground import payoff
from stsdemo.playground.compact import compact_bytes, quantize
from stsdemo.playground.config import SELECT_EVERY, SELECTION_MIN, PlaygroundConfig, argument_line
from stsdemo.playground.datasets import PairIndex, PlaygroundData, index_pairs
from stsdemo.playground.embeddings import Encoder, embed_sentences, encode_with_progress, files_fingerprint
from stsdemo.playground.engine import Engine
from stsdemo.playground.run import Playground, Source, pinned_source, run_seeds

SENTENCES, DIM = 80, 12


@pytest.fixture(scope="module")
def synthetic() -> Source:
    """80 random 'sentences' and pairs whose label (0..5) follows their vectors' cosine, so heads can learn it."""
    generator = np.random.default_rng(7)
    vectors = generator.normal(size=(SENTENCES, DIM)).astype(np.float32)

    def pairs(count: int) -> PairIndex:
        u, v = generator.integers(0, SENTENCES, count), generator.integers(0, SENTENCES, count)
        a, b = vectors[u], vectors[v]
        cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
        return PairIndex(u, v, np.clip(np.round(2.5 + 4 * cosine, 1), 0, 5))

    data = PlaygroundData("sts", [f"s{i}" for i in range(SENTENCES)], pairs(160), pairs(60), STS)
    return Source(compact_bytes(data, *quantize(vectors), "synthetic"))


def config(**changes) -> PlaygroundConfig:
    return replace(PlaygroundConfig(), **{**dict(steps=50, seeds=3, batch_size=8, width=6), **changes})


def measured(source, steps, seeds, parts=1, **changes):
    with Playground(config(**changes), source, seeds=seeds, parts=parts) as run:
        run.step(steps)
        return run.measure()


@pytest.mark.parametrize("head", ["paper", "cosine", "mlp"])
def test_seeds_trained_together_end_where_each_ends_alone_to_the_bit(synthetic, head):
    both = measured(synthetic, 30, [0, 1, 2], head=head, noise=0.3, train_pairs=40)
    split = measured(synthetic, 30, [0, 1, 2], parts=2, head=head, noise=0.3, train_pairs=40)
    for index, seed in enumerate([0, 1, 2]):
        alone = measured(synthetic, 30, [seed], head=head, noise=0.3, train_pairs=40)
        for metric, values in alone.values.items():
            np.testing.assert_array_equal(values[0], both.values[metric][index])
            np.testing.assert_array_equal(values[0], split.values[metric][index])
        np.testing.assert_array_equal(alone.best_steps[0], both.best_steps[index])
    start = measured(synthetic, 0, [0, 1, 2], head=head, noise=0.3, train_pairs=40)
    assert not np.array_equal(start.values["error"], both.values["error"])  # it did train


def test_the_twins_start_alike_and_the_seeds_do_not(synthetic):
    start = measured(synthetic, 0, [0, 1], train_pairs=40, noise=0.5)
    np.testing.assert_array_equal(start.values["error"][:, 0], start.values["error"][:, 1])
    assert start.values["error"][0, 0] != start.values["error"][1, 0]


def test_held_out_spearman_is_the_evaluators_with_ties():
    generator = np.random.default_rng(3)
    gold = np.round(generator.uniform(0, 5, 50))  # many ties, as STS-B and NLI labels have
    rows = [gold + generator.normal(0, s, 50) for s in (0.1, 1.0, 3.0)] + [np.round(gold / 2)]
    engine = Engine("v8")

    def page_spearman(row):
        found = engine._context.eval(
            f"PlaygroundEngine.spearman({json.dumps(list(row))}, Float64Array.from({json.dumps(list(gold))}))"
        )
        return np.nan if found is None else found

    np.testing.assert_allclose(
        [page_spearman(row) for row in rows], [spearman100(row, gold) for row in rows], rtol=1e-9
    )
    assert np.isnan(page_spearman(np.ones(50))) and np.isnan(page_spearman([np.nan] + [1.0] * 49))


def test_a_run_measures_every_head(synthetic):
    found = measured(synthetic, 15, [0, 1, 2])
    assert set(found.values) == {"spearman", "accuracy", "error", "inside", "selection", "fit"}
    assert found.values["spearman"].shape == (3, 2) and found.best_steps.shape == (3, 2)
    assert (found.values["inside"][:, 0] >= 0).all() and found.paired("spearman").n == 3


def test_run_seeds_trains_to_the_last_step_and_reads_the_pairs(synthetic):
    result = run_seeds(config(steps=60, seeds=4), synthetic)
    assert result["step"] == 60 and result["seeds"] == [0, 1, 2, 3] and not result["stopped_early"]
    assert result["data_sha256"] == synthetic.checksum
    paired = result["paired"]["spearman"]
    buffer, none = result["twins"]["buffer"]["spearman"]["mean"], result["twins"]["none"]["spearman"]["mean"]
    assert paired["mean"] == pytest.approx(buffer - none, abs=1e-3)
    assert paired["n"] == 4 and len(paired["diffs"]) == 4
    assert paired["verdict"] in ("holds", "reversed", "negligible", "no measurable difference")


@pytest.mark.parametrize(
    "asked, sizes",
    [(0, (5238, 500)), (800, (800, 160)), (200, (200, 50)), (3200, (3200, 500)), (9999, (5238, 500))],
)
def test_the_engine_splits_the_pool_into_training_and_selection_pairs(asked, sizes):
    with Playground(
        replace(PlaygroundConfig(), train_pairs=asked, seeds=1), pinned_source("sts"), parts=1
    ) as run:
        assert (run.sizes["training"], run.sizes["selection"]) == sizes and run.sizes["report"] == 1500
    assert sizes[1] >= SELECTION_MIN


def test_the_pool_leaves_out_every_pair_that_repeats_a_report_pair():
    from stsdemo.data import PairSet

    train = PairSet("train", ["a", "b", "c", "d"], ["b", "c", "d", "e"], np.array([1.0, 2.0, 3.0, 4.0]), STS)
    held_out = PairSet("dev", ["c", "x"], ["b", "d"], np.array([2.5, 1.0]), STS)  # (b, c) swapped
    sentences, pool, held = index_pairs(train, held_out)
    kept = {(sentences[u], sentences[v]) for u, v in zip(pool.u, pool.v)}
    assert kept == {("a", "b"), ("c", "d"), ("d", "e")} and pool.labels.tolist() == [1.0, 3.0, 4.0]
    assert len(held) == 2


def test_each_head_stops_at_the_step_that_maximises_its_selection_metric(synthetic):
    with Playground(config(train_pairs=40, noise=0.5, lr=0.05, steps=300), synthetic, seeds=[0, 1, 2]) as run:
        seen = [run.measure().values["selection"]]
        for _ in range(12):
            run.step(SELECT_EVERY)
            seen.append(run.measure().values["selection"])
        best_steps = run.measure().best_steps
    seen = np.stack(seen)  # (checks, seeds, twins)
    expected = SELECT_EVERY * np.nan_to_num(seen, nan=-np.inf).argmax(0)  # the first best on a tie
    np.testing.assert_array_equal(best_steps, expected)
    assert (best_steps > 0).any() and (best_steps < 120).any()  # not a trivial end or start


def test_a_heads_reading_at_its_chosen_step_equals_a_rerun_measured_there(synthetic):
    found = measured(synthetic, 120, [0, 1], train_pairs=40, noise=0.5, lr=0.05)
    for seed_index, twin in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        chosen = int(found.best_steps[seed_index, twin])
        there = measured(synthetic, chosen, [0, 1], train_pairs=40, noise=0.5, lr=0.05)
        for name in ("spearman", "accuracy", "error"):
            assert found.best[name][seed_index, twin] == there.values[name][seed_index, twin]


def test_bad_settings_for_the_engine_are_one_line(synthetic):
    with pytest.raises(InputError, match="cannot run these settings: a pool of 2 pairs is too small"):
        tiny = PlaygroundData(
            "sts",
            ["a", "b"],
            PairIndex(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0])),
            PairIndex(np.array([0]), np.array([1]), np.array([3.0])),
            STS,
        )
        Playground(config(), Source(compact_bytes(tiny, *quantize(np.eye(2, dtype=np.float32)), "x")))


def counting_encoder(fingerprint="model-a", max_length=128):
    calls = []

    def encode(sentences):
        calls.append(list(sentences))
        return np.array([[len(s), s.count("a"), 1.0] for s in sentences], dtype=np.float32)

    return Encoder("fake", fingerprint, max_length, encode), calls


def test_the_cache_is_read_for_the_same_model_and_data_and_rebuilt_for_others(tmp_path):
    sentences = ["a cat", "a dog sat", "banana"]
    encoder, calls = counting_encoder()
    first = embed_sentences(sentences, encoder, folder=tmp_path)
    assert not first.from_cache and len(calls) == 1
    again = embed_sentences(sentences, encoder, folder=tmp_path)
    assert again.from_cache and len(calls) == 1 and torch.equal(again.vectors, first.vectors)
    for other_encoder, other_sentences in (
        (counting_encoder("model-b")[0], sentences),
        (counting_encoder(max_length=64)[0], sentences),
        (encoder, sentences + ["more"]),
    ):
        fresh = embed_sentences(other_sentences, other_encoder, folder=tmp_path)
        assert not fresh.from_cache and fresh.key != first.key
    (tmp_path / f"{first.key}.safetensors").write_bytes(b"not a safetensors file")
    assert not embed_sentences(sentences, encoder, folder=tmp_path).from_cache


def test_a_models_fingerprint_follows_its_files(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"x" * 10)
    before = files_fingerprint(str(folder))
    (folder / "model.safetensors").write_bytes(b"y" * 11)
    assert files_fingerprint(str(folder)) != before
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text("{}")
    assert files_fingerprint(str(other)) != files_fingerprint(str(folder))
    assert files_fingerprint("sentence-transformers/all-MiniLM-L6-v2").startswith("hub:")


def test_encoding_reports_progress_and_keeps_the_order():
    sentences = [f"{'word ' * n}end" for n in (3, 1, 7, 2, 5)]
    progress = []
    vectors = encode_with_progress(
        lambda batch: np.array([[len(s)] for s in batch], dtype=np.float32),
        sentences,
        lambda done, total: progress.append((done, total)),
        chunk=2,
    )
    assert vectors[:, 0].tolist() == [len(s) for s in sentences]
    assert progress == [(2, 5), (4, 5), (5, 5)]


def test_pairs_are_indexed_into_distinct_sentences():
    from stsdemo.data import PairSet

    train = PairSet("t", ["a", "b", "a"], ["b", "c", "c"], [1.0, 2.0, 3.0], STS)
    held = PairSet("h", ["c", "d"], ["a", "a"], [4.0, 5.0], STS)
    sentences, train_index, held_index = index_pairs(train, held)
    assert sentences == ["a", "b", "c", "d"]
    assert [sentences[i] for i in held_index.u] == ["c", "d"] and held_index.labels.tolist() == [4.0, 5.0]


# ---- the settings -------------------------------------------------------------------------------------------------


def test_validate_names_the_limit_and_the_budget_bounds_one_call():
    with pytest.raises(InputError, match="seeds must be >= 1 and <= 20"):
        replace(PlaygroundConfig(), seeds=21)
    with pytest.raises(InputError, match="d/2"):
        replace(PlaygroundConfig(), x0=0.6)
    PlaygroundConfig().check_budget()
    with pytest.raises(InputError, match="too large"):
        replace(PlaygroundConfig(), head="mlp", width=64, seeds=20, steps=5000, batch_size=256).check_budget()
    assert argument_line("seeds") == (
        "seeds: Seeds trained side by side; each has its own start, training pairs, "
        "noise and batch order, which its two twins share (a whole number >= 1 and "
        "<= 20; default 20)."
    )


def _recorded_map(cells: dict) -> dict:
    """A map whose cells (by (noise, size) on STS, Smooth K2, paper head) hold ``diffs`` at step 1,000 and at best."""

    def entry(noise, size, diffs):
        part = {"paired": {"spearman": {"diffs": diffs, "seeds": list(range(len(diffs)))}}}
        config = dict(data="sts", loss="sk2", head="paper", noise=noise, train_pairs=size)
        return {"config": config, "seeds": list(range(len(diffs))), **part, "stopped_at_best": part}

    return {
        "cells": {
            payoff.cell_key("sts", "sk2", "paper", *place): entry(*place, diffs)
            for place, diffs in cells.items()
        }
    }


def test_the_payoff_reading_says_where_and_says_nowhere():
    clear, tiny = [0.5, 0.6, 0.4, 0.55, 0.45], [0.05, 0.06, 0.04, 0.05, 0.05]
    found = _recorded_map(
        {
            (0.0, 50): clear,
            (0.5, 50): [-0.3, 0.5, 0.2, 0.6, -0.4],
            (1.0, 200): [-x for x in clear],
            (1.5, 800): tiny,
        }
    )
    marks = payoff.verdicts(found, "best")
    cells = payoff.cells_of(found, "sts", "sk2", "paper")
    text = payoff.reading(cells, marks, len(marks))
    assert (
        "at σ 0 × 50 pairs" in text and "holds in 1 of 4 cells, is reversed in 1 (at σ 1 × 200 pairs)" in text
    )
    assert "negligible in 1" in text and "Benjamini-Hochberg" in text and "share seeds" in text
    del found["cells"][payoff.cell_key("sts", "sk2", "paper", 0.0, 50)]
    marks = payoff.verdicts(found, "step")
    text = payoff.reading(payoff.cells_of(found, "sts", "sk2", "paper"), marks, len(marks), "step")
    assert text.startswith("With both twins at step 1,000, the buffer pays off nowhere on this grid")
    assert payoff.reading({}, {}, 0).startswith("This map has not been recorded")


def test_the_maps_marks_are_corrected_over_its_cells():
    # alone, p = 0.005 would be marked; among 20 cells with nothing else, Benjamini-Hochberg leaves it unmarked
    lone = [0.9, 0.6, 1.1, 0.7]
    assert (
        payoff.cell_paired(
            _recorded_map({(0.0, 50): lone})["cells"]["payoff/sts/sk2/paper/noise0/pairs50"], "spearman"
        ).verdict
        == "holds"
    )
    level = {(noise, size): [0.3, -0.3, 0.2, -0.2] for noise in payoff.NOISES for size in payoff.SIZES[:4]}
    marks = payoff.verdicts(_recorded_map({**level, (0.0, 50): lone}), "best")
    assert len(marks) == 20 and "holds" not in marks.values()


def test_the_nearest_cell_and_the_grid():
    assert payoff.nearest_cell(0.6, 180, 5749) == (0.5, 200) and payoff.nearest_cell(0.0, 0, 5749) == (0.0, 0)
    assert len(payoff.grid()) == 2 * 2 * len(payoff.HEADS) * len(payoff.NOISES) * len(payoff.SIZES)


def test_an_engine_keeps_a_bounded_number_of_data_sets(synthetic):
    from stsdemo.playground import engine as js

    engine = js.Engine("v8")
    for extra in range(js.KEEP_DATA + 2):
        engine.add_data(f"set{extra}", synthetic.payload)
    assert list(engine._data) == [f"set{i}" for i in range(2, js.KEEP_DATA + 2)]
    settings = {**config().to_dict(), "seeds": 1}
    engine.start(f"set{js.KEEP_DATA + 1}", settings, [0]).close()
    with pytest.raises(Exception, match="no data set0"):
        engine.start("set0", settings, [0])


def test_reading_a_best_head_leaves_the_run_as_it_was(synthetic):
    with Playground(config(train_pairs=40, noise=0.5, lr=0.05, steps=200), synthetic, seeds=[0, 1]) as run:
        run.step(120)
        before = run.measure()
        best = run.best_head(0)
        assert best.step == before.best_steps[0, 0] and best.selection == before.best_selection[0, 0]
        after = run.measure()
        run.step(20)
        went_on = run.measure()
    for name in before.values:
        np.testing.assert_array_equal(before.values[name], after.values[name])
    with Playground(config(train_pairs=40, noise=0.5, lr=0.05, steps=200), synthetic, seeds=[0, 1]) as fresh:
        fresh.step(140)
        again = fresh.measure()
    for name in went_on.values:
        np.testing.assert_array_equal(went_on.values[name], again.values[name])
