"""Each distinct sentence of a data set embedded once by a frozen encoder, and kept on disk.

The heads of the Playground read only these vectors, so a run on 13,000 STS-B sentences costs one encoding pass
(45.7 s cold for the embedded all-MiniLM-L6-v2 on 2 CPU cores, recorded by ``python -m bench.perf.playground_speed``)
and every later run a file read (0.02 s). The file is ``<cache dir>/playground/<key>.safetensors``: the vectors in the
compact form the page's engine reads too (:mod:`.compact`: int8 ``codes`` (sentences x dim) and float32
``scales``), in the order of the data set's sentence list, where

    key = sha256(encoder fingerprint, max length, the sentence list)[:24]

and the encoder fingerprint names the files its weights come from (name, size, modification time of each file
of the model folder, and of the base model's folder for a scorer stored as a head or an adapter; a hub id
stands for itself). Another model, changed weights, other data or another max length is another key, so a
cache is never read for anything but what it was computed from. A damaged file is computed again. A table is
written through :func:`stsdemo.atomic.atomic_write` (``.<key>.safetensors.<random>.tmp``, then renamed): the
temporary file a killed writer leaves is removed at the app's next start-up (:mod:`stsdemo.serving.session_files`).
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.numpy import load_file, save

from .. import environment, save_format
from ..atomic import atomic_write
from ..model_source import resolve_model
from .compact import dequantize, quantize

CACHE_VERSION = 2  # 2: int8 codes and scales, as the page reads them
MAX_LENGTH = 128  # tokens per sentence: STS-B and SNLI sentences are far shorter
CHUNK = 512  # sentences per encode call: the progress callback's granularity
KEEP_FILES = 16  # cached tables kept; the least recently used beyond these are removed

Progress = Callable[[int, int], None]  # (sentences embedded so far, all of them)


@dataclass(frozen=True)
class Encoder:
    """What embeds sentences: a name for people, a fingerprint of its weights, its max length and
    ``encode(list[str]) -> (n, dim)``."""

    name: str
    fingerprint: str
    max_length: int
    encode: Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class Embeddings:
    """A data set's sentence vectors and where they came from: ``codes`` and ``scales`` as stored
    (:func:`.compact.quantize`), ``vectors`` the float64 ``(sentences, dim)`` every run reads."""

    codes: np.ndarray
    scales: np.ndarray
    key: str
    from_cache: bool
    seconds: float

    @functools.cached_property
    def vectors(self) -> torch.Tensor:
        return dequantize(self.codes, self.scales)


def cache_folder() -> Path:
    return environment.cache_dir() / "playground"


def files_fingerprint(source: str) -> str:
    """Name, size and modification time of each file of a model folder (and of its base model's folder when
    a saved scorer takes its encoder from there); a hub id stands for itself."""
    folder = Path(source)
    if not folder.is_dir():
        return f"hub:{source}"
    entries = [
        f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in sorted(folder.iterdir()) if f.is_file()
    ]
    if save_format.is_scorer(folder):
        config = save_format.read_config(folder)
        if save_format.encoder_from_base(config):
            entries.append("base=" + files_fingerprint(resolve_model(config.get("base_model", ""))[0]))
    return f"{folder.resolve()}|" + "|".join(entries)


def encoder_from(source: str, load: Callable[[], object], name: str | None = None) -> Encoder:
    """The encoder of the model at ``source`` (a folder or hub id): its fingerprint is read from its files, and
    ``load()`` (which gives a :class:`~stsdemo.model.SiameseRegressor`; its head is not used) is called only when
    sentences must be encoded, so a cached table is found without loading the model. ``name``: how people call
    it (default: the folder's name)."""
    shown = name or (Path(source).name if Path(source).is_dir() else source)
    model = functools.cache(load)  # loaded once, at the first sentences to encode
    return Encoder(
        shown,
        files_fingerprint(source),
        MAX_LENGTH,
        lambda sentences: model().encode(sentences, max_length=MAX_LENGTH),
    )


def cache_key(encoder: Encoder, sentences: list[str]) -> str:
    digest = hashlib.sha256(f"v{CACHE_VERSION}|{encoder.fingerprint}|{encoder.max_length}|".encode())
    for sentence in sentences:
        digest.update(sentence.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()[:24]


def encode_with_progress(
    encode: Callable[[list[str]], np.ndarray],
    sentences: list[str],
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> np.ndarray:
    """``encode`` over ``sentences`` in chunks of similar length (longest first, so each chunk pads little),
    calling ``progress(done, total)`` after each; the rows come back in the sentences' own order."""
    order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
    out = None
    for start in range(0, len(order), chunk):
        index = order[start : start + chunk]
        vectors = np.asarray(encode([sentences[i] for i in index]), dtype=np.float32)
        if out is None:
            out = np.zeros((len(sentences), vectors.shape[1]), dtype=np.float32)
        out[index] = vectors
        if progress is not None:
            progress(min(start + chunk, len(order)), len(order))
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def _read(path: Path, count: int) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        tensors = load_file(path)
        codes, scales = tensors["codes"], tensors["scales"]
    except (OSError, SafetensorError, KeyError):
        return None
    return (codes, scales) if codes.ndim == 2 and codes.shape[0] == count == scales.shape[0] else None


def _write(path: Path, codes: np.ndarray, scales: np.ndarray, encoder: Encoder) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = save(
        {"codes": codes, "scales": scales}, metadata={"model": encoder.name, "version": str(CACHE_VERSION)}
    )
    with atomic_write(path, "wb", encoding=None) as handle:
        handle.write(payload)
    kept = sorted(path.parent.glob("*.safetensors"), key=lambda f: f.stat().st_mtime, reverse=True)
    for stale in kept[KEEP_FILES:]:
        stale.unlink(missing_ok=True)


def embed_sentences(
    sentences: list[str], encoder: Encoder, progress: Progress | None = None, folder: Path | None = None
) -> Embeddings:
    """The vectors of ``sentences`` under ``encoder``: read from the cache (``folder``, default
    :func:`cache_folder`) when it holds them, else encoded (with ``progress``) and written there."""
    started = time.perf_counter()
    key = cache_key(encoder, sentences)
    path = (folder or cache_folder()) / f"{key}.safetensors"
    stored = _read(path, len(sentences)) if path.is_file() else None
    if stored is not None:
        path.touch()  # recently used: kept when the folder is pruned
        return Embeddings(*stored, key, True, time.perf_counter() - started)
    codes, scales = quantize(encode_with_progress(encoder.encode, sentences, progress))
    _write(path, codes, scales, encoder)
    return Embeddings(codes, scales, key, False, time.perf_counter() - started)
