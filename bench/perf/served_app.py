"""The app as its visitors reach it, for the benchmarks that measure the app itself (``bench.perf.disk``,
``bench.perf.robustness``, ``bench.perf.speed``'s latency): ``python app.py`` (its start-up: recovery, the disk sweeper,
Gradio's cache schedule) in a process of its own on a free local port, talked to over HTTP with gradio_client as a
browser or an API caller would. bench imports nothing of ``stsdemo.app`` (tests/test_structure.py), so what it
measures is the served app, not a copy of its wiring.

What the app wrote is read where it wrote it: its output folder (``STSDEMO_OUTPUT_DIR``, one per served app) holds
``sessions/<session>/<run>/history.json`` for each run (the layout :mod:`stsdemo.serving.session_files` documents), read
here as plain JSON (:func:`session_runs`). The server's memory and threads are its process's (psutil).

    python -m bench.perf.served_app echo   # the bare Gradio echo app bench.perf.speed compares /score with, on
                                      # $GRADIO_SERVER_PORT (started by serve_echo, in its own process too)
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ..common import REPO

STARTUP_SECONDS = (
    300  # app.py loads torch, the encoder and Gradio before it answers: a minute on 2 busy cores
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_info(url: str, timeout: float, check: Callable[[], None] = lambda: None) -> None:
    """Poll ``GET /gradio_api/info`` until the app at ``url`` answers (Gradio prints its URL before it can serve);
    ``check`` runs between tries and raises when the server can no longer come up."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/gradio_api/info", timeout=5):
                return
        except OSError:
            pass
        check()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer /gradio_api/info within {timeout:.0f} s")
        time.sleep(0.3)


class Served:
    """A Gradio server started as a process of its own (``command`` in the repository root, ``env`` over this
    process's environment), answering at :attr:`url`; stopped by :meth:`close` or at the end of a with-block."""

    def __init__(self, command: list[str], env: dict[str, str], timeout: float = STARTUP_SECONDS):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        self.log = tempfile.TemporaryFile()
        settings = {
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "GRADIO_SERVER_PORT": str(port),
            "GRADIO_ANALYTICS_ENABLED": "False",
        }
        self.process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**os.environ, **settings, **env},
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        try:
            wait_for_info(self.url, timeout, check=self._still_running)
        except BaseException as error:
            tail = self.log_tail()
            self.close()
            if isinstance(error, TimeoutError):
                raise TimeoutError(f"{error}: {tail}") from None
            raise

    def _still_running(self) -> None:
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.url} exited with {self.process.returncode}: {self.log_tail()}")

    def log_tail(self, characters: int = 2000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-characters:]

    def client(self, **options):
        """A new visitor (its own session) talking to the server."""
        from gradio_client import Client

        return Client(self.url, verbose=False, **options)

    def rss_mib(self) -> float:
        """The server process's resident memory (MiB)."""
        import psutil

        return psutil.Process(self.process.pid).memory_info().rss / 2**20

    def cpu_seconds(self) -> float:
        """The CPU time (user and system) the server process has used so far."""
        import psutil

        used = psutil.Process(self.process.pid).cpu_times()
        return used.user + used.system

    def threads(self) -> int:
        """The server process's threads, as the operating system counts them (Python's and its libraries')."""
        import psutil

        return psutil.Process(self.process.pid).num_threads()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def serve_app(output: Path, **env: str) -> Served:
    """``python app.py`` with its runs in ``output``."""
    return Served([sys.executable, "app.py"], {"STSDEMO_OUTPUT_DIR": str(output), **env})


def serve_echo() -> Served:
    """The bare Gradio echo app (:func:`echo_demo`) in a process of its own."""
    return Served([sys.executable, "-m", "bench.perf.served_app", "echo"], {})


def session_runs(output: Path, session: str) -> list[dict]:
    """The run records (``history.json``) the app serving ``output`` wrote for ``session``, oldest first."""
    folder = Path(output) / "sessions" / session
    records = [json.loads(path.read_text(encoding="utf-8")) for path in folder.glob("*/history.json")]
    return sorted(records, key=lambda record: record["created"])


def echo_demo():
    """A bare Gradio app: two text boxes in, the first echoed out, on the same queue settings as a click event of
    the app; the floor any Gradio endpoint pays (HTTP, queue, SSE)."""
    import gradio as gr

    with gr.Blocks() as demo:
        first, second, out = gr.Textbox(), gr.Textbox(), gr.Textbox()
        button = gr.Button()
        button.click(lambda a, b: a, [first, second], out, api_name="echo")
    return demo


if __name__ == "__main__" and sys.argv[1:] == ["echo"]:
    echo_demo().launch(quiet=True, show_error=True)
