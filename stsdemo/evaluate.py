"""Scoring sentence encoders: SimCSE's SentEval STS protocol, dev metrics, and the paper-style table.

SentEval STS (as SimCSE runs it): cosine similarity of the two sentence embeddings, Spearman
correlation with the gold scores x100; STS12-16 in the "all" setting (one correlation over all
subsets joined), STS-B test and SICK-R test; "Avg." is the mean over the tasks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .data import PairSet, senteval_test_sets
from .errors import InputError

TASKS = ("STS12", "STS13", "STS14", "STS15", "STS16", "STSBenchmark", "SICKRelatedness")
TABLE_NAMES = {"STSBenchmark": "STS-B", "SICKRelatedness": "SICK-R"}

Encode = Callable[[list[str]], np.ndarray]


def spearman100(a, b) -> float:
    """Spearman's rank correlation of ``a`` and ``b``, times 100 (NaN when either is constant)."""
    from scipy.stats import spearmanr  # here, not at the top: scoring one pair should not pay scipy's import

    return float(
        spearmanr(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)).statistic * 100.0
    )


def encode_unique(encode: Encode, sentences: list[str]) -> dict[str, np.ndarray]:
    """Embed each distinct sentence once, in one ``encode`` call: ``{sentence: embedding}``."""
    unique = list(dict.fromkeys(sentences))
    embeddings = np.asarray(encode(unique), dtype=np.float64)
    if embeddings.ndim != 2 or embeddings.shape[0] != len(unique):
        raise ValueError(
            f"encode returned shape {embeddings.shape} for {len(unique)} sentences; expected (n, dim)"
        )
    return dict(zip(unique, embeddings))


def _pair_embeddings(lookup: dict[str, np.ndarray], pairs: PairSet) -> tuple[np.ndarray, np.ndarray]:
    return np.stack([lookup[s] for s in pairs.sentences1]), np.stack([lookup[s] for s in pairs.sentences2])


class EncodeCache:
    """An ``encode`` that remembers: each distinct sentence is encoded once across all calls, so the
    cosine table and the prediction metrics of one model share one encoding pass."""

    def __init__(self, encode: Encode):
        self.encode, self.embeddings = encode, {}

    def __call__(self, sentences: list[str]) -> np.ndarray:
        missing = [s for s in dict.fromkeys(sentences) if s not in self.embeddings]
        if missing:
            self.embeddings.update(zip(missing, np.asarray(self.encode(missing))))
        return np.stack([self.embeddings[s] for s in sentences])

    def scorer(self, model):
        """``model`` with this cache as its ``encode`` (for :func:`dev_metrics`)."""
        cache = self

        class Cached:
            encode = staticmethod(cache)
            score_embeddings = staticmethod(model.score_embeddings)

        if hasattr(model, "classify_embeddings"):
            Cached.classify_embeddings = staticmethod(model.classify_embeddings)
        return Cached()


def cosine_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity; an all-zero row gives 0 rather than NaN."""
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return np.einsum("ij,ij->i", u, v) / np.maximum(norms, 1e-12)


def evaluate_senteval(encode: Encode, tasks=TASKS, test_sets=None, source="auto") -> dict[str, float]:
    """Spearman x100 of cosine similarity per task, plus ``"Avg."``, under SimCSE's SentEval protocol.

    ``encode`` maps a list of sentences to an (n, dim) array. The distinct sentences of all requested
    tasks are encoded in a single call. ``test_sets`` (``{task: PairSet}``) defaults to
    :func:`stsdemo.data.senteval_test_sets`.
    """
    tasks = tuple(tasks)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise InputError("unknown_eval_tasks", value=unknown or list(tasks), tasks=", ".join(TASKS))
    if test_sets is None:
        test_sets = senteval_test_sets(source)
    missing = [t for t in tasks if t not in test_sets]
    if missing:
        raise InputError("no_test_data", missing=", ".join(missing))
    chosen = [test_sets[t] for t in tasks]
    lookup = encode_unique(encode, [s for pairs in chosen for s in pairs.sentences1 + pairs.sentences2])
    results = {}
    for task, pairs in zip(tasks, chosen):
        results[task] = spearman100(cosine_rows(*_pair_embeddings(lookup, pairs)), pairs.labels)
    results["Avg."] = float(np.mean([results[t] for t in tasks]))
    return results


def classification_metrics(predicted, gold, categories: int) -> dict:
    """``accuracy`` (%) and ``macro_f1`` (%, the unweighted mean of the per-category F1) of predicted category
    indices against gold ones; a category neither predicted nor present scores F1 0. In percent here, where they
    are computed, so no reader rescales them (a regression's accuracy is its node accuracy, as
    :meth:`stsdemo.labels.LabelScheme.node_accuracy` gives it)."""
    from sklearn.metrics import accuracy_score, f1_score  # here: only classification metrics need it

    return {
        "accuracy": 100.0 * float(accuracy_score(gold, predicted)),
        "macro_f1": 100.0
        * float(f1_score(gold, predicted, labels=list(range(categories)), average="macro", zero_division=0)),
    }


def classified(model, scheme):
    """``model.classify_embeddings``, or for a model without one, the node of ``scheme`` nearest its prediction."""
    if hasattr(model, "classify_embeddings"):
        return model.classify_embeddings
    return lambda u, v: scheme.nearest_index(model.score_embeddings(u, v))


def dev_metrics(model, dev: PairSet) -> dict:
    """How a regressor does on a labelled dev set.

    ``model.encode(list[str]) -> (n, dim)``, ``model.score_embeddings(u, v) -> (n,)`` predictions on
    ``dev.scheme``'s line and, optionally, ``model.classify_embeddings(u, v) -> (n,)`` category indices
    (without it, the node nearest each prediction). Returns
    ``cosine_spearman`` (x100, embeddings alone), ``head_spearman`` (x100, the model's predictions),
    ``accuracy``: the share (%) of pairs put in the gold label's category (the node nearest a regression's
    prediction, a classifier's arg-max), ``macro_f1`` (%) of those categories, and ``errors``:
    ``|prediction - label|`` per pair.
    """
    lookup = encode_unique(model.encode, dev.sentences1 + dev.sentences2)
    u, v = _pair_embeddings(lookup, dev)
    predictions = np.asarray(model.score_embeddings(u, v), dtype=np.float64).reshape(-1)
    if predictions.shape[0] != len(dev):
        raise ValueError(f"score_embeddings returned {predictions.shape[0]} predictions for {len(dev)} pairs")
    gold = dev.scheme.nearest_index(dev.labels)
    return {
        "cosine_spearman": spearman100(cosine_rows(u, v), dev.labels),
        "head_spearman": spearman100(predictions, dev.labels),
        **classification_metrics(classified(model, dev.scheme)(u, v), gold, len(dev.scheme.categories)),
        "errors": np.abs(np.clip(predictions, dev.scheme.low, dev.scheme.high) - dev.labels),
    }


def error_counts(errors: np.ndarray, gap: float, top: float, bins_per_gap: int = 20) -> dict:
    """Counts of ``|prediction - label|`` in bins of width ``gap / bins_per_gap`` from 0 to ``top``: fine
    enough that the buffer zone ``x < x0`` (x0 = 0.25 on a gap of 1) is its own set of bins."""
    width = gap / bins_per_gap
    count = max(1, int(np.ceil(top / width)))
    counts, _ = np.histogram(np.clip(errors, 0, top), bins=count, range=(0, count * width))
    return {"width": width, "counts": counts.astype(int).tolist()}


class DevEvaluator:
    """Scores a model on a labelled dev set (default STS-B dev) and names the metric that picks the best
    checkpoint: ``primary`` is ``"cosine"`` (Spearman of the embeddings' cosine, what the 7-task benchmark
    reads), ``"head"`` (Spearman of the prediction, what scoring shows) or ``"accuracy"`` (the share of pairs
    in their gold category: classification data such as NLI)."""

    METRICS = {"cosine": "cosine_spearman", "head": "head_spearman", "accuracy": "accuracy"}

    def __init__(self, dev: PairSet, primary: str = "cosine"):
        if primary not in self.METRICS:
            raise InputError("unknown_dev_metric", primary=repr(primary), metrics=", ".join(self.METRICS))
        self.dev, self.primary = dev, primary

    def __call__(self, model) -> dict:
        """``dev_metrics`` plus ``score`` (the primary metric) and ``error_hist`` (see :func:`error_counts`)."""
        metrics = dev_metrics(model, self.dev)
        scheme = self.dev.scheme
        metrics["error_hist"] = error_counts(metrics.pop("errors"), scheme.gap, scheme.high - scheme.low)
        metrics["score"] = metrics[self.METRICS[self.primary]]
        return metrics


def row_average(scores: dict, tasks=TASKS) -> float | None:
    """A row's ``"Avg."``, or the mean of its ``tasks`` when it has them all and no average; else None."""
    if scores.get("Avg.") is not None:
        return float(scores["Avg."])
    values = [scores.get(t) for t in tasks]
    return float(np.mean(values)) if all(v is not None for v in values) else None


def format_table(rows: dict[str, dict[str, float]], tasks=TASKS) -> str:
    """A markdown table as in the paper: one row per model, the tasks and Avg., two decimals.

    A row without ``"Avg."`` gets the mean of its tasks when it has them all; a missing value shows "-".
    """
    tasks = tuple(tasks)
    header = ["Model", *(TABLE_NAMES.get(t, t) for t in tasks), "Avg."]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for model, scores in rows.items():
        values = [*(scores.get(t) for t in tasks), row_average(scores, tasks)]
        cells = ["-" if v is None else f"{v:.2f}" for v in values]
        lines.append("| " + " | ".join([str(model).replace("|", "\\|"), *cells]) + " |")
    return "\n".join(lines)
