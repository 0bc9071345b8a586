"""The app under load and against its own visitors: many clients, queued and stopped runs, sessions, files.

* 20 clients (each its own session) score pairs while a fine-tune runs: every call is answered.
* A second fine-tune waits in line and shows its position; one more than the line holds is refused with a
  clear message; when the first run stops, the waiting one starts. Nobody's run is dropped silently.
* Start/stop cycles through the API (Stop button, and a cancelled job as a closed tab does) leave no training
  thread, give the memory back (within 10 %) and keep the best checkpoint (full figures for 10 cycles:
  ``python -m bench.perf.robustness --part app-cycles``).
* Out of memory in a run of the app ends that run with a message; the app goes on scoring.
* One visitor cannot score with, download or delete another visitor's run, or read its files by URL; the
  app serves no file outside what it hands out; uploads above the stated cap are refused.

For speed the app's runs start from a copy of the already loaded encoder instead of reading it from disk.
"""

from __future__ import annotations

import copy
import gc
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest
from app_fixtures import CHROMIUM, app_state, app_url, page, train_args  # noqa: F401  (pytest fixtures)
from fault_helpers import PAIRS
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from stsdemo import environment
from stsdemo.app.ui.common import upload_note
from stsdemo.app.ui.words import english
from stsdemo.model import SiameseRegressor
from stsdemo.serving import session_files

STS_CHOICE = "STS 0–5"
UPLOAD_CAP = "1mb"  # this module's app refuses bigger uploads (the real app: STSDEMO_MAX_UPLOAD, 20 MB)
MAX_WAITING = 1  # runs that may wait for the trainer in this module's app
LONG = dict(
    max_steps=1000, epochs=100, eval_every=1000, max_dev_pairs=16
)  # runs until stopped; one dev score


@pytest.fixture(scope="module", autouse=True)
def _app_settings(embedded_model):
    """Set before the app launches: a small upload cap and line; runs copy the loaded encoder."""
    saved = {name: os.environ.get(name) for name in ("STSDEMO_MAX_UPLOAD", "STSDEMO_MAX_WAITING")}
    os.environ["STSDEMO_MAX_UPLOAD"], os.environ["STSDEMO_MAX_WAITING"] = UPLOAD_CAP, str(MAX_WAITING)
    real = SiameseRegressor.__dict__["from_encoder"]

    def from_encoder(cls, name_or_path=None, allowed_roots=None, **options):
        if str(name_or_path or "") in ("", "default", "all-MiniLM-L6-v2"):
            return cls(
                copy.deepcopy(embedded_model.encoder), embedded_model.tokenizer, base_model="", **options
            )
        return real.__func__(cls, name_or_path, allowed_roots, **options)

    SiameseRegressor.from_encoder = classmethod(from_encoder)
    try:
        yield
    finally:
        SiameseRegressor.from_encoder = real
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def new_client(url) -> Client:
    return Client(url, verbose=False, httpx_kwargs={"timeout": 300})


def score(client, model="default", pair=PAIRS[0]):
    return client.predict(model, pair[0], pair[1], STS_CHOICE, "", 1.0, None, api_name="/score")


def wait_until_idle(state, timeout=180.0) -> None:
    deadline = time.monotonic() + timeout
    while state.active_runs() or state.training_count():
        assert time.monotonic() < deadline, f"training still running: {state.active_runs()}"
        time.sleep(0.2)


def texts(job) -> list[str]:
    """Progress and status text of every update a /train job streamed so far."""
    return [f"{output[0]} {output[1]}" for output in job.outputs()]


def wait_for_text(job, needle: str, timeout=300.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        found = [text for text in texts(job) if needle in text]
        if found:
            return found[-1]
        assert not job.done(), f"the job ended before showing {needle!r}: {texts(job)[-2:]}"
        assert time.monotonic() < deadline, f"{needle!r} never shown: {texts(job)[-2:]}"
        time.sleep(0.2)


def rss_mib() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


# ---- many users and long jobs ------------------------------------------------------------------------------


def test_scoring_answers_20_clients_while_runs_train_and_wait_in_line(app_url, app_state):  # noqa: F811
    first, second, third = new_client(app_url), new_client(app_url), new_client(app_url)
    real_run = dict(
        LONG, model="default"
    )  # the embedded encoder: steps that load the cores as a visitor's run does
    job = first.submit(*train_args(**real_run), api_name="/train")
    wait_for_text(job, "· step")

    waiting = second.submit(*train_args(**real_run), api_name="/train")
    shown = wait_for_text(waiting, "position 1")
    assert "in line" in shown and "1 run" in shown, shown
    with pytest.raises(AppError, match=r"queue is full.*1 run training and 1 waiting.*try again"):
        third.predict(*train_args(**real_run), api_name="/train")
    assert not session_files.list_runs(third.session_hash), "a refused run must leave no record"

    clients = [new_client(app_url) for _ in range(20)]
    answers, errors, latencies = [], [], []
    start = threading.Barrier(len(clients))

    def work(index, client):
        start.wait()
        tick = time.perf_counter()
        try:
            answers.append(score(client, pair=PAIRS[index % len(PAIRS)]))
            latencies.append(time.perf_counter() - tick)
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            errors.append(repr(error)[:300])

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    assert not errors and len(answers) == 20, errors[:3]
    assert app_state.training_count() and not job.done(), "the run should still be training"
    print(
        f"20 concurrent /score during training: p50 {sorted(latencies)[9]:.2f} s, max {max(latencies):.2f} s"
    )

    first.predict(api_name="/stop")
    list(job)
    wait_for_text(waiting, "· step")  # the waiting run starts once the first one has ended
    second.predict(api_name="/stop")
    list(waiting)
    wait_until_idle(app_state)
    for client in (first, second):
        (info,) = session_files.list_runs(client.session_hash)
        assert info.status == "stopped" and info.has_checkpoint(), info


def test_stop_and_cancel_cycles_leave_no_thread_and_keep_memory(app_url, app_state):  # noqa: F811
    """Light version of ``python -m bench.perf.robustness --part app-cycles`` (10 cycles)."""
    client = new_client(app_url)
    threads = rss = None
    for cycle in range(3):  # cycle 0 warms up
        job = client.submit(*train_args(**LONG), api_name="/train")
        wait_for_text(job, "· step")
        if cycle % 2:
            job.cancel()  # what closing the browser tab does
        else:
            client.predict(api_name="/stop")
            list(job)
        wait_until_idle(app_state)
        info = session_files.list_runs(client.session_hash)[-1]
        assert info.status == ("cancelled" if cycle % 2 else "stopped") and info.has_checkpoint(), info
        assert SiameseRegressor.load(str(info.checkpoint)).predict(*PAIRS).shape == (2,)
        if cycle == 0:
            threads, rss = threading.active_count(), rss_mib()
    assert threading.active_count() <= threads, [t.name for t in threading.enumerate()]
    after = rss_mib()
    assert after <= rss * 1.10, f"RSS grew from {rss:.0f} MiB to {after:.0f} MiB over 2 start/stop cycles"


def test_out_of_memory_in_a_run_ends_it_with_a_message_and_the_app_keeps_serving(app_url, monkeypatch):  # noqa: F811
    import torch

    from stsdemo import workflow
    from stsdemo.losses.registry import build_loss
    from stsdemo.train import train

    class OutOfMemory(torch.nn.Module):
        """The run's loss, but its second call (a training step) finds the GPU full."""

        def __init__(self, inner):
            super().__init__()
            self.inner, self.calls, self.regression = inner, 0, inner.regression

        def forward(self, output, labels):
            self.calls += 1
            if self.calls == 2:
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
            return self.inner(output, labels)

        def inside_buffer(self, output, labels):
            return self.inner.inside_buffer(output, labels)

    def train_running_out_of_memory(config, stop, **given):
        return train(config, stop, loss=OutOfMemory(build_loss(config.loss)), **given)

    monkeypatch.setattr(workflow, "train", train_running_out_of_memory)
    client = new_client(app_url)
    outputs = list(client.submit(*train_args(**LONG), api_name="/train"))
    status = outputs[-1][1]
    assert "out of memory" in status and "best checkpoint is kept" in status, status
    (info,) = session_files.list_runs(client.session_hash)
    assert info.status == "failed" and info.has_checkpoint() and "out of memory" in info.message
    monkeypatch.undo()
    prediction, category, *_ = score(client)
    assert category  # still serving


# ---- visitors kept apart ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def owner_run(app_url):  # noqa: F811
    """A finished one-step run of one visitor."""
    owner = new_client(app_url)
    list(owner.submit(*train_args(max_steps=1, eval_every=1000, max_dev_pairs=16), api_name="/train"))
    (info,) = session_files.list_runs(owner.session_hash)
    assert info.status == "finished" and info.has_checkpoint(), info
    return owner, info.run_id, session_files.session_run_folder(owner.session_hash, info.run_id)


def test_one_visitor_cannot_use_download_or_delete_another_visitors_run(app_url, owner_run):  # noqa: F811
    owner, run_id, folder = owner_run
    intruder = new_client(app_url)
    before = sorted(p.name for p in folder.rglob("*"))
    for call in (
        lambda: score(intruder, model=session_files.RUN_PREFIX + run_id),
        lambda: intruder.predict(session_files.RUN_PREFIX + run_id, api_name="/zip_run"),
        lambda: intruder.predict(session_files.RUN_PREFIX + run_id, api_name="/delete_run"),
    ):
        with pytest.raises(
            AppError, match=f"no run '{run_id}' in this session|run:{run_id} is not in the list"
        ):
            call()
    with pytest.raises(AppError, match="does not exist"):  # as a missing folder: no hint that it exists
        score(intruder, model=str(folder / "checkpoint"))
    with pytest.raises(AppError, match="unknown run|no run|is not in the list of choices"):
        intruder.predict(session_files.RUN_PREFIX + f"../{owner.session_hash}/{run_id}", api_name="/zip_run")
    assert sorted(p.name for p in folder.rglob("*")) == before
    prediction, category, *_ = score(owner, model=session_files.RUN_PREFIX + run_id)  # the owner still can
    assert category


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_files_are_served_only_when_the_app_hands_them_out(app_url, owner_run):  # noqa: F811
    owner, run_id, folder = owner_run
    base = app_url.rstrip("/") + "/gradio_api/file="
    private = [
        folder / session_files.HISTORY_NAME,
        folder / "checkpoint" / "head.safetensors",
        environment.REPO_ROOT / "app.py",
        Path("/etc/passwd"),
    ]
    for path in private:
        assert _get(base + urllib.parse.quote(str(path))) == 403, path
    archive = owner.predict(
        session_files.RUN_PREFIX + run_id, api_name="/zip_run"
    )  # the owner downloads the zip
    assert Path(archive).stat().st_size > 0


@pytest.mark.skipif(not (environment.default_scorer_dir() / "run.json").is_file(), reason="no shipped scorer")
def test_a_run_downloads_through_the_api_with_a_model_card_true_to_its_records(app_url, tmp_path):  # noqa: F811
    """/zip_run from a client whose run list was never filled in its page, for a LoRA checkpoint (the zip holds
    the merged export): the unzipped folder loads in sentence-transformers, and its card is what its own records
    say."""
    import json
    import shutil
    import zipfile

    from sentence_transformers import SentenceTransformer

    from stsdemo.model_card import card_text

    client = new_client(app_url)
    session, run_id = client.session_hash, "copied-scorer"
    checkpoint = session_files.session_run_folder(session, run_id) / "checkpoint"
    shutil.copytree(environment.default_scorer_dir(), checkpoint)
    session_files.save_run(
        session,
        session_files.RunInfo(run_id, "#1 copied", status="finished", config={"output_dir": str(checkpoint)}),
    )
    archive = client.predict(session_files.RUN_PREFIX + run_id, api_name="/zip_run")
    with zipfile.ZipFile(archive) as handle:
        handle.extractall(tmp_path / "zip")
    folder = tmp_path / "zip"
    records = {
        name: json.loads((folder / name).read_text())
        for name in ("run.json", "stsdemo.json", "senteval.json", "config.json")
    }
    card = (folder / "README.md").read_text()
    assert card == card_text(
        records["run.json"], records["stsdemo.json"], records["senteval.json"], None, records["config.json"]
    )
    assert (
        records["stsdemo.json"]["encoder_weights"] == "full"
        and 'SentenceTransformer("path/to/this/folder")' in card
    )
    assert SentenceTransformer(str(folder), device="cpu").encode(list(PAIRS[0])).shape == (2, 384)


def test_uploads_over_the_stated_cap_are_refused(app_url, tmp_path):  # noqa: F811
    big = tmp_path / "big.csv"
    line = b"A man is playing a guitar on the stage,A man plays a guitar,4\n"
    big.write_bytes(b"sentence1,sentence2,label\n" + line * (2 * 1024 * 1024 // len(line)))
    client = new_client(app_url)
    with pytest.raises(Exception, match=r"(?i)(file size|too large|exceeds|maximum allowed size)"):
        client.predict("default", handle_file(str(big)), STS_CHOICE, "", 1.0, api_name="/score_file")
    assert (
        "1 MB" in english(upload_note()) or "1mb" in english(upload_note()).lower()
    )  # the cap is stated up front


# ---- what a visitor sees ------------------------------------------------------------------------------------


@pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="chromium is not installed")
def test_bad_input_in_the_browser_is_an_error_toast(page, app_state):  # noqa: F811
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Score a pair").click()
    expect(page.get_by_label("Category", exact=True)).not_to_have_value("", timeout=120_000)
    page.get_by_label("Sentence 1", exact=True).fill("   ")
    page.get_by_role("button", name="Score the pair").click()
    expect(page.get_by_test_id("toast-body").last).to_contain_text(
        "sentence 1 is empty; type a sentence with at least one visible"
    )
    page.get_by_role("tab", name="Fine-tune").click()
    page.get_by_label("Buffer x0", exact=True).fill("0.7")
    page.get_by_role("button", name="Start training").click()
    expect(page.get_by_test_id("toast-body").last).to_contain_text("0 <= x0 <= d/2 = 0.5")
    assert not app_state.active_runs()
