"""Scoring pairs with a trained regressor: one pair, or a whole CSV, for the CLI and the app alike."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .atomic import atomic_write
from .data import MAX_SENTENCE_CHARS, PairSet, clean_text, load_csv
from .data.user_files import spreadsheet_cell
from .errors import InputError
from .evaluate import cosine_rows, spearman100
from .labels import LabelScheme
from .model import SiameseRegressor

MAX_CSV_ROWS = 50_000  # rows scored from one file by default (the app sets its own, smaller limit)
CHUNK_TOKENS = 16_384  # tokens embedded between two progress reports (about 1 s of MiniLM on 2 CPU cores)

__all__ = [
    "MAX_SENTENCE_CHARS",
    "PairScore",
    "score_pair",
    "score_csv",
    "score_pairs",
    "scoring_steps",
    "load_pairs_to_score",
    "check_output_path",
    "label_summary",
    "scored_file_summary",
]


@dataclass
class PairScore:
    prediction: float  # the head's float on the scheme's line
    category: str  # name of the nearest node
    node: float  # position of that node
    cosine: float  # cosine similarity of the two mean-pooled embeddings
    notice: str  # "" or what was done to the input (truncation)

    def to_dict(self) -> dict:
        return asdict(self)


def token_notice(model: SiameseRegressor, sentences: list[str], labels: list[str]) -> str:
    """Say which sentences the encoder will see only in part (longer than ``max_length`` tokens)."""
    lengths = model.token_counts(sentences)
    cut = [f"{label} ({n} tokens)" for label, n in zip(labels, lengths) if n > model.max_length]
    return f"truncated to {model.max_length} tokens: {', '.join(cut)}" if cut else ""


def shown_cosines(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each pair's cosine as a visitor reads it, cut to [-1, 1]: float32 rounding puts a vector's cosine with
    itself (a pair of equal sentences) a hair past 1, as 1.0000002. Evaluation keeps the uncut ranks."""
    return np.clip(cosine_rows(u, v), -1.0, 1.0)


def score_pair(
    model: SiameseRegressor, sentence1: str, sentence2: str, scheme: LabelScheme | None = None
) -> PairScore:
    """Score one pair: the float, its category under ``scheme`` (default: the model's), the cosine."""
    scheme = scheme or model.scheme
    first, note1 = clean_text(sentence1, "sentence 1")
    second, note2 = clean_text(sentence2, "sentence 2")
    notice = "; ".join(
        n for n in (note1, note2, token_notice(model, [first, second], ["sentence 1", "sentence 2"])) if n
    )
    u, v = model.encode([first, second])
    prediction = float(model.score_embeddings(u[None], v[None])[0])
    index = int(scheme.nearest_index([prediction])[0])
    cosine = float(shown_cosines(u[None], v[None])[0])
    return PairScore(prediction, scheme.categories[index], float(scheme.nodes[index]), cosine, notice)


def check_output_path(out_path: str | os.PathLike) -> Path:
    """The path a result file may be written to: not a folder, in a folder that exists or can be made."""
    out_path = Path(out_path).expanduser()
    if out_path.is_dir():
        raise InputError("output_is_folder", out_path=repr(str(out_path)))
    parent = out_path.parent
    if parent.exists() and not parent.is_dir():
        raise InputError("output_parent", out_path=repr(str(out_path)), parent=repr(str(parent)))
    return out_path


def load_pairs_to_score(
    model: SiameseRegressor,
    path: str | os.PathLike,
    scheme: LabelScheme | None = None,
    max_rows: int = MAX_CSV_ROWS,
    max_bytes: int | None = None,
    max_tokens: int | None = None,
) -> PairSet:
    """The pairs of a CSV/TSV with two sentence columns (a label column is optional), read and checked before
    anything is embedded: ``max_tokens`` caps the work (every sentence's tokens, each cut to the model's max
    length). Bad files raise InputError."""
    extra = {} if max_bytes is None else dict(max_bytes=max_bytes)
    pairs = load_csv(path, scheme or model.scheme, max_rows=max_rows, require_label=False, **extra)
    if max_tokens is not None:
        tokens = sum(
            min(count, model.max_length) for count in model.token_counts(pairs.sentences1 + pairs.sentences2)
        )
        if tokens > max_tokens:
            raise InputError(
                "too_many_tokens", name=Path(path).name, tokens=f"{tokens:,}", max_tokens=f"{max_tokens:,}"
            )
    return pairs


def score_csv(
    model: SiameseRegressor,
    path: str | os.PathLike,
    out_path: str | os.PathLike,
    scheme: LabelScheme | None = None,
    max_rows: int = MAX_CSV_ROWS,
    max_bytes: int | None = None,
    max_tokens: int | None = None,
) -> Path:
    """Score every row of a CSV/TSV (:func:`load_pairs_to_score` reads and checks it; bad files raise
    InputError before anything is written) and write the scored file (:func:`score_pairs`)."""
    out_path = check_output_path(out_path)
    pairs = load_pairs_to_score(model, path, scheme, max_rows, max_bytes, max_tokens)
    return score_pairs(model, pairs, out_path, scheme)


def embedding_steps(
    model: SiameseRegressor, sentences: list[str], chunk_tokens: int = CHUNK_TOKENS
) -> Iterator[tuple[float, np.ndarray | None]]:
    """Embed ``sentences`` (each distinct one once) in chunks of about ``chunk_tokens`` tokens, longest first so
    each chunk pads little: ``(share of the tokens embedded, None)`` after each chunk, then ``(1.0, embeddings)``
    in the sentences' order."""
    unique = list(dict.fromkeys(sentences))
    lengths = np.minimum(model.token_counts(unique), model.max_length) if unique else np.zeros(0)
    order = np.argsort(-lengths, kind="stable")
    total, done, start = max(1, int(lengths.sum())), 0, 0
    rows = {}
    while start < len(order):
        end, size = start, 0
        while end < len(order) and (end == start or size + lengths[order[end]] <= chunk_tokens):
            size, end = size + int(lengths[order[end]]), end + 1
        chunk = [unique[i] for i in order[start:end]]
        rows.update(zip(chunk, model.encode(chunk)))
        done, start = done + size, end
        yield done / total, None
    hidden = model.encoder.config.hidden_size
    yield (
        1.0,
        np.stack([rows[s] for s in sentences]) if sentences else np.zeros((0, hidden), dtype=np.float32),
    )


def scoring_steps(
    model: SiameseRegressor,
    pairs: PairSet,
    out_path: str | os.PathLike,
    scheme: LabelScheme | None = None,
    chunk_tokens: int = CHUNK_TOKENS,
) -> Iterator[float]:
    """Score loaded pairs and write the scored CSV atomically (see :func:`score_pairs`), yielding the share of
    the work done after each chunk embedded (:func:`embedding_steps`); the file is written after the last."""
    scheme = scheme or model.scheme
    out_path = check_output_path(out_path)
    for fraction, embeddings in embedding_steps(model, pairs.sentences1 + pairs.sentences2, chunk_tokens):
        if embeddings is None:
            yield fraction
    _write_scored(model, pairs, embeddings, out_path, scheme)


def score_pairs(
    model: SiameseRegressor, pairs: PairSet, out_path: str | os.PathLike, scheme: LabelScheme | None = None
) -> Path:
    """Score loaded pairs and write ``sentence1, sentence2, [label,] prediction, category, node, cosine`` to
    ``out_path`` atomically (a kill mid-write leaves the old file or none); a text cell that a spreadsheet would
    run as a formula is written as text (:func:`stsdemo.data.user_files.spreadsheet_cell`)."""
    out_path = check_output_path(out_path)
    for _ in scoring_steps(model, pairs, out_path, scheme):
        pass
    return out_path


def _write_scored(
    model: SiameseRegressor, pairs: PairSet, embeddings: np.ndarray, out_path: Path, scheme: LabelScheme
) -> None:
    """The scored CSV of ``pairs`` from their sentences' ``embeddings`` (first sentences, then second)."""
    u, v = embeddings[: len(pairs)], embeddings[len(pairs) :]
    predictions = model.score_embeddings(u, v)
    indices = scheme.nearest_index(predictions)
    cosines = shown_cosines(u, v)
    has_labels = not np.isnan(pairs.labels).all()
    with atomic_write(out_path, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["sentence1", "sentence2"]
            + (["label"] if has_labels else [])
            + ["prediction", "category", "node", "cosine"]
        )
        for i, (a, b) in enumerate(zip(pairs.sentences1, pairs.sentences2)):
            label = [f"{pairs.labels[i]:g}"] if has_labels else []
            writer.writerow(
                [
                    spreadsheet_cell(a),
                    spreadsheet_cell(b),
                    *label,
                    f"{predictions[i]:.4f}",
                    spreadsheet_cell(scheme.categories[indices[i]]),
                    f"{scheme.nodes[indices[i]]:g}",
                    f"{cosines[i]:.4f}",
                ]
            )


def label_summary(labels, predictions, scheme: LabelScheme) -> str:
    """One line on how scored pairs agree with their labels: the Spearman correlation (x100) of prediction and
    label, and the share of pairs whose prediction rounds to the label's node ("on node", as the benchmarks
    count it). "" when no pair has a label."""
    labels, predictions = np.asarray(labels, dtype=np.float64), np.asarray(predictions, dtype=np.float64)
    known = ~np.isnan(labels)
    n = int(known.sum())
    if n == 0:
        return ""
    on_node = float(scheme.node_accuracy(predictions[known], labels[known]))
    spearman = (
        f"Spearman {spearman100(predictions[known], labels[known]):.2f}"
        if n > 1 and np.ptp(labels[known]) > 0 and np.ptp(predictions[known]) > 0
        else "Spearman not defined (fewer than two distinct labels or predictions)"
    )
    return (
        f"{n:,} labelled pairs: {spearman} (x100, prediction vs label); {on_node:.1f}% on the label's node."
    )


def scored_file_summary(path: str | os.PathLike, scheme: LabelScheme) -> str:
    """:func:`label_summary` of a file :func:`score_pairs` wrote ("" when it has no label column)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or "label" not in rows[0]:
        return ""
    return label_summary([float(r["label"]) for r in rows], [float(r["prediction"]) for r in rows], scheme)
