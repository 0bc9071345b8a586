"""Scoring an encoder for ``bench.evidence.quality``: the 7 SentEval test sets, the untrained encoder's recorded
scores (reused when a run keeps its step-0 checkpoint), and the STS-B node accuracy. ``bench.evidence.fusion`` and
``bench.evidence.tuning`` score with the same functions, so every table reads one evaluation.
"""

from __future__ import annotations

from ..common import Timer, load_results
from ..schema import quality_runs, record_model
from .quality_arms import QualityBudget


def test_sets(budget: QualityBudget) -> dict:
    from stsdemo.data import senteval_test_sets

    sets = senteval_test_sets()
    if budget.test_pairs:
        sets = {name: pairs.spaced(budget.test_pairs) for name, pairs in sets.items()}
    return sets


def base_scores(budget: QualityBudget, model: str) -> dict | None:
    """Test scores of the recorded base run of ``model`` (same max length, full test sets), if any.

    When an arm's best dev checkpoint is step 0, that checkpoint *is* the untrained encoder, so its test
    scores are the base run's (deterministic, same evaluation): they are reused, saving a 7-task pass, and
    the run is marked ``test_from = "base"``. This looks at dev only, never at test.
    """
    if budget.test_pairs:
        return None
    for key, result in quality_runs(load_results()).items():
        if (
            result["arm"] == "base"
            and record_model(result) == model
            and not key.endswith("quick")
            and result["budget"]["max_length"] == budget.max_length
        ):
            return result["test"]
    return None


def evaluate_encoder(encode, sets) -> tuple[dict, float]:
    from stsdemo.evaluate import evaluate_senteval

    with Timer() as timer:
        scores = evaluate_senteval(encode, test_sets=sets)
    return scores, timer.seconds


def stsb_node_accuracy(model, sets, own_prediction: bool, dev_pairs: int | None = None) -> dict:
    """STS-B test node accuracy (%): the share of pairs whose prediction rounds to the gold label's node.

    The prediction is the model's own (its head or a*cos + b) where the run trained one (``own_prediction``);
    an encoder without one (no training, sentence-transformers' losses, Pcc-tuning, InfoNCE) gets
    ``a*cos + b`` fitted by least squares on STS-B dev, never on test: the core's readings
    (:func:`stsdemo.final_eval.scoring_steps`).
    """
    from stsdemo.config import TrainConfig
    from stsdemo.final_eval import scoring_steps
    from stsdemo.train import load_dev

    dev = None if own_prediction else load_dev(TrainConfig(max_dev_pairs=dev_pairs))
    *_, (_, scores) = scoring_steps(
        model, {"STSBenchmark": sets["STSBenchmark"]}, "prediction" if own_prediction else "fitted", dev
    )
    return dict(stsb_node_accuracy=scores.node_accuracy["STSBenchmark"], node_accuracy_from=scores.node_from)
