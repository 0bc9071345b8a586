"""The Siamese regressor (paper §3.2): one shared encoder, mean pooling, a linear head on ``[u, v, |u-v|]``.

A saved model is a folder that is both a plain sentence-transformers model (``SentenceTransformer(path)``
loads the encoder with mean pooling) and, through ``head.safetensors`` + ``stsdemo.json``, our regressor.
No pickle anywhere: weights go through safetensors, settings through JSON.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import shutil
import socket
import tempfile
import threading
import time
import weakref
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoModel, AutoTokenizer
from transformers.utils import logging as hf_logging

from . import settings
from .atomic import remove_stale_staging, replace_folder, retired_path
from .config import HEAD_FEATURES, ROBERTA_TYPES, TARGETS
from .errors import InputError
from .labels import STS, LabelScheme

CONFIG_NAME = "stsdemo.json"
HEAD_NAME = "head.safetensors"
ADAPTER_CONFIG = "adapter_config.json"   # peft's: a LoRA folder holds the adapter, not the encoder
FORMAT_VERSION = 2                        # 2: "target" and "encoder_weights" in the config
ENCODER_WEIGHTS = ("full", "fp16", "lora", "none")
DEFAULT_MODEL_NAMES = ("", "default", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")

MAX_TOKENS = 8192                 # no max length above this, whatever a model claims
HUB_CHECK_TIMEOUT_S = 3.0         # how long to wait for the hub before treating it as unreachable
ALLOWED_MODELS = ("the default model (empty or 'default'), a saved run or model folder (in the app: under the "
                  "allowed folders), or a Hugging Face hub id (needs the network, or the model in the local cache)")


@dataclass
class SiameseOutput:
    """What a forward pass gives a loss: the head output and both sentence embeddings."""

    prediction: torch.Tensor  # (batch,) for regression, (batch, K) logits for classification
    u: torch.Tensor
    v: torch.Tensor


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cuda_bf16() -> bool:
    """Whether the GPU computes bf16 natively (Ampere and newer); on a T4 or V100 it would be emulated."""
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported(including_emulation=False)


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def resolve_model(name: str | os.PathLike | None, allowed_roots: list[Path] | None = None) -> tuple[str, bool]:
    """Where to load a model from and whether it may run its own code.

    Returns ``(local path or hub id, trust_remote_code)``. A local folder may lie anywhere, unless
    ``allowed_roots`` is given (the app passes ``settings.model_roots()``, so a visitor cannot name the
    server's files); remote code runs only for hub ids on the operator's allow-list.
    """
    text = str(name or "").strip()
    if text in DEFAULT_MODEL_NAMES:
        return str(settings.default_model_path()), False
    path = Path(text).expanduser()
    if path.exists() or text.startswith((".", "/", "~")) or not HUB_ID.match(text):
        resolved = path.resolve()
        roots = allowed_roots
        if roots is not None and not _inside(resolved, [Path(r).resolve() for r in roots]):
            raise InputError(
                f"model path {text!r} is outside the allowed folders ({', '.join(map(str, roots))}); "
                "add a folder with STSDEMO_MODEL_ROOTS"
            )
        if not resolved.is_dir():
            kept = retired_path(resolved)
            hint = (f"; an interrupted save left its previous version at {kept}" if (kept / "config.json").is_file()
                    or (kept / CONFIG_NAME).is_file() else "")
            raise InputError(f"model folder {text!r} does not exist{hint}")
        return str(resolved), _trusted_saved_run(resolved)
    return text, text in settings.trusted_remote_code()


def is_saved_run(name: str | os.PathLike | None) -> bool:
    """Whether ``name`` is a folder written by :meth:`SiameseRegressor.save` (it has our config)."""
    if str(name or "").strip() in DEFAULT_MODEL_NAMES:
        return False
    return (Path(str(name)).expanduser() / CONFIG_NAME).is_file()


def saved_config(name: str | os.PathLike | None, allowed_roots: list[Path] | None = None) -> dict | None:
    """A saved scorer's ``stsdemo.json`` (None for an encoder without one), read without loading weights."""
    source, _ = resolve_model(name, allowed_roots)
    config_file = Path(source) / CONFIG_NAME
    return _read_config(config_file) if config_file.is_file() else None


def saved_scheme(name: str | os.PathLike | None, allowed_roots: list[Path] | None = None) -> LabelScheme:
    """The label scheme a model predicts on, read from its config without loading weights (STS for an
    encoder that has no stsdemo head yet)."""
    config = saved_config(name, allowed_roots)
    if config is None:
        return STS
    try:
        return LabelScheme.from_dict(config.get("scheme") or {})
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{Path(str(name)) / CONFIG_NAME} is missing or has a bad field: {error}") from None


def _trusted_saved_run(folder: Path) -> bool:
    """A saved run may run remote code only if the model it was trained from is still allow-listed."""
    config_file = folder / CONFIG_NAME
    if not config_file.is_file():
        return False
    base = _read_config(config_file).get("base_model", "")
    return base in settings.trusted_remote_code()


def _read_config(config_file: Path) -> dict:
    try:
        return json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{config_file} is not a readable stsdemo config: {error}") from None


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
    if now - _HUB_STATE["checked"] < 60:
        return _HUB_STATE["reachable"]
    endpoint = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((endpoint.hostname, endpoint.port or 443), timeout=HUB_CHECK_TIMEOUT_S).close()
        reachable = True
    except OSError:
        reachable = False
    _HUB_STATE.update(checked=now, reachable=reachable)
    return reachable


def check_encoder_folder(folder: Path) -> None:
    """A local folder to load an encoder from must be a transformers model folder."""
    if (folder / ADAPTER_CONFIG).is_file():
        raise InputError(f"folder {str(folder)!r} holds a LoRA adapter, not an encoder; load the scorer folder it "
                         "belongs to. Allowed: " + ALLOWED_MODELS)
    if not (folder / "config.json").is_file():
        raise InputError(f"folder {str(folder)!r} is not a model: it has no config.json. Allowed: {ALLOWED_MODELS}")


def _load_encoder(source: str, trust_remote_code: bool):
    """Tokenizer and encoder from a local folder (safetensors weights only, every weight present) or the hub.

    Weights never go through pickle: local folders must hold ``.safetensors``, and a hub model without them
    falls back only to ``torch.load(weights_only=True)``.
    """
    hf_logging.disable_progress_bar()
    local = Path(source).is_dir()
    if local:
        check_encoder_folder(Path(source))
    if local and not any(Path(source).glob("*.safetensors")):
        raise InputError(f"model folder {source!r} has no .safetensors weights; only safetensors are loaded "
                         "(pickled .bin/.pt checkpoints are refused)")
    offline = not local and not hub_reachable()
    options = dict(trust_remote_code=trust_remote_code, local_files_only=offline)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **options)
        # fp32 whatever the file holds: a scorer shipped in fp16 is computed in fp32 on the CPU.
        encoder, info = AutoModel.from_pretrained(source, use_safetensors=True if local else None, weights_only=True,
                                                  output_loading_info=True, dtype=torch.float32, **options)
    except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as error:
        text = str(error).strip()
        reason = text.splitlines()[0][:200] if text else type(error).__name__
        if not trust_remote_code and ("trust_remote_code" in text or "custom code" in text):
            reason = ("it needs to run its own code, which runs only for models on the operator's allow-list "
                      "(STSDEMO_TRUST_REMOTE_CODE)")
        elif offline:
            reason = "it is not in the local model cache and the Hugging Face hub cannot be reached (offline)"
        elif local and (isinstance(error, SafetensorError) or "deserializ" in text or "header" in text.lower()):
            reason = f"its weights file is damaged or not a safetensors file ({reason})"
        raise InputError(f"could not load model {source!r}: {reason}. Allowed: {ALLOWED_MODELS}") from None
    missing = sorted(set(info.get("missing_keys") or ()) | {str(k) for k in info.get("mismatched_keys") or ()})
    missing = [name for name in missing if not name.startswith("pooler.")]  # the pooler is never used
    if local and missing:
        raise InputError(f"model folder {source!r} is incomplete or damaged: {len(missing)} encoder weights are "
                         f"missing or have the wrong shape (e.g. {missing[0]}); save or train it again")
    return tokenizer, encoder


def encoder_positions(hf_config: dict) -> int | None:
    """Tokens the position table of a transformers ``config.json`` takes (None when it states none)."""
    limit = hf_config.get("max_position_embeddings")
    if not isinstance(limit, int) or limit <= 0:
        return None
    return limit - 2 if hf_config.get("model_type") in ROBERTA_TYPES else limit  # ids start after the pad index


def position_limit(encoder: nn.Module, tokenizer) -> int:
    """The most tokens per sentence the encoder can take (its position table, or its tokenizer's limit)."""
    limits = [encoder_positions(encoder.config.to_dict()), getattr(tokenizer, "model_max_length", None)]
    usable = [int(n) for n in limits if isinstance(n, int) and 0 < n < 1_000_000]
    return min(usable + [MAX_TOKENS])


def max_positions(name: str | os.PathLike | None) -> int | None:
    """The token limit of a local model or saved run, read from its config.json without loading weights
    (None for a hub id, which is checked once loaded)."""
    source, _ = resolve_model(name)
    folder = Path(source)
    if not folder.is_dir():
        return None
    config_file = folder / CONFIG_NAME
    if config_file.is_file() and _encoder_weights(_read_config(config_file)) in ("none", "lora"):
        return max_positions(_read_config(config_file).get("base_model", ""))
    try:
        return encoder_positions(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return None


def check_start(name: str | os.PathLike | None, *, target: str, classification: bool, scheme: LabelScheme,
                max_length: int) -> None:
    """What can be checked of a starting model from its files alone (no weights loaded): its token limit,
    and, for a warm start from a saved scorer, that its target, head and label scheme fit the run."""
    source, _ = resolve_model(name)
    if Path(source).is_dir() and not (Path(source) / CONFIG_NAME).is_file():
        check_encoder_folder(Path(source))
    limit = max_positions(name)
    if limit is not None and max_length > limit:
        raise InputError(f"max length {max_length} is more than this model takes ({limit} tokens); "
                         f"allowed: 8 to {limit}")
    saved = saved_config(name) if is_saved_run(name) else None
    if saved is None:
        return
    problems = []
    if saved.get("target", "head") != target:
        problems.append(f"its target is {saved.get('target', 'head')!r}, this run's is {target!r}")
    if bool(saved.get("classification")) != classification:
        kinds = ("a regressor", "a classifier")
        problems.append(f"its head is {kinds[bool(saved.get('classification'))]}, this run needs "
                        f"{kinds[classification]}")
    categories = list((saved.get("scheme") or {}).get("categories") or [])
    if categories != list(scheme.categories):
        problems.append(f"its labels are {', '.join(map(str, categories))}; this run's data has "
                        f"{', '.join(scheme.categories)}")
    if problems:
        raise InputError(f"cannot warm-start from {str(name)!r}: " + "; ".join(problems))


def _encoder_weights(config: dict) -> str:
    """How a saved scorer stores its encoder (format 1 wrote ``head_only`` instead)."""
    return config.get("encoder_weights") or ("none" if config.get("head_only") else "full")


_TOKENIZER_LOCKS: "weakref.WeakKeyDictionary[object, threading.Lock]" = weakref.WeakKeyDictionary()
_TOKENIZER_LOCKS_GUARD = threading.Lock()


def tokenizer_lock(tokenizer) -> threading.Lock:
    """The lock that calls to ``tokenizer`` take turns on.

    A fast tokenizer keeps its padding and truncation settings on one shared Rust object, so two threads
    calling it at once (scoring requests run in parallel) can get each other's settings: "Unable to create
    tensor ... activate padding". Tokenizing is quick next to the encoder, so serialising it costs little.
    """
    with _TOKENIZER_LOCKS_GUARD:
        lock = _TOKENIZER_LOCKS.get(tokenizer)
        if lock is None:
            lock = _TOKENIZER_LOCKS[tokenizer] = threading.Lock()
        return lock


def stack_batches(first: dict[str, torch.Tensor], second: dict[str, torch.Tensor],
                  pad_id: int) -> dict[str, torch.Tensor]:
    """Two tokenized batches as one: each right-padded to the longer length (``pad_id`` for token ids,
    0 for the attention mask and other fields), then concatenated along the batch."""
    length = max(first["input_ids"].shape[1], second["input_ids"].shape[1])

    def padded(name: str, tensor: torch.Tensor) -> torch.Tensor:
        value = pad_id if name == "input_ids" else 0
        return nn.functional.pad(tensor, (0, length - tensor.shape[1]), value=value)

    return {name: torch.cat([padded(name, first[name]), padded(name, second[name])]) for name in first}


def _attach_adapter(encoder: nn.Module, folder: Path, merge: bool) -> nn.Module:
    """The encoder with the LoRA adapter saved in ``folder``: merged into its weights, or kept beside them
    (peft)."""
    from peft import PeftModel

    try:
        wrapped = PeftModel.from_pretrained(encoder, str(folder))
        return wrapped.merge_and_unload() if merge else wrapped
    except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as error:
        raise InputError(f"LoRA adapter in {str(folder)!r} is missing or damaged ({str(error)[:200]})") from None


class CosineHead(nn.Module):
    """The cosine target: ``prediction = a * cos(u, v) + b`` with ``a`` and ``b`` learned.

    Started so that cos 0..1 spans the scheme's outermost nodes (``a = high - low``, ``b = low``), so the
    losses, the clamping, the buffer zone, the rounding and the category read the prediction as they read
    a linear head's.
    """

    def __init__(self, scheme: LabelScheme = STS):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([scheme.high - scheme.low], dtype=torch.float32))
        self.bias = nn.Parameter(torch.tensor([scheme.low], dtype=torch.float32))

    def forward(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        cosine = nn.functional.cosine_similarity(u.float(), v.float(), dim=-1)
        return self.scale * cosine + self.bias


class SiameseRegressor(nn.Module):
    """Encoder with shared weights for both sentences, mean pooling, and a prediction on the label line.

    ``target="head"`` (the paper's): a linear head on ``features``, ``"u,v,|u-v|"`` (the paper's), ``"u,v"``
    or ``"|u-v|"`` (its Table 6 ablation). ``classification=True`` gives ``K`` outputs, one per category of
    ``scheme`` (Sentence-BERT's strategy); otherwise one float on the scheme's line. ``target="cosine"``:
    the float is ``a * cos(u, v) + b`` (:class:`CosineHead`).
    """

    def __init__(self, encoder: nn.Module, tokenizer, *, features: str = HEAD_FEATURES[0],
                 classification: bool = False, scheme: LabelScheme = STS, max_length: int = 256,
                 base_model: str = "", trust_remote_code: bool = False, target: str = "head"):
        super().__init__()
        if features not in HEAD_FEATURES:
            raise InputError(f"unknown head features {features!r}; choose one of: {', '.join(HEAD_FEATURES)}")
        if target not in TARGETS:
            raise InputError(f"unknown target {target!r}; choose one of: {', '.join(TARGETS)}")
        if classification and target != "head":
            raise InputError("a classification head (cross-entropy) needs target 'head', not 'cosine'")
        self.encoder, self.tokenizer = encoder, tokenizer
        self.features, self.classification, self.scheme = features, classification, scheme
        self.max_length, self.base_model, self.trust_remote_code = max_length, base_model, trust_remote_code
        self.target, self.lora = target, False
        # Whether the encoder's own weights are base_model's: only then may a save leave them out (head only)
        # or write an adapter alone. A warm start from fine-tuned or merged weights saves them in full.
        self.base_weights = True
        self.max_positions = position_limit(encoder, tokenizer)
        if target == "cosine":
            self.head = CosineHead(scheme)
            return
        hidden = encoder.config.hidden_size
        width = {"u,v,|u-v|": 3, "u,v": 2, "|u-v|": 1}[features] * hidden
        self.head = nn.Linear(width, len(scheme.categories) if classification else 1)
        if not classification:
            nn.init.constant_(self.head.bias, scheme.high / 2)  # start mid-line, not at the lowest node

    # ---- construction and persistence -------------------------------------------------------------

    @classmethod
    def from_encoder(cls, name_or_path: str | None = None, allowed_roots: list[Path] | None = None,
                     **options) -> "SiameseRegressor":
        """A fresh head over a pretrained encoder (hub id, local folder, or None for the embedded default)."""
        source, trust = resolve_model(name_or_path, allowed_roots)
        tokenizer, encoder = _load_encoder(source, trust)
        base = str(name_or_path or "all-MiniLM-L6-v2")
        return cls(encoder, tokenizer, base_model=base, trust_remote_code=trust, **options)

    @classmethod
    def load(cls, name_or_path: str | None = None, allowed_roots: list[Path] | None = None,
             keep_adapter: bool = False) -> "SiameseRegressor":
        """A saved scorer, or any encoder with a fresh head when the folder has no ``stsdemo.json``.

        A scorer saved with ``encoder_weights="none"`` (the head or calibration only) or ``"lora"`` (a peft
        adapter) takes its encoder from ``base_model``; the adapter is merged into it on load, or with
        ``keep_adapter`` kept as a (frozen) adapter, so that the scorer saves as an adapter again.
        """
        source, trust = resolve_model(name_or_path, allowed_roots)
        config_file = Path(source) / CONFIG_NAME
        if not config_file.is_file():
            return cls.from_encoder(name_or_path, allowed_roots)
        config = _read_config(config_file)
        try:
            options = dict(scheme=LabelScheme.from_dict(config["scheme"]), features=config["features"],
                           classification=bool(config["classification"]), max_length=int(config["max_length"]),
                           base_model=config.get("base_model", ""), target=config.get("target", "head"))
            weights = _encoder_weights(config)
            if weights not in ENCODER_WEIGHTS:
                raise ValueError(f"encoder_weights {weights!r}")
        except (KeyError, TypeError, ValueError) as error:
            raise InputError(f"{config_file} is missing or has a bad field: {error}") from None
        if weights in ("none", "lora"):
            # The encoder comes from where the scorer was trained from (allowed: it was chosen when saving).
            encoder_source, trust = resolve_model(options["base_model"])
        else:
            encoder_source = source
        tokenizer, encoder = _load_encoder(encoder_source, trust)
        if weights == "lora":
            encoder = _attach_adapter(encoder, Path(source), merge=not keep_adapter)
        model = cls(encoder, tokenizer, trust_remote_code=trust, **options)
        model.lora = weights == "lora" and keep_adapter
        model.base_weights = weights == "none" or model.lora
        try:
            state = load_file(str(Path(source) / HEAD_NAME))
            model.head.load_state_dict(state)
        except (OSError, SafetensorError, RuntimeError) as error:
            raise InputError(f"head weights in {source!r} are missing or damaged ({str(error)[:200]}); only a "
                             f"complete {HEAD_NAME} written by stsdemo is loaded") from None
        return model

    def add_lora(self, rank: int, alpha: float | None = None, dropout: float = 0.1) -> None:
        """Train the encoder through a LoRA adapter of ``rank`` on every linear layer (peft); the original
        weights are frozen. ``save`` then writes the adapter alone, and ``load`` merges it back."""
        from peft import LoraConfig, get_peft_model

        config = LoraConfig(r=rank, lora_alpha=alpha or 2 * rank, lora_dropout=dropout, target_modules="all-linear")
        self.encoder = get_peft_model(self.encoder, config)
        self.lora = True

    def config(self) -> dict:
        return {"format_version": FORMAT_VERSION, "base_model": self.base_model, "target": self.target,
                "features": self.features, "classification": self.classification, "scheme": self.scheme.to_dict(),
                "max_length": self.max_length}

    def save(self, folder: str | os.PathLike, head_only: bool = False, fp16: bool = False) -> Path:
        """Write the model atomically: into a temporary sibling folder, flushed, then swapped into place.

        A kill mid-write leaves either the old folder or the new one, never a half-written model (see
        :mod:`stsdemo.atomic`). ``head_only`` writes just the head and config (a few KB), for an encoder
        that was not trained: loading takes the encoder from ``base_model``. A LoRA-trained encoder is saved
        as its adapter (a few MB; :meth:`export` writes it merged). ``fp16`` halves the encoder's weights on
        disk (they are computed in fp32 again on load).
        """
        if self.lora and not self.base_weights:  # an adapter over changed weights: only merged is complete
            return self.export(folder, fp16=fp16)
        weights = ("lora" if self.lora else "none" if head_only and self.base_weights
                   else "fp16" if fp16 else "full")
        folder = Path(folder).resolve()
        folder.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(folder)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            if weights == "lora":
                # The adapter names the base by this scorer's portable name, not the machine's path to it;
                # peft's template model card (all placeholders) is not written.
                self.encoder.peft_config["default"].base_model_name_or_path = self.base_model
                self.encoder.save_pretrained(staging, safe_serialization=True)
                (staging / "README.md").unlink(missing_ok=True)
            elif weights != "none":
                encoder = self.encoder
                state = {k: v.half() for k, v in encoder.state_dict().items()} if fp16 else None
                encoder.save_pretrained(staging, safe_serialization=True, state_dict=state)
                self.tokenizer.save_pretrained(staging)
                self._write_sentence_transformers_files(staging)
            save_file({k: v.detach().float().cpu().contiguous() for k, v in self.head.state_dict().items()},
                      str(staging / HEAD_NAME))
            config = {**self.config(), "encoder_weights": weights}
            (staging / CONFIG_NAME).write_text(json.dumps(config, indent=2), encoding="utf-8")
            replace_folder(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return folder

    def export(self, folder: str | os.PathLike, fp16: bool = False) -> Path:
        """Save with the encoder's full weights (a LoRA adapter merged in), so the folder also loads as
        ``SentenceTransformer(folder)``."""
        if not self.lora:
            return self.save(folder, fp16=fp16)
        merged = copy.deepcopy(self)
        merged.encoder, merged.lora, merged.base_weights = merged.encoder.merge_and_unload(), False, False
        return merged.save(folder, fp16=fp16)

    def _write_sentence_transformers_files(self, folder: Path) -> None:
        """The files that make the folder load as ``SentenceTransformer(folder)`` with mean pooling."""
        modules = [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        ]
        pooling = {"word_embedding_dimension": self.encoder.config.hidden_size, "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}
        (folder / "1_Pooling").mkdir(exist_ok=True)
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling, indent=2))
        (folder / "modules.json").write_text(json.dumps(modules, indent=2))
        (folder / "sentence_bert_config.json").write_text(
            json.dumps({"max_seq_length": self.max_length, "do_lower_case": False}, indent=2))

    # ---- computation -----------------------------------------------------------------------------

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def tokenize(self, sentences: list[str]) -> dict[str, torch.Tensor]:
        """Token ids padded to the batch's own longest sentence, truncated at ``max_length``."""
        with tokenizer_lock(self.tokenizer):
            batch = self.tokenizer(list(sentences), padding=True, truncation=True,
                                   max_length=min(self.max_length, self.max_positions), return_tensors="pt")
        return {name: tensor.to(self.device) for name, tensor in batch.items()}

    def token_counts(self, sentences: list[str]) -> list[int]:
        """Tokens in each sentence before truncation (special tokens included)."""
        with tokenizer_lock(self.tokenizer):
            return [len(ids) for ids in self.tokenizer(list(sentences), truncation=False)["input_ids"]]

    def embed(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Mean of the token states over the attention mask."""
        states = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
        return (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    def head_input(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        parts = {"u,v,|u-v|": (u, v, (u - v).abs()), "u,v": (u, v), "|u-v|": ((u - v).abs(),)}[self.features]
        return torch.cat(parts, dim=-1)

    def predict_embeddings(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """The target's output for embedding pairs: ``(batch,)`` on the line, or ``(batch, K)`` logits."""
        if self.target == "cosine":
            return self.head(u, v)
        out = self.head(self.head_input(u, v).to(self.head.weight.dtype))
        return out if self.classification else out.squeeze(-1)

    def forward(self, batch1: dict[str, torch.Tensor], batch2: dict[str, torch.Tensor]) -> SiameseOutput:
        # Both sides in one encoder pass: larger matrix products and half the kernel launches (the
        # shared weights make it the same computation; padding is masked out of the mean).
        u, v = self.embed(stack_batches(batch1, batch2, self.tokenizer.pad_token_id or 0)).split(
            [len(batch1["input_ids"]), len(batch2["input_ids"])])
        return SiameseOutput(self.predict_embeddings(u, v), u, v)

    def autocast(self):
        """Half-precision autocast on CUDA (bf16 where the GPU has it natively, else fp16), nothing on CPU
        (where bf16 matmuls are slower than fp32)."""
        if self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16 if cuda_bf16() else torch.float16)
        return nullcontext()

    @torch.inference_mode()
    def encode(self, sentences: list[str], batch_size: int | None = None) -> np.ndarray:
        """Mean-pooled embeddings ``(n, hidden)`` as float32.

        The sentences are tokenized once and batched by token count, so each batch pads to little more than
        its own length (on 2 CPU cores 20 % faster than batching by character count).
        """
        if batch_size is None:
            batch_size = 256 if self.device.type == "cuda" else 64
        out = np.zeros((len(sentences), self.encoder.config.hidden_size), dtype=np.float32)
        if not sentences:
            return out
        self.eval()
        with tokenizer_lock(self.tokenizer):
            encoded = self.tokenizer(list(sentences), truncation=True,
                                     max_length=min(self.max_length, self.max_positions))
        order = np.argsort([-len(ids) for ids in encoded["input_ids"]], kind="stable")
        with self.autocast():
            for start in range(0, len(order), batch_size):
                index = order[start:start + batch_size]
                with tokenizer_lock(self.tokenizer):
                    batch = self.tokenizer.pad({name: [values[i] for i in index] for name, values in encoded.items()},
                                               return_tensors="pt")
                embeddings = self.embed({name: tensor.to(self.device) for name, tensor in batch.items()})
                out[index] = embeddings.float().cpu().numpy()
        return out

    @torch.inference_mode()
    def score_embeddings(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Head predictions on the scheme's line from precomputed embeddings.

        A classification head gives the probability-weighted mean of the nodes, so it can be ranked
        (Spearman) and rounded like a regression output.
        """
        self.eval()
        out = self.predict_embeddings(torch.as_tensor(u, device=self.device, dtype=torch.float32),
                                      torch.as_tensor(v, device=self.device, dtype=torch.float32))
        if self.classification:
            nodes = torch.as_tensor(self.scheme.nodes, device=out.device, dtype=out.dtype)
            out = out.softmax(-1) @ nodes
        return out.float().cpu().numpy()

    def predict(self, sentences1: list[str], sentences2: list[str]) -> np.ndarray:
        """One float per pair on the scheme's line; ``scheme.category(value)`` names its category."""
        if len(sentences1) != len(sentences2):
            raise InputError(f"got {len(sentences1)} first sentences but {len(sentences2)} second sentences")
        embeddings = self.encode(list(sentences1) + list(sentences2))
        return self.score_embeddings(embeddings[: len(sentences1)], embeddings[len(sentences1):])
