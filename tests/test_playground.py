"""The Playground's core on a small synthetic data set: batched seeds against seeds run alone, the x0 = 0 twin
against MSE / L1, no gradient for a pair inside the buffer (seen through the Playground's own step), the metrics
against the evaluator's, the embedding cache and its keys, the settings' fallbacks and the payoff map's reading."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from stsdemo.errors import InputError
from stsdemo.evaluate import spearman100
from stsdemo.labels import STS
from stsdemo.losses.registry import build_loss
from stsdemo.playground import payoff
from stsdemo.playground.config import PlaygroundConfig, argument_line
from stsdemo.playground.datasets import PairIndex, PlaygroundData, index_pairs
from stsdemo.playground.embeddings import Encoder, embed_sentences, encode_with_progress, files_fingerprint
from stsdemo.playground.metrics import spearman_rows
from stsdemo.playground.run import Playground, prepare_features, run_seeds

SENTENCES, DIM = 80, 12


@pytest.fixture(scope="module")
def synthetic():
    """80 random 'sentences' and pairs whose label (0..5) follows their vectors' cosine, so heads can learn it."""
    generator = np.random.default_rng(7)
    vectors = torch.from_numpy(generator.normal(size=(SENTENCES, DIM)).astype(np.float32))

    def pairs(count: int) -> PairIndex:
        u, v = generator.integers(0, SENTENCES, count), generator.integers(0, SENTENCES, count)
        cosine = torch.nn.functional.cosine_similarity(vectors[u], vectors[v], dim=-1).numpy()
        return PairIndex(u, v, np.clip(np.round(2.5 + 4 * cosine, 1), 0, 5))

    data = PlaygroundData("sts", [f"s{i}" for i in range(SENTENCES)], pairs(160), pairs(60), STS)
    return data, vectors


def config(**changes) -> PlaygroundConfig:
    return replace(PlaygroundConfig(), **{**dict(steps=50, seeds=3, batch_size=8, width=6), **changes})


def playground(synthetic, seeds=None, **changes) -> Playground:
    data, vectors = synthetic
    settings = config(**changes)
    return Playground(settings, data, prepare_features(data, vectors, settings.head), seeds=seeds)


@pytest.mark.parametrize("head", ["paper", "cosine", "mlp"])
def test_seeds_trained_together_end_where_each_ends_alone(synthetic, head):
    together = playground(synthetic, head=head, seeds=[0, 1, 2], noise=0.3, train_pairs=40)
    together.step(30)
    both = together.measure()
    for index, seed in enumerate([0, 1, 2]):
        alone = playground(synthetic, head=head, seeds=[seed], noise=0.3, train_pairs=40)
        alone.step(30)
        for name, parameter in alone.head.named_parameters():
            torch.testing.assert_close(parameter, dict(together.head.named_parameters())[name][index:index + 1],
                                       rtol=1e-5, atol=1e-6)
        single = alone.measure()
        for metric, values in single.values.items():
            np.testing.assert_allclose(values[0], both.values[metric][index], rtol=1e-4, atol=1e-4)
    moved = [p.detach().clone() for p in playground(synthetic, head=head, seeds=[0, 1, 2]).head.parameters()]
    assert any(not torch.equal(a, b) for a, b in zip(moved, together.head.parameters()))  # it did train


def test_the_twins_start_alike_and_the_seeds_do_not(synthetic):
    run = playground(synthetic, seeds=[0, 1], train_pairs=40, noise=0.5)
    weight = run.head.weight.detach()
    assert torch.equal(weight[:, 0], weight[:, 1])
    assert not torch.equal(weight[0], weight[1])
    assert not torch.equal(run.subsets[0], run.subsets[1]) and not torch.equal(run.labels[0], run.labels[1])


@pytest.mark.parametrize("loss, baseline", [("sk2", "mse"), ("trelu", "l1")])
def test_the_x0_zero_twin_is_k_times_mse_or_l1(synthetic, loss, baseline):
    predictions = torch.tensor([-1.0, 0.3, 2.2, 2.9, 4.0, 5.8])
    labels = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.5, 5.0])
    reference = build_loss(baseline, scheme=STS)
    for k in (1.0, 2.5):
        twin = playground(synthetic, loss=loss, k=k).losses[1]
        assert twin.x0 == 0
        torch.testing.assert_close(twin.elementwise(predictions, labels), k * reference.elementwise(predictions, labels))
    buffered = playground(synthetic, loss=loss, k=1.0).losses[0]
    assert (buffered.elementwise(predictions, labels) < reference.elementwise(predictions, labels)).any()


def test_no_gradient_reaches_a_pair_inside_the_buffer(synthetic):
    run = playground(synthetic, x0=0.5, train_pairs=40, seeds=[0, 1])
    run.step(40)
    record = run.last_step
    inside = run.losses[0].in_buffer(record.predictions[:, 0], record.labels)
    assert inside.any() and (~inside).any()
    assert (record.pulls[:, 0][inside] == 0).all()
    assert (record.pulls[:, 0][~inside] != 0).all()
    on_label = record.predictions[:, 1].clamp(STS.low, STS.high) == record.labels   # nothing left to pull
    assert (record.pulls[:, 1][~on_label] != 0).all()              # the twin pulls every other pair


def test_a_batch_wholly_inside_the_buffer_moves_no_weight_of_the_buffered_twin(synthetic):
    data, vectors = synthetic
    flat = replace(data, train=PairIndex(data.train.u, data.train.v, np.full(len(data.train), 2.5)))
    settings = config(x0=0.5)
    run = Playground(settings, flat, prepare_features(flat, vectors, "paper"), seeds=[0, 1])
    with torch.no_grad():
        run.head.weight.mul_(1e-3)       # every prediction within 0.5 of the label 2.5 (the bias starts mid-line)
    run.step(1)
    assert (run.last_step.pulls[:, 0] == 0).all()
    assert (run.head.weight.grad[:, 0] == 0).all() and (run.head.bias.grad[:, 0] == 0).all()
    assert (run.head.weight.grad[:, 1] != 0).any()


def test_held_out_spearman_is_the_evaluators_with_ties():
    generator = np.random.default_rng(3)
    gold = np.round(generator.uniform(0, 5, 50))            # many ties, as STS-B and NLI labels have
    rows = np.stack([gold + generator.normal(0, s, 50) for s in (0.1, 1.0, 3.0)] + [np.round(gold / 2)])
    expected = [spearman100(row, gold) for row in rows]
    np.testing.assert_allclose(spearman_rows(rows, gold), expected, rtol=1e-9)
    assert np.isnan(spearman_rows(np.ones((1, 50)), gold)[0])


def test_a_run_measures_every_head_and_keeps_its_curves_bounded(synthetic):
    run = playground(synthetic, speed=5)
    for _ in range(3):
        run.step(5)
        run.measure()
    assert [point["step"] for point in run.history] == [5, 10, 15]
    measured = run.measure()
    assert set(measured.values) == {"spearman", "accuracy", "error", "inside", "selection", "fit"}
    assert measured.values["spearman"].shape == (3, 2) and measured.shown.shape == (2, 60)
    assert (measured.values["inside"][:, 0] >= 0).all() and measured.paired("spearman").n == 3
    run.history = [{"step": i} for i in range(400)]
    run.step(1)
    run.measure()
    assert len(run.history) <= 201 and run.history[-1]["step"] == 16


def test_run_seeds_trains_to_the_last_step_and_reads_the_pairs(synthetic):
    data, vectors = synthetic
    result = run_seeds(config(steps=60, seeds=4), data, prepare_features(data, vectors, "paper"))
    assert result["step"] == 60 and result["seeds"] == [0, 1, 2, 3]
    paired = result["paired"]["spearman"]
    buffer, none = result["twins"]["buffer"]["spearman"]["mean"], result["twins"]["none"]["spearman"]["mean"]
    assert paired["mean"] == pytest.approx(buffer - none, abs=1e-3)
    assert paired["n"] == 4 and len(paired["diffs"]) == 4
    assert paired["verdict"] in ("holds", "reversed", "negligible", "no measurable difference")


@pytest.mark.parametrize("train_pairs", [40, 0])
def test_training_selection_and_report_sets_are_disjoint(synthetic, train_pairs):
    from stsdemo.playground.conditions import split_sizes
    from stsdemo.playground.config import SELECTION_MIN

    run = playground(synthetic, seeds=[0, 1, 2], train_pairs=train_pairs, noise=0.4)
    pool = len(synthetic[0].train)
    for train, held in zip(run.subsets.tolist(), run.selection.tolist()):
        assert not set(train) & set(held) and len(set(train)) == len(train) and len(set(held)) == len(held)
        assert len(held) >= SELECTION_MIN
        if train_pairs == 0:                          # "all" is all that the selection set leaves
            assert len(train) + len(held) == pool
    assert split_sizes(5749, 0) == (5249, 500) and split_sizes(5749, 800) == (800, 160)
    assert split_sizes(5749, 200) == (200, 50) and split_sizes(5749, 3200) == (3200, 500)
    # the selection labels carry the same noise as the training labels: they are not the clean pool labels
    clean = synthetic[0].train.labels[run.selection[0].numpy()]
    assert not np.allclose(run.selection_labels[0], clean)


def test_the_pool_leaves_out_every_pair_that_repeats_a_report_pair():
    from stsdemo.data import PairSet
    from stsdemo.playground.datasets import index_pairs

    train = PairSet("train", ["a", "b", "c", "d"], ["b", "c", "d", "e"], np.array([1.0, 2.0, 3.0, 4.0]), STS)
    held_out = PairSet("dev", ["c", "x"], ["b", "d"], np.array([2.5, 1.0]), STS)        # (b, c) swapped
    sentences, pool, held = index_pairs(train, held_out)
    kept = {(sentences[u], sentences[v]) for u, v in zip(pool.u, pool.v)}
    assert kept == {("a", "b"), ("c", "d"), ("d", "e")} and pool.labels.tolist() == [1.0, 3.0, 4.0]
    assert len(held) == 2


def test_each_head_stops_at_the_step_that_maximises_its_selection_metric(synthetic):
    from stsdemo.playground.run import SELECT_EVERY

    run = playground(synthetic, seeds=[0, 1, 2], train_pairs=40, noise=0.5, lr=0.05, steps=300)
    seen = [run.selection_values()]
    for _ in range(12):
        run.step(SELECT_EVERY)
        seen.append(run.selection_values())
    seen = np.stack(seen)                                            # (checks, seeds, twins)
    expected = SELECT_EVERY * np.nan_to_num(seen, nan=-np.inf).argmax(0)        # the first best on a tie
    np.testing.assert_array_equal(run.best_steps, expected)
    assert (run.best_steps > 0).any() and (run.best_steps < run.steps_done).any()   # not a trivial end or start


def test_a_heads_reading_at_its_chosen_step_equals_a_rerun_measured_there(synthetic):
    run = playground(synthetic, seeds=[0, 1], train_pairs=40, noise=0.5, lr=0.05)
    run.step(120)
    measured = run.measure()
    for seed_index, twin in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        chosen = int(measured.best_steps[seed_index, twin])
        again = playground(synthetic, seeds=[0, 1], train_pairs=40, noise=0.5, lr=0.05)
        again.step(chosen) if chosen else None
        there = again.measure()
        for name in ("spearman", "accuracy", "error"):
            assert measured.best[name][seed_index, twin] == pytest.approx(there.values[name][seed_index, twin],
                                                                          abs=1e-4)


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
    for other_encoder, other_sentences in ((counting_encoder("model-b")[0], sentences),
                                           (counting_encoder(max_length=64)[0], sentences),
                                           (encoder, sentences + ["more"])):
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
    vectors = encode_with_progress(lambda batch: np.array([[len(s)] for s in batch], dtype=np.float32), sentences,
                                   lambda done, total: progress.append((done, total)), chunk=2)
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
    assert argument_line("seeds") == ("seeds: Seeds trained side by side; each has its own start, training pairs, "
                                      "noise and batch order, which its two twins share (a whole number >= 1 and "
                                      "<= 20; default 20).")


def _recorded_map(cells: dict) -> dict:
    """A map whose cells (by (noise, size) on STS, Smooth K2, paper head) hold ``diffs`` at step 1,000 and at best."""
    def entry(noise, size, diffs):
        part = {"paired": {"spearman": {"diffs": diffs, "seeds": list(range(len(diffs)))}}}
        config = dict(data="sts", loss="sk2", head="paper", noise=noise, train_pairs=size)
        return {"config": config, "seeds": list(range(len(diffs))), **part, "stopped_at_best": part}

    return {"cells": {payoff.cell_key("sts", "sk2", "paper", *place): entry(*place, diffs)
                      for place, diffs in cells.items()}}


def test_the_payoff_reading_says_where_and_says_nowhere():
    clear, tiny = [0.5, 0.6, 0.4, 0.55, 0.45], [0.05, 0.06, 0.04, 0.05, 0.05]
    found = _recorded_map({(0.0, 50): clear, (0.5, 50): [-0.3, 0.5, 0.2, 0.6, -0.4], (1.0, 200): [-x for x in clear],
                           (1.5, 800): tiny})
    marks = payoff.verdicts(found, "best")
    cells = payoff.cells_of(found, "sts", "sk2", "paper")
    text = payoff.reading(cells, marks, len(marks))
    assert "at σ 0 × 50 pairs" in text and "holds in 1 of 4 cells, is reversed in 1 (at σ 1 × 200 pairs)" in text
    assert "negligible in 1" in text and "Benjamini-Hochberg" in text and "share seeds" in text
    del found["cells"][payoff.cell_key("sts", "sk2", "paper", 0.0, 50)]
    marks = payoff.verdicts(found, "step")
    text = payoff.reading(payoff.cells_of(found, "sts", "sk2", "paper"), marks, len(marks), "step")
    assert text.startswith("With both twins at step 1,000, the buffer pays off nowhere on this grid")
    assert payoff.reading({}, {}, 0).startswith("This map has not been recorded")


def test_the_maps_marks_are_corrected_over_its_cells():
    # alone, p = 0.005 would be marked; among 20 cells with nothing else, Benjamini-Hochberg leaves it unmarked
    lone = [0.9, 0.6, 1.1, 0.7]
    assert payoff.cell_paired(_recorded_map({(0.0, 50): lone})["cells"]["payoff/sts/sk2/paper/noise0/pairs50"],
                              "spearman").verdict == "holds"
    level = {(noise, size): [0.3, -0.3, 0.2, -0.2] for noise in payoff.NOISES for size in payoff.SIZES[:4]}
    marks = payoff.verdicts(_recorded_map({**level, (0.0, 50): lone}), "best")
    assert len(marks) == 20 and "holds" not in marks.values()


def test_the_nearest_cell_and_the_grid():
    assert payoff.nearest_cell(0.6, 180, 5749) == (0.5, 200) and payoff.nearest_cell(0.0, 0, 5749) == (0.0, 0)
    assert len(payoff.grid()) == 2 * 2 * len(payoff.HEADS) * len(payoff.NOISES) * len(payoff.SIZES)
