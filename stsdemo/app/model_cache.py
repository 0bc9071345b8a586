"""Models in the app: the cache of loaded scorers, the model dropdowns' choices, and what a choice names.

A dropdown value is ``default`` (what that tab starts from), ``scorer`` (the shipped scorer), ``run:<id>``
(a finished run of *this* session) or text a visitor typed: a hub id or a local folder, which must lie in
the allowed folders (:func:`allowed_roots`) and not in another session's folder.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path

import torch

from .. import environment, save_format
from ..errors import InputError
from ..final_eval import ResultCache
from ..losses.spec import PAPER_X0
from ..model import SiameseRegressor, default_device
from ..model_source import is_hub_id, resolve_model
from ..serving import budget, gpu_time, session_files

DEFAULT_CHOICE = "default"
SCORER_CHOICE = "scorer"
NLI_CHOICE = "nli-scorer"
ENCODER_NAME = "all-MiniLM-L6-v2"
MODEL_CACHE_SIZE = 3


def allowed_roots() -> list[Path]:
    """Folders a visitor-named local model may be loaded from: ``environment.model_roots()`` and the shipped
    scorer (package data, wherever the package is installed)."""
    return [
        *environment.model_roots(),
        environment.default_scorer_dir().resolve(),
        environment.nli_scorer_dir().resolve(),
    ]


def result_cache() -> ResultCache:
    """The app's cache of 7-task results per encoder (``<cache>/senteval/``), for visitor-named models."""
    return ResultCache(environment.cache_dir() / "senteval", tuple(allowed_roots()))


def scorer_available() -> bool:
    return save_format.is_scorer(environment.default_scorer_dir())


def scorer_source() -> str:
    """The shipped scorer when present, else "" (the embedded encoder with an untrained head)."""
    return str(environment.default_scorer_dir()) if scorer_available() else ""


def _scorer_choice() -> list[tuple[str, str]]:
    return [(f"{ENCODER_NAME} + shipped scorer (warm start)", SCORER_CHOICE)] if scorer_available() else []


def nli_scorer_available() -> bool:
    return save_format.is_scorer(environment.nli_scorer_dir())


def model_choices(session: str) -> list[tuple[str, str]]:
    """Choices for scoring: the shipped scorer (the default), the shipped NLI scorer, then this session's
    finished runs."""
    label = (
        f"{ENCODER_NAME} + shipped scorer (default)"
        if scorer_available()
        else f"{ENCODER_NAME} + untrained head (no scorer shipped yet)"
    )
    nli = [(f"{ENCODER_NAME} + shipped NLI scorer", NLI_CHOICE)] if nli_scorer_available() else []
    return [(label, DEFAULT_CHOICE), *nli, *session_files.run_choices(session)]


def bench_choices(session: str) -> list[tuple[str, str]]:
    """Choices for the benchmark: only the encoder counts there, so the default needs no head."""
    return [(f"{ENCODER_NAME} (embedded)", DEFAULT_CHOICE), *session_files.run_choices(session)]


def base_model_choices(session: str) -> list[tuple[str, str]]:
    """Choices for where a run starts: the embedded encoder (fresh head), the shipped scorer and this
    session's finished runs (warm starts: training continues from their head or calibration)."""
    return [
        (f"{ENCODER_NAME} (embedded, fresh head)", DEFAULT_CHOICE),
        *_scorer_choice(),
        *session_files.run_choices(session),
    ]


def resolve_choice(
    session: str, choice: str | None, encoder_default: bool = False, host: budget.Host = budget.HOST
) -> str:
    """A dropdown value -> a name ``SiameseRegressor.load`` understands.

    ``default`` is the shipped scorer, or with ``encoder_default`` (training, the benchmark) the embedded
    encoder; ``scorer`` the shipped
    scorer; ``run:<id>`` a run of *this* session; anything else a hub id or a local path, checked by the
    core's :func:`~stsdemo.model_source.resolve_model` against :func:`allowed_roots` and refused when it points into
    another session's folder. A hub id must be on the server's allow list or within its size
    (:func:`stsdemo.serving.budget.check_hub_model`, asking ``host``): every tab's model choice comes through here.
    """
    text = str(choice or "").strip()
    if text in ("", DEFAULT_CHOICE):
        return "" if encoder_default else scorer_source()
    if text == SCORER_CHOICE:
        if not scorer_available():
            raise InputError("no_shipped_scorer")
        return scorer_source()
    if text == NLI_CHOICE:
        if not nli_scorer_available():
            raise InputError("no_shipped_nli_scorer")
        return str(environment.nli_scorer_dir())
    if text.startswith(session_files.RUN_PREFIX):
        info = session_files.load_run(session, text[len(session_files.RUN_PREFIX) :])
        if not info.has_checkpoint():
            raise InputError("run_no_checkpoint", label=repr(info.label))
        return str(info.checkpoint)
    if not is_hub_id(text):
        path = Path(text).expanduser().resolve()
        root, own = session_files.sessions_root().resolve(), session_files.session_dir(session).resolve()
        if (root == path or root in path.parents) and not (own == path or own in path.parents):
            # another session's folder reads as a missing one: a refusal must not tell which exist
            raise InputError("model_folder_missing", text=repr(text))
    resolve_model(text, allowed_roots())
    if is_hub_id(text):
        budget.check_hub_model(text, host)
    return text


def display_name(session: str, choice: str) -> str:
    text = str(choice or "").strip()
    if text in ("", DEFAULT_CHOICE):
        return ENCODER_NAME
    if text == SCORER_CHOICE:
        return f"{ENCODER_NAME} + shipped scorer"
    if text == NLI_CHOICE:
        return f"{ENCODER_NAME} + shipped NLI scorer"
    if text.startswith(session_files.RUN_PREFIX):
        return session_files.load_run(session, text[len(session_files.RUN_PREFIX) :]).label
    return text


def training_x0(source: str) -> float:
    """The buffer x0 a checkpoint was trained with (its run.json; a Playground export's twin has its own), else the
    paper's."""
    path = Path(source) / save_format.RUN_RECORD if source else None
    try:
        if path and path.is_file():
            record = json.loads(path.read_text(encoding="utf-8"))
            return float(record.get("twin", record["config"])["x0"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return PAPER_X0


class ModelCache:
    """Loaded scorers, least recently used dropped beyond ``size``; a model is reloaded when its files change."""

    def __init__(self, size: int = MODEL_CACHE_SIZE):
        self.size = size
        self._models: OrderedDict[tuple, SiameseRegressor] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, name: str) -> SiameseRegressor:
        source, _ = resolve_model(name, allowed_roots())
        key = (source, save_format.files_stamp(source))
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            model = SiameseRegressor.load(name or None, allowed_roots=allowed_roots())
            if torch.cuda.is_available() and not gpu_time.on_zero_gpu():
                model.to(default_device())
            model.eval()
            self._models[key] = model
            while len(self._models) > self.size:
                self._models.popitem(last=False)
            return model

    def forget(self, source: str) -> None:
        with self._lock:
            for key in [k for k in self._models if k[0] == source]:
                del self._models[key]

    def warm_up(self) -> None:
        """Load the default scoring model ahead of the first visitor (errors are left to the first call)."""
        try:
            self.get(scorer_source())
        except Exception:  # noqa: BLE001 - a warm-up must never take the app down
            pass
