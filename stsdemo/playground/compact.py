"""A Playground data set ready to play, in one compact safetensors file that the page's engine and the Python core
both read, so both train on identical inputs.

Sentence vectors are stored as int8 codes with one float32 scale per sentence (``scale = max |v| / 127``,
``code = round(v / scale)``): a quarter of float32's size, so the static site's STS-B and SNLI sets fit in about
10 MB. Every reader turns them back into float64 the same way, ``code * scale``, a product that float64 holds
exactly, so nothing depends on the language that reads them. The rounding moves an all-MiniLM-L6-v2 cosine by
about 0.001 (``python -m bench.perf.browser_playground`` measures what it does to the report set's Spearman).

The file's tensors: ``codes`` int8 ``(sentences, dim)``, ``scales`` float32 ``(sentences,)``, ``train_u``,
``train_v``, ``held_u``, ``held_v`` int32 (sentence positions) and ``train_labels``, ``held_labels`` float64;
its metadata: ``format`` (:data:`FORMAT`), ``name``, ``title``, ``model``, ``scheme`` (JSON: name and
categories) and ``sentences`` (JSON list), or in a pinned file (:mod:`.pinned`) ``sentences_sha256`` instead.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import torch
from safetensors import safe_open
from safetensors.numpy import load_file, save

from ..atomic import atomic_write
from ..labels import LabelScheme
from .datasets import PairIndex, PlaygroundData

FORMAT = "stsdemo-playground-1"
CODE_MAX = 127


def sentences_digest(sentences: list[str]) -> str:
    """The sha256 of a sentence list, each sentence's UTF-8 bytes closed by a zero byte."""
    digest = hashlib.sha256()
    for sentence in sentences:
        digest.update(sentence.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes and float32 per-row scales of ``vectors`` ``(rows, dim)`` (a zero row gets scale 1)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    largest = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors), dtype=np.float32)
    scales = np.where(largest > 0, largest / CODE_MAX, 1).astype(np.float32)
    codes = np.clip(np.rint(vectors / scales[:, None]), -CODE_MAX, CODE_MAX).astype(np.int8)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> torch.Tensor:
    """The float64 vectors every reader trains on: ``code * scale``, exact in float64."""
    return torch.from_numpy(codes.astype(np.float64) * scales.astype(np.float64)[:, None])


def write_compact(
    path: Path,
    data: PlaygroundData,
    codes: np.ndarray,
    scales: np.ndarray,
    model: str,
    sentences: bool = True,
) -> int:
    """Write :func:`compact_bytes` to ``path`` (atomically); the file's size in bytes."""
    payload = compact_bytes(data, codes, scales, model, sentences)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "wb", encoding=None) as handle:
        handle.write(payload)
    return len(payload)


def compact_bytes(
    data: PlaygroundData, codes: np.ndarray, scales: np.ndarray, model: str, sentences: bool = True
) -> bytes:
    """``data`` and its sentences' codes as a compact file. Without ``sentences`` the file holds numbers only, and
    the sentence list's sha256 (a pinned file, :mod:`.pinned`)."""
    tensors = {
        "codes": codes,
        "scales": scales,
        "train_u": data.train.u.astype(np.int32),
        "train_v": data.train.v.astype(np.int32),
        "held_u": data.held_out.u.astype(np.int32),
        "held_v": data.held_out.v.astype(np.int32),
        "train_labels": np.asarray(data.train.labels, dtype=np.float64),
        "held_labels": np.asarray(data.held_out.labels, dtype=np.float64),
    }
    scheme = {"name": data.scheme.name, "categories": list(data.scheme.categories)}
    metadata = {
        "format": FORMAT,
        "name": data.name,
        "title": data.title,
        "model": model,
        "scheme": json.dumps(scheme),
    }
    if sentences:
        metadata["sentences"] = json.dumps(data.sentences, ensure_ascii=False)
    else:
        metadata["sentences_sha256"] = sentences_digest(data.sentences)
    return save(tensors, metadata=metadata)


def read_compact(path: Path) -> tuple[PlaygroundData, torch.Tensor]:
    """The data set in ``path`` and its float64 sentence vectors; ValueError for a file of another format."""
    with safe_open(str(path), framework="numpy") as handle:
        metadata = handle.metadata() or {}
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{Path(path).name} is not a Playground data file ({FORMAT})")
    tensors = load_file(str(path))
    scheme = json.loads(metadata["scheme"])
    data = PlaygroundData(
        metadata["name"],
        json.loads(metadata.get("sentences", "[]")),
        PairIndex(
            tensors["train_u"].astype(np.int64), tensors["train_v"].astype(np.int64), tensors["train_labels"]
        ),
        PairIndex(
            tensors["held_u"].astype(np.int64), tensors["held_v"].astype(np.int64), tensors["held_labels"]
        ),
        LabelScheme(scheme["name"], tuple(scheme["categories"])),
        metadata["title"],
    )
    return data, dequantize(tensors["codes"], tensors["scales"])
