"""The final evaluation of a trained model on the 7 SentEval STS tasks, with progress, and its cache.

:func:`scoring_steps` encodes each distinct test sentence once, in chunks (so a front end can show progress),
then scores what the model's *reading* allows (:func:`reading_for`):

* ``cosine``: Spearman x100 of the embeddings' cosine per task, and Avg. (SimCSE's SentEval protocol: what the
  benchmark ranks). Every model gets it; a model on another label line (NLI) gets only it.
* ``prediction``: also the Spearman x100 of the model's own prediction (its head or ``a*cos + b``) and the node
  accuracy: the share (%) of pairs whose prediction is nearest the gold label's node.
* ``fitted``: a run whose loss trains no prediction (Pcc-tuning, InfoNCE leave the head untrained) reads its node
  accuracy from ``a*cos + b`` fitted by least squares on STS-B dev, never on test.

:class:`ResultCache` keeps a base encoder's cosine results on disk, keyed by the encoder's files: 7-task
results depend on the encoder alone, so a base model is evaluated once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import save_format
from .atomic import write_json_atomic
from .data import PairSet
from .evaluate import EncodeCache, cosine_rows, dev_metrics, evaluate_senteval
from .labels import STS
from .losses.spec import LOSSES
from .model_source import resolve_model

READINGS = ("cosine", "prediction", "fitted")


@dataclass
class TestScores:
    """One model's 7-task scores: ``cosine`` always; ``prediction`` and ``node_accuracy`` (each per task and
    Avg.) for a model on the STS line; ``node_from`` says which prediction the node accuracy reads."""

    cosine: dict[str, float]
    prediction: dict[str, float] | None = None
    node_accuracy: dict[str, float] | None = None
    node_from: str = ""

    def rows(self, label: str) -> dict[str, dict[str, float]]:
        """The rows of a results table (``stsdemo eval``, ``senteval.json``): the cosine row named ``label``,
        then ``label (prediction)`` and ``label (on the right node %)`` where scored."""
        rows = {label: self.cosine}
        if self.prediction is not None:
            rows[f"{label} (prediction)"] = self.prediction
        if self.node_accuracy is not None:
            rows[f"{label} (on the right node %)"] = self.node_accuracy
        return rows


def reading_for(scheme_categories, loss: str | None) -> str:
    """What a model's final evaluation scores (one of :data:`READINGS`): ``cosine`` for a model off the STS line,
    ``fitted`` for one trained by a loss that leaves its prediction untrained, else ``prediction``."""
    if tuple(scheme_categories) != tuple(STS.categories):
        return "cosine"
    return "fitted" if loss is not None and not LOSSES[loss].trains_prediction else "prediction"


def _with_average(row: dict[str, float]) -> dict[str, float]:
    return {**row, "Avg.": float(np.mean(list(row.values())))}


def fitted_line(cache: EncodeCache, dev: PairSet) -> tuple[float, float]:
    """``(a, b)`` of ``a*cos + b`` fitted by least squares to ``dev``'s labels."""
    scale, bias = np.polyfit(cosine_rows(cache(dev.sentences1), cache(dev.sentences2)), dev.labels, 1)
    return float(scale), float(bias)


def _scores(
    model, sets: dict[str, PairSet], cache: EncodeCache, reading: str, dev: PairSet | None
) -> TestScores:
    """The scores of ``reading`` from embeddings already in ``cache``."""
    cosine = evaluate_senteval(cache, tasks=tuple(sets), test_sets=sets)
    if reading == "cosine":
        return TestScores(cosine)
    if reading == "prediction":
        metrics = {task: dev_metrics(cache.scorer(model), pairs) for task, pairs in sets.items()}
        return TestScores(
            cosine,
            _with_average({t: m["head_spearman"] for t, m in metrics.items()}),
            _with_average({t: m["accuracy"] for t, m in metrics.items()}),
            "the model's own prediction",
        )
    scale, bias = fitted_line(cache, dev)
    fitted = {
        task: scale * cosine_rows(cache(pairs.sentences1), cache(pairs.sentences2)) + bias
        for task, pairs in sets.items()
    }
    nodes = {
        task: float(pairs.scheme.node_accuracy(fitted[task], pairs.labels)) for task, pairs in sets.items()
    }
    return TestScores(
        cosine, None, _with_average(nodes), f"a*cos + b fitted on STS-B dev (a={scale:.3f}, b={bias:.3f})"
    )


def scoring_steps(
    model,
    sets: dict[str, PairSet],
    reading: str = "cosine",
    dev: PairSet | None = None,
    stop: threading.Event | None = None,
    chunk: int = 1024,
) -> Iterator[tuple[float, TestScores | None]]:
    """Yield ``(fraction encoded, None)`` while encoding the test sets (and, for ``fitted``, the ``dev`` set
    the line is fitted on), then ``(1.0, scores)``. Each distinct sentence is encoded once; a set ``stop``
    ends it early, without scores."""
    if reading not in READINGS or (reading == "fitted" and dev is None):
        raise ValueError(f"reading {reading!r} (with dev: {dev is not None})")
    texts = [
        s
        for pairs in [*sets.values(), *([dev] if reading == "fitted" else [])]
        for s in pairs.sentences1 + pairs.sentences2
    ]
    unique = list(dict.fromkeys(texts))
    cache = EncodeCache(model.encode)
    for start in range(0, len(unique), chunk):
        if stop is not None and stop.is_set():
            return
        cache(unique[start : start + chunk])
        yield min(start + chunk, len(unique)) / len(unique), None
    yield 1.0, _scores(model, sets, cache, reading, dev)


@dataclass(frozen=True)
class ResultCache:
    """Cosine 7-task results per encoder, one JSON file each in ``folder``; a model name is resolved against
    ``allowed_roots`` (None: any folder). A head-only checkpoint shares its base encoder's entry."""

    folder: Path
    allowed_roots: tuple[Path, ...] | None = None

    def key(self, name: str) -> str:
        """Identity of the encoder behind ``name``: its resolved source and when its files last changed."""
        roots = list(self.allowed_roots) if self.allowed_roots is not None else None
        source, _ = resolve_model(name, roots)
        if save_format.is_scorer(source):
            try:
                config = save_format.read_config(source)
                if save_format.stored_encoder(config) == "none":
                    source, _ = resolve_model(config.get("base_model", ""))
            except ValueError:  # an unreadable config or base: the folder's own files key the cache
                pass
        return f"{source}@{save_format.files_stamp(source):.0f}"

    def _file(self, key: str) -> Path:
        return self.folder / (hashlib.sha1(key.encode()).hexdigest()[:20] + ".json")

    def get(self, name: str) -> dict | None:
        path = self._file(self.key(name))
        try:
            return json.loads(path.read_text(encoding="utf-8"))["results"] if path.is_file() else None
        except (OSError, ValueError, KeyError):
            return None

    def put(self, name: str, results: dict) -> None:
        key = self.key(name)
        write_json_atomic(self._file(key), {"key": key, "results": results})
