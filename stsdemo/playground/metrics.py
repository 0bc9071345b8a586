"""What the Playground measures, for every head at once: rows of predictions against one gold vector.

* ``spearman``: Spearman's rank correlation x100 of the prediction with the gold label (ties share their mean
  rank, as :func:`stsdemo.evaluate.spearman100`); NaN for a head that predicts one value for every pair.
* ``accuracy``: the share (%) of pairs whose prediction rounds to the gold label's node (the paper's rule,
  :meth:`stsdemo.labels.LabelScheme.node_accuracy`).
* ``error``: the mean of ``|clamp(prediction) - label|``, the prediction clamped to the outermost nodes.
* ``inside``: the share (%) of training pairs within x0 of their label, ``|clamp(prediction) - training label| <
  x0``: inside the buffer, where the buffered loss gives no gradient
  (:meth:`stsdemo.losses.buffer.BufferZoneLoss.in_buffer`); the twin without a buffer still pulls them.

The first two are "higher is better": the paired difference buffer - none reads them (:data:`PAIRED`). Each data
set is read by one of them (:data:`READ_BY`): the metric a run's best step is chosen by and the map reports.
Gold labels may differ per seed (a selection set): every function takes ``gold`` broadcastable to the predictions.
"""

from __future__ import annotations

import numpy as np

from ..labels import LabelScheme

METRICS = {"spearman": "Spearman ×100", "accuracy": "on the gold node (%)", "error": "mean |error|",
           "inside": "training pairs within x0 of their label (%)"}
PAIRED = ("spearman", "accuracy")     # the metrics whose paired difference is read (higher is better)
# a data set's own measure, by its label scheme's name (a built-in set's name is its scheme's): ranks on STS and
# any other ordered scale, nodes on NLI's three categories
READ_BY = {"sts": "spearman", "nli": "accuracy"}


def spearman_rows(predictions: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Spearman x100 of each row of ``predictions`` ``(..., pairs)`` with ``gold`` (``(pairs,)``, or one row per
    leading index, broadcastable)."""
    from scipy.stats import rankdata  # here: importing the package should not pay for scipy

    ranks = rankdata(np.asarray(predictions, dtype=np.float64), axis=-1)
    gold_ranks = rankdata(np.asarray(gold, dtype=np.float64), axis=-1)
    ranks -= ranks.mean(-1, keepdims=True)
    gold_ranks -= gold_ranks.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * (ranks * gold_ranks).sum(-1) / (np.linalg.norm(ranks, axis=-1)
                                                       * np.linalg.norm(gold_ranks, axis=-1))


def mean_error(predictions: np.ndarray, gold: np.ndarray, scheme: LabelScheme) -> np.ndarray:
    """The mean ``|clamp(prediction) - label|`` of each row."""
    return np.abs(np.clip(predictions, scheme.low, scheme.high) - gold).mean(-1)


METRIC_FUNCTIONS = {"spearman": lambda p, g, scheme: spearman_rows(p, g), "accuracy": lambda p, g, scheme:
                    scheme.node_accuracy(p, g),
                    "error": mean_error}


def held_out_metrics(predictions: np.ndarray, gold: np.ndarray, scheme: LabelScheme) -> dict[str, np.ndarray]:
    """``spearman``, ``accuracy`` and ``error`` of predictions ``(..., pairs)``, each shaped ``(...)``."""
    return {name: function(predictions, gold, scheme) for name, function in METRIC_FUNCTIONS.items()}


def metric(name: str, predictions: np.ndarray, gold: np.ndarray, scheme: LabelScheme) -> np.ndarray:
    """One of ``spearman``, ``accuracy``, ``error`` of predictions ``(..., pairs)`` against ``gold``."""
    return METRIC_FUNCTIONS[name](predictions, gold, scheme)
