"""The app through its API, as a gradio_client user sees it: scoring, the loss chart, a short fine-tune,
a run stopped with the Stop endpoint and one cancelled mid-run."""

import json
import time
import zipfile
from pathlib import Path

import pytest
import tiny_models
from app_fixtures import app_state, app_url, client, train_args  # noqa: F401  (pytest fixtures)
from gradio_client.exceptions import AppError

from stsdemo import environment
from stsdemo.events import DoneEvent, EvalEvent, StartEvent
from stsdemo.labels import get_scheme
from stsdemo.model import SiameseRegressor
from stsdemo.serving import session_files

PAIR = ("A man is playing a guitar.", "A man plays the guitar.")
# 64 pairs at batch 16 are 4 steps an epoch: 50 epochs keep a run going until the test stops it.
LONG_RUN = dict(max_steps=200, epochs=50.0, eval_every=2)
STS, NLI = "STS 0–5", "NLI (contradiction · neutral · entailment)"


def _score(client, scheme=STS, custom="", gap=1.0, model="default", pair=PAIR):
    return client.predict(model, *pair, scheme, custom, gap, None, api_name="/score")


# NLI does not fit the shipped STS scorer: the shipped NLI scorer scores it (see the test below).
@pytest.mark.parametrize(
    "choice, custom, gap, name",
    [
        (STS, "", 1.0, "sts"),
        (NLI, "", 1.0, "nli"),
        ("Custom ordered list", "low, mid, high", 2.0, "low, mid, high"),
    ],
)
def test_score_pair_rounds_the_prediction_to_the_nearest_node(client, choice, custom, gap, name):
    prediction, category, node, cosine, figure, notice = _score(client, choice, custom, gap)
    scheme = get_scheme(name, gap)
    index = int(scheme.nearest_index([prediction])[0])
    assert category == scheme.categories[index] and node == pytest.approx(scheme.nodes[index])
    assert -1.0 <= cosine <= 1.0 and cosine > 0.5  # a paraphrase
    assert figure["type"] == "plotly" and json.loads(figure["plot"])["data"]
    assert isinstance(notice, str)


def test_a_scheme_that_does_not_fit_the_model_is_never_paired_silently(client, tmp_path, monkeypatch):
    """NLI with the STS scorer: the tab switches to the shipped NLI scorer and says why; without one, the pair is
    read on the STS line with a notice saying why and which model fits, and a file scored that way is refused
    with the same reason."""
    from gradio_client import handle_file

    from stsdemo.app import model_cache

    prediction, category, node, cosine, figure, notice = _score(client, NLI)
    assert category == get_scheme("nli").category(prediction) and "Switched to" in notice
    monkeypatch.setattr(model_cache, "nli_scorer_available", lambda: False)
    prediction, category, node, cosine, figure, notice = _score(client, NLI)
    assert category == get_scheme("sts").category(prediction)
    assert "does not fit" in notice and "NLI" in notice and "Model that fits" in notice
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("sentence1,sentence2\nA man plays.,Someone plays.\n", encoding="utf-8")
    with pytest.raises(AppError, match="does not fit"):
        client.predict("default", handle_file(str(pairs)), NLI, "", 1.0, api_name="/score_file")


def test_score_reports_truncation_and_rejects_empty_input(client):
    long_sentence = " ".join(["word"] * 600)
    *_, notice = _score(client, pair=(long_sentence, "short"))
    assert "truncated" in notice
    with pytest.raises(AppError, match="empty"):
        _score(client, pair=("   ", "something"))
    with pytest.raises(AppError, match="comma"):
        _score(client, "Custom ordered list", "just-one")


def test_loss_at_gives_one_samples_numbers_and_an_error_for_x0_beyond_half_gap(client):
    rows = {
        row["loss"]: row
        for row in json.loads(client.predict(3.6, 3.0, 2.0, 0.25, 1.0, api_name="/loss_at"))["losses"]
    }
    assert rows["Translated ReLU"]["value"] == pytest.approx(2.0 * (0.6 - 0.25))  # f = k (x - x0)
    assert rows["Smooth K2"]["gradient"] == pytest.approx(2 * 2.0 * (0.6 - 0.25))  # df/dpred = 2k (x - x0)
    with pytest.raises(AppError, match=r"d/2.*zero gradient"):
        client.predict(3.6, 3.0, 2.0, 0.6, 1.0, api_name="/loss_at")


def _points(output) -> int:
    """Curve points in one /train update (dev Spearman + training loss plots)."""
    count = 0
    for plot in output[2:4]:
        if isinstance(plot, dict):
            plot = plot.get("value", plot) if plot.get("__type__") == "update" else plot
            count += len((plot or {}).get("data") or [])
    return count


def _wait_for_new_points(job, timeout=120.0):
    """Wait until this run has drawn a curve point (earlier runs of the session are on the charts too)."""
    deadline = time.monotonic() + timeout
    while True:
        outputs = job.outputs()
        if len(outputs) > 1 and _points(outputs[-1]) > _points(outputs[0]):
            return
        assert time.monotonic() < deadline and not job.done(), "no curve point arrived"
        time.sleep(0.2)


def _session_runs(client) -> list:
    return session_files.list_runs(client.session_hash)


def _wait_until_idle(state, timeout=90.0):
    deadline = time.monotonic() + timeout
    while state.active_runs() or state.training_count():
        assert time.monotonic() < deadline, f"training still running: {state.active_runs()}"
        time.sleep(0.2)


def test_short_fine_tune_streams_curves_and_yields_a_usable_run(client, tmp_path):
    job = client.submit(*train_args(), api_name="/train")
    outputs = list(job)
    assert job.status().success, job.status()
    growth = sorted({_points(o) for o in outputs if _points(o)})
    assert len(growth) >= 2, f"expected at least two curve updates, got point counts {growth}"
    final = outputs[-1]
    assert "finished" in final[1]
    info = _session_runs(client)[-1]
    assert info.status == "finished" and info.has_checkpoint()
    assert [e.step for e in info.events if isinstance(e, EvalEvent)] == [0, 2, 4]
    value = session_files.RUN_PREFIX + info.run_id
    assert value in [choice[1] for choice in final[6]["choices"]]  # now in the scoring model list

    prediction, category, *_ = _score(client, model=value)
    assert category == get_scheme("sts").category(prediction)

    archive = client.predict(value, api_name="/zip_run")
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(archive) as handle:
        handle.extractall(folder)
        compression = {info.filename.rsplit(".", 1)[-1]: info.compress_type for info in handle.infolist()}
    assert compression["safetensors"] == zipfile.ZIP_STORED and compression["json"] == zipfile.ZIP_DEFLATED
    from sentence_transformers import SentenceTransformer

    embeddings = SentenceTransformer(str(folder), device="cpu").encode(list(PAIR))
    assert embeddings.shape == (2, tiny_models.WIDTH)
    assert SiameseRegressor.load(str(info.checkpoint)).predict([PAIR[0]], [PAIR[1]]).shape == (1,)


def test_stop_ends_the_run_after_the_current_step_and_shows_the_final_event(client, app_state):
    job = client.submit(*train_args(**LONG_RUN), api_name="/train")
    _wait_for_new_points(job)
    client.predict(api_name="/stop")
    outputs = list(job)
    assert job.status().success
    assert "stopped" in outputs[-1][1] and "best checkpoint is kept" in outputs[-1][1]
    info = _session_runs(client)[-1]
    assert info.status == "stopped" and info.has_checkpoint()
    assert isinstance(info.events[-1], DoneEvent) and info.events[-1].steps < 200
    _wait_until_idle(app_state)


def test_cancelled_run_ends_without_threads_and_keeps_a_loadable_checkpoint(client, app_state):
    before = len(_session_runs(client))
    job = client.submit(*train_args(**LONG_RUN), api_name="/train")
    _wait_for_new_points(job)
    job.cancel()
    _wait_until_idle(app_state)
    info = _session_runs(client)[before]
    assert info.status == "cancelled", info
    assert info.has_checkpoint()
    model = SiameseRegressor.load(str(info.checkpoint))
    assert model.predict([PAIR[0]], [PAIR[1]]).shape == (1,)
    assert Path(info.checkpoint).is_relative_to(environment.output_dir() / "sessions" / client.session_hash)


def test_train_with_no_arguments_starts_the_default_run(client, app_state):
    """Every input of every endpoint that has a sensible default has one: a bare /train starts the app's default
    fine-tune (warm start from the shipped scorer when there is one, Smooth K2 on the cosine target)."""
    from stsdemo.app import model_cache
    from stsdemo.app.finetune import form

    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert all(p["parameter_has_default"] for p in endpoints["/train"]["parameters"])
    before = len(_session_runs(client))
    job = client.submit(api_name="/train")
    deadline = time.monotonic() + 120
    while len(_session_runs(client)) == before or not _session_runs(client)[-1].events:
        assert time.monotonic() < deadline and not job.done(), job.outputs()[-1:]
        time.sleep(0.2)
    client.predict(api_name="/stop")
    list(job)
    _wait_until_idle(app_state)
    info = _session_runs(client)[-1]
    config, defaults = info.config, form.form_defaults()
    assert (config["loss"], config["target"], config["model"]) == (
        "sk2",
        "cosine",
        model_cache.scorer_source(),
    )
    assert config["max_steps"] == form.from_form("max_steps", defaults["max_steps"])
    assert info.status == "stopped" and isinstance(info.events[0], StartEvent)


def test_compare_runs_the_pairs_with_and_without_the_buffer_as_one_job(client, app_state):
    """Compare seeds 2: four runs (seeds 42 and 43, each with x0 = 0.25 and x0 = 0) in one job; the verdict's rows
    are the runs' last dev scores as shown, with their paired mean ± se; the charts and the histogram name both runs
    of the last pair by their x0."""
    from stsdemo.app.finetune import compare as compare_view
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.buffer_comparison import final_dev
    from stsdemo.paired import paired

    before = len(_session_runs(client))
    job = client.submit(*train_args(), 2, api_name="/compare_buffer")
    outputs = list(job)
    assert job.status().success, job.status()
    runs = _session_runs(client)[before:]
    assert [(run.config["seed"], run.config["x0"]) for run in runs] == [
        (42, 0.25),
        (42, 0.0),
        (43, 0.25),
        (43, 0.0),
    ]
    same = ("loss", "k", "max_steps", "max_pairs", "model", "data", "target", "lr")
    assert all(run.config[name] == runs[0].config[name] for run in runs for name in same)
    assert all(run.status == "finished" for run in runs)
    final = outputs[-1][1]
    shown = {}
    for seed, first, second in ((42, *runs[:2]), (43, *runs[2:])):
        a, b = (round(final_dev(run, "head"), 2) for run in (first, second))
        assert f"| {seed} | {a:.2f} | {b:.2f} | {a - b:+.2f} |" in final
        shown[seed] = (a, b)
    rule = paired({seed: a for seed, (a, _) in shown.items()}, {seed: b for seed, (_, b) in shown.items()})
    interval = f", {rule.interval_text()}" if rule.interval_text() else ""
    assert f"mean difference {rule.numbers()}{interval}: **{rule.verdict}**" in final
    on_dev_chart = set(finetune_view.curves_for(client.session_hash).dev["run"])
    assert all(any(name.startswith(run.label) for name in on_dev_chart) for run in runs[-2:]), on_dev_chart
    histogram = json.loads(outputs[-1][-1]["plot"])
    names = [compare_view.chart_name(run) for run in runs[2:]]
    assert [trace["name"].split(" · ")[0] for trace in histogram["data"]] == names
    assert names == [f"#{before + 3} x0=0.25", f"#{before + 4} x0=0"]
    _wait_until_idle(app_state)


@pytest.mark.parametrize(
    "overrides, seeds, message",
    [
        (dict(x0=0.0), 1, "x0 is already 0"),
        (dict(loss="MSE [mse]"), 1, "has no buffer zone"),
        ({}, 4, "Compare seeds"),
        ({}, 0, "Compare seeds"),
    ],
)
def test_compare_refuses_what_it_cannot_compare_and_starts_nothing(client, overrides, seeds, message):
    before = len(_session_runs(client))
    with pytest.raises(AppError, match=message):
        client.predict(*train_args(**overrides), seeds, api_name="/compare_buffer")
    assert len(_session_runs(client)) == before


def test_compare_while_a_run_of_the_session_goes_is_refused(client, app_state):
    job = client.submit(*train_args(**LONG_RUN), api_name="/train")
    _wait_for_new_points(job)
    try:
        with pytest.raises(AppError, match="already training or waiting"):
            client.predict(*train_args(), api_name="/compare_buffer")
    finally:
        client.predict(api_name="/stop")
        list(job)
        _wait_until_idle(app_state)
