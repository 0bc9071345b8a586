"""Faults at the core: out of memory mid-run, a kill in the middle of a save, and many start/stop cycles.

* A training step that raises ``torch.OutOfMemoryError`` (GPU), ``RuntimeError("... can't allocate memory")``
  (CPU) or ``MemoryError`` ends the run with a message; the best checkpoint so far stays intact and loadable,
  and the process goes on scoring.
* A child process killed mid-save (a monkeypatched slow writer, see ``fault_helpers.py``) leaves either the old
  complete checkpoint or a clear error, never wrong weights; the same for the JSON result files.
* Ten start/stop cycles of ``train()`` (half stopped with the stop event, half by closing the generator, as a
  closed browser tab does) leave no training thread behind and give the memory back.

The runs here start from a model built in memory and handed to ``train(model=...)`` instead of one loaded
from disk (loading is tested elsewhere): a 1-layer, 32-wide BERT where only the fault handling matters, a copy
of the embedded MiniLM where memory does.
They train on 64 pairs of at most 16 tokens and score a 16-pair dev set.
"""

from __future__ import annotations

import copy
import functools
import gc
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
import torch
from fault_helpers import PAIRS
from tiny_models import tiny_model

import stsdemo.train as train_module
import stsdemo.workflow as workflow
from stsdemo.atomic import write_json_atomic
from stsdemo.errors import InputError
from stsdemo.losses.registry import build_loss
from stsdemo.model import SiameseRegressor
from stsdemo.train import DoneEvent, EvalEvent, StepEvent, TrainConfig, train

HELPERS = Path(__file__).with_name("fault_helpers.py")
TINY = dict(
    data="stsb", max_pairs=64, max_length=16, batch_size=4, log_every=1, eval_every=1000, max_dev_pairs=16
)


def fresh_head_on(source: SiameseRegressor) -> SiameseRegressor:
    """A fresh head on a copy of ``source``'s encoder: the model a run here starts from."""
    return SiameseRegressor(
        copy.deepcopy(source.encoder),
        source.tokenizer,
        base_model=source.base_model,
        max_length=TINY["max_length"],
    )


@pytest.fixture(scope="module")
def old_model():
    return tiny_model(seed=1)


@pytest.fixture
def tiny_start(old_model):
    return fresh_head_on(old_model)


def _digest(folder: Path) -> dict:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


# ---- out of memory ----------------------------------------------------------------------------------------

OOM_ERRORS = {
    "cuda": lambda: torch.OutOfMemoryError(
        "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.1 GiB total)"
    ),
    "cpu": lambda: RuntimeError(
        "[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate "
        "memory: you tried to allocate 8589934592 bytes. Error code 12"
    ),
    "python": lambda: MemoryError(),
}


class FailingLoss(torch.nn.Module):
    """The real loss, but its ``fail_at``-th call (a training step) raises ``error``."""

    def __init__(self, inner, error, fail_at):
        super().__init__()
        self.inner, self.error, self.fail_at, self.calls = inner, error, fail_at, 0
        self.regression = getattr(inner, "regression", False)

    def forward(self, output, labels):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error()
        return self.inner(output, labels)

    def inside_buffer(self, output, labels):
        return self.inner.inside_buffer(output, labels)


@pytest.mark.parametrize("kind", list(OOM_ERRORS))
def test_out_of_memory_mid_run_ends_with_a_message_and_keeps_the_best_checkpoint(kind, tmp_path, tiny_start):
    folder = tmp_path / "run"
    events, saved = [], None
    loss = FailingLoss(build_loss("sk2"), OOM_ERRORS[kind], fail_at=3)
    for event in train(
        TrainConfig(max_steps=10, output_dir=str(folder), **TINY), model=tiny_start, loss=loss
    ):
        events.append(event)
        if isinstance(event, EvalEvent):
            saved = {k: v for k, v in _digest(folder).items() if k != "run.json"}  # the step-0 checkpoint
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.outcome == "failed"
    assert done.message.startswith("out of memory") and "smaller batch size" in done.message, done.message
    assert "best checkpoint so far is kept" in done.message
    assert done.steps == 2 and [e.step for e in events if isinstance(e, StepEvent)] == [1, 2]
    records = (
        "run.json",
        "README.md",
    )  # the run's record and card say how it ended; the weights stay as written
    assert saved and {k: v for k, v in _digest(folder).items() if k not in records} == saved
    assert json.loads((folder / "run.json").read_text())["outcome"] == "failed"
    best = SiameseRegressor.load(str(folder))
    assert best.predict(*PAIRS).shape == (2,)  # the process goes on serving


def test_other_runtime_errors_are_not_mistaken_for_out_of_memory(tmp_path, tiny_start):
    bug = lambda: RuntimeError("mat1 and mat2 shapes cannot be multiplied (16x384 and 1152x1)")  # noqa: E731
    loss = FailingLoss(build_loss("sk2"), bug, fail_at=1)
    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        list(
            train(
                TrainConfig(max_steps=3, output_dir=str(tmp_path / "run"), **TINY),
                model=tiny_start,
                loss=loss,
            )
        )


# ---- a kill in the middle of a save -----------------------------------------------------------------------


def _run_until(scenario: str, target: Path, marker: str, timeout: float = 180.0, **env) -> str:
    """Start the child (``env``: more environment variables), wait for ``marker`` on its stdout, then SIGKILL it.
    Returns the marker's line."""
    child = subprocess.Popen(
        [sys.executable, str(HELPERS), scenario, str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    lines = []
    timer = threading.Timer(timeout, child.kill)
    timer.start()
    try:
        for line in child.stdout:
            lines.append(line)
            if line.startswith(marker):
                break
    finally:
        timer.cancel()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    assert lines and lines[-1].startswith(marker), (
        f"child never reached {marker}: {lines} {child.stderr.read()}"
    )
    return lines[-1].strip()


@pytest.mark.parametrize("scenario", ["head", "encoder"])
def test_kill_mid_checkpoint_write_leaves_the_old_checkpoint(scenario, tmp_path, old_model):
    folder = tmp_path / "checkpoint"
    old_model.save(folder)
    expected, before = old_model.predict(*PAIRS), _digest(folder)
    _run_until(scenario, folder, "HALF-WRITTEN")
    assert _digest(folder) == before
    assert np.allclose(SiameseRegressor.load(str(folder)).predict(*PAIRS), expected, atol=1e-6)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".checkpoint.")]
    assert leftovers, "the killed writer's staging folder should be beside the checkpoint"
    for path in tmp_path.iterdir():  # the next save clears what a killed writer left (older than an hour)
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    old_model.save(folder)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".checkpoint.")]


def test_kill_between_the_two_renames_of_the_fallback_swap_gives_a_clear_error(tmp_path, old_model):
    folder = tmp_path / "checkpoint"
    old_model.save(folder)
    expected = old_model.predict(*PAIRS)
    _run_until("swap-fallback", folder, "RETIRED")
    with pytest.raises(
        InputError, match=r"does not exist; an interrupted save left its previous version at .*\.old"
    ):
        SiameseRegressor.load(str(folder))
    old_model.save(folder)  # saving again recovers and clears the parked copy
    assert np.allclose(SiameseRegressor.load(str(folder)).predict(*PAIRS), expected, atol=1e-6)
    assert not (tmp_path / ".checkpoint.old").exists()


def test_kill_9_during_an_app_run_is_recovered_at_start_up(tmp_path, monkeypatch):
    """A server killed (SIGKILL) while it trains leaves the run ``running`` and a half-written checkpoint in its
    staging folder; the next start-up marks it ``interrupted``, lists its good checkpoint and clears the staging."""
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    _run_until("app-run", tmp_path, "HALF-WRITTEN", STSDEMO_OUTPUT_DIR=str(tmp_path))
    ((session, run_id),) = [
        (p.parent.parent.name, p.parent.name) for p in tmp_path.glob("sessions/*/*/history.json")
    ]
    folder = session_files.session_run_folder(session, run_id)
    assert session_files.load_run(session, run_id).status == "running"
    assert session_files.run_choices(session) == [] and list(folder.glob(".checkpoint.*")), (
        "the state a kill leaves"
    )
    assert session_files.recover_interrupted() == [(session, run_id)]
    info = session_files.load_run(session, run_id)
    assert info.status == "interrupted" and "best checkpoint so far is kept" in info.message
    assert session_files.run_choices(session) == [(info.title(), session_files.RUN_PREFIX + run_id)]
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")], "staging left behind"
    assert SiameseRegressor.load(str(info.checkpoint)).predict(*PAIRS).shape == (2,)
    assert "interrupted" in finetune_view.run_summary(info)
    assert session_files.recover_interrupted() == []  # once is enough


@pytest.mark.slow  # trains (a tiny model, a few steps)
def test_kill_9_just_after_the_checkpoint_swap_leaves_the_new_weights_with_their_own_record(
    tmp_path, monkeypatch
):
    """The weights and the ``run.json`` that names their step arrive in one swap: a server killed right after
    it holds the second checkpoint with its own record (never one without), the recovered run lists that step,
    and its zip carries the record and the card, with no server path or session id in them."""
    import zipfile

    from stsdemo.app.app_state import AppState
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    swapped = _run_until("app-swap", tmp_path, "SWAPPED", STSDEMO_OUTPUT_DIR=str(tmp_path)).split()[1]
    ((session, run_id),) = [
        (p.parent.parent.name, p.parent.name) for p in tmp_path.glob("sessions/*/*/history.json")
    ]
    checkpoint = session_files.session_run_folder(session, run_id) / "checkpoint"
    assert hashlib.sha256((checkpoint / "head.safetensors").read_bytes()).hexdigest() == swapped
    record = json.loads((checkpoint / "run.json").read_text())
    assert record["best_step"] == [1, 2] and record["best_dev"] == 2.0  # the second evaluation's weights
    assert session_files.recover_interrupted() == [(session, run_id)]
    info = session_files.load_run(session, run_id)
    assert (info.best_step, info.best) == ((1, 2), 2.0)  # the history follows the checkpoint
    with zipfile.ZipFile(session_files.zip_run(AppState(), session, run_id)) as archive:
        assert {"run.json", "README.md", "head.safetensors"} <= set(archive.namelist())
        zipped, card = json.loads(archive.read("run.json")), archive.read("README.md").decode()
    assert zipped["best_step"] == [1, 2] and zipped["config"]["output_dir"] == "./checkpoint"
    for text in (json.dumps(zipped), card):
        assert session not in text and str(tmp_path) not in text


def _zip_orphans(output: Path) -> list[Path]:
    from stsdemo.serving import session_files

    return [
        *output.glob(f"sessions/*/*/{session_files.EXPORT_PREFIX}*"),
        *session_files.downloads_root().glob("*/.*.tmp"),
    ]


ORPHANS = {
    "zip": ("ZIPPING", _zip_orphans),  # the zip's export folder and its partial zip
    "embedding": ("STAGED", lambda output: list(output.glob("cache/playground/.*.tmp"))),
}


@pytest.mark.parametrize("scenario", list(ORPHANS))
def test_what_a_kill_leaves_beside_the_runs_does_not_survive_a_restart(scenario, tmp_path, monkeypatch):
    """A server killed while it zips a run (its export folder and a partial zip) or writes the Playground's
    embedding cache (a partial table) leaves them behind; the start-up recovery removes them."""
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    marker, orphans = ORPHANS[scenario]
    _run_until(scenario, tmp_path, marker, STSDEMO_OUTPUT_DIR=str(tmp_path))
    assert len(orphans(tmp_path)) == (2 if scenario == "zip" else 1), (
        f"what the kill leaves: {orphans(tmp_path)}"
    )
    session_files.recover_interrupted()
    assert not orphans(tmp_path)


def test_kill_mid_result_write_leaves_the_old_json(tmp_path):
    target = tmp_path / "run.json"
    write_json_atomic(target, {"best_dev": 81.5, "note": "old"})
    before = target.read_bytes()
    _run_until("json", target, "STAGED")
    assert target.read_bytes() == before


def test_json_writers_in_threads_never_mix_their_bytes(tmp_path):
    target = tmp_path / "cache.json"
    payloads = [{"writer": i, "data": [i] * 5000} for i in range(8)]
    threads = [
        threading.Thread(target=lambda p=p: [write_json_atomic(target, p) for _ in range(10)])
        for p in payloads
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    import json

    assert json.loads(target.read_text()) in payloads
    assert not list(tmp_path.glob(".cache.json.*"))


# ---- start/stop cycles ------------------------------------------------------------------------------------


def _rss_mib() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def _training_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("train-cycle")]


def start_stop_cycle(index: int, folder: Path, close: bool, model: SiameseRegressor) -> DoneEvent | None:
    """Start a run from ``model`` in its own thread, stop it at its first step (stop event, or closing the
    generator)."""
    stop, first_step, result = threading.Event(), threading.Event(), {}
    run = train(TrainConfig(max_steps=1000, output_dir=str(folder), **TINY), stop, model=model)

    def consume():
        for event in run:
            if isinstance(event, StepEvent):
                first_step.set()
                if close:
                    break
            result["last"] = event
        if close:
            run.close()

    thread = threading.Thread(target=consume, name=f"train-cycle-{index}", daemon=True)
    thread.start()
    assert first_step.wait(300), "no training step within 300 s"
    stop.set()
    thread.join(120)
    assert not thread.is_alive(), "the training thread did not end"
    return result.get("last")


def test_start_stop_cycles_leave_no_thread_and_keep_memory_and_checkpoint(tmp_path, embedded_model):
    """The light version (3 cycles) of ``bench/perf/robustness.py --cycles 10``."""
    folder = tmp_path / "run"
    start_stop_cycle(
        0, folder, close=False, model=fresh_head_on(embedded_model)
    )  # warm-up: first-use allocations
    threads, rss = threading.active_count(), _rss_mib()
    for index in range(1, 4):
        done = start_stop_cycle(index, folder, close=index % 2 == 0, model=fresh_head_on(embedded_model))
        if index % 2:
            assert isinstance(done, DoneEvent) and done.outcome == "stopped" and done.steps < 1000
        assert not _training_threads() and threading.active_count() == threads
        assert SiameseRegressor.load(str(folder)).predict(*PAIRS).shape == (
            2,
        )  # the best checkpoint is intact
    after = _rss_mib()
    assert after <= rss * 1.10, f"RSS grew from {rss:.0f} MiB to {after:.0f} MiB over 3 start/stop cycles"


# ---- many users at once --------------------------------------------------------------------------------------


def test_one_model_serves_many_threads_at_once(embedded_model):
    """Scoring requests run in parallel threads on one cached model. A fast tokenizer keeps its padding and
    truncation settings on a shared object, so unguarded calls from several threads made about one call in
    sixty fail ("Unable to create tensor ... activate padding"); the model's tokenizer lock prevents it."""
    errors = []

    def work(index):
        for j in range(150):
            try:
                if index % 2:
                    embedded_model.token_counts(["word " * (j % 50 + 1), "short"])
                else:
                    batch = embedded_model.tokenize(
                        ["A man " * (j % 7 + 1), "a b c d e f g h " * (index + 1)]
                    )
                    assert batch["input_ids"].shape[0] == 2
            except Exception as error:  # noqa: BLE001 - collected for the assertion
                errors.append(repr(error)[:200])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[:3]


def test_job_line_admits_in_order_and_refuses_when_full():
    from stsdemo.serving.slots import JobLine

    line = JobLine(slots=1, waiting=2)
    first, second, third = line.join("a"), line.join("b"), line.join("c")
    assert [t.position() for t in (first, second, third)] == [0, 1, 2]
    with pytest.raises(InputError, match=r"queue is full: 1 run training and 2 waiting .*try again"):
        line.join("d")
    assert not third.wait(0.05)
    second.leave()  # a waiting visitor closes the tab: the one behind moves up
    assert third.position() == 1 and line.ahead(third) == "1 run training ahead of yours"
    released = []
    waiter = threading.Thread(target=lambda: released.append(third.wait(30)))
    waiter.start()
    first.leave()  # the running job ends: the next in line starts
    waiter.join(30)
    assert released == [True] and third.position() == 0 and line.counts() == (1, 0)
    third.leave()
    assert line.counts() == (0, 0)


def test_a_job_that_goes_on_with_a_second_run_guards_that_run_and_frees_the_first(tmp_path):
    """Compare's second run trains inside the first run's job: from then on the second run is the one that
    cannot be deleted or zipped, and the job's end frees the session whatever run it ended on."""
    from stsdemo.app.app_state import AppState, StopSignal

    state = AppState()
    ticket = state.begin_run("s", "first", StopSignal(tmp_path / "STOP"))
    with pytest.raises(InputError, match="already training or waiting"):
        state.begin_run("s", "other", StopSignal(tmp_path / "STOP2"))
    state.switch_run("s", "second")
    assert state.active_run("s") == "second" and state.active_runs() == {"s": "second"}
    assert "Stopping second" in state.request_stop("s")
    state.end_run("s", ticket)
    assert state.active_run("s") is None and state.line.counts() == (0, 0)


def test_cli_run_that_runs_out_of_memory_says_so_in_one_line_and_exits_1(
    tmp_path, monkeypatch, capsys, tiny_start
):
    from stsdemo.cli import main

    loss = FailingLoss(build_loss("sk2"), OOM_ERRORS["cpu"], fail_at=2)
    # the CLI trains through the core workflow, which holds its own name for train
    monkeypatch.setattr(workflow, "train", functools.partial(train_module.train, model=tiny_start, loss=loss))
    folder = tmp_path / "run"
    code = main(
        [
            "train",
            "--data",
            "stsb",
            "--max-pairs",
            "64",
            "--max-length",
            "16",
            "--batch-size",
            "4",
            "--max-steps",
            "10",
            "--eval-every",
            "1000",
            "--max-dev-pairs",
            "16",
            "--output-dir",
            str(folder),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1, err
    assert err.startswith("stsdemo: error: the run ended early: out of memory") and f"kept at {folder}" in err
    assert SiameseRegressor.load(str(folder)).predict(*PAIRS).shape == (2,)
