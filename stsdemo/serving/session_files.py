"""Sessions and their runs on disk.

Each visitor (a Gradio session hash) owns ``<STSDEMO_OUTPUT_DIR>/sessions/<session>/``; a run lives in
``<session>/<run id>/`` with ``checkpoint/`` (the best model, written by :func:`stsdemo.train.train`),
``history.json`` (settings, every event, final results) and, on request, a zip for download. A session can
list, load, zip and delete only runs inside its own folder.

Files handed to a visitor (a run's zip, a scored CSV) are staged in ``<system temp>/stsdemo-downloads-<output
folder's hash>/<session>/``, from where Gradio copies them into its cache (whose copies the app has Gradio
delete on a schedule: :data:`GRADIO_CACHE_SCHEDULE`); a staged file is removed once handed over. The output
folder itself is never served: putting it in ``allowed_paths`` would let anyone fetch any session's files by URL.

Disk: a session's runs may take :func:`stsdemo.environment.session_disk_bytes`, and every session's together
:func:`stsdemo.environment.total_disk_bytes` (:func:`check_disk_budget`); :func:`sweep` removes sessions untouched
for :data:`SESSION_MAX_AGE_S` and handed-over downloads, and, while the total is over, the sessions idle longest
(:func:`make_room`), at start-up and then every :data:`SWEEP_EVERY_S` seconds (:func:`start_sweeper`); it also
holds the hub cache to its cap (:func:`trim_hub_cache`). Using a run touches its session (:func:`load_run`).

A run records the server process that trains it (``owner``). At start-up, :func:`recover_interrupted` marks a
run that another process left ``running`` (killed mid-run: nothing will ever finish it) as ``interrupted``: its
good checkpoint is listed again and the staging folders the kill left are removed, with every other orphan a
killed server leaves (export folders of a zip, partial zips, partial cache files; Gradio's cached copies of the
files it handed out: :func:`remove_cached_downloads`). One server uses an output
folder at a time, as the runs' ``owner`` assumes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import environment, save_format
from ..atomic import (
    atomic_write,
    remove_old_files,
    remove_partial_writes,
    remove_stale_staging,
    retired_path,
    write_json_atomic,
)
from ..errors import InputError
from ..events import Event, StageStep
from ..export import export_scorer
from . import caps

RUN_PREFIX = "run:"
HISTORY_NAME = "history.json"
# How long files stay, declared with the other caps (caps.py): the sweep's schedule and Gradio's delete_cache
SESSION_MAX_AGE_S = int(caps.value("session_keep_seconds"))
IDLE_EVICTION_S = int(caps.value("idle_eviction_seconds"))
SWEEP_EVERY_S = int(caps.value("sweep_every_seconds"))
HANDED_OVER_S = int(caps.value("handed_over_seconds"))
GRADIO_CACHE_SCHEDULE = (int(caps.value("gradio_sweep_seconds")), int(caps.value("gradio_keep_seconds")))
SESSION_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
RUN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")
PROCESS = uuid.uuid4().hex  # this server process, as the owner of the runs it trains
EXPORT_PREFIX = ".export-"  # where zip_run stages a merged model
STOP_FLAG = "STOP"  # in a run's folder: stop it (seen by a ZeroGPU worker too)


def session_key(session_hash: str | None) -> str:
    """The folder name of a session; a request without one (plain REST) gets a fresh private id."""
    if not session_hash:
        return "api-" + uuid.uuid4().hex[:16]
    if not SESSION_RE.match(session_hash):
        raise InputError("bad_session_id")
    return session_hash


def sessions_root() -> Path:
    return environment.output_dir() / "sessions"


def session_dir(session: str) -> Path:
    if not SESSION_RE.match(str(session or "")):
        raise InputError("bad_session_id")
    return sessions_root() / session


def server_key() -> str:
    """This server's name among the servers side by side (tests, benchmarks): its output folder's hash."""
    return hashlib.sha256(str(environment.output_dir()).encode()).hexdigest()[:12]


def downloads_root() -> Path:
    """Where this server stages downloads: one folder per output folder, so that servers side by side (tests,
    benchmarks) never sweep each other's files."""
    return Path(tempfile.gettempdir()) / f"stsdemo-downloads-{server_key()}"


def downloads_dir(session: str) -> Path:
    """Where files handed to this session are staged (Gradio may return files from the temp dir)."""
    session_dir(session)  # validates the id
    folder = downloads_root() / session
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def session_run_folder(session: str, run_id: str) -> Path:
    """The folder of run ``run_id`` of ``session`` (its ``history.json``, checkpoint and staging folders)."""
    if not RUN_RE.match(str(run_id or "")):
        raise InputError("unknown_run", run_id=repr(run_id))
    return session_dir(session) / run_id


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]


@dataclass
class RunInfo:
    """What the app knows of one run; saved as ``history.json`` beside the checkpoint."""

    run_id: str
    label: str
    status: str = "running"  # running, finished, stopped, failed, cancelled, interrupted
    message: str = ""
    owner: str = ""  # the server process that trains it (PROCESS)
    created: float = field(default_factory=time.time)
    config: dict = field(default_factory=dict)
    final_eval: bool = False
    events: list[Event] = field(default_factory=list)
    results: dict | None = None  # 7-task results of the best checkpoint
    base_results: dict | None = None
    base_name: str = ""
    best: float | None = None
    best_step: StageStep | None = None

    @property
    def checkpoint(self) -> Path:
        return Path(self.config.get("output_dir") or "")

    def has_checkpoint(self) -> bool:
        return bool(self.config.get("output_dir")) and save_format.is_scorer(self.checkpoint)

    def title(self) -> str:
        best = f", dev {self.best:.2f}" if self.best is not None and math.isfinite(self.best) else ""
        return f"{self.label} ({self.status}{best})"


def save_run(session: str, info: RunInfo) -> None:
    record = dict(asdict(info), events=[event.to_dict() for event in info.events])
    write_json_atomic(session_run_folder(session, info.run_id) / HISTORY_NAME, record)


def load_run(session: str, run_id: str) -> RunInfo:
    """A run of this session; another session's run id is simply not found. Using a run is using its session:
    the session's folder is touched (its idleness, which the sweep reads, starts again)."""
    path = session_run_folder(session, run_id) / HISTORY_NAME
    if not path.is_file():
        raise InputError("no_run_in_session", run_id=repr(run_id))
    touch(session_dir(session))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["events"] = [Event.from_dict(event) for event in data.get("events", [])]
        # Older histories wrote "" for a run without a best step yet, and "stage:step" for one with it.
        data["best_step"] = StageStep.parse(data["best_step"]) if data.get("best_step") else None
        return RunInfo(**{k: v for k, v in data.items() if k in RunInfo.__dataclass_fields__})
    except (OSError, ValueError, TypeError) as error:
        raise InputError("run_history_unreadable", run_id=repr(run_id), error=error) from None


def choice_run_id(choice: str | None) -> str:
    """The run id a dropdown value ``run:<id>`` (or a bare run id) names."""
    if not choice:
        raise InputError("pick_run_first")
    return str(choice).removeprefix(RUN_PREFIX)


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
    return [
        (r.title(), RUN_PREFIX + r.run_id)
        for r in reversed(list_runs(session))
        if r.has_checkpoint() and (r.status != "running" or not finished_only)
    ]


def delete_run(state, session: str, run_id: str) -> str:
    """Remove a run of this session (not while it trains) and forget its loaded model."""
    info = load_run(session, run_id)
    if state.active_run(session) == run_id:
        raise InputError("run_still_training", label=repr(info.label))
    shutil.rmtree(session_run_folder(session, run_id), ignore_errors=True)
    (downloads_root() / session / f"stsdemo-{run_id}.zip").unlink(missing_ok=True)
    state.models.forget(str(info.checkpoint))
    return f"Deleted {info.label}."


def prune_sessions(busy: set[str], max_age_s: float = SESSION_MAX_AGE_S) -> int:
    """Remove session folders (and staged downloads) untouched for ``max_age_s`` seconds, except those of
    the ``busy`` sessions (a run in progress)."""
    removed = 0
    now = time.time()
    for root in (sessions_root(), downloads_root()):
        for folder, touched in _folders(root):
            if folder.name not in busy and now - touched > max_age_s:
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
    return removed


def make_room(spared: set[str], idle_s: float = IDLE_EVICTION_S) -> int:
    """Remove whole sessions (their runs and staged downloads), the one untouched longest first, while every
    session's runs together take :func:`~stsdemo.environment.total_disk_bytes` or more; never a session in
    ``spared`` (busy, or the one about to start a run) nor one touched in the last ``idle_s`` seconds. Returns
    the bytes the sessions' runs then take."""
    sessions = [(touched, folder, disk_use(folder)) for folder, touched in _folders(sessions_root())]
    total, budget, now = sum(size for *_, size in sessions), environment.total_disk_bytes(), time.time()
    for touched, folder, size in sorted(sessions, key=lambda session: session[0]):
        if total < budget:
            break
        if folder.name not in spared and now - touched > idle_s:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(downloads_root() / folder.name, ignore_errors=True)
            total -= size
    return total


def touch(folder: Path) -> None:
    """Mark ``folder`` used now (its modification time, which :func:`_folders` reads as its idleness)."""
    try:
        folder.touch(exist_ok=True)
    except OSError:  # removed meanwhile
        pass


def _folders(root: Path) -> list[tuple[Path, float]]:
    """The folders in ``root`` with when each was last touched (an entry made or removed in it)."""
    found = []
    for folder in root.iterdir() if root.is_dir() else ():
        try:
            if folder.is_dir():
                found.append((folder, folder.stat().st_mtime))
        except OSError:  # removed meanwhile
            continue
    return found


def remove_handed_over(max_age_s: float = HANDED_OVER_S) -> int:
    """Remove staged downloads older than ``max_age_s``: Gradio copied each into its cache as the app returned
    it, so the staged file only doubles the disk it takes (a partial zip of a killed writer goes too)."""
    return remove_old_files(downloads_root().glob("*/*"), max_age_s)


def trim_hub_cache(cache: Path, limit: int | None = None) -> int:
    """Remove the models of the hub cache (``models--<org>--<name>`` folders), the one used longest ago first, while
    they take more than ``limit`` bytes (default: the ``hub_cache_bytes`` cap); a model removed is downloaded
    again when next named. Returns the bytes they then take."""
    limit = int(caps.value("hub_cache_bytes")) if limit is None else limit
    models = [
        (touched, folder, disk_use(folder))
        for folder, touched in _folders(cache)
        if folder.name.startswith("models--")
    ]
    total = sum(size for *_, size in models)
    for _, folder, size in sorted(models, key=lambda model: model[0]):
        if total <= limit:
            break
        shutil.rmtree(folder, ignore_errors=True)
        total -= size
    return total


def hub_cache() -> Path:
    """Where hub models are downloaded (``HF_HUB_CACHE``, as huggingface_hub reads it)."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def sweep(busy: set[str], handed_over_s: float = HANDED_OVER_S) -> None:
    """Remove stale sessions (not the ``busy`` ones), the idle ones the total disk budget has no room for,
    handed-over downloads, and the hub models over the hub cache's cap."""
    prune_sessions(busy)
    make_room(busy)
    remove_handed_over(handed_over_s)
    trim_hub_cache(hub_cache())


def sweep_until(stop: threading.Event, state, every_s: float, gradio_folder: Path | None = None) -> None:
    """Sweep now and then every ``every_s`` seconds until ``stop`` is set, sparing the sessions of ``state``'s
    runs in progress (waiting on ``stop`` itself, so setting it ends the wait at once); with
    ``gradio_folder``, the uploads to it past their time go too (``state.uploads``,
    :class:`~stsdemo.serving.uploads.UploadLedger`)."""
    while not stop.is_set():
        try:
            sweep(set(state.active_runs()))
            if gradio_folder is not None:
                state.uploads.sweep(gradio_folder)
        except OSError as error:  # a full or vanished disk: the next sweep tries again
            print(f"stsdemo: sweep failed: {error}", flush=True)
        stop.wait(every_s)


def start_sweeper(
    state, every_s: float = SWEEP_EVERY_S, gradio_folder: Path | None = None
) -> threading.Event:
    """:func:`sweep_until` in a daemon thread; setting the returned event stops it."""
    stop = threading.Event()
    threading.Thread(
        target=sweep_until, args=(stop, state, every_s, gradio_folder), name="stsdemo-sweeper", daemon=True
    ).start()
    return stop


def sessiondisk_use(session: str) -> int:
    """Bytes the files of this session's runs take."""
    return disk_use(session_dir(session))


def disk_use(folder: Path) -> int:
    """Bytes the files under ``folder`` take."""
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:  # removed meanwhile
            continue
    return total


def check_disk_budget(session: str, busy: set[str]) -> None:
    """InputError, naming the budget, when this session's runs already take its disk budget
    (``STSDEMO_SESSION_DISK``), or when every session's runs take the total (``STSDEMO_TOTAL_DISK``) even after
    :func:`make_room` (sparing this session and the ``busy`` ones): called before a new run starts."""
    used, budget = sessiondisk_use(session), environment.session_disk_bytes()
    if used >= budget:
        raise InputError(
            "session_disk_full", used=environment.size_text(used), budget=environment.size_text(budget)
        )
    total, budget = make_room(busy | {session}), environment.total_disk_bytes()
    if total >= budget:
        raise InputError(
            "server_disk_full", used=environment.size_text(total), budget=environment.size_text(budget)
        )


def remove_staging(session: str, info: RunInfo) -> None:
    """What a run killed mid-write leaves in its folder: half-written checkpoint folders, temporary JSON files
    and its stop flag; a checkpoint parked aside by an interrupted folder swap is put back."""
    folder, checkpoint = session_run_folder(session, info.run_id), info.checkpoint
    if info.config.get("output_dir"):
        parked = retired_path(checkpoint)
        if parked.is_dir() and not checkpoint.exists() and save_format.is_scorer(parked):
            parked.rename(checkpoint)
        remove_stale_staging(checkpoint, max_age_s=0)
        remove_stale_staging(checkpoint / save_format.RUN_RECORD, max_age_s=0)
        shutil.rmtree(parked, ignore_errors=True)
    remove_stale_staging(folder / HISTORY_NAME, max_age_s=0)
    (folder / STOP_FLAG).unlink(missing_ok=True)


def best_from_checkpoint(info: RunInfo) -> None:
    """Take the best dev score and step from the checkpoint's own ``run.json`` (swapped in with its weights),
    which a kill may have left ahead of the history."""
    try:
        record = json.loads((info.checkpoint / save_format.RUN_RECORD).read_text(encoding="utf-8"))
        info.best, info.best_step = float(record["best_dev"]), StageStep.parse(record["best_step"])
    except (OSError, ValueError, KeyError, TypeError):
        return


def remove_orphans() -> None:
    """At start-up, what a killed server leaves beside the runs: a zip's export folders (a run's, or a Playground
    run's in the session's folder), staged and partial
    downloads, and partial files of the cache (the Playground's embeddings, the base models' scores)."""
    for export in [
        *sessions_root().glob(f"*/*/{EXPORT_PREFIX}*"),
        *sessions_root().glob(f"*/{EXPORT_PREFIX}*"),
    ]:
        shutil.rmtree(export, ignore_errors=True)
    remove_handed_over(max_age_s=0)
    remove_partial_writes(environment.cache_dir(), recursive=True)


HANDED_OUT = ("stsdemo-*.zip", "mteb-*.zip", "*-scored-*.csv")  # the names of the files the app hands out


def remove_cached_downloads(gradio_cache: Path) -> int:
    """At start-up, before the server serves: Gradio's copies (``<cache>/<hash>/<name>``) of the files a killed
    server handed out (:data:`HANDED_OUT`). Gradio deletes only the copies its own process made (``delete_cache``),
    so a kill leaves them for ever (a zip is about 84 MB). Returns how many were removed."""
    removed = 0
    for pattern in HANDED_OUT:
        for path in gradio_cache.glob(f"*/{pattern}"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def recover_interrupted() -> list[tuple[str, str]]:
    """At start-up: every run left ``running`` by another server process becomes ``interrupted`` (its staging
    folders removed, its best checkpoint listed again) and says so; the orphans a kill leaves are removed
    (:func:`remove_orphans`). Returns ``(session, run id)`` of each run."""
    recovered = []
    root = sessions_root()
    for path in sorted(root.glob(f"*/*/{HISTORY_NAME}")) if root.is_dir() else []:
        session, run_id = path.parent.parent.name, path.parent.name
        try:
            info = load_run(session, run_id)
        except InputError:
            continue
        if info.status != "running" or info.owner == PROCESS:
            continue
        remove_staging(session, info)
        kept = "its best checkpoint so far is kept" if info.has_checkpoint() else "no checkpoint was written"
        if info.has_checkpoint():
            best_from_checkpoint(info)
        info.status, info.message = "interrupted", f"the server stopped while it trained; {kept}"
        save_run(session, info)
        recovered.append((session, run_id))
    remove_orphans()
    return recovered


def zip_run(state, session: str, run_id: str) -> Path:
    """A zip of the run's best checkpoint (:func:`stsdemo.export.export_scorer`: full weights, the run's
    records with run-relative paths and its model card), whose unzipped folder loads with
    ``sentence_transformers.SentenceTransformer(folder)`` and with ``SiameseRegressor.load``. It is staged in
    the session's downloads folder until Gradio has copied it (:func:`remove_handed_over`)."""
    info = load_run(session, run_id)
    if state.active_run(session) == run_id:
        raise InputError("download_while_training")
    if not info.has_checkpoint():
        raise InputError("run_no_checkpoint", label=repr(info.label))
    target = downloads_dir(session) / f"stsdemo-{run_id}.zip"
    stamp = max(p.stat().st_mtime for p in info.checkpoint.rglob("*") if p.is_file())
    if target.is_file() and target.stat().st_mtime >= stamp:
        target.touch()  # handed over again: kept until Gradio has copied it
        return target
    return zip_export(
        lambda out: export_scorer(info.checkpoint, out, allowed_roots=environment.model_roots()),
        session_run_folder(session, run_id),
        target,
    )


def _compression(path: Path) -> int:
    """Weights are stored as they are: float tensors barely deflate (all-MiniLM-L6-v2's 91 MB to 83 MB) and
    deflating them took about 5 s of a core per zip; the text files deflate."""
    return zipfile.ZIP_STORED if path.suffix == ".safetensors" else zipfile.ZIP_DEFLATED


def zip_export(export: Callable[[Path], Path], beside: Path, target: Path) -> Path:
    """``export(folder)`` written into a staging folder in ``beside`` (``.export-*``, swept at start-up if a kill
    leaves it) and zipped, atomically, to ``target``; the staging folder is removed."""
    staging = Path(tempfile.mkdtemp(prefix=EXPORT_PREFIX, dir=beside))
    try:
        source = export(staging / "model")
        with atomic_write(target, "wb", encoding=None) as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as archive:
                for path in sorted(source.rglob("*")):
                    if path.is_file():
                        archive.write(
                            path, path.relative_to(source).as_posix(), compress_type=_compression(path)
                        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
