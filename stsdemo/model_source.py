"""Where a model comes from, whether it may run its own code, and what its files say before it is loaded.

A model is named by the default (empty or ``default``), a local folder (an encoder or a saved scorer) or a
Hugging Face hub id. :func:`resolve_model` turns a name into a place to load from and applies the trust
policy: a local folder may lie only under the allowed roots when a caller gives them (the app does), and a
model's own code runs only for hub ids on the operator's allow-list (``STSDEMO_TRUST_REMOTE_CODE``).
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

from . import environment, save_format
from .atomic import retired_path
from .config import ROBERTA_TYPES, encoder_family
from .errors import InputError, Joined, Text
from .labels import STS, LabelScheme

DEFAULT_MODEL_NAMES = ("", "default", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
HUB_CHECK_TIMEOUT_S = 3.0  # how long to wait for the hub before treating it as unreachable
HUB_CHECK_EVERY_S = 60.0
ALLOWED_MODELS = (
    "the default model (empty or 'default'), a saved run or model folder (in the app: under the "
    "allowed folders), or a Hugging Face hub id (needs the network, or the model in the local cache)"
)


def is_hub_id(name: str | os.PathLike | None) -> bool:
    """Whether a model name is a hub id: not the default, not an existing path, nothing a path starts with, and
    in the hub's id form (``owner/name`` or ``name``)."""
    text = str(name or "").strip()
    if text in DEFAULT_MODEL_NAMES:
        return False
    return not (
        Path(text).expanduser().exists() or text.startswith((".", "/", "~")) or not HUB_ID.match(text)
    )


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def resolve_model(
    name: str | os.PathLike | None, allowed_roots: list[Path] | None = None
) -> tuple[str, bool]:
    """Where to load a model from and whether it may run its own code.

    Returns ``(local path or hub id, trust_remote_code)``. A local folder may lie anywhere, unless
    ``allowed_roots`` is given (the app passes ``environment.model_roots()``, so a visitor cannot name the
    server's files); remote code runs only for hub ids on the operator's allow-list.
    """
    text = str(name or "").strip()
    if text in DEFAULT_MODEL_NAMES:
        return str(environment.default_model_path()), False
    path = Path(text).expanduser()
    if not is_hub_id(text):
        resolved = path.resolve()
        roots = allowed_roots
        if roots is not None and not _inside(resolved, [Path(r).resolve() for r in roots]):
            raise InputError(  # the folders themselves are the server's business: named by what they hold
                "model_path_outside", text=repr(text)
            )
        if not resolved.is_dir():
            kept = retired_path(resolved)
            hint = Text("interrupted_save", kept=kept) if save_format.is_model_folder(kept) else ""
            raise InputError("model_folder_missing_hint", text=repr(text), hint=hint)
        return str(resolved), _trusted_saved_run(resolved)
    return text, text in environment.trusted_remote_code()


def _trusted_saved_run(folder: Path) -> bool:
    """A saved run may run remote code only if the model it was trained from is still allow-listed."""
    if not save_format.is_scorer(folder):
        return False
    return save_format.read_config(folder).get("base_model", "") in environment.trusted_remote_code()


def is_saved_run(name: str | os.PathLike | None) -> bool:
    """Whether ``name`` is a folder written by :meth:`SiameseRegressor.save` (it has our config)."""
    if str(name or "").strip() in DEFAULT_MODEL_NAMES:
        return False
    return save_format.is_scorer(Path(str(name)).expanduser())


def saved_config(name: str | os.PathLike | None, allowed_roots: list[Path] | None = None) -> dict | None:
    """A saved scorer's config (None for an encoder without one), read without loading weights."""
    source, _ = resolve_model(name, allowed_roots)
    return save_format.read_config(source) if save_format.is_scorer(source) else None


def saved_scheme(name: str | os.PathLike | None, allowed_roots: list[Path] | None = None) -> LabelScheme:
    """The label scheme a model predicts on, read from its config without loading weights (STS for an
    encoder that has no stsdemo head yet)."""
    config = saved_config(name, allowed_roots)
    return STS if config is None else save_format.read_scheme(str(name), config)


# Reachability is the machine's, not a model's, and a probe can take HUB_CHECK_TIMEOUT_S: so one answer
# serves the whole process for HUB_CHECK_EVERY_S.
_HUB_STATE = {"checked": -math.inf, "reachable": True}


def hub_reachable() -> bool:
    """Whether the Hugging Face hub can be reached: False in offline mode (``HF_HUB_OFFLINE``) or when a
    TCP connection to it fails within a few seconds (checked at most once a minute).

    Without this, loading an unknown hub id on a machine without network retries for about a minute.
    Behind an HTTP(S) proxy a direct connection says nothing, so the hub is assumed reachable there.
    """
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return True
    now = time.monotonic()
    if now - _HUB_STATE["checked"] < HUB_CHECK_EVERY_S:
        return _HUB_STATE["reachable"]
    endpoint = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection(
            (endpoint.hostname, endpoint.port or 443), timeout=HUB_CHECK_TIMEOUT_S
        ).close()
        reachable = True
    except OSError:
        reachable = False
    _HUB_STATE.update(checked=now, reachable=reachable)
    return reachable


HUB_ANSWERS_KEPT = 256


class HubAnswers:
    """What the hub says about a model id, each answer asked once (a model's size and config do not change under a
    visitor's feet; a None, the hub not reached, is asked again next time), the last :data:`HUB_ANSWERS_KEPT` kept.

    ``api``: the hub client whose ``model_info`` answers (default: a ``huggingface_hub.HfApi`` made when first
    asked); ``reachable``: whether the hub can be reached now (default :func:`hub_reachable`). The process asks
    through one of these (:data:`HUB`); a caller that must not reach the network (a test, an offline tool) hands
    its own to :func:`hub_parameter_count`, with its own memory of answers."""

    def __init__(self, api=None, reachable: Callable[[], bool] = hub_reachable, kept: int = HUB_ANSWERS_KEPT):
        self._api, self.reachable, self.kept = api, reachable, kept
        self._answers: dict[tuple[str, str], object] = {}

    def api(self):
        if self._api is None:
            from huggingface_hub import HfApi

            self._api = HfApi()
        return self._api

    def remembered(self, kind: str, hub_id: str, ask):
        """``ask()``'s answer for a hub id, asked once while the hub answers."""
        key = (kind, hub_id)
        if key not in self._answers:
            answer = ask()
            if answer is None:
                return None
            if len(self._answers) >= self.kept:
                self._answers.pop(next(iter(self._answers)))
            self._answers[key] = answer
        return self._answers[key]


HUB = HubAnswers()  # the process's: one memory of answers for every caller


def hub_config(hub_id: str, hub: HubAnswers = HUB) -> dict | None:
    """A hub model's ``config.json`` (a few KB; the weights are not fetched), from the local cache or the hub;
    None when neither has it."""
    from huggingface_hub import hf_hub_download

    def ask():
        try:
            path = hf_hub_download(
                hub_id, "config.json", local_files_only=not hub.reachable(), etag_timeout=HUB_CHECK_TIMEOUT_S
            )
            loaded = json.loads(Path(path).read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - no network, no such file, a broken file: unknown, said by the caller
            return None
        return loaded if isinstance(loaded, dict) else None

    return hub.remembered("config", hub_id, ask)


def hub_parameter_count(hub_id: str, hub: HubAnswers = HUB) -> int | None:
    """A hub model's parameters, from the hub's metadata without downloading weights: the count of its
    safetensors headers (``model_info``'s ``safetensors.total``, which the hub reads from them as
    ``huggingface_hub.get_safetensors_metadata`` does, in one request for a sharded model too), else its PyTorch
    weight files' bytes / 2 (read as 16-bit numbers, so a larger model is never counted smaller). None when the
    hub cannot be reached; InputError when it has no such model. ``hub``: whom to ask (:class:`HubAnswers`)."""
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    def ask():
        if not hub.reachable():
            return None
        api = hub.api()
        try:
            info = api.model_info(hub_id, expand=["safetensors"], timeout=HUB_CHECK_TIMEOUT_S)
            if info.safetensors is not None and info.safetensors.total:
                return int(info.safetensors.total)
            files = api.model_info(hub_id, files_metadata=True, timeout=HUB_CHECK_TIMEOUT_S).siblings or []
        except (RepositoryNotFoundError, GatedRepoError):
            raise InputError("hub_no_model", hub_id=repr(hub_id), allowed_models=ALLOWED_MODELS) from None
        except Exception:  # noqa: BLE001 - a network failure: the size is unknown, the caller says so
            return None
        weights = sum(
            item.size or 0 for item in files if item.rfilename.endswith((".bin", ".pt", ".pth", ".ckpt"))
        )
        return weights // 2 if weights else None

    return hub.remembered("parameters", hub_id, ask)


def check_encoder_folder(folder: Path) -> None:
    """A local folder to load an encoder from must be a transformers model folder."""
    if save_format.is_adapter(folder):
        raise InputError("folder_is_lora", folder=repr(str(folder)), allowed_models=ALLOWED_MODELS)
    if not save_format.has_encoder_config(folder):
        raise InputError("folder_not_model", folder=repr(str(folder)), allowed_models=ALLOWED_MODELS)


# ---- limits and fit, from the files alone -----------------------------------------------------------


def encoder_positions(hf_config: dict) -> int | None:
    """Tokens the position table of a transformers ``config.json`` takes (None when it states none)."""
    limit = hf_config.get("max_position_embeddings")
    if not isinstance(limit, int) or limit <= 0:
        return None
    return (
        limit - 2 if hf_config.get("model_type") in ROBERTA_TYPES else limit
    )  # ids start after the pad index


def check_max_length(max_length: int, limit: int | None) -> None:
    """A run's max length must fit the model's token ``limit`` (None: not known yet)."""
    if limit is not None and max_length > limit:
        raise InputError("max_length_over", max_length=max_length, limit=limit)


def start_encoder_config(name: str | os.PathLike | None) -> dict | None:
    """The transformers ``config.json`` of the encoder a local model or saved run holds (its base's for a
    head-only or LoRA scorer), read without loading weights; None for a hub id (known once loaded)."""
    source, _ = resolve_model(name)
    folder = Path(source)
    if not folder.is_dir():
        return None
    if save_format.is_scorer(folder):
        config = save_format.read_config(folder)
        if save_format.encoder_from_base(config):
            return start_encoder_config(config.get("base_model", ""))
    hf_config = save_format.encoder_config(folder)
    return hf_config if isinstance(hf_config, dict) else None


def max_positions(name: str | os.PathLike | None) -> int | None:
    """The token limit of a local model or saved run, read from its config.json without loading weights
    (None for a hub id, which is checked once loaded)."""
    hf_config = start_encoder_config(name)
    return encoder_positions(hf_config) if hf_config is not None else None


def start_family(name: str | os.PathLike | None) -> str | None:
    """The encoder family ('bert' or 'roberta', which the paper's k depends on) of a local model or saved run,
    from its files; None for a hub id (known once loaded)."""
    hf_config = start_encoder_config(name)
    return encoder_family(hf_config.get("model_type")) if hf_config is not None else None


def check_start(
    name: str | os.PathLike | None, *, target: str, classification: bool, scheme: LabelScheme, max_length: int
) -> None:
    """What can be checked of a starting model from its files alone (no weights loaded): its token limit,
    and, for a warm start from a saved scorer, that its target, head and label scheme fit the run."""
    source, _ = resolve_model(name)
    if Path(source).is_dir() and not save_format.is_scorer(source):
        check_encoder_folder(Path(source))
    check_max_length(max_length, max_positions(name))
    saved = saved_config(name) if is_saved_run(name) else None
    if saved is None:
        return
    problems = []
    if saved.get("target", "head") != target:
        problems.append(Text("warm_target", saved=repr(saved.get("target", "head")), target=repr(target)))
    if bool(saved.get("classification")) != classification:
        kinds = (Text("a_regressor"), Text("a_classifier"))
        problems.append(
            Text("warm_head", saved=kinds[bool(saved.get("classification"))], needed=kinds[classification])
        )
    categories = list((saved.get("scheme") or {}).get("categories") or [])
    if categories != list(scheme.categories):
        problems.append(
            Text(
                "warm_labels",
                saved=", ".join(map(str, categories)),
                categories=", ".join(scheme.categories),
            )
        )
    if problems:
        raise InputError("cannot_warm_start", name=repr(str(name)), problems=Joined(problems))
