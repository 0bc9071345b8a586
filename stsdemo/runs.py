"""The app's state and long jobs as plain Python (no gradio here): sessions, runs, models, evaluation.

* Each visitor (a Gradio session hash) owns ``<STSDEMO_OUTPUT_DIR>/sessions/<session>/``; a run lives in
  ``<session>/<run id>/`` with ``checkpoint/`` (the best model, written by :func:`stsdemo.train.train`),
  ``history.json`` (settings, every event, final results) and, on request, a zip for download. A session
  can list, load, zip and delete only runs inside its own folder.
* :func:`stream_training` turns ``train(config, stop)`` into a stream of :class:`TrainView` updates (curves
  of this run beside the session's earlier runs, progress with an ETA, the final 7-task table), so the
  UI only forwards them. Stopping: :func:`request_stop` sets the run's stop signal (a ``threading.Event``
  that also watches a flag file, so it reaches a ZeroGPU worker process too); the run ends after the
  current step and still reports its final event. Closing the stream (tab closed) ends the run as well.
* Files handed to a visitor (a run's zip, a scored CSV) are staged in ``<system temp>/stsdemo-downloads/
  <session>/``, from where Gradio copies them into its cache. The output folder itself is never served:
  putting it in ``allowed_paths`` would let anyone fetch any session's files by URL.
* Fine-tunes go through one :class:`stsdemo.slots.JobLine` (``STSDEMO_MAX_TRAINING`` at once,
  ``STSDEMO_MAX_WAITING`` waiting, more refused with a message); a waiting run shows its place in line.
* 7-task results are cached per encoder on disk (``<output>/cache/senteval/``), so a base model is
  evaluated once.
* The GPU-heavy generators carry ``@spaces.GPU``: on a ZeroGPU Space they run in a GPU worker, elsewhere
  the decorator returns the function unchanged.
"""

from __future__ import annotations

import spaces  # noqa: I001  (before torch, so ZeroGPU can patch CUDA initialisation)

import hashlib
import json
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd
import torch

from . import plots, settings
from .data import load_csv, senteval_test_sets
from .errors import InputError, check_range
from .evaluate import evaluate_senteval
from .labels import LabelScheme, get_scheme
from .losses import LOSSES
from .model import CONFIG_NAME, SiameseRegressor, default_device, resolve_model
from .reference import REFERENCE_ROWS
from .scoring import PairScore, score_csv, score_pair
from .slots import JobLine
from .train import PRESETS, DoneEvent, TrainConfig, train, write_json_atomic

DEFAULT_HEAD_DIR = settings.REPO_ROOT / "assets" / "default-head"
DEFAULT_CHOICE = "default"
RUN_PREFIX = "run:"
HISTORY_NAME = "history.json"
MAX_SCORED_ROWS = 5_000           # rows a visitor may score in one uploaded file
SESSION_MAX_AGE_S = 24 * 3600     # session folders older than this are removed when a new run starts
CURVE_RUNS = 5                    # runs of a session drawn together on the charts
SESSION_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
RUN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")
ON_GPU = torch.cuda.is_available() or bool(os.environ.get("SPACES_ZERO_GPU"))
SKIP = object()                   # in a streamed update: leave this output as it is (the UI sends gr.skip())

TRAINING_DATA_CHOICES = {
    "STS-B train": "stsb",
    "SICK-R train": "sick",
    "STS-B + SICK-R (filtered)": "stsb+sick",
    "NLI (SNLI)": "nli",
    "Upload CSV / TSV": "upload",
}
LOSS_CHOICES = {f"{label} [{name}]": name for name, label in LOSSES.items()}
SELECT_BY = {"head Spearman (what Score a pair uses)": "head",
             "cosine Spearman (what the 7-task benchmark scores)": "cosine"}
PRESET_LABELS = {
    "paper-bert-sk2": "Paper · BERT · Smooth K2 (k=2, x0=0.25, NLI)",
    "paper-bert-trelu": "Paper · BERT · Translated ReLU (k=2.5, x0=0.25, NLI)",
    "paper-roberta-sk2": "Paper · RoBERTa · Smooth K2 (k=3, x0=0.25, NLI)",
    "paper-roberta-trelu": "Paper · RoBERTa · Translated ReLU (k=1, x0=0.25, NLI)",
    "tune-sk2": "Paper · tune a contrastive encoder · Smooth K2 (two-stage, STS-B+SICK-R)",
    "tune-trelu": "Paper · tune a contrastive encoder · Translated ReLU (two-stage, STS-B+SICK-R)",
}


# ---- sessions and run folders ---------------------------------------------------------------------


def session_key(session_hash: str | None) -> str:
    """The folder name of a session; a request without one (plain REST) gets a fresh private id."""
    if not session_hash:
        return "api-" + uuid.uuid4().hex[:16]
    if not SESSION_RE.match(session_hash):
        raise InputError("bad session id")
    return session_hash


def sessions_root() -> Path:
    return settings.output_dir() / "sessions"


def session_dir(session: str) -> Path:
    if not SESSION_RE.match(str(session or "")):
        raise InputError("bad session id")
    return sessions_root() / session


def downloads_root() -> Path:
    return Path(tempfile.gettempdir()) / "stsdemo-downloads"


def downloads_dir(session: str) -> Path:
    """Where files handed to this session are staged (Gradio may return files from the temp dir)."""
    session_dir(session)  # validates the id
    folder = downloads_root() / session
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_dir(session: str, run_id: str) -> Path:
    if not RUN_RE.match(str(run_id or "")):
        raise InputError(f"unknown run {run_id!r}")
    return session_dir(session) / run_id


@dataclass
class RunInfo:
    """What the app knows of one run; saved as ``history.json`` beside the checkpoint."""

    run_id: str
    label: str
    status: str = "running"          # running, finished, stopped, cancelled, failed
    message: str = ""
    created: float = field(default_factory=time.time)
    config: dict = field(default_factory=dict)
    final_eval: bool = False
    events: list = field(default_factory=list)
    results: dict | None = None      # 7-task results of the best checkpoint
    base_results: dict | None = None
    base_name: str = ""
    best: float | None = None
    best_step: str = ""

    @property
    def checkpoint(self) -> Path:
        return Path(self.config.get("output_dir") or "")

    def has_checkpoint(self) -> bool:
        return bool(self.config.get("output_dir")) and (self.checkpoint / CONFIG_NAME).is_file()

    def title(self) -> str:
        best = f", dev {self.best:.2f}" if self.best is not None and math.isfinite(self.best) else ""
        return f"{self.label} ({self.status}{best})"


def save_run(session: str, info: RunInfo) -> None:
    write_json_atomic(run_dir(session, info.run_id) / HISTORY_NAME, asdict(info))


def load_run(session: str, run_id: str) -> RunInfo:
    """A run of this session; another session's run id is simply not found."""
    path = run_dir(session, run_id) / HISTORY_NAME
    if not path.is_file():
        raise InputError(f"no run {run_id!r} in this session")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return RunInfo(**{k: v for k, v in data.items() if k in RunInfo.__dataclass_fields__})
    except (OSError, ValueError, TypeError) as error:
        raise InputError(f"run {run_id!r} has an unreadable history: {error}") from None


def list_runs(session: str) -> list[RunInfo]:
    """This session's runs, oldest first ([] for no session)."""
    if not SESSION_RE.match(str(session or "")):
        return []
    folder = session_dir(session)
    if not folder.is_dir():
        return []
    runs = []
    for path in folder.glob(f"*/{HISTORY_NAME}"):
        try:
            runs.append(load_run(session, path.parent.name))
        except InputError:
            continue
    return sorted(runs, key=lambda r: r.created)


def run_choices(session: str, finished_only: bool = True) -> list[tuple[str, str]]:
    """(label, value) pairs of this session's runs that have a checkpoint, newest first."""
    return [(r.title(), RUN_PREFIX + r.run_id) for r in reversed(list_runs(session))
            if r.has_checkpoint() and (r.status != "running" or not finished_only)]


def delete_run(session: str, run_id: str) -> str:
    info = load_run(session, run_id)
    if _active_run(session) == run_id:
        raise InputError(f"run {info.label!r} is still training; stop it first")
    shutil.rmtree(run_dir(session, run_id), ignore_errors=True)
    (downloads_root() / session / f"stsdemo-{run_id}.zip").unlink(missing_ok=True)
    _forget_model(str(info.checkpoint))
    return f"Deleted {info.label}."


def prune_sessions(max_age_s: float = SESSION_MAX_AGE_S) -> int:
    """Remove session folders (and staged downloads) untouched for ``max_age_s`` seconds, except those
    of sessions with a run in progress."""
    removed = 0
    now = time.time()
    with _ACTIVE_LOCK:
        busy = set(_ACTIVE)
    for root in (sessions_root(), downloads_root()):
        if not root.is_dir():
            continue
        for folder in root.iterdir():
            try:
                if folder.is_dir() and folder.name not in busy and now - folder.stat().st_mtime > max_age_s:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed += 1
            except OSError:
                continue
    return removed


def zip_run(session: str, run_id: str) -> Path:
    """A zip of the run's best checkpoint whose unzipped folder loads with
    ``sentence_transformers.SentenceTransformer(folder)`` (and with ``SiameseRegressor.load``)."""
    info = load_run(session, run_id)
    if _active_run(session) == run_id:
        raise InputError("this run is still training; wait for it to end (or stop it) before downloading")
    if not info.has_checkpoint():
        raise InputError(f"run {info.label!r} has no checkpoint yet")
    folder = run_dir(session, run_id)
    target = downloads_dir(session) / f"stsdemo-{run_id}.zip"
    stamp = max(p.stat().st_mtime for p in info.checkpoint.rglob("*") if p.is_file())
    if target.is_file() and target.stat().st_mtime >= stamp:
        return target
    source = info.checkpoint
    staging_dir = None
    config = json.loads((source / CONFIG_NAME).read_text(encoding="utf-8"))
    if config.get("head_only"):
        # A head-only checkpoint holds no encoder; export the full model so the zip stands alone.
        staging_dir = Path(tempfile.mkdtemp(prefix=".export-", dir=folder))
        source = SiameseRegressor.load(str(info.checkpoint)).save(staging_dir / "model", head_only=False)
    partial = target.with_name(f".{target.name}.tmp")
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as archive:
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(source).as_posix())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
        if staging_dir is not None:
            shutil.rmtree(staging_dir, ignore_errors=True)
    return target


# ---- models for scoring and evaluation ------------------------------------------------------------

_MODELS: OrderedDict[tuple, SiameseRegressor] = OrderedDict()
_MODELS_LOCK = threading.Lock()
MODEL_CACHE_SIZE = 3


def default_head_available() -> bool:
    return (DEFAULT_HEAD_DIR / CONFIG_NAME).is_file()


def default_model_source() -> str:
    """The shipped head when present, else "" (the embedded all-MiniLM-L6-v2 with an untrained head)."""
    return str(DEFAULT_HEAD_DIR) if default_head_available() else ""


def model_choices(session: str) -> list[tuple[str, str]]:
    """Choices for a model dropdown: the default, then this session's finished runs."""
    label = ("all-MiniLM-L6-v2 + shipped STS head (default)" if default_head_available()
             else "all-MiniLM-L6-v2 + untrained head (no default head shipped yet)")
    return [(label, DEFAULT_CHOICE), *run_choices(session)]


def bench_choices(session: str) -> list[tuple[str, str]]:
    """Choices for the benchmark: only the encoder counts there, so the default needs no head."""
    return [("all-MiniLM-L6-v2 (embedded)", DEFAULT_CHOICE), *run_choices(session)]


def base_model_choices(session: str) -> list[tuple[str, str]]:
    """Choices for the base model of a run: the embedded encoder, then this session's runs."""
    return [("all-MiniLM-L6-v2 (embedded, fresh head)", DEFAULT_CHOICE), *run_choices(session)]


def resolve_choice(session: str, choice: str | None, for_training: bool = False) -> str:
    """A dropdown value -> a name ``SiameseRegressor.load`` understands.

    ``default`` is the shipped head (scoring) or the embedded encoder (training); ``run:<id>`` is a run of
    *this* session; anything else is a hub id or a local path, checked by the core's
    :func:`~stsdemo.model.resolve_model` and refused when it points into another session's folder.
    """
    text = str(choice or "").strip()
    if text in ("", DEFAULT_CHOICE):
        return "" if for_training else default_model_source()
    if text.startswith(RUN_PREFIX):
        info = load_run(session, text[len(RUN_PREFIX):])
        if not info.has_checkpoint():
            raise InputError(f"run {info.label!r} has no checkpoint yet")
        return str(info.checkpoint)
    source, _ = resolve_model(text)
    path = Path(source)
    if path.is_absolute():
        root = sessions_root().resolve()
        own = session_dir(session).resolve()
        if (root == path or root in path.parents) and not (own == path or own in path.parents):
            raise InputError("that folder belongs to another session")
    return text


def _stamp(source: str) -> float:
    path = Path(source)
    if not path.is_dir():
        return 0.0
    files = [path / CONFIG_NAME, path / "head.safetensors", path / "model.safetensors"]
    return max((f.stat().st_mtime for f in files if f.is_file()), default=0.0)


def get_model(name: str) -> SiameseRegressor:
    """A loaded model (kept in a small LRU cache; reloaded when its files change)."""
    source, _ = resolve_model(name)
    key = (source, _stamp(source))
    with _MODELS_LOCK:
        if key in _MODELS:
            _MODELS.move_to_end(key)
            return _MODELS[key]
        model = SiameseRegressor.load(name or None)
        if torch.cuda.is_available() and not os.environ.get("SPACES_ZERO_GPU"):
            model.to(default_device())
        model.eval()
        _MODELS[key] = model
        while len(_MODELS) > MODEL_CACHE_SIZE:
            _MODELS.popitem(last=False)
        return model


def _forget_model(source: str) -> None:
    with _MODELS_LOCK:
        for key in [k for k in _MODELS if k[0] == source]:
            del _MODELS[key]


def warm_up() -> None:
    """Load the default scoring model ahead of the first visitor (errors are left to the first call)."""
    try:
        get_model(default_model_source())
    except Exception:  # noqa: BLE001 - a warm-up must never take the app down
        pass


def training_x0(source: str) -> float:
    """The buffer x0 a checkpoint was trained with (its run.json), else the paper's 0.25."""
    path = Path(source) / "run.json" if source else None
    try:
        if path and path.is_file():
            return float(json.loads(path.read_text(encoding="utf-8"))["config"]["x0"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return 0.25


# ---- tab 1: scoring -------------------------------------------------------------------------------

SCHEME_CHOICES = ("The model's own", "STS 0–5", "NLI (contradiction · neutral · entailment)", "Custom ordered list")


def parse_scheme(choice: str, custom: str = "", gap: float = 1.0) -> LabelScheme | None:
    """None = the model's own scheme; else STS, NLI or the user's ``"a, b, c"`` with gap ``d``."""
    if choice in (None, "", SCHEME_CHOICES[0]):
        return None
    if choice == SCHEME_CHOICES[1]:
        return get_scheme("sts")
    if choice == SCHEME_CHOICES[2]:
        return get_scheme("nli")
    if choice == SCHEME_CHOICES[3]:
        text = str(custom or "").strip()
        if "," not in text:
            raise InputError("type at least two ordered categories separated by commas, e.g. 'bad, fair, good'")
        gap = check_range("gap d", gap, 0, 100, low_open=True)
        return get_scheme(text, gap)
    raise InputError(f"unknown label scheme choice {choice!r}; choose one of: {', '.join(SCHEME_CHOICES)}")


@dataclass
class ScoreView:
    score: PairScore
    scheme: LabelScheme
    figure: object
    notice: str


def score_view(session: str, choice: str, sentence1: str, sentence2: str, scheme_choice: str,
               custom: str = "", gap: float = 1.0, gold: float | None = None) -> ScoreView:
    """Score one pair and draw where its prediction falls on the chosen scheme's line."""
    scheme = parse_scheme(scheme_choice, custom, gap)
    source = resolve_choice(session, choice)
    model = get_model(source)
    scheme = scheme or model.scheme
    result = score_pair(model, sentence1, sentence2, scheme)
    gold = None if gold in (None, "") else check_range("gold label", gold)
    title = f"Prediction {result.prediction:.3f} → “{result.category}” (node {result.node:g})"
    figure = plots.number_line(scheme, result.prediction, training_x0(source), gold, title=title)
    notes = []
    if source == "" and not default_head_available():
        notes.append("⚠ No trained default head is shipped yet: this head is **untrained** (random), so its "
                     "prediction is meaningless — the cosine similarity is still the encoder's. Fine-tune a run "
                     "in the *Fine-tune* tab and pick it above.")
    if result.notice:
        notes.append(f"✂ Input shortened: {result.notice}.")
    if scheme is not model.scheme and scheme.categories != model.scheme.categories:
        notes.append(f"Note: the head predicts on the line it was trained on ({', '.join(model.scheme.categories)}); "
                     "the chosen scheme only reads that number against other nodes.")
    return ScoreView(result, scheme, figure, "\n\n".join(notes))


def score_file_view(session: str, choice: str, path: str | None, scheme_choice: str, custom: str = "",
                    gap: float = 1.0) -> tuple[Path, pd.DataFrame]:
    """Score an uploaded CSV/TSV; returns the scored CSV (in this session's folder) and its first rows."""
    if not path:
        raise InputError("upload a CSV or TSV file with two sentence columns (e.g. sentence1, sentence2)")
    scheme = parse_scheme(scheme_choice, custom, gap)
    model = get_model(resolve_choice(session, choice))
    folder = downloads_dir(session)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(path).stem)[:60] or "pairs"
    out = folder / f"{stem}-scored-{time.strftime('%H%M%S')}.csv"
    score_csv(model, path, out, scheme or model.scheme, max_rows=MAX_SCORED_ROWS)
    return out, pd.read_csv(out, nrows=20)


# ---- 7-task evaluation, with progress and a cache ---------------------------------------------------

_TEST_SETS = None
_TEST_SETS_LOCK = threading.Lock()
_SESSION_ROWS: OrderedDict[str, dict] = OrderedDict()   # benchmark rows each session has computed


def test_sets():
    global _TEST_SETS
    with _TEST_SETS_LOCK:
        if _TEST_SETS is None:
            _TEST_SETS = senteval_test_sets()
        return _TEST_SETS


def encoder_key(name: str) -> str:
    """Identity of the encoder behind ``name``: 7-task scores (cosine only) depend on nothing else, so a
    head-only folder shares its base encoder's cache entry."""
    source, _ = resolve_model(name)
    config_file = Path(source) / CONFIG_NAME
    if config_file.is_file():
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
            if config.get("head_only"):
                source, _ = resolve_model(config.get("base_model", ""))
        except (OSError, ValueError):
            pass
    return f"{source}@{_stamp(source):.0f}"


def _cache_file(key: str) -> Path:
    return settings.output_dir() / "cache" / "senteval" / (hashlib.sha1(key.encode()).hexdigest()[:20] + ".json")


def cached_results(name: str) -> dict | None:
    path = _cache_file(encoder_key(name))
    try:
        return json.loads(path.read_text(encoding="utf-8"))["results"] if path.is_file() else None
    except (OSError, ValueError, KeyError):
        return None


def store_results(name: str, results: dict) -> None:
    key = encoder_key(name)
    write_json_atomic(_cache_file(key), {"key": key, "results": results})


def evaluate_steps(model: SiameseRegressor, stop: threading.Event | None = None,
                   chunk: int = 1024) -> Iterator[tuple[float, dict | None]]:
    """Yield ``(fraction done, None)`` while encoding the seven test sets, then ``(1.0, results)``.

    Each distinct sentence is encoded once, in chunks, so a caller can show progress; the scores then come
    from :func:`stsdemo.evaluate.evaluate_senteval` reading those embeddings.
    """
    sets = test_sets()
    unique = list(dict.fromkeys(s for pairs in sets.values() for s in pairs.sentences1 + pairs.sentences2))
    embeddings = {}
    for start in range(0, len(unique), chunk):
        if stop is not None and stop.is_set():
            return
        part = unique[start:start + chunk]
        embeddings.update(zip(part, model.encode(part)))
        yield min(start + chunk, len(unique)) / len(unique), None
    results = evaluate_senteval(lambda sentences: np.stack([embeddings[s] for s in sentences]), test_sets=sets)
    yield 1.0, results


def display_name(session: str, choice: str) -> str:
    text = str(choice or "").strip()
    if text in ("", DEFAULT_CHOICE):
        return "all-MiniLM-L6-v2"
    if text.startswith(RUN_PREFIX):
        return load_run(session, text[len(RUN_PREFIX):]).label
    return text


@spaces.GPU(duration=240)
def _benchmark_gpu(source: str) -> Iterator[tuple[float, dict | None]]:
    model = SiameseRegressor.load(source or None).to(default_device())
    yield from evaluate_steps(model)


def benchmark_stream(session: str, choice: str) -> Iterator[tuple[str, pd.DataFrame, object]]:
    """Evaluate a model on the 7 tasks: yields (progress HTML, table, bar chart) as it goes."""
    name = display_name(session, choice)
    source = resolve_choice(session, choice)
    rows = _SESSION_ROWS.setdefault(session, {})
    _SESSION_ROWS.move_to_end(session)
    while len(_SESSION_ROWS) > 500:
        _SESSION_ROWS.popitem(last=False)
    results = cached_results(source)
    if results is None:
        started = time.perf_counter()
        yield (plots.progress_html(0.0, f"Loading {name} and the seven test sets…"), benchmark_table(rows),
               benchmark_chart(rows))
        for fraction, found in _benchmark_gpu(source):
            if found is not None:
                results = found
                break
            elapsed = time.perf_counter() - started
            eta = elapsed / fraction * (1 - fraction) if fraction > 0 else 0
            yield (plots.progress_html(fraction, f"Encoding the test sentences with {name}: {fraction:.0%} · "
                                                 f"about {_duration(eta)} left"), SKIP, SKIP)
        if results is None:
            raise InputError("the evaluation ended without results")
        store_results(source, results)
        note = f"Evaluated {name} in {_duration(time.perf_counter() - started)}."
    else:
        note = f"{name}: cached results (this encoder was evaluated before)."
    rows[name] = results
    yield plots.progress_html(1.0, note, "done"), benchmark_table(rows), benchmark_chart(rows)


def benchmark_rows(session: str) -> dict:
    return dict(_SESSION_ROWS.get(session, {}))


def benchmark_table(rows: dict) -> pd.DataFrame:
    return plots.results_frame({**rows, **REFERENCE_ROWS})


def benchmark_chart(rows: dict):
    return plots.benchmark_figure(rows, REFERENCE_ROWS)


# ---- tab 3: training ------------------------------------------------------------------------------


class StopSignal(threading.Event):
    """The stop event handed to :func:`stsdemo.train.train`: set in this process, or by a flag file
    (which a ZeroGPU worker process, holding only a copy of this object, can still see)."""

    def __init__(self, flag: Path):
        super().__init__()
        self.flag = flag

    def is_set(self) -> bool:
        return super().is_set() or self.flag.exists()


_ACTIVE: dict[str, tuple[str, StopSignal]] = {}   # session -> (run id, stop signal)
_ACTIVE_LOCK = threading.Lock()


def _active_run(session: str) -> str | None:
    with _ACTIVE_LOCK:
        entry = _ACTIVE.get(session)
    return entry[0] if entry else None


def training_in_progress() -> bool:
    """Whether any thread of this process is executing the training loop (stsdemo/train.py).

    The honest check that a stopped or cancelled run really ended, for tests and health checks.
    """
    train_file = str(Path(__file__).with_name("train.py"))
    for frame in sys._current_frames().values():
        while frame is not None:
            if frame.f_code.co_filename == train_file:
                return True
            frame = frame.f_back
    return False


def active_runs() -> dict[str, str]:
    with _ACTIVE_LOCK:
        return {session: run for session, (run, _) in _ACTIVE.items()}


def request_stop(session: str) -> str:
    """Ask this session's run to stop after its current step (its best checkpoint is kept); a run still
    waiting in line leaves the line."""
    with _ACTIVE_LOCK:
        entry = _ACTIVE.get(session)
    if entry is None:
        return "No run of this session is training."
    run_id, signal = entry
    signal.set()
    if signal.flag.parent.is_dir():  # the flag reaches a ZeroGPU worker; a waiting run has no folder yet
        signal.flag.touch()
    return f"Stopping {run_id} after the current step…"


def default_form() -> dict:
    """Form defaults: short on CPU (a run of a couple of minutes), the paper's one epoch on a GPU."""
    if ON_GPU:
        return dict(max_steps=0, eval_every=250, log_every=10, max_length=256, max_pairs=0, max_dev_pairs=0,
                    final_eval=True)
    return dict(max_steps=60, eval_every=20, log_every=5, max_length=128, max_pairs=0, max_dev_pairs=500,
                final_eval=False)


def preset_values(preset: str) -> dict:
    """The form fields a paper preset fills in."""
    if preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
    values = PRESETS[preset]
    data_label = next(label for label, key in TRAINING_DATA_CHOICES.items() if key == values.get("data", "stsb+sick"))
    loss_label = next(label for label, key in LOSS_CHOICES.items() if key == values["loss"])
    return dict(loss=loss_label, k=values.get("k"), x0=values.get("x0", 0.25), data=data_label,
                two_stage=bool(values.get("two_stage", False)))


def _optional_int(name: str, value) -> int | None:
    if value in (None, "", 0, 0.0):
        return None
    return int(check_range(name, value, 1, 10_000_000, integer=True))


def build_config(session: str, run_id: str, *, model: str, data: str, upload: str | None, scheme: str,
                 loss: str, k, x0, lr, batch_size, epochs, max_steps, max_length, eval_every, log_every,
                 max_pairs, two_stage: bool, seed=42, max_dev_pairs=None, head_lr=1e-3,
                 select_by: str = "head") -> TrainConfig:
    """A validated TrainConfig from the form's values; the run's best checkpoint goes to its folder."""
    data_key = TRAINING_DATA_CHOICES.get(data, data)
    if data_key == "upload":
        if not upload:
            raise InputError("choose a CSV/TSV file to train on (columns sentence1, sentence2, label)")
        suffix = Path(upload).suffix.lower()
        if suffix not in (".csv", ".tsv", ".tab", ".txt"):
            raise InputError(f"training file must be .csv or .tsv, got {suffix or 'no extension'}")
        load_csv(upload, get_scheme(str(scheme or "sts").strip() or "sts"))  # bad files fail here, before a run starts
        data_key = str(run_dir(session, run_id) / f"train-data{suffix}")
    loss_key = LOSS_CHOICES.get(loss, loss)
    if loss_key not in LOSSES:
        raise InputError(f"unknown loss {loss!r}; choose one of: {', '.join(LOSSES)}")
    steps = _optional_int("max steps", max_steps)
    config = TrainConfig(
        model=resolve_choice(session, model, for_training=True), data=data_key,
        scheme=str(scheme or "sts").strip() or "sts", loss=loss_key,
        k=None if k in (None, "") else check_range("slope k", k, 0, 1000, low_open=True),
        x0=check_range("buffer x0", 0.25 if x0 in (None, "") else x0, 0),
        lr=check_range("learning rate", lr, 0, 1.0, low_open=True),
        batch_size=int(check_range("batch size", batch_size, 1, 512, integer=True)),
        epochs=check_range("epochs", epochs, 0, 100, low_open=True), max_steps=steps,
        max_length=int(check_range("max length", max_length, 8, 8192, integer=True)),
        eval_every=int(check_range("eval every", eval_every, 1, 10_000_000, integer=True)),
        log_every=int(check_range("log every", log_every or 1, 1, 10_000_000, integer=True)),
        max_pairs=_optional_int("max pairs", max_pairs), two_stage=bool(two_stage), stage1_max_steps=steps,
        max_dev_pairs=_optional_int("dev pairs", max_dev_pairs), select_by=SELECT_BY.get(select_by, select_by),
        head_lr=check_range("head learning rate", 1e-3 if head_lr in (None, "") else head_lr, 0, 1.0, low_open=True),
        seed=int(check_range("seed", seed, 0, 2**31 - 1, integer=True)),
        output_dir=str(run_dir(session, run_id) / "checkpoint"), run_name=run_id,
    )
    if data_key in TRAINING_DATA_CHOICES.values():
        config.scheme = "sts"  # the built-in sets bring their own scheme (NLI's has the same gap)
    config.validate()
    return config


def _training_seconds(session: str, run_id: str, config: TrainConfig, final_eval: bool) -> int:
    """ZeroGPU time to ask for: a rough bound from the step count (a full epoch when unbounded)."""
    steps = config.max_steps or 400
    stages = 2 if config.two_stage else 1
    return int(min(1500, 60 + stages * steps * 0.25 + (150 if final_eval else 0)))


@spaces.GPU(duration=_training_seconds)
def training_events(session: str, run_id: str, config: TrainConfig, final_eval: bool) -> Iterator[dict]:
    """The GPU side of a run: ``train()``'s events as dicts, then (optionally) the 7-task evaluation of the
    best checkpoint and of the base model (unless cached). Every item is a plain dict, so it pickles.

    The stop signal is the one :func:`stream_training` registered (in a ZeroGPU worker: a copy of it,
    which still sees the flag file that :func:`request_stop` writes)."""
    with _ACTIVE_LOCK:
        entry = _ACTIVE.get(session)
    signal = entry[1] if entry and entry[0] == run_id else StopSignal(run_dir(session, run_id) / "STOP")
    events = train(config, signal)
    done = None
    try:
        for event in events:
            yield event.to_dict()
            if isinstance(event, DoneEvent):
                done = event
    finally:
        events.close()
    if not final_eval or done is None or signal.is_set() or not Path(done.checkpoint, CONFIG_NAME).is_file():
        return
    jobs = [("fine-tuned", done.checkpoint)]
    if cached_results(config.model) is None:
        jobs.append(("base", config.model))
    for index, (what, source) in enumerate(jobs):
        model = SiameseRegressor.load(source or None).to(default_device())
        for fraction, results in evaluate_steps(model, signal):
            yield {"event": "final_eval", "what": what, "index": index, "count": len(jobs), "fraction": fraction,
                   "results": results}
        del model
        if signal.is_set():
            return


@dataclass
class TrainView:
    """One UI update of a running training job."""

    progress: str                 # progress bar HTML (with ETA)
    status: str                   # Markdown: what is happening / how it ended
    curves: Curves                # STS-B dev Spearman (cosine/head), loss, buffer share; coloured by run
    table: pd.DataFrame | None    # 7-task results vs the base model (at the end)
    finished: bool
    run_id: str


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def _step_text(best_step: str, stages: int) -> str:
    """'1:40' (stage:step, as train() reports it) -> 'step 40', or 'stage 1, step 40' for two stages."""
    stage, _, step = str(best_step).partition(":")
    return f"stage {stage}, step {step}" if stages > 1 else f"step {step or stage}"


def _run_label(index: int, config: TrainConfig) -> str:
    """Short, for chart legends: '#2 sk2 k=2' (x0 only when not the paper's 0.25)."""
    k = config.k if config.k is not None else {"sk2": 2.0, "trelu": 2.5}.get(config.loss)
    detail = f" k={k:g}" if config.loss in ("sk2", "trelu") else ""
    if config.loss in ("sk2", "trelu") and config.x0 != 0.25:
        detail += f" x0={config.x0:g}"
    return f"#{index} {config.loss}{detail}"


@dataclass
class Curves:
    """The three training charts of a session (its last few runs, coloured by run)."""

    dev: pd.DataFrame
    loss: pd.DataFrame
    buffer: pd.DataFrame
    dev_colors: dict              # colour of each series present in ``dev`` (likewise below)
    loss_colors: dict
    buffer_colors: dict


def curves_for(session: str, current: RunInfo | None = None) -> Curves:
    runs = [r for r in list_runs(session) if current is None or r.run_id != current.run_id]
    runs = runs[-(CURVE_RUNS - (1 if current else 0)):] if CURVE_RUNS > 1 else []
    if current is not None:
        runs.append(current)
    dev, loss, buffer = plots.curve_frames([{"label": r.label, "events": r.events} for r in runs])
    dev_palette, run_palette = plots.curve_colors([r.label for r in runs])

    def present(frame, palette):
        names = set(frame["run"])
        return {name: color for name, color in palette.items() if name in names}

    return Curves(dev, loss, buffer, present(dev, dev_palette), present(loss, run_palette),
                  present(buffer, run_palette))


def result_table(info: RunInfo) -> pd.DataFrame | None:
    if not info.results:
        return None
    return plots.delta_frame(info.results, info.base_results, f"{info.label} (best checkpoint)",
                             f"{info.base_name} (base)")


def run_summary(info: RunInfo) -> str:
    """A short Markdown description of a run."""
    c = info.config
    data = c.get("data", "")
    data = Path(data).name if "/" in data else data
    stages = 2 if c.get("two_stage") else 1
    known = info.best is not None and math.isfinite(info.best)
    best = f"{info.best:.2f} at {_step_text(info.best_step, stages)}" if known else "–"
    lines = [f"**{info.label}**: {info.status}" + (f" ({info.message})" if info.message else ""),
             f"base `{c.get('model') or 'all-MiniLM-L6-v2'}` · data `{data}` · loss `{c.get('loss')}` "
             f"k={c.get('k')} x0={c.get('x0')} · lr {c.get('lr')} · batch {c.get('batch_size')} · "
             f"max steps {c.get('max_steps')} · two-stage {c.get('two_stage')}",
             f"best STS-B dev Spearman (cosine): {best}" + ("" if info.has_checkpoint() else " · no checkpoint")]
    if info.results:
        lines.append(f"7-task Avg.: {info.results.get('Avg.', float('nan')):.2f}")
    return "  \n".join(lines)


class _Progress:
    """Overall fraction and the time left of a run's current phase (training, then the 7-task evaluation)."""

    def __init__(self, stages: int, final_eval: bool):
        self.stages, self.final_eval = stages, final_eval
        self.started = time.perf_counter()
        self.eval_started: float | None = None
        self.train_fraction = 0.0
        self.eval_fraction = 0.0

    def fraction(self) -> float:
        if not self.final_eval:
            return self.train_fraction
        return 0.75 * self.train_fraction + 0.25 * self.eval_fraction

    def start_eval(self) -> None:
        if self.eval_started is None:
            self.eval_started = time.perf_counter()

    def eta(self) -> str:
        evaluating = self.eval_started is not None
        done = self.eval_fraction if evaluating else self.train_fraction
        since = self.eval_started if evaluating else self.started
        if done <= 0.02:
            return "estimating time left…"
        if done >= 0.995:
            return "finishing…"
        left = f"about {_duration((time.perf_counter() - since) / done * (1 - done))} left"
        return left + (" (then the 7-task evaluation)" if self.final_eval and not evaluating else "")


TRAINING_LINE = JobLine()


def stream_training(session: str, final_eval: bool, **form) -> Iterator[TrainView]:
    """Start a run from the form's values and stream UI updates until it ends.

    Raises InputError (before anything starts, leaving no record) for bad settings or a full line. A run
    waits in :data:`TRAINING_LINE` for a free slot, showing its place. Closing the stream ends the run
    after its current step; :func:`request_stop` does the same but lets the final update through.
    """
    if _active_run(session):
        raise InputError("a run of this session is already training or waiting; stop it or wait for it to end")
    prune_sessions()
    run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    config = build_config(session, run_id, **form)
    folder = run_dir(session, run_id)
    signal = StopSignal(folder / "STOP")
    ticket = TRAINING_LINE.join(run_id)
    with _ACTIVE_LOCK:
        _ACTIVE[session] = (run_id, signal)
    try:
        while not ticket.wait(1.0):
            if signal.is_set():
                text = "Stopped while waiting in line; nothing was trained."
                yield TrainView(plots.progress_html(0, text, "stopped"), text, curves_for(session), None, True,
                                run_id)
                return
            text = (f"Waiting for the trainer: position {ticket.position()} in line "
                    f"({TRAINING_LINE.ahead(ticket)}). It starts by itself; Stop leaves the line.")
            yield TrainView(plots.progress_html(0, text, "idle"), f"**Queued** — {text}", curves_for(session),
                            None, False, run_id)
        yield from _run(session, run_id, config, signal, folder, bool(final_eval), form)
    finally:
        ticket.leave()
        with _ACTIVE_LOCK:
            if _ACTIVE.get(session, ("",))[0] == run_id:
                del _ACTIVE[session]


def _run(session: str, run_id: str, config: TrainConfig, signal: StopSignal, folder: Path, final_eval: bool,
         form: dict) -> Iterator[TrainView]:
    """An admitted run: its record, the GPU-side events folded into UI updates, and how it ended."""
    folder.mkdir(parents=True, exist_ok=True)
    if form.get("upload") and TRAINING_DATA_CHOICES.get(form.get("data"), form.get("data")) == "upload":
        shutil.copyfile(form["upload"], config.data)
    base_name = display_name(session, form.get("model", "")) if config.model else "all-MiniLM-L6-v2"
    info = RunInfo(run_id, _run_label(len(list_runs(session)) + 1, config), config=asdict(config),
                   final_eval=final_eval, base_name=base_name)
    save_run(session, info)
    progress = _Progress(2 if config.two_stage else 1, final_eval)
    state = {"status": f"**{info.label}**: loading the model and the training data…", "text": "Starting…"}
    last_saved = 0.0

    def view(bar_state: str = "running", finished: bool = False) -> TrainView:
        fraction = 1.0 if bar_state == "done" else progress.fraction()
        return TrainView(plots.progress_html(fraction, state["text"], bar_state), state["status"],
                         curves_for(session, info), result_table(info), finished, run_id)

    events = None
    try:
        yield view()
        events = training_events(session, run_id, config, final_eval)
        for event in events:
            _apply_event(info, event, progress, state, config)
            now = time.perf_counter()
            if event.get("event") in ("start", "eval", "done") or event.get("results") or now - last_saved > 5:
                save_run(session, info)
                last_saved = now
            yield view()
        if info.status == "running":
            info.status, info.message = "failed", "the run ended without a final event"
    except InputError as error:
        info.status, info.message = "failed", str(error)
        raise
    except GeneratorExit:
        if info.status == "running":
            info.status, info.message = "cancelled", "the page was closed or the request cancelled"
        raise
    except Exception as error:  # noqa: BLE001 - recorded here, shown by the UI as an error
        info.status, info.message = "failed", f"{type(error).__name__}: {error}"
        raise
    finally:
        if events is not None:
            events.close()
        signal.flag.unlink(missing_ok=True)
        save_run(session, info)
    kept = "its best checkpoint is kept" if info.has_checkpoint() else "no checkpoint was written"
    why = f" ({info.message})" if info.message and info.message not in (info.status, "finished") else ""
    state["status"] = (f"**{info.label}** {info.status}{why}; {kept}."
                       + (" It is now in the model lists of *Score a pair* and *Benchmark*, and can be downloaded "
                          "below." if info.has_checkpoint() else ""))
    if info.results:
        base = info.base_results or {}
        change = f" ({info.results['Avg.'] - base['Avg.']:+.2f} vs. base)" if "Avg." in base else ""
        state["text"] = (f"Finished: best STS-B dev Spearman {info.best:.2f}; 7-task Avg. "
                         f"{info.results['Avg.']:.2f}{change}.")
    yield view("done" if info.status == "finished" else "stopped", finished=True)


def _apply_event(info: RunInfo, event: dict, progress: _Progress, state: dict, config: TrainConfig) -> None:
    """Fold one event from :func:`training_events` into the run record and the status texts."""
    kind = event.get("event")
    stages = progress.stages
    if kind == "final_eval":
        progress.start_eval()
        progress.eval_fraction = (event["index"] + event["fraction"]) / event["count"]
        if event.get("results") is not None:
            if event["what"] == "fine-tuned":
                info.results = event["results"]
                info.base_results = info.base_results or cached_results(config.model)
            else:
                info.base_results = event["results"]
                store_results(config.model, event["results"])
        state["status"] = f"**{info.label}**: training done; scoring the best checkpoint on the 7 STS test sets…"
        state["text"] = f"7-task evaluation of the {event['what']} model: {event['fraction']:.0%} · {progress.eta()}"
        return
    info.events.append(event)
    if kind == "start":
        state["status"] = f"**{info.label}**: training on {event['device']}."
        dev = event["config"].get("max_dev_pairs")
        first = (f" · scoring STS-B dev ({f'first {dev:,}' if dev else 'all 1,500'} pairs) before the first step…"
                 if event["stage"] == 1 else "")
        state["text"] = (f"Stage {event['stage']}/{stages} ({event['stage_name']}): {event['train_pairs']:,} "
                         f"training pairs, {event['total_steps']} steps on {event['device']}{first}")
    elif kind == "step":
        progress.train_fraction = ((event["stage"] - 1) + event["step"] / max(1, event["total_steps"])) / stages
        share = "" if event["buffer_share"] is None else f" · {event['buffer_share']:.0%} of pairs in the buffer"
        state["text"] = (f"Stage {event['stage']}/{stages} · step {event['step']}/{event['total_steps']} · "
                         f"loss {event['loss']:.4f}{share} · {event['pairs_per_s']:.0f} pairs/s · {progress.eta()}")
    elif kind == "eval":
        info.best, info.best_step = event["best"], event["best_step"]
        state["text"] = (f"Stage {event['stage']}/{stages} · step {event['step']}/{event['total_steps']} · STS-B dev "
                         f"Spearman: cosine {event['dev_cosine']:.2f}, head {event['dev_head']:.2f} (best "
                         f"{event['best']:.2f} at {_step_text(event['best_step'], stages)}) · {progress.eta()}")
    elif kind == "done":
        info.best, info.best_step = event["best"], event["best_step"]
        failed = event["stopped"] and event["reason"] != "stopped"  # ended on its own (out of memory)
        info.status = "failed" if failed else "stopped" if event["stopped"] else "finished"
        info.message = event["reason"]
        progress.train_fraction = 1.0
        how = "Ended early" if failed else "Stopped" if event["stopped"] else "Finished"
        state["text"] = (f"{how} after {event['steps']} steps in "
                         f"{_duration(event['elapsed'])}; best STS-B dev Spearman {event['best']:.2f} at "
                         f"{_step_text(event['best_step'], stages)}.")
        if info.final_eval and not event["stopped"]:
            state["text"] += " Now the 7-task evaluation…"
