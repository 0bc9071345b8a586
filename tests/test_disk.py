"""The app's disk: a session's budget, the sweep of stale sessions and handed-over downloads (at start-up and
then periodically), and Gradio's cache schedule. No training: folders and files stand in for runs."""

from __future__ import annotations

import inspect
import os
import shutil
import time

import pytest

from stsdemo import environment
from stsdemo.errors import InputError
from stsdemo.serving import session_files
from stsdemo.serving.uploads import UploadLedger


def _aged(path, seconds: float):
    os.utime(path, (time.time() - seconds, time.time() - seconds))
    return path


def _run_files(session: str, run_id: str, size: int):
    folder = session_files.session_run_folder(session, run_id) / "checkpoint"
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(b"\0" * size)
    return folder.parent


def test_a_session_over_its_disk_budget_is_refused_with_the_budget_named(monkeypatch):
    monkeypatch.setenv("STSDEMO_SESSION_DISK", "3kb")
    _run_files("budget", "first", 2048)
    session_files.check_disk_budget("budget", set())  # 2 KB of 3 KB: a new run may start
    _run_files("budget", "second", 2048)
    with pytest.raises(
        InputError, match=r"take 4 KB of disk, its budget is 3 KB \(STSDEMO_SESSION_DISK\): delete"
    ):
        session_files.check_disk_budget("budget", set())
    session_files.check_disk_budget("another-session", set())  # the budget is per session


def test_over_the_total_the_sessions_idle_longest_make_room_and_the_rest_are_spared(monkeypatch, tmp_path):
    """One visitor may hold many session hashes: every session's runs together stay under STSDEMO_TOTAL_DISK. A
    new run makes room by removing the sessions idle longest (past IDLE_EVICTION_S), never a busy one, one touched
    lately, or the one starting the run; when none can go, the run is refused with the total named."""
    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path / "runs"))  # the total counts every session there
    monkeypatch.setenv("STSDEMO_TOTAL_DISK", "10kb")
    idle = session_files.IDLE_EVICTION_S + 60
    oldest, older, busy, recent = (
        _run_files(name, "run", 3072).parent for name in ("oldest", "older", "busy", "recent")
    )
    for folder, age in ((oldest, 3 * idle), (older, 2 * idle), (busy, 4 * idle)):
        _aged(folder, age)
    staged = session_files.downloads_dir("oldest") / "stsdemo-run.zip"
    staged.write_bytes(b"zip")
    session_files.check_disk_budget("starting", {"busy"})  # 12 KB of 10 KB: the oldest idle one goes
    assert not oldest.exists() and not staged.parent.exists()
    assert older.exists() and busy.exists() and recent.exists()  # 9 KB left: enough
    _run_files("recent", "second", 3072)  # 12 KB again, and "older" may not go
    with pytest.raises(
        InputError,
        match=r"take 12 KB of this server's disk, its total is 10 KB "
        r"\(STSDEMO_TOTAL_DISK\)",
    ):
        session_files.check_disk_budget("older", {"busy"})
    assert older.exists()
    session_files.sweep({"busy"})  # the sweep makes room too
    assert not older.exists() and busy.exists() and recent.exists()
    session_files.check_disk_budget("starting", {"busy"})


def test_the_disk_budget_is_read_like_the_upload_cap(monkeypatch):
    assert environment.session_disk_bytes() == 1024**3  # the default: 1 GB
    assert environment.total_disk_bytes() == 20 * 1024**3  # the default total: 20 GB
    monkeypatch.setenv("STSDEMO_TOTAL_DISK", "2gb")
    assert environment.total_disk_bytes() == 2 * 1024**3
    monkeypatch.setenv("STSDEMO_SESSION_DISK", " 250 MB ")
    assert environment.session_disk_bytes() == 250 * 1024**2
    monkeypatch.setenv("STSDEMO_SESSION_DISK", "lots")
    with pytest.raises(ValueError, match="STSDEMO_SESSION_DISK='lots'"):
        environment.session_disk_bytes()


def test_the_sweep_removes_stale_sessions_and_handed_over_downloads_and_spares_the_rest():
    stale, busy, fresh = (_run_files(name, "run", 16).parent for name in ("stale", "busy", "fresh"))
    for folder in (stale, busy):
        _aged(folder, session_files.SESSION_MAX_AGE_S + 60)
    handed = session_files.downloads_dir("fresh") / "stsdemo-run.zip"
    handed.write_bytes(b"zip")
    _aged(handed, session_files.HANDED_OVER_S + 1)
    staged = session_files.downloads_dir("fresh") / "scored.csv"
    staged.write_text("just returned, not yet copied by Gradio")
    session_files.sweep({"busy"})
    assert not stale.exists() and busy.exists() and fresh.exists()
    assert not handed.exists() and staged.exists()


def test_the_sweeper_sweeps_at_once_then_after_each_wait_sparing_the_runs_in_progress():
    """The sweeper's loop, run in this thread: the stop event it waits on is a stand-in that hands out a new
    staged download during the first wait and stops the loop during the second, so no clock is read."""

    class OneRunInProgress:
        uploads = UploadLedger()

        def active_runs(self):
            return {"training": object()}

    busy = _aged(_run_files("training", "run", 16).parent, session_files.SESSION_MAX_AGE_S + 60)

    def handed_over(name: str):
        staged = session_files.downloads_dir(name) / "stsdemo-run.zip"
        staged.write_bytes(b"zip")
        return _aged(staged, session_files.HANDED_OVER_S + 1)

    class TwoWaits:
        def __init__(self):
            self.waits, self.later = [], None

        def is_set(self) -> bool:
            return len(self.waits) == 2

        def wait(self, seconds: float) -> None:
            self.waits.append(seconds)
            if len(self.waits) == 1:
                assert not first.exists()  # swept at once, before the first wait
                self.later = handed_over("second")

    first, stop = handed_over("first"), TwoWaits()
    try:
        session_files.sweep_until(stop, OneRunInProgress(), every_s=0.2)
        assert stop.waits == [0.2, 0.2] and not stop.later.exists() and busy.exists()
    finally:  # the spared stale session would be pruned by the next test that sweeps
        shutil.rmtree(session_files.session_dir("training"), ignore_errors=True)


def test_gradio_takes_the_cache_schedule_the_app_sets():
    """app.py sets ``delete_cache`` on the built Blocks; Gradio 6.31 reads that attribute at launch."""
    import gradio as gr

    assert "delete_cache" in inspect.signature(gr.Blocks).parameters
    frequency, age = session_files.GRADIO_CACHE_SCHEDULE
    assert gr.Blocks(delete_cache=(frequency, age)).delete_cache == (frequency, age)
    assert (
        0 < frequency <= age and session_files.HANDED_OVER_S < age
    )  # a handed-over zip stays downloadable a while


def test_the_start_up_removes_export_folders_a_kill_left_beside_a_run_and_in_a_session():
    """A zip's staging folder sits in its run's folder (a run's zip) or in its session's (a Playground run's
    export); a kill mid-export leaves it, and the start-up recovery removes both kinds and nothing else."""
    run = _run_files("exported", "run", 16)
    left = [run / f"{session_files.EXPORT_PREFIX}abc", run.parent / f"{session_files.EXPORT_PREFIX}def"]
    for folder in left:
        (folder / "model").mkdir(parents=True)
    session_files.remove_orphans()
    assert not any(folder.exists() for folder in left) and (run / "checkpoint").is_dir()
