"""What the Playground measures (the page's engine computes it, ``web/engine.js``): the names of its readings.

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
"""

from __future__ import annotations

METRICS = {
    "spearman": "Spearman ×100",
    "accuracy": "on the gold node (%)",
    "error": "mean |error|",
    "inside": "training pairs within x0 of their label (%)",
}
PAIRED = ("spearman", "accuracy")  # the metrics whose paired difference is read (higher is better)
# a data set's own measure, by its label scheme's name (a built-in set's name is its scheme's): ranks on STS and
# any other ordered scale, nodes on NLI's three categories
READ_BY = {"sts": "spearman", "nli": "accuracy"}
