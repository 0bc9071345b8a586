"""The disk's smaller holes (issue 40): a killed server's copies of handed-out files in Gradio's cache go at
start-up, the hub cache is held to its cap (the least recently used model first), and using a run refreshes
its session's idleness, which the sweep reads; Gradio's uploads (issue 51) are held to their visitor's share
and the folder's cap, swept when their time is up, and this server's own Gradio folder is cleared at
start-up."""

import os
import time
from pathlib import Path

import pytest

from stsdemo.serving import session_files, uploads
from stsdemo.serving.session_files import RunInfo


def _file(path, size: int = 10, age_s: float = 0):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    if age_s:
        then = time.time() - age_s
        os.utime(path, (then, then))
        os.utime(path.parent, (then, then))
    return path


def test_a_killed_servers_handed_out_files_leave_gradios_cache_and_nothing_else(tmp_path):
    handed = [
        _file(tmp_path / "a1" / "stsdemo-run1.zip"),
        _file(tmp_path / "b2" / "mteb-run1.zip"),
        _file(tmp_path / "c3" / "pairs-scored-101010.csv"),
    ]
    kept = [
        _file(tmp_path / "d4" / "pairs.csv"),
        _file(tmp_path / "e5" / "model.zip"),
    ]  # uploads, another app's
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


# ---- uploads to Gradio's folder (issue 51) ------------------------------------------------------------


def test_start_up_clears_this_servers_own_gradio_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path / "runs"))
    folder = uploads.own_gradio_folder()
    assert folder.name.startswith("stsdemo-gradio-") and folder != session_files.downloads_root()
    _file(folder / "abc" / "upload.csv", 1000)
    _file(folder / "deep_links" / "x" / "y", 24)
    (folder / "z").write_bytes(b"z")
    assert uploads.clear_folder(folder) == 1025
    assert folder.is_dir() and not any(folder.iterdir())
    assert uploads.clear_folder(tmp_path / "never made") == 0


@pytest.mark.slow
def test_gradios_upload_route_holds_a_visitor_to_its_share_and_the_sweep_frees_it(tmp_path, monkeypatch):
    """Issue 51, case 3: 30 distinct 19.9 MB files from one address were accepted in 4 s, outside every disk
    cap. Here (files of 300 KB, a share of 1 MB): the address's fourth is refused naming the cap, another
    address is not; a request that declares no length is refused; the sweep removes the files past their time
    and frees the share; and the folder's own cap refuses everyone once reached."""
    import gradio as gr
    import httpx
    from starlette.middleware import Middleware

    from stsdemo.serving import gradio_seam

    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    monkeypatch.setenv("STSDEMO_PROXY_HOPS", "1")
    monkeypatch.setenv("STSDEMO_VISITOR_UPLOADS", "1mb")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    ledger = uploads.UploadLedger()
    with gr.Blocks() as demo:
        gr.File()
    _, url, _ = demo.launch(
        prevent_thread_lock=True,
        quiet=True,
        max_file_size="1mb",
        app_kwargs={"middleware": [Middleware(gradio_seam.StrictCalls, uploads=ledger)]},
    )
    try:

        def upload(n: int, address: str) -> httpx.Response:
            content = bytes([n % 256]) * 300_000  # distinct files: Gradio stores each under its hash
            return httpx.post(
                f"{url}gradio_api/upload",
                files={"files": (f"f{n}.csv", content)},
                headers={"x-forwarded-for": address},
                timeout=30,
            )

        answers = [upload(n, "8.8.8.8") for n in range(5)]
        assert [answer.status_code for answer in answers] == [200, 200, 200, 429, 429]
        refusal = answers[3].json()["detail"]
        assert "at most 1 MB a visitor (STSDEMO_VISITOR_UPLOADS)" in refusal and "\n" not in refusal
        stored = [Path(path) for answer in answers[:3] for path in answer.json()]
        assert len(stored) == 3 and all(path.is_file() for path in stored)
        assert upload(9, "9.9.9.9").status_code == 200  # another visitor's share
        chunked = httpx.post(
            f"{url}gradio_api/upload",
            content=iter([b"--x\r\n"]),
            timeout=30,
            headers={"content-type": "multipart/form-data; boundary=x"},
        )
        assert chunked.status_code == 411 and "Content-Length" in chunked.json()["detail"]
        assert ledger.sweep(tmp_path / "gradio", max_age_s=0) == 4
        assert not any(path.exists() for path in stored)
        assert upload(5, "8.8.8.8").status_code == 200  # its share is free again
        monkeypatch.setenv("STSDEMO_GRADIO_FOLDER", "500kb")
        ledger.MEASURE_EVERY_S = 0
        full = upload(6, "1.1.1.1")
        assert full.status_code == 503 and "(STSDEMO_GRADIO_FOLDER)" in full.json()["detail"]
    finally:
        demo.close()
