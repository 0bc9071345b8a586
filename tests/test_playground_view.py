"""The Playground tab's view-model on a small slice of STS-B with a stand-in encoder (no model is loaded): each
visitor's run is their own, Play / tick / Step / Reset move it as the tab says, a changed setting starts it again,
bad values fall back with notices, the drawn points stay bounded, and the API's run is checked and bounded."""

import numpy as np
import pytest

from stsdemo.app import playground_plots, playground_view
from stsdemo.app.playground_memory import PlaygroundMemory
from stsdemo.errors import InputError
from stsdemo.playground.config import PlaygroundConfig
from stsdemo.playground.embeddings import Encoder


def stand_in(place: str, name: str, shown: str) -> Encoder:
    """Sentence vectors from character counts: cheap, fixed, and enough for a head to learn something."""
    def encode(sentences):
        letters = "etaoinshrdlucmfwypvbgk"
        return np.array([[s.lower().count(c) for c in letters] + [len(s) / 20] for s in sentences], dtype=np.float32)

    return Encoder("stand-in", f"stand-in:{place}", 128, encode)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return PlaygroundMemory(max_pairs=120, encoder_for=stand_in)


def values(**changes) -> dict:
    return {**PlaygroundConfig(seeds=3, steps=60, speed=20).to_dict(), **changes}


def test_play_ticks_step_and_reset_move_one_visitors_run(store):
    first = playground_view.advance(store, "visitor-a", values(), "play")
    assert first.playing and "Step 20 of 60" in first.status
    assert "Step 40 of 60" in playground_view.advance(store, "visitor-a", values(), "tick").status
    last = playground_view.advance(store, "visitor-a", values(), "tick")
    assert "Step 60 of 60" in last.status and not last.playing          # the run's end stops the timer
    assert "Step 1 of 60" in playground_view.advance(store, "visitor-b", values(), "step").status  # b's own run
    assert "Step 60 of 60" in playground_view.advance(store, "visitor-a", values(), "step").status
    assert "Step 0 of 60" in playground_view.advance(store, "visitor-a", values(), "reset").status
    again = playground_view.advance(store, "visitor-b", values(steps=100), "step")   # a longer run continues
    assert "Step 2 of 100" in again.status


def test_a_playing_page_asks_for_its_next_frames_with_the_key_play_handed_out(store):
    """The page of a playing run fetches its frames itself, under that run's own settings: only with the key its
    Play returned (the last one: a new Play retires the old key), and never another visitor's run."""
    first = playground_view.advance(store, "visitor-k", values(), "play")
    assert first.playing and first.token and first.frame()["token"] == first.token
    frame = playground_view.next_frame(store, first.token)
    assert "Step 40 of 60" in frame["status"] and frame["playing"] and frame["dots"]["panels"]
    other = playground_view.advance(store, "visitor-l", values(), "play")
    assert other.token != first.token
    last = playground_view.next_frame(store, first.token)                     # k's run, not l's
    assert "Step 60 of 60" in last["status"] and not last["playing"]
    assert "Step 40 of 60" in playground_view.next_frame(store, other.token)["status"]
    again = playground_view.advance(store, "visitor-k", values(), "play")       # Play again: a new key
    assert playground_view.next_frame(store, first.token) is None
    assert "Step" in playground_view.next_frame(store, again.token)["status"]
    for bad in (None, 7, "", "x" * 500, {"token": again.token}):
        assert playground_view.next_frame(store, bad) is None
    assert playground_view.advance(store, "visitor-k", values(), "step").token is None   # Step hands out none


def test_a_changed_setting_starts_the_run_again_with_a_notice(store):
    playground_view.advance(store, "visitor-c", values(), "play")
    changed = playground_view.advance(store, "visitor-c", values(noise=0.5), "tick")
    assert "Step 20 of 60" in changed.status and "started again" in " ".join(changed.notices)
    assert "σ 0.5" in changed.status


def test_bad_values_fall_back_with_notices(store):
    view = playground_view.advance(store, "visitor-d", values(k=-3, x0=0.9, seeds=99), "step")
    assert len(view.notices) == 3 and "Step 1 of 60" in view.status
    assert f"{PlaygroundConfig().seeds} seeds" in view.status


def test_the_drawn_points_are_bounded_and_the_hollow_dots_are_inside_the_buffer(store):
    view = playground_view.advance(store, "visitor-e", values(x0=0.5), "step")
    buffered, twin = view.dots["panels"]
    assert sum(len(d["x"]) for d in buffered["dots"]) <= playground_plots.MAX_DOTS
    run = store.session("visitor-e").playground
    gold = run.gold[run.shown]
    hollow = next(d for d in buffered["dots"] if d["hollow"])
    filled = next(d for d in buffered["dots"] if not d["hollow"])
    predictions = run.head(run.features.held_out).detach().numpy()[0, 0, run.shown]    # seed 0, the buffered twin
    inside = np.abs(np.clip(predictions, 0, 5) - gold) < 0.5
    assert 0 < inside.sum() == len(hollow["y"]) and len(filled["y"]) == len(gold) - inside.sum()
    np.testing.assert_allclose(hollow["y"], predictions[inside], atol=1e-3)
    assert not any(d["hollow"] for d in twin["dots"])                  # the twin pulls every pair
    run.history = [dict(run.history[-1], step=i) for i in range(1000)]
    curves = playground_view.advance(store, "visitor-e", values(x0=0.5), "step").curves
    assert all(len(line["x"]) <= 401 for panel in curves["panels"] for line in panel["lines"])


def test_the_status_reads_stopped_at_its_best_first_and_marks_each_twins_best_step(store):
    settings = values(steps=200, speed=100, lr=0.05, noise=0.5)
    playground_view.advance(store, "visitor-f", settings, "play")
    view = playground_view.advance(store, "visitor-f", settings, "tick")
    status = view.status
    assert status.index("Stopped at its best") < status.index("At this step (200)")
    assert "selection set of 50 more with the same noise" in status and "memorisation" in status
    assert "4.30 standard errors" in status                 # the t-quantile at n = 3, in words
    run = store.session("visitor-f").playground
    best = [int(np.median(run.best_steps[:, twin])) for twin in range(2)]
    assert view.curves["best"] == best and 0 <= min(best) and max(best) <= 200
    report, selection = view.curves["panels"][:2]
    assert "report set" in report["title"] and "selection set" in selection["title"]
    assert [line["x"] for line in report["lines"][2:]] == [[step, step] for step in best]   # the best-step marks


def test_the_api_run_is_checked_and_bounded(store):
    result = playground_view.api_run(store, dict(seeds=2, steps=50, model="default"))
    assert result["step"] == 50 and result["paired"]["spearman"]["n"] == 2
    best = result["stopped_at_best"]
    assert best["paired"]["spearman"]["n"] == 2 and all(0 <= s <= 50 for s in best["steps"]["buffer"])
    assert set(best["steps"]) == {"buffer", "none"} and "mean" in best["twins"]["none"]["spearman"]
    assert result["twins_named"]["none"].startswith("no buffer: x0 = 0")
    with pytest.raises(InputError, match="model must be one of"):
        playground_view.api_run(store, dict(model="bert-base-uncased"))
    with pytest.raises(InputError, match="too large"):
        playground_view.api_run(store, dict(head="mlp", width=64, seeds=20, steps=5000, batch_size=256))


def test_the_payoff_view_reads_the_recorded_map_for_the_settings():
    figure, reading = playground_view.payoff_view(values(data="nli", loss="trelu", noise=0.6, train_pairs=190))
    layout = figure.figure["layout"]
    assert "Translated ReLU" in layout["title"]["text"] and "NLI" in layout["title"]["text"]
    cells = playground_view.recorded_map()["cells"]
    if any(key.startswith("payoff/nli/trelu/paper/") for key in cells):
        assert "Nearest your settings (σ 0.5, 200 pairs)" in reading and len(layout["shapes"]) == 1
    else:
        assert "not been recorded" in reading


def test_a_played_run_over_the_budget_is_trimmed_with_a_notice_and_each_update_is_bounded(store):
    from stsdemo.playground.config import MAX_TICK_WORK, MAX_WORK

    huge = values(head="mlp", width=64, seeds=20, steps=5000, batch_size=256, speed=100)
    config, notice = PlaygroundConfig(**huge).within_budget()
    assert config.work() <= MAX_WORK < PlaygroundConfig(**huge).work() and config.steps % 50 == 0
    assert f"stops at {config.steps:,} steps" in notice
    assert config.work(config.steps_per_update()) <= MAX_TICK_WORK < config.work(config.speed)
    assert PlaygroundConfig(**values()).within_budget() == (PlaygroundConfig(**values()), None)
    view = playground_view.advance(store, "visitor-g", huge, "step")
    assert any("stops at" in notice for notice in view.notices) and f"of {config.steps:,}" in view.status


def test_frames_beyond_the_tick_slots_answer_busy_and_the_run_does_not_move(store):
    from stsdemo.app import playground_memory

    first = playground_view.advance(store, "visitor-h", values(), "play")
    held = [store._ticks.acquire() for _ in range(playground_memory.MAX_TICKS)]
    try:
        assert playground_view.next_frame(store, first.token) == dict(busy=True, playing=True, token=first.token)
    finally:
        for _ in held:
            store._ticks.release()
    assert store.session("visitor-h").playground.steps_done == 20
    assert "Step 40 of 60" in playground_view.next_frame(store, first.token)["status"]


def test_a_play_that_waits_for_embeddings_says_how_far_along_and_the_time_left(tmp_path):
    import threading

    release = threading.Event()

    def slow(place, name, shown):
        encoder = stand_in(place, name, shown)

        def encode(sentences):
            release.wait(5)
            return encoder.encode(sentences)
        return Encoder(encoder.name, encoder.fingerprint + ":slow", encoder.max_length, encode)

    fresh = PlaygroundMemory(max_pairs=60, encoder_for=slow)
    frames = playground_view.frames(fresh, "visitor-w", values(), "step")
    first = next(frames)
    assert first["waiting"] and "Embedding the sentences of sts" in first["status"] and "Pause works" in first["status"]
    release.set()
    *waited, view = frames                                 # waiting frames until the data set is ready, then the run
    assert all(frame["waiting"] for frame in waited) and view.status and "Step 1 of" in view.status
    again = list(playground_view.frames(fresh, "visitor-w", values(), "step"))
    assert len(again) == 1 and "Step 2 of" in again[0].status


def test_an_inspected_pair_reads_the_cores_own_numbers(store):
    import torch

    view = playground_view.advance(store, "visitor-i", values(x0=0.5), "step")
    run = store.session("visitor-i").playground
    predictions = run.head(run.features.held_out).detach().numpy()[0]          # seed 0: (twins, pairs)
    gold = run.gold
    inside = np.abs(np.clip(predictions[0], 0, 5) - gold) < 0.5
    dot = int(np.flatnonzero(inside[run.shown])[0])                             # a drawn pair inside the buffer
    pair = playground_view.inspect_pair(store, view.view_key, dot)
    index = run.shown[dot]
    assert pair["gold"] == pytest.approx(gold[index], abs=1e-4)
    assert pair["sentence1"] == run.data.sentences[run.data.held_out.u[index]]
    buffered, twin = pair["twins"]
    assert buffered["now"]["prediction"] == pytest.approx(predictions[0, index], abs=1e-4)
    assert twin["now"]["prediction"] == pytest.approx(predictions[1, index], abs=1e-4)
    assert buffered["now"]["inside"] and buffered["now"]["pull"] == 0
    assert twin["x0"] == 0 and (twin["now"]["pull"] != 0 or twin["now"]["distance"] == 0)
    guess = torch.tensor([predictions[1, index]], requires_grad=True)
    run.losses[1].elementwise(guess, torch.tensor([gold[index]], dtype=torch.float32)).sum().backward()
    assert twin["now"]["pull"] == pytest.approx(float(guess.grad[0]), abs=1e-4)
    assert buffered["best"]["prediction"] == pytest.approx(run.best_predictions[0, 0, index], abs=1e-4)
    for bad in (None, "x" * 80, view.token or "nope"):
        assert playground_view.inspect_pair(store, bad, dot) is None
    assert playground_view.inspect_pair(store, view.view_key, 10_000) is None
    assert playground_view.inspect_pair(store, view.view_key, True) is None
    moved = view.dots["moved"]
    gaps = np.abs(predictions[0, run.shown] - predictions[1, run.shown])
    assert [item["dot"] for item in moved] == list(np.argsort(-gaps, kind="stable")[:5])
