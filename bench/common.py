"""Helpers the benchmark parts share: timing, peak memory, machine description and the results file.

``docs/results.json`` is one JSON object of sections (their layout: :mod:`bench.schema`); each part merges
its own entries into its section under a file lock, so parts running side by side (or a long run writing
after every arm) never lose each other's numbers.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from filelock import FileLock

from stsdemo.atomic import write_json_atomic

from .schema import SECTIONS

REPO = Path(__file__).resolve().parent.parent
RESULTS_JSON = REPO / "docs" / "results.json"
OUT_DIR = REPO / "bench" / "out"  # logs and checkpoints (git-ignored)
ASSETS = REPO / "assets"


def results_path() -> Path:
    """Where results go: ``$BENCH_RESULTS`` if set (the smoke test points it at a temp file)."""
    return Path(os.environ.get("BENCH_RESULTS", RESULTS_JSON)).expanduser().resolve()


def out_dir() -> Path:
    path = Path(os.environ.get("BENCH_OUT", OUT_DIR)).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_lock(path: Path) -> FileLock:
    """The lock of the file ``path`` (a results file or its claims); it lives in the (git-ignored) output
    folder, not beside the published results."""
    return FileLock(out_dir() / f"{path.name}.lock")


def load_results(path: Path | None = None) -> dict:
    path = path or results_path()
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return {}


def update_results(section: str, entries: dict, path: Path | None = None) -> dict:
    """Merge ``entries`` into ``section`` (one level deep: a key's dict value replaces the old one)."""
    if section not in SECTIONS:
        raise ValueError(f"unknown results section {section!r}; sections: {', '.join(SECTIONS)}")
    path = path or results_path()
    with results_lock(path):
        data = load_results(path)
        data.setdefault(section, {}).update(portable(entries))
        data.setdefault("machine", machine())
        write_json_atomic(path, data)
    return data


def add_run(section: str, key: str, record: dict, path: Path | None = None) -> None:
    """Add one run record to ``section["runs"]`` under the lock: read, add and write in one step, so jobs that
    work through one plan side by side never drop each other's runs."""
    _add_entry(section, "runs", key, record, path)


def add_failure(section: str, key: str, line: str, path: Path | None = None) -> None:
    """Record that the run ``key`` failed, ``line`` its one-line error, in ``section["failed"]`` (as
    :func:`add_run`, under the lock)."""
    _add_entry(section, "failed", key, line, path)


def _add_entry(section: str, part: str, key: str, value, path: Path | None) -> None:
    path = path or results_path()
    with results_lock(path):
        data = load_results(path)
        data.setdefault(section, {}).setdefault(part, {})[key] = portable(value)
        data.setdefault("machine", machine())
        write_json_atomic(path, data)


def portable(record):
    """``record`` as JSON values, every absolute path inside the repository written relative to it (POSIX), so a
    record never carries the folders of the machine that wrote it."""

    def relative(value):
        if isinstance(value, dict):
            return {key: relative(item) for key, item in value.items()}
        if isinstance(value, list):
            return [relative(item) for item in value]
        if isinstance(value, str) and value.startswith("/") and Path(value).is_relative_to(REPO):
            return Path(value).relative_to(REPO).as_posix()
        return value

    return relative(json.loads(json.dumps(record, default=_jsonable)))


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    return str(value)


def machine() -> dict:
    import torch

    info = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "platform": platform.platform(),
        "cuda": torch.cuda.is_available(),
    }
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    try:
        import psutil

        info["ram_gib"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    return info


def device_name() -> str:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else f"CPU ({os.cpu_count()} cores)"


def machine_load(before: dict | None = None) -> dict:
    """How busy the machine is now: the 1-minute load average beside the CPU count and, on a GPU, the other
    processes on it (``nvidia-smi``'s compute processes but this one; None where it cannot tell) and its memory in
    use. With ``before`` (an earlier reading): ``{"load": {"before", "after"}, "gpu_shared"}``, ``gpu_shared`` true when
    another process was on the GPU at either reading (None on a CPU), for a record to say what its figures ran
    beside."""
    import subprocess

    import torch

    now = {"load_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    if torch.cuda.is_available():
        free, total = torch.cuda.mem_get_info()
        now["gpu_memory_used_mib"] = round((total - free) / 2**20)
        try:
            listed = subprocess.run(
                ["nvidia-smi", "--query-compute-apps=pid", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
                check=True,
            ).stdout.split()
            now["gpu_other_processes"] = len([pid for pid in listed if pid.strip() != str(os.getpid())])
        except (OSError, subprocess.SubprocessError):
            now["gpu_other_processes"] = None
    if before is None:
        return now
    others = [reading.get("gpu_other_processes") for reading in (before, now)]
    shared = None if "gpu_memory_used_mib" not in now or None in others else any(others)
    return {"load": {"before": before, "after": now}, "gpu_shared": shared}


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def st_module(name: str):
    """A sentence-transformers submodule (``evaluation``, ``losses``) by its 6.x path, falling back to the 5.x one."""
    import importlib

    try:
        return importlib.import_module(f"sentence_transformers.sentence_transformer.{name}")
    except ImportError:
        return importlib.import_module(f"sentence_transformers.{name}")


# ---- timing -----------------------------------------------------------------------------------------


class Timer:
    """``with Timer() as t: ...; t.seconds``"""

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._start
        return False


def median(values) -> float:
    values = [float(v) for v in values]
    return statistics.median(values) if values else float("nan")


def percentile(values, q: float) -> float:
    """The ``q``-th percentile of ``values``, ``q`` in 0..100, as :func:`numpy.percentile` takes it (linear
    between the two nearest ranks); NaN for no values. Every bench figure's p50/p95 is this one."""
    values = [float(v) for v in values]
    return float(np.percentile(values, q)) if values else float("nan")


def mean_sd(values) -> tuple[float, float]:
    values = [float(v) for v in values]
    if not values:
        return float("nan"), float("nan")
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


# ---- memory -----------------------------------------------------------------------------------------


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports ru_maxrss in KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 2**10)


def current_rss_mib() -> float:
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except ImportError:  # pragma: no cover
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def cuda_peak_mib() -> float | None:
    import torch

    if not torch.cuda.is_available():
        return None
    return torch.cuda.max_memory_allocated() / 2**20


# ---- shared set-up ----------------------------------------------------------------------------------


def setup_environment(threads: int | None = None) -> None:
    """Offline, quiet, and a fixed thread count so arms compare on equal terms."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("WANDB_DISABLED", "true")
    data = REPO.parent / "shared" / "data" / "senteval"
    if "STSDEMO_DATA_DIR" not in os.environ and data.is_dir():
        os.environ["STSDEMO_DATA_DIR"] = str(data)
    import torch

    if threads:
        torch.set_num_threads(threads)
    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # loading and saving bars would fill the logs of long plans


def log(*parts) -> None:
    print(time.strftime("[%H:%M:%S]"), *parts, flush=True)
