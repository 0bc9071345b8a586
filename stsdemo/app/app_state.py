"""What the app keeps in memory, in one object: :class:`AppState`.

``app.py`` makes one and hands it to :func:`stsdemo.app.page.build_demo`; tests make their own, so each app
in a process has its own models, runs and line. Everything on disk (sessions, runs) is in
:mod:`stsdemo.serving.session_files`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from ..data import senteval_test_sets
from ..errors import InputError
from ..serving.slots import JobLine, Ticket
from ..serving.uploads import UploadLedger
from .model_cache import ModelCache
from .playground.memory import PlaygroundMemory

MAX_BENCH_SESSIONS = 500  # sessions whose benchmark rows are remembered


class StopSignal(threading.Event):
    """The stop event handed to :func:`stsdemo.train.train`: set in this process, or by a flag file.

    Pickled (into a ZeroGPU worker process) it becomes a fresh signal watching the same flag file, which
    :meth:`AppState.request_stop` writes, so a stop reaches the worker too. It is also set once the wall clock
    (``clock``, seconds since the epoch) passes ``deadline``, the job's wall-clock limit
    (:func:`stsdemo.serving.caps.wall_clock_seconds`): the run stops as if stopped, keeping its best checkpoint."""

    def __init__(self, flag: Path, deadline: float | None = None, clock: Callable[[], float] = time.time):
        super().__init__()
        self.flag, self.deadline, self.clock = flag, deadline, clock

    def is_set(self) -> bool:
        return super().is_set() or self.flag.exists() or self.past_deadline()

    def past_deadline(self) -> bool:
        return self.deadline is not None and self.clock() > self.deadline

    def __reduce__(self):
        return (StopSignal, (self.flag, self.deadline))


class AppState:
    """The app's memory: loaded models, the training line and the runs in it, benchmark rows per session, the
    Playground's data sets and visitors' runs, the visitors' uploads to Gradio's folder.

    Each part has its own lock; none is held while a model loads for another part."""

    def __init__(
        self,
        line: JobLine | None = None,
        models: ModelCache | None = None,
        playground: PlaygroundMemory | None = None,
    ):
        self.models = models or ModelCache()
        self.playground = playground or PlaygroundMemory(self.models)  # the Playground's data sets and runs
        self.line = line or JobLine()
        self.uploads = UploadLedger()  # files uploaded to Gradio's folder, per visitor
        self._active: dict[
            str, tuple[str, StopSignal, Ticket]
        ] = {}  # session -> (run id, stop signal, ticket)
        self._active_lock = threading.Lock()
        self._bench_rows: OrderedDict[str, dict] = OrderedDict()
        self._bench_lock = threading.Lock()
        self._test_sets = None
        self._test_sets_lock = threading.Lock()

    # ---- runs in progress (training or waiting in line) ------------------------------------------------

    def begin_run(self, session: str, run_id: str, signal: StopSignal) -> Ticket:
        """Register a session's run and give it a place in the line; one run per session at a time."""
        with self._active_lock:
            if session in self._active:
                raise InputError("session_run_busy")
            ticket = self.line.join(run_id)  # InputError when the line is full: nothing registered
            self._active[session] = (run_id, signal, ticket)
            return ticket

    def switch_run(self, session: str, run_id: str) -> None:
        """The session's job goes on with another run (the second run of a comparison): that one is now the
        run in progress, which cannot be deleted or zipped, and the first one can."""
        with self._active_lock:
            _, signal, ticket = self._active[session]
            self._active[session] = (run_id, signal, ticket)

    def end_run(self, session: str, ticket: Ticket) -> None:
        ticket.leave()
        with self._active_lock:
            if session in self._active and self._active[session][2] is ticket:
                del self._active[session]

    def active_run(self, session: str) -> str | None:
        with self._active_lock:
            entry = self._active.get(session)
        return entry[0] if entry else None

    def active_runs(self) -> dict[str, str]:
        """Session -> run id of every run training or waiting in line."""
        with self._active_lock:
            return {session: entry[0] for session, entry in self._active.items()}

    def training_count(self) -> int:
        """Runs admitted by the line and not yet ended: their training loop runs (or is about to)."""
        return self.line.counts()[0]

    def request_stop(self, session: str) -> str:
        """Ask this session's run to stop after its current step (its best checkpoint is kept); a run still
        waiting in line leaves the line."""
        with self._active_lock:
            entry = self._active.get(session)
        if entry is None:
            return "No run of this session is training."
        run_id, signal, _ = entry
        signal.set()
        if signal.flag.parent.is_dir():  # the flag reaches a ZeroGPU worker; a waiting run has no folder yet
            signal.flag.touch()
        return f"Stopping {run_id} after the current step…"

    # ---- benchmark rows and the test sets ----------------------------------------------------------------

    def bench_rows(self, session: str) -> dict:
        """A copy of the 7-task rows this session has computed."""
        with self._bench_lock:
            return dict(self._bench_rows.get(session, {}))

    def add_bench_row(self, session: str, name: str, results: dict) -> dict:
        with self._bench_lock:
            rows = self._bench_rows.setdefault(session, {})
            rows[name] = results
            self._bench_rows.move_to_end(session)
            while len(self._bench_rows) > MAX_BENCH_SESSIONS:
                self._bench_rows.popitem(last=False)
            return dict(rows)

    def test_sets(self):
        """SentEval's seven STS test sets, loaded once."""
        with self._test_sets_lock:
            if self._test_sets is None:
                self._test_sets = senteval_test_sets()
            return self._test_sets
