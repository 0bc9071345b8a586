"""The disk's smaller holes (issue 40): a killed server's copies of handed-out files in Gradio's cache go at
start-up, the hub cache is held to its cap (the least recently used model first), and using a run refreshes its
session's idleness, which the sweep reads."""

import os
import time

from stsdemo.app import session_files
from stsdemo.app.session_files import RunInfo


def _file(path, size: int = 10, age_s: float = 0):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    if age_s:
        then = time.time() - age_s
        os.utime(path, (then, then))
        os.utime(path.parent, (then, then))
    return path


def test_a_killed_servers_handed_out_files_leave_gradios_cache_and_nothing_else(tmp_path):
    handed = [_file(tmp_path / "a1" / "stsdemo-run1.zip"), _file(tmp_path / "b2" / "mteb-run1.zip"),
              _file(tmp_path / "c3" / "pairs-scored-101010.csv")]
    kept = [_file(tmp_path / "d4" / "pairs.csv"), _file(tmp_path / "e5" / "model.zip")]   # uploads, another app's
    assert session_files.remove_cached_downloads(tmp_path) == 3
    assert not any(path.exists() for path in handed) and all(path.exists() for path in kept)


def test_the_hub_cache_is_held_to_its_cap_the_model_used_longest_ago_first(tmp_path):
    old = _file(tmp_path / "models--a--old" / "blobs" / "w", 600, age_s=3000)
    middle = _file(tmp_path / "models--b--middle" / "blobs" / "w", 600, age_s=2000)
    new = _file(tmp_path / "models--c--new" / "blobs" / "w", 600, age_s=1000)
    lock = _file(tmp_path / ".locks" / "x", 10, age_s=5000)
    assert session_files.trim_hub_cache(tmp_path, limit=1300) == 1200
    assert not old.exists() and middle.exists() and new.exists() and lock.exists()
    assert session_files.trim_hub_cache(tmp_path, limit=0) == 0


def test_using_a_run_refreshes_its_sessions_idleness():
    session_files.save_run("usedsession", RunInfo("run1", "a run", status="finished"))
    folder = session_files.session_dir("usedsession")
    day_ago = time.time() - 86_000
    os.utime(folder, (day_ago, day_ago))
    session_files.load_run("usedsession", "run1")
    assert time.time() - folder.stat().st_mtime < 60
    assert session_files.prune_sessions(set(), max_age_s=3600) == 0 and folder.is_dir()
