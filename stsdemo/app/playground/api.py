"""The Playground for programs: the app's ``playground`` API endpoint and MCP tool run the page's engine
(:func:`stsdemo.playground.run.run_seeds`) on the data sets the app keeps prepared (a built-in set with the default
encoder: its pinned file, ready at once), bounded by the one-call budget and stopped at a wall-clock limit
(``playground_seconds`` in :mod:`stsdemo.serving.caps`) with its readings there. The limit covers the preparation a call
sets going (a data set embedded for another encoder): a call whose data is not ready within it is refused with the
preparation's progress and the time it has left. The tab's own runs train in the visitor's browser
(:mod:`stsdemo.app.playground.site`)."""

from __future__ import annotations

import time

from ...errors import InputError
from ...playground.config import BUILT_IN_DATA, UPLOADED, PlaygroundConfig
from ...playground.run import TWIN_NAMES, run_seeds, twin_labels
from ...serving import caps
from .memory import PlaygroundMemory

API_MODELS = ("default", "scorer")  # encoders an API call may name (each embedded once, then cached)


def api_run(memory: PlaygroundMemory, values: dict) -> dict:
    """One bounded run for the API and MCP: the settings checked against their declarations (InputError with the
    declaration's limits) and against the one-call budget, trained to their last step. Returns the settings, the
    twins' names, both twins' final metrics (mean and sd over seeds) and the paired differences with verdicts."""
    limit, started = caps.value("playground_seconds"), time.monotonic()
    model = str(values.get("model") or "default")
    if model not in API_MODELS:
        raise InputError("api_model", models=", ".join(API_MODELS))
    config = PlaygroundConfig(**{**values, "model": model})
    if config.data == UPLOADED:
        raise InputError("api_no_upload", data=" or ".join(BUILT_IN_DATA))
    config.check_budget()
    preparation = memory.prepare("", config.model, config.data)
    # the wall clock covers the preparation this call sets going (a data set embedded: minutes, on first use)
    if not preparation.done.wait(max(0.0, limit - (time.monotonic() - started))):
        raise InputError("api_waited_too_long", progress=preparation.progress_text(), limit=f"{limit:g}")
    prepared = memory.prepared("", config.model, config.data)
    waited = time.monotonic() - started  # the checks and the preparation, on this call's clock
    result = run_seeds(config, prepared.source, seconds=max(0.0, limit - waited))
    if result["stopped_early"]:
        preparing = f", {waited:.0f} s of it waiting for the data" if waited >= 1 else ""
        result["notice"] = (
            f"The run passed its wall-clock limit of {limit:g} s{preparing}, and stopped at "
            f"step {result['step']:,} of {config.steps:,}: its readings are at that step. "
            "Fewer seeds, steps or pairs, or a smaller batch, finish in time."
        )
    return {
        "settings": config.to_dict(),
        "encoder": prepared.encoder,
        "twins_named": dict(zip(TWIN_NAMES, twin_labels(config))),
        **result,
    }
