"""The Siamese regressor (paper §3.2): one shared encoder, mean pooling, a linear head on ``[u, v, |u-v|]``.

How a saved scorer lies on disk is :mod:`stsdemo.save_format`'s; where a model comes from and whether it may
run its own code, :mod:`stsdemo.model_source`'s.
"""

from __future__ import annotations

import copy
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from torch import nn
from transformers import AutoModel, AutoTokenizer

from . import save_format
from .config import HEAD_FEATURES, TARGETS
from .errors import InputError, Text
from .labels import STS, LabelScheme
from .model_source import (
    ALLOWED_MODELS,
    check_encoder_folder,
    encoder_positions,
    hub_reachable,
    resolve_model,
)

MAX_TOKENS = 8192  # no max length above this, whatever a model claims
# Padded tokens in one encoding batch. CPU: 1,500 SentEval test sentences on the shared 2 cores (load 8-13, two
# alternating rounds, medians) took 71 s in batches of 64 sentences, 53 s of 2,048 or 8,192 tokens, 72 s of 32,768.
# GPU: sixteen times the CPU's, to fill the device with short sentences (not yet measured on a GPU).
BATCH_TOKENS = {"cpu": 4096, "cuda": 65536}


@dataclass
class SiameseOutput:
    """What a forward pass gives a loss: the head output and both sentence embeddings."""

    prediction: torch.Tensor  # (batch,) for regression, (batch, K) logits for classification
    u: torch.Tensor
    v: torch.Tensor


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``tensor`` on ``device``; onto a GPU through pinned memory without waiting (a copy from pageable memory makes
    the host wait until the GPU has run everything queued before it)."""
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


def batches_of(lengths: np.ndarray, sentences: int | None, tokens: int) -> list[slice]:
    """``lengths`` (longest first) cut into batches of ``sentences`` each, or where that is None, of as many as
    fit ``tokens`` padded tokens (the first, longest, sets the batch's length; at least one a batch)."""
    batches, start = [], 0
    while start < len(lengths):
        size = sentences or max(1, tokens // int(lengths[start]))
        batches.append(slice(start, start + size))
        start += size
    return batches


def cuda_bf16() -> bool:
    """Whether the GPU computes bf16 natively (Ampere and newer); on a T4 or V100 it would be emulated."""
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported(including_emulation=False)


def _load_encoder(source: str, trust_remote_code: bool):
    """Tokenizer and encoder from a local folder (safetensors weights only, every weight present) or the hub.

    Weights never go through pickle: local folders must hold ``.safetensors``, and a hub model without them
    falls back only to ``torch.load(weights_only=True)``.
    """
    local = Path(source).is_dir()
    if local:
        check_encoder_folder(Path(source))
    if local and not any(Path(source).glob("*.safetensors")):
        raise InputError("model_no_safetensors", source=repr(source))
    offline = not local and not hub_reachable()
    options = dict(trust_remote_code=trust_remote_code, local_files_only=offline)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **options)
        # fp32 whatever the file holds: a scorer shipped in fp16 is computed in fp32 on the CPU.
        encoder, info = AutoModel.from_pretrained(
            source,
            use_safetensors=True if local else None,
            weights_only=True,
            output_loading_info=True,
            dtype=torch.float32,
            **options,
        )
    except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as error:
        text = str(error).strip()
        reason = text.splitlines()[0][:200] if text else type(error).__name__
        if not trust_remote_code and ("trust_remote_code" in text or "custom code" in text):
            reason = Text("needs_remote_code")
        elif offline:
            reason = Text("model_offline")
        elif local and (
            isinstance(error, SafetensorError) or "deserializ" in text or "header" in text.lower()
        ):
            reason = Text("weights_damaged", reason=reason)
        raise InputError(
            "model_load_failed", source=repr(source), reason=reason, allowed_models=ALLOWED_MODELS
        ) from None
    missing = sorted(
        set(info.get("missing_keys") or ()) | {str(k) for k in info.get("mismatched_keys") or ()}
    )
    missing = [name for name in missing if not name.startswith("pooler.")]  # the pooler is never used
    if local and missing:
        raise InputError("model_incomplete", source=repr(source), n_missing=len(missing), missing=missing[0])
    return tokenizer, encoder


def position_limit(encoder: nn.Module, tokenizer) -> int:
    """The most tokens per sentence the encoder can take (its position table, or its tokenizer's limit)."""
    limits = [encoder_positions(encoder.config.to_dict()), getattr(tokenizer, "model_max_length", None)]
    usable = [int(n) for n in limits if isinstance(n, int) and 0 < n < 1_000_000]
    return min(usable + [MAX_TOKENS])


# One lock per tokenizer, not per model: models can share a tokenizer (tests build several over one), and
# a lock cannot ride on the tokenizer itself, since an export deep-copies the model and locks do not copy.
# Weak keys: a dropped model's tokenizer is freed with it.
_TOKENIZER_LOCKS: weakref.WeakKeyDictionary[object, threading.Lock] = weakref.WeakKeyDictionary()
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


def stack_batches(
    first: dict[str, torch.Tensor], second: dict[str, torch.Tensor], pad_id: int
) -> dict[str, torch.Tensor]:
    """Two tokenized batches as one: each right-padded to the longer length (``pad_id`` for token ids,
    0 for the attention mask and other fields), then concatenated along the batch."""
    length = max(first["input_ids"].shape[1], second["input_ids"].shape[1])

    def padded(name: str, tensor: torch.Tensor) -> torch.Tensor:
        value = pad_id if name == "input_ids" else 0
        return nn.functional.pad(tensor, (0, length - tensor.shape[1]), value=value)

    return {name: torch.cat([padded(name, first[name]), padded(name, second[name])]) for name in first}


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

    def __init__(
        self,
        encoder: nn.Module,
        tokenizer,
        *,
        features: str = HEAD_FEATURES[0],
        classification: bool = False,
        scheme: LabelScheme = STS,
        max_length: int = 256,
        base_model: str = "",
        trust_remote_code: bool = False,
        target: str = "head",
    ):
        super().__init__()
        if features not in HEAD_FEATURES:
            raise InputError(
                "unknown_head_features", features=repr(features), head_features=", ".join(HEAD_FEATURES)
            )
        if target not in TARGETS:
            raise InputError("unknown_target", target=repr(target), targets=", ".join(TARGETS))
        if classification and target != "head":
            raise InputError("classification_target")
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
    def from_encoder(
        cls, name_or_path: str | None = None, allowed_roots: list[Path] | None = None, **options
    ) -> SiameseRegressor:
        """A fresh head over a pretrained encoder (hub id, local folder, or None for the embedded default)."""
        source, trust = resolve_model(name_or_path, allowed_roots)
        tokenizer, encoder = _load_encoder(source, trust)
        base = str(name_or_path or "all-MiniLM-L6-v2")
        return cls(encoder, tokenizer, base_model=base, trust_remote_code=trust, **options)

    @classmethod
    def load(
        cls,
        name_or_path: str | None = None,
        allowed_roots: list[Path] | None = None,
        keep_adapter: bool = False,
    ) -> SiameseRegressor:
        """A saved scorer, or any encoder with a fresh head when the folder holds no scorer.

        A scorer saved with ``encoder_weights="none"`` (the head or calibration only) or ``"lora"`` (a peft
        adapter) takes its encoder from ``base_model``; the adapter is merged into it on load, or with
        ``keep_adapter`` kept as a (frozen) adapter, so that the scorer saves as an adapter again.
        """
        source, trust = resolve_model(name_or_path, allowed_roots)
        folder = Path(source)
        if not save_format.is_scorer(folder):
            return cls.from_encoder(name_or_path, allowed_roots)
        config = save_format.read_config(folder)
        options = save_format.read_options(folder, config)
        weights = save_format.stored_encoder(config)
        if save_format.encoder_from_base(config):
            # The encoder comes from where the scorer was trained from (allowed: it was chosen when saving).
            encoder_source, trust = resolve_model(options["base_model"])
        else:
            encoder_source = source
        tokenizer, encoder = _load_encoder(encoder_source, trust)
        if weights == "lora":
            encoder = save_format.attach_adapter(encoder, folder, merge=not keep_adapter)
        model = cls(encoder, tokenizer, trust_remote_code=trust, **options)
        model.lora = weights == "lora" and keep_adapter
        model.base_weights = weights == "none" or model.lora
        save_format.read_head(folder, model.head)
        return model

    def add_lora(self, rank: int, alpha: float | None = None, dropout: float = 0.1) -> None:
        """Train the encoder through a LoRA adapter of ``rank`` on every linear layer (peft); the original
        weights are frozen. ``save`` then writes the adapter alone, and ``load`` merges it back."""
        from peft import LoraConfig, get_peft_model

        config = LoraConfig(
            r=rank, lora_alpha=alpha or 2 * rank, lora_dropout=dropout, target_modules="all-linear"
        )
        self.encoder = get_peft_model(self.encoder, config)
        self.lora = True

    def save(
        self,
        folder: str | os.PathLike,
        head_only: bool = False,
        fp16: bool = False,
        beside: Callable[[Path], None] | None = None,
    ) -> Path:
        """Write the model atomically (:func:`stsdemo.save_format.write`). ``head_only`` writes just the head
        and config (a few KB), for an encoder that was not trained: loading takes the encoder from
        ``base_model``. A LoRA-trained encoder is saved as its adapter (a few MB; :meth:`export` writes it
        merged). ``fp16`` halves the encoder's weights on disk (they are computed in fp32 again on load).
        ``beside(folder)`` writes the records that go with these weights, swapped in with them as one.
        """
        if self.lora and not self.base_weights:  # an adapter over changed weights: only merged is complete
            return self.export(folder, fp16=fp16, beside=beside)
        weights = (
            "lora" if self.lora else "none" if head_only and self.base_weights else "fp16" if fp16 else "full"
        )
        return save_format.write(self, folder, weights, beside)

    def export(
        self, folder: str | os.PathLike, fp16: bool = False, beside: Callable[[Path], None] | None = None
    ) -> Path:
        """Save with the encoder's full weights (a LoRA adapter merged in), so the folder also loads as
        ``SentenceTransformer(folder)``; ``beside`` as for :meth:`save`."""
        if not self.lora:
            return self.save(folder, fp16=fp16, beside=beside)
        merged = copy.deepcopy(self)
        merged.encoder, merged.lora, merged.base_weights = merged.encoder.merge_and_unload(), False, False
        return merged.save(folder, fp16=fp16, beside=beside)

    # ---- computation -----------------------------------------------------------------------------

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def tokenize(self, sentences: list[str]) -> dict[str, torch.Tensor]:
        """Token ids padded to the batch's own longest sentence, truncated at ``max_length``."""
        with tokenizer_lock(self.tokenizer):
            batch = self.tokenizer(
                list(sentences),
                padding=True,
                truncation=True,
                max_length=min(self.max_length, self.max_positions),
                return_tensors="pt",
            )
        return {name: to_device(tensor, self.device) for name, tensor in batch.items()}

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
            [len(batch1["input_ids"]), len(batch2["input_ids"])]
        )
        return SiameseOutput(self.predict_embeddings(u, v), u, v)

    @torch.inference_mode()
    def encode(
        self,
        sentences: list[str],
        batch_size: int | None = None,
        max_length: int | None = None,
        batch_tokens: int | None = None,
    ) -> np.ndarray:
        """Mean-pooled embeddings ``(n, hidden)`` as float32; ``max_length`` tokens per sentence (default the
        model's own ``max_length``; never more than its position table).

        The sentences are tokenized once and sorted by token count, so each batch pads to little more than its
        own length (on 2 CPU cores 20 % faster than batching by character count). A batch holds ``batch_size``
        sentences when given, else as many as fit ``batch_tokens`` padded tokens (default :data:`BATCH_TOKENS` for
        the device): many short sentences, few long ones. In the encoder's own fp32 on every device, with no
        autocast: on a GPU an evaluation is bound by tokenizing and padding, not by arithmetic, and fp32 gives the
        scores a CPU gives.
        """
        out = np.zeros((len(sentences), self.encoder.config.hidden_size), dtype=np.float32)
        if not sentences:
            return out
        self.eval()
        with tokenizer_lock(self.tokenizer):
            encoded = self.tokenizer(
                list(sentences),
                truncation=True,
                max_length=min(max_length or self.max_length, self.max_positions),
            )
        lengths = np.array([len(ids) for ids in encoded["input_ids"]])
        order = np.argsort(-lengths, kind="stable")
        chunks = []  # kept on the device and copied back once: no wait for the GPU between batches
        tokens = batch_tokens or BATCH_TOKENS.get(self.device.type, BATCH_TOKENS["cpu"])
        for index in batches_of(lengths[order], batch_size, tokens):
            index = order[index]
            with tokenizer_lock(self.tokenizer):
                batch = self.tokenizer.pad(
                    {name: [values[i] for i in index] for name, values in encoded.items()},
                    return_tensors="pt",
                )
            batch = {name: to_device(tensor, self.device) for name, tensor in batch.items()}
            chunks.append(self.embed(batch).float())
        out[order] = torch.cat(chunks).cpu().numpy()
        return out

    @torch.inference_mode()
    def score_embeddings(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Head predictions on the scheme's line from precomputed embeddings.

        A classification head gives the probability-weighted mean of the nodes, so it can be ranked
        (Spearman) and rounded like a regression output.
        """
        self.eval()
        out = self.predict_embeddings(
            torch.as_tensor(u, device=self.device, dtype=torch.float32),
            torch.as_tensor(v, device=self.device, dtype=torch.float32),
        )
        if self.classification:
            nodes = torch.as_tensor(self.scheme.nodes, device=out.device, dtype=out.dtype)
            out = out.softmax(-1) @ nodes
        return out.float().cpu().numpy()

    @torch.inference_mode()
    def classify_embeddings(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The category index of each pair: the arg-max of a classification head's logits, else the node
        nearest to the prediction (the paper's rule for a regression on ordered labels)."""
        if not self.classification:
            return self.scheme.nearest_index(self.score_embeddings(u, v))
        self.eval()
        logits = self.predict_embeddings(
            torch.as_tensor(u, device=self.device, dtype=torch.float32),
            torch.as_tensor(v, device=self.device, dtype=torch.float32),
        )
        return logits.argmax(-1).cpu().numpy()

    def predict(self, sentences1: list[str], sentences2: list[str]) -> np.ndarray:
        """One float per pair on the scheme's line; ``scheme.category(value)`` names its category."""
        if len(sentences1) != len(sentences2):
            raise InputError("sentence_counts", n_sentences1=len(sentences1), n_sentences2=len(sentences2))
        embeddings = self.encode(list(sentences1) + list(sentences2))
        return self.score_embeddings(embeddings[: len(sentences1)], embeddings[len(sentences1) :])
