"""The checks of a run before any work starts: its settings, then what they mean for its label scheme and
its starting model.

:meth:`stsdemo.config.TrainConfig.validate` checks the settings alone, without I/O. ``preflight`` adds what
needs more: the buffer ``x0`` against the node gap of the run's label scheme, and the starting model's files
(its token limit; for a warm start, that its target, head and labels fit the run). The command line and the
app call it before a run is started, and :func:`stsdemo.train.train` before its first step, so every way into
a run is covered.
"""

from __future__ import annotations

from dataclasses import replace

from .config import TrainConfig
from .data import builtin_scheme
from .labels import get_scheme
from .losses.buffer import check_buffer
from .losses.spec import FAMILIES, LOSSES, run_k
from .model_source import check_start, start_family


def preflight(config: TrainConfig) -> TrainConfig:
    """The config with its losses under their canonical names and, where the start model's files tell its
    encoder family, the k it trains with (:func:`~stsdemo.losses.spec.run_k`), checked; InputError says what
    is wrong."""
    config = config.normalized()
    config.validate()
    scheme = builtin_scheme(config.data) or get_scheme(config.scheme)  # a named set's own, else the CSV's
    family = start_family(config.model)
    if family is not None:
        config = replace(config, k=run_k(config.loss, config.k, family))
    calibration = [config.calibrate_loss] if config.calibrate_data and config.calibrate_loss else []
    for loss in [config.loss, *calibration]:  # a calibration loss of its own takes its paper k
        own = config.k if loss == config.loss else None
        for each in [family] if family else FAMILIES:  # a hub id's family is known once loaded
            if LOSSES[loss].buffer:
                check_buffer(run_k(loss, own, each), config.x0, scheme.gap)
    check_start(
        config.model,
        target=config.target,
        classification=config.loss == "ce",
        scheme=scheme,
        max_length=config.max_length,
    )
    return config
