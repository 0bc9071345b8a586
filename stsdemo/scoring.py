"""Scoring pairs with a trained regressor: one pair, or a whole CSV, for the CLI and the app alike."""

from __future__ import annotations

import csv
import os
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .data import load_csv
from .errors import InputError
from .labels import LabelScheme
from .model import SiameseRegressor

MAX_SENTENCE_CHARS = 20_000  # longer text is cut before tokenizing; the encoder sees max_length tokens anyway


@dataclass
class PairScore:
    prediction: float    # the head's float on the scheme's line
    category: str        # name of the nearest node
    node: float          # position of that node
    cosine: float        # cosine similarity of the two mean-pooled embeddings
    notice: str          # "" or what was done to the input (truncation)

    def to_dict(self) -> dict:
        return asdict(self)


def clean_sentence(text, label: str = "sentence") -> tuple[str, str]:
    """Return the sentence ready to encode and a notice ('' if none); reject empty input.

    Control characters are dropped (they carry no meaning and some tokenizers choke on them); emoji and
    right-to-left text are kept as they are.
    """
    if text is None or not isinstance(text, str):
        raise InputError(f"{label} must be text, got {type(text).__name__}")
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cc" or ch in "\t\n").strip()
    if not text:
        raise InputError(f"{label} is empty; type a sentence with at least one visible character")
    if len(text) > MAX_SENTENCE_CHARS:
        return text[:MAX_SENTENCE_CHARS], f"{label} was cut to its first {MAX_SENTENCE_CHARS:,} characters"
    return text, ""


def token_notice(model: SiameseRegressor, sentences: list[str], labels: list[str]) -> str:
    """Say which sentences the encoder will see only in part (longer than ``max_length`` tokens)."""
    lengths = [len(ids) for ids in model.tokenizer(sentences, truncation=False)["input_ids"]]
    cut = [f"{label} ({n} tokens)" for label, n in zip(labels, lengths) if n > model.max_length]
    return f"truncated to {model.max_length} tokens: {', '.join(cut)}" if cut else ""


def cosine(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1)
    return (u * v).sum(-1) / np.maximum(norms, 1e-12)


def score_pair(model: SiameseRegressor, sentence1: str, sentence2: str, scheme: LabelScheme | None = None) -> PairScore:
    """Score one pair: the float, its category under ``scheme`` (default: the model's), the cosine."""
    scheme = scheme or model.scheme
    first, note1 = clean_sentence(sentence1, "sentence 1")
    second, note2 = clean_sentence(sentence2, "sentence 2")
    notice = "; ".join(n for n in (note1, note2, token_notice(model, [first, second], ["sentence 1", "sentence 2"])) if n)
    u, v = model.encode([first, second])
    prediction = float(model.score_embeddings(u[None], v[None])[0])
    index = int(scheme.nearest_index([prediction])[0])
    return PairScore(prediction, scheme.categories[index], float(scheme.nodes[index]), float(cosine(u, v)), notice)


def score_csv(model: SiameseRegressor, path: str | os.PathLike, out_path: str | os.PathLike,
              scheme: LabelScheme | None = None, max_rows: int = 50_000) -> Path:
    """Score every row of a CSV/TSV with two sentence columns (a label column is optional).

    Writes ``sentence1, sentence2, [label,] prediction, category, cosine`` to ``out_path`` atomically.
    """
    scheme = scheme or model.scheme
    pairs = load_csv(path, scheme, max_rows=max_rows, require_label=False)
    embeddings = model.encode(pairs.sentences1 + pairs.sentences2)
    u, v = embeddings[: len(pairs)], embeddings[len(pairs):]
    predictions = model.score_embeddings(u, v)
    categories = [scheme.categories[i] for i in scheme.nearest_index(predictions)]
    has_labels = not np.isnan(pairs.labels).all()
    out_path = Path(out_path)
    staging = out_path.with_name(f".{out_path.name}.tmp")
    with open(staging, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2"] + (["label"] if has_labels else []) + ["prediction", "category", "cosine"])
        for i, (a, b) in enumerate(zip(pairs.sentences1, pairs.sentences2)):
            label = [f"{pairs.labels[i]:g}"] if has_labels else []
            writer.writerow([a, b, *label, f"{predictions[i]:.4f}", categories[i], f"{cosine(u[i], v[i]):.4f}"])
    os.replace(staging, out_path)
    return out_path
