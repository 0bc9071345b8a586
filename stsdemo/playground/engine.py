"""The Playground's one engine, the page's, run from Python: ``web/draws.js``, ``web/heads.js``, ``web/engine.js``
and ``web/host.js`` evaluated in an embedded JavaScript engine that pip installs, so the API, MCP, the command line,
the benchmarks and the tests train with exactly the code a visitor's browser runs. No system Node is needed.

Two embeddings of JavaScript: ``v8`` (mini-racer, the default: the same V8 as Chromium) and ``quickjs`` (about 20x
slower; the cross-engine test runs both and asks for identical readings). The engine uses only arithmetic IEEE 754
rounds exactly, so every engine, browser and machine gives the same bits.

An :class:`Engine` holds one JavaScript context; a context is used by one thread at a time (:func:`engine` keeps
one per thread). Data is handed over once per context as a compact file's bytes (:mod:`.compact`), by a key.
"""

from __future__ import annotations

import atexit
import base64
import itertools
import json
import math
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .config import engine_declarations

WEB = Path(__file__).parent / "web"
SCRIPTS = ("draws.js", "heads.js", "engine.js", "host.js")
KINDS = ("v8", "quickjs")
MEMORY_LIMIT = 1 << 30  # bytes one context may take: the built-in sets and an upload fit in a fraction
KEEP_DATA = 4  # data sets a context keeps (about 40 MB each as float64): the built-ins and 2 more
_ids = itertools.count(1)


def _from_json(text: str):
    """JSON of the engine with NaN back where JSON.stringify wrote null."""

    def numbers(value):
        if value is None:
            return math.nan
        if isinstance(value, list):
            return [numbers(item) for item in value]
        if isinstance(value, dict):
            return {key: numbers(item) for key, item in value.items()}
        return value

    return numbers(json.loads(text))


class Engine:
    """One JavaScript context with the page's engine loaded (``kind``: one of :data:`KINDS`)."""

    def __init__(self, kind: str = "v8"):
        if kind == "v8":
            import py_mini_racer

            # mini-racer's default --single-threaded made a run 2.7x slower (11.7 s against 4.4 s for 20 seeds x
            # 1,000 steps): V8's optimising compiler then waits on the thread that runs the code
            py_mini_racer.init_mini_racer(flags=(), ignore_duplicate_init=True)
            # made in a thread of its own: a MiniRacer made where an asyncio loop runs (a server's, Playwright's)
            # adopts that loop, and its first call then waits on the loop it blocks
            with ThreadPoolExecutor(1) as maker:
                self._context = maker.submit(py_mini_racer.MiniRacer).result()
            _open.append(self._context)  # closed at exit: V8's own threads would keep the process alive
            self._context.set_hard_memory_limit(MEMORY_LIMIT)
        elif kind == "quickjs":
            import quickjs

            self._context = quickjs.Context()
            self._context.set_memory_limit(MEMORY_LIMIT)
            self._context.set_max_stack_size(0)
        else:
            raise ValueError(f"engine kind must be one of {', '.join(KINDS)}, not {kind!r}")
        self.kind = kind
        for script in SCRIPTS:
            self._context.eval((WEB / script).read_text())
        self.call("configure", json.dumps(engine_declarations()))
        self._data: OrderedDict[str, None] = OrderedDict()  # the data keys it holds, least recent first

    def call(self, function: str, *arguments) -> str:
        """``PlaygroundHost.<function>(arguments...)``, each argument written as a JSON literal; its answer."""
        written = ", ".join(json.dumps(argument) for argument in arguments)
        return self._context.eval(f"PlaygroundHost.{function}({written})")

    def add_data(self, key: str, payload: bytes) -> None:
        """Hand the compact file ``payload`` over under ``key`` (once per context; the least recently used
        beyond :data:`KEEP_DATA` are dropped, so a server's uploads do not pile up in its engines)."""
        if key in self._data:
            self._data.move_to_end(key)
            return
        self.call("addData", key, base64.b64encode(payload).decode("ascii"))
        self._data[key] = None
        while len(self._data) > KEEP_DATA:
            self.call("dropData", self._data.popitem(last=False)[0])

    def start(self, key: str, config: dict, seeds: list[int]) -> EngineRun:
        run_id = f"run{next(_ids)}"
        sizes = json.loads(self.call("start", run_id, key, json.dumps(config), json.dumps(list(seeds))))
        return EngineRun(self, run_id, sizes)


class EngineRun:
    """One run in an :class:`Engine`: ``sizes`` are its training, selection and report pair counts and batch."""

    def __init__(self, engine: Engine, run_id: str, sizes: dict):
        self.engine, self.id, self.sizes = engine, run_id, sizes

    def advance(self, steps: int) -> int:
        return int(self.engine.call("advance", self.id, int(steps)))

    def measure(self) -> dict:
        """The engine's measurement: ``step``, ``seeds``, ``values`` and ``best`` (metric -> per seed [buffer,
        none]) and ``bestSteps`` (per seed [buffer, none])."""
        return _from_json(self.engine.call("measure", self.id))

    def best_head(self, twin: int) -> dict:
        return _from_json(self.engine.call("bestHead", self.id, twin))

    def measure_head(self, twin: int, params: list[float]) -> dict:
        return _from_json(self.engine.call("measureHead", self.id, twin, json.dumps(params)))

    def close(self) -> None:
        self.engine.call("drop", self.id)


_open: list = []
_free: dict[str, list[Engine]] = {kind: [] for kind in KINDS}
_lock = threading.Lock()
KEEP_FREE = 4  # idle engines kept per kind (each holds the data sets it was given)


def borrow(kind: str = "v8") -> Engine:
    """An engine of ``kind`` for one run's part, kept by it until :func:`give_back`: an idle one (with its data
    already loaded) or a new one."""
    with _lock:
        if _free.get(kind):
            return _free[kind].pop()
    return Engine(kind)


def give_back(engine: Engine) -> None:
    with _lock:
        if len(_free[engine.kind]) < KEEP_FREE:
            _free[engine.kind].append(engine)


def message(error: Exception) -> str:
    """The first line of a JavaScript error's message, without the engine's stack."""
    text = str(error).strip().splitlines()
    found = next((line for line in text if "Error" in line), text[0] if text else type(error).__name__)
    return found.split("Error:", 1)[-1].strip()


@atexit.register
def _close_all() -> None:
    for context in _open:
        context.close()
