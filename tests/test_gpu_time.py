"""The ZeroGPU time a fine-tune asks for, from measured speeds with a margin, and the visitor's share said up front."""

from stsdemo.config import TrainConfig
from stsdemo.serving import gpu_time, run_cost

DEFAULT_RUN = dict(max_steps=60, batch_size=16, max_dev_pairs=500, eval_every=20)
H100_FP32_PAIRS_PER_S = 508.6  # the slower of the two fp32 measurements on one H100 at batch 16, length 256


def test_the_request_covers_the_measured_h100_time_with_its_margin():
    config = TrainConfig(**DEFAULT_RUN)
    evaluations = 60 // 20 + 1
    eval7_seconds = run_cost.GPU_SENTENCE_SECONDS * run_cost.FINAL_EVAL_SENTENCES
    measured = (
        60 * 16 / H100_FP32_PAIRS_PER_S
        + evaluations * 2 * 500 * run_cost.GPU_SENTENCE_SECONDS
        + 2 * eval7_seconds
    )
    asked = gpu_time.requested_seconds(config, final_eval=True)
    assert asked >= gpu_time.MARGIN * measured
    assert (
        asked <= gpu_time.MARGIN * (measured + gpu_time.START_SECONDS) + 10
    )  # close to it, not a blanket bound


def test_the_request_follows_the_work():
    short, long = TrainConfig(**DEFAULT_RUN), TrainConfig(**{**DEFAULT_RUN, "max_steps": 300})
    asked = gpu_time.requested_seconds
    assert asked(short, False) < asked(short, True, base_cached=True) < asked(short, True)
    assert asked(short, True) < asked(long, True)
    bigger = TrainConfig(**{**DEFAULT_RUN, "model": "sentence-transformers/all-mpnet-base-v2"})
    assert asked(bigger, True) > asked(short, True)
    assert asked(TrainConfig(max_steps=None, epochs=100.0), True) == gpu_time.MAX_SECONDS


def test_the_note_gives_the_share_of_a_visitors_day():
    assert "20-30 %" in gpu_time.quota_note(36) and "2-3 GPU minutes a day" in gpu_time.quota_note(36)
    assert "more than all" in gpu_time.quota_note(400)


def test_the_fine_tune_tab_says_it_before_the_gpu_is_asked_for(monkeypatch):
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.serving import session_files

    config = TrainConfig(run_name="r1", **DEFAULT_RUN)
    info = session_files.RunInfo("r1", "#1 sk2", config=config.to_dict(), final_eval=False)
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    assert "ZeroGPU" not in finetune_view.LiveRun("s", info, config, []).status
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    status = finetune_view.LiveRun("s", info, config, []).status
    assert f"up to {gpu_time.requested_seconds(config, False)} s of GPU time" in status
