"""A Playground run's head as a scorer that stands alone: the first seed's head of one twin at its best step, over
the encoder whose embeddings it was trained on.

The Playground's ``paper`` head is :class:`stsdemo.model.SiameseRegressor`'s own: ``Linear([u, v, |u-v|] -> 1)`` on
mean-pooled embeddings, so its weights go into a regressor's head as they are. Two settings make the scorer predict
what the head predicted: the run trained on labels placed on nodes ``0, d, 2d, ...`` (the run's gap ``d``), so the
scorer's label scheme is the data set's with that gap; and the embeddings were taken at
:data:`~.embeddings.MAX_LENGTH` tokens, so that is the scorer's max length. The ``cosine`` and ``mlp`` heads are no
regressor's head and are not exported.

The folder is written by the project's one export (:meth:`SiameseRegressor.export`, as :mod:`stsdemo.export`
writes): the encoder's full weights, so it loads as ``SentenceTransformer(folder)`` and as
``SiameseRegressor.load(folder)``, with ``run.json`` (the run's record: :func:`run_record`) and the model card
written from it, all in one staging folder swapped in at once. Paths in the record are made portable as an
export's are (:func:`stsdemo.export.portable_record`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import torch

from ..atomic import write_json_atomic
from ..errors import InputError
from ..export import portable_path, portable_record
from ..model import SiameseRegressor
from ..model_card import PLAYGROUND_RUN, framework_versions, write_card
from ..model_source import resolve_model
from ..save_format import RUN_RECORD
from .embeddings import MAX_LENGTH
from .metrics import METRICS
from .run import ENGINE, TWIN_NAMES, BestHead, Playground, record_number, twin_labels


def export_playground(
    playground: Playground,
    encoder_source: str | os.PathLike | None,
    out_folder: str | os.PathLike,
    twin: int = 0,
    allowed_roots: list[Path] | None = None,
    best: BestHead | None = None,
) -> Path:
    """Write the first seed's ``twin`` head (0: the loss with its buffer, 1: x0 = 0) of ``playground`` at its best
    step (or ``best``, a head the page trained: :func:`page_head`), over the encoder at ``encoder_source`` (the
    model the run's embeddings came from, named as the run's ``model`` setting names it: None or empty for the
    embedded all-MiniLM-L6-v2), to ``out_folder``; returns the folder. ``allowed_roots`` as for
    :meth:`SiameseRegressor.load`. InputError for a head other than ``paper``, a run not trained yet, or an encoder
    whose width is not the head's."""
    if playground.config.head != "paper":
        raise InputError("export_paper_head_only", head=repr(playground.config.head))
    best = best or playground.best_head(twin)
    out = Path(out_folder).resolve()
    model = head_scorer(playground, best, encoder_source, allowed_roots)
    model.base_model = portable_path(model.base_model, out.parent)
    record = portable_record(run_record(playground, best), out.parent)

    def beside(staging: Path) -> None:
        write_json_atomic(staging / RUN_RECORD, record)
        write_card(staging)

    return model.export(out, beside=beside)


def page_head(playground: Playground, parameters: list, twin: int, best_step: int, steps: int) -> BestHead:
    """The paper head a page trained (``parameters``: its weights then its bias, as the page's engine lays them
    out) of the first seed of ``playground`` (a fresh run of the page's settings, not trained here), with its
    selection and report readings measured again by the engine, so the record says what the head does, not what
    the page claimed; ``playground`` then counts ``steps`` steps. InputError for a malformed head."""
    features = 3 * playground.sizes["dim"] + 1
    finite = (
        isinstance(parameters, list)
        and len(parameters) == features
        and all(isinstance(value, (int, float)) and math.isfinite(value) for value in parameters)
    )
    if not finite:
        raise InputError("export_head_numbers", features=features)
    if twin not in range(len(TWIN_NAMES)) or not 0 < best_step <= steps <= playground.config.steps:
        raise InputError("export_twin_mismatch")
    best = playground.head_at(twin, parameters, best_step)
    playground.steps_done = steps
    return best


def head_scorer(
    playground: Playground,
    best: BestHead,
    encoder_source: str | os.PathLike | None,
    allowed_roots: list[Path] | None = None,
) -> SiameseRegressor:
    """A regressor over the encoder at ``encoder_source`` (loaded as the Playground loads it, a saved scorer's
    head left out) whose head is ``best``'s, on the run's label scheme (its gap ``d``) at the embeddings' max
    length."""
    name = str(encoder_source or "")
    if name and resolve_model(name, allowed_roots)[0] == resolve_model(None)[0]:
        name = ""  # the embedded model by its name, not by this machine's path to it
    source = SiameseRegressor.load(name or None, allowed_roots=allowed_roots)
    model = SiameseRegressor(
        source.encoder,
        source.tokenizer,
        scheme=playground.source.scheme(playground.config.d),
        max_length=MAX_LENGTH,
        base_model=source.base_model,
        trust_remote_code=source.trust_remote_code,
    )
    weights = torch.tensor(best.params, dtype=torch.float64)
    try:
        model.head.load_state_dict({"weight": weights[:-1].reshape(1, -1), "bias": weights[-1:]})
    except RuntimeError:
        raise InputError(
            "export_encoder_mismatch",
            features=len(best.params) - 1,
            base_model=repr(source.base_model),
            in_features=model.head.in_features,
            hidden_size=model.encoder.config.hidden_size,
        ) from None
    return model


def run_record(playground: Playground, best: BestHead) -> dict:
    """The exported head's ``run.json``: the Playground settings (``config``), the data set (its name, its title
    when it has one, its training, selection and report pair counts), the twin (its loss with the
    k and x0 it trained with), the seed, the steps trained, the best step and the selection and report readings
    there (as the Playground's summaries write a reading: 4 decimals, null for a NaN) with each reading's name in
    words, and the versions. :func:`stsdemo.model_card.card_text` reads it: the record names its own metrics, so
    the core's card needs nothing from the Playground."""
    config, source, sizes = playground.config, playground.source, playground.sizes
    pairs = {"training": sizes["training"], "selection": sizes["selection"], "report": sizes["report"]}
    described = {
        "name": source.name,
        **({"title": source.metadata["title"]} if source.metadata.get("title") else {}),
        "pairs": pairs,
    }
    twin = {
        "index": best.twin,
        "name": TWIN_NAMES[best.twin],
        "label": twin_labels(config)[best.twin],
        "loss": config.loss,
        "k": config.k,
        "x0": config.x0 if best.twin == 0 else 0.0,
    }
    return {
        "kind": PLAYGROUND_RUN,
        "config": config.to_dict(),
        "data": described,
        "twin": twin,
        "seed": best.seed,
        "steps": playground.steps_done,
        "best_step": best.step,
        "selection": {"metric": best.metric, "value": record_number(best.selection)},
        "report": {name: record_number(value) for name, value in best.report.items()},
        "metric_labels": {name: METRICS[name] for name in best.report},
        "data_sha256": source.checksum,
        "engine": ENGINE,
        "versions": framework_versions(),
    }
