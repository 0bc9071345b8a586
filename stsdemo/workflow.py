"""One workflow for every front end: train a config, then, if asked, score its best checkpoint on the 7 tasks.

    for event in train_and_evaluate(TrainConfig(loss="sk2"), evaluate=True):
        print(event.to_dict())

The command line (``stsdemo train``), the app's Fine-tune tab (through a thin ``spaces.GPU`` wrapper) and
``bench.evidence.quality`` all run :func:`train_and_evaluate`: :func:`stsdemo.train.train`'s events, then, for a run
that finished with a checkpoint, :class:`~stsdemo.events.FinalEvalEvent` s while the best checkpoint (and, given a
:class:`~stsdemo.final_eval.ResultCache` without it, the base model) is encoded; the last of each carries its
scores. The checkpoint's ``senteval.json`` and model card are written as the scores come. A consumer that wants
no evaluation after all closes the generator after the :class:`~stsdemo.events.DoneEvent`. A run over the
server's work budget (:func:`stsdemo.serving.budget.check_run`) is refused before its first step, so the command line
refuses it too (one line, exit status 2; ``STSDEMO_TRAIN_MINUTES`` and ``STSDEMO_TRAIN_MEMORY_SHARE`` open it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from .atomic import write_json_atomic
from .config import TrainConfig
from .data import PairSet, senteval_test_sets
from .events import DoneEvent, Event, FinalEvalEvent, Outcome
from .final_eval import ResultCache, TestScores, reading_for, scoring_steps
from .model import SiameseRegressor, default_device
from .model_card import write_card
from .save_format import TEST_RECORD, is_scorer
from .serving.budget import HOST, Host, check_run
from .stages import plan_stages
from .train import load_dev, train


def train_and_evaluate(
    config: TrainConfig,
    stop: threading.Event | None = None,
    *,
    evaluate: bool = False,
    test_sets: dict[str, PairSet] | None = None,
    base_cache: ResultCache | None = None,
    host: Host = HOST,
    **given,
) -> Iterator[Event]:
    """``train(config, stop, **given)``'s events; then, with ``evaluate`` and a finished run, the evaluation's.

    ``test_sets``: the 7 test sets (default: :func:`stsdemo.data.senteval_test_sets`, loaded once needed).
    ``base_cache``: also score the base model (``config.model``) unless the cache has it, and keep it there.
    InputError, before the first step, for a run over the work budget (estimated on the given sets and model, on
    ``host``'s machine).
    """
    stop = stop if stop is not None else threading.Event()
    sets = dict(zip((stage.data for stage in plan_stages(config)), given.get("train_sets") or []))
    model = given.get("model")
    check_run(
        config,
        sets,
        model.encoder.config.to_dict() if model is not None else None,
        final_eval=evaluate,
        host=host,
    )
    events = train(config, stop, **given)
    done = None
    try:
        for event in events:
            yield event
            if isinstance(event, DoneEvent):
                done = event
    finally:
        events.close()
    if not evaluate or done is None or done.outcome is not Outcome.FINISHED or not is_scorer(done.checkpoint):
        return
    yield from evaluate_run(config, done.checkpoint, stop, test_sets or senteval_test_sets(), base_cache)


def evaluate_run(
    config: TrainConfig,
    checkpoint: str,
    stop: threading.Event,
    sets: dict[str, PairSet],
    base_cache: ResultCache | None,
) -> Iterator[FinalEvalEvent]:
    """The 7-task evaluation of a run's best ``checkpoint`` (its reading: :func:`~stsdemo.final_eval.reading_for`)
    and of its base model when ``base_cache`` lacks it; a set ``stop`` ends it early."""
    jobs = [("fine-tuned", checkpoint)]
    if base_cache is not None and base_cache.get(config.model) is None:
        jobs.append(("base", config.model))
    for index, (what, source) in enumerate(jobs):
        model = SiameseRegressor.load(source or None).to(default_device())
        reading = reading_for(model.scheme.categories, config.loss) if what == "fine-tuned" else "cosine"
        dev = load_dev(config) if reading == "fitted" else None
        for fraction, scores in scoring_steps(model, sets, reading, dev, stop):
            if scores is None:
                yield FinalEvalEvent(what, index, len(jobs), fraction)
                continue
            keep_scores(what, source, scores, base_cache)
            yield FinalEvalEvent(
                what,
                index,
                len(jobs),
                fraction,
                scores.cosine,
                scores.prediction,
                scores.node_accuracy,
                scores.node_from,
            )
        del model
        if stop.is_set():
            return


def keep_scores(what: str, source: str, scores: TestScores, base_cache: ResultCache | None) -> None:
    """Record scores where they belong: a fine-tuned checkpoint's beside it (``senteval.json``, then its card
    again), a base model's in the cache."""
    if what == "base":
        base_cache.put(source, scores.cosine)
        return
    folder = Path(source)
    write_json_atomic(folder / TEST_RECORD, scores.rows(folder.name))
    write_card(folder)
