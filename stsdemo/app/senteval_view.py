"""The *Benchmark* tab as plain Python: the 7-task SentEval evaluation with progress, and its cache.

7-task results depend on the encoder alone (cosine similarity), so they are cached per encoder on disk
(``<output>/cache/senteval/``): a base model is evaluated once, and a head-only run shares its base's entry.
The GPU-heavy generator carries ``@spaces.GPU``: on a ZeroGPU Space it runs in a GPU worker, elsewhere the
decorator returns the function unchanged.
"""

from __future__ import annotations

import spaces  # noqa: I001  (before torch, so ZeroGPU can patch CUDA initialisation)

import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from .. import environment, save_format
from ..atomic import write_json_atomic
from ..errors import InputError
from ..evaluate import evaluate_senteval
from ..model import SiameseRegressor, default_device
from ..model_source import resolve_model
from . import evidence_view, model_cache, plots
from .reference import PUBLISHED_SCORES

SKIP = object()                   # in a streamed update: leave this output as it is (the UI sends gr.skip())


def duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def encoder_key(name: str) -> str:
    """Identity of the encoder behind ``name``: 7-task scores (cosine only) depend on nothing else, so a
    head-only folder shares its base encoder's cache entry."""
    source, _ = resolve_model(name, model_cache.allowed_roots())
    if save_format.is_scorer(source):
        try:
            config = save_format.read_config(source)
            if save_format.stored_encoder(config) == "none":
                source, _ = resolve_model(config.get("base_model", ""))
        except ValueError:  # an unreadable config or base: the folder's own files key the cache
            pass
    return f"{source}@{model_cache.files_stamp(source):.0f}"


def _cache_file(key: str) -> Path:
    return environment.output_dir() / "cache" / "senteval" / (hashlib.sha1(key.encode()).hexdigest()[:20] + ".json")


def cached_results(name: str) -> dict | None:
    path = _cache_file(encoder_key(name))
    try:
        return json.loads(path.read_text(encoding="utf-8"))["results"] if path.is_file() else None
    except (OSError, ValueError, KeyError):
        return None


def store_results(name: str, results: dict) -> None:
    key = encoder_key(name)
    write_json_atomic(_cache_file(key), {"key": key, "results": results})


def evaluate_steps(model: SiameseRegressor, sets: dict, stop: threading.Event | None = None,
                   chunk: int = 1024) -> Iterator[tuple[float, dict | None]]:
    """Yield ``(fraction done, None)`` while encoding the seven test sets, then ``(1.0, results)``.

    Each distinct sentence is encoded once, in chunks, so a caller can show progress; the scores then come
    from :func:`stsdemo.evaluate.evaluate_senteval` reading those embeddings.
    """
    unique = list(dict.fromkeys(s for pairs in sets.values() for s in pairs.sentences1 + pairs.sentences2))
    embeddings = {}
    for start in range(0, len(unique), chunk):
        if stop is not None and stop.is_set():
            return
        part = unique[start:start + chunk]
        embeddings.update(zip(part, model.encode(part)))
        yield min(start + chunk, len(unique)) / len(unique), None
    results = evaluate_senteval(lambda sentences: np.stack([embeddings[s] for s in sentences]), test_sets=sets)
    yield 1.0, results


def load_for_eval(source: str) -> SiameseRegressor:
    """A model for the 7-task evaluation, on the GPU when there is one (``source`` already resolved)."""
    return SiameseRegressor.load(source or None, allowed_roots=model_cache.allowed_roots()).to(default_device())


@spaces.GPU(duration=240)
def _benchmark_gpu(source: str, sets: dict) -> Iterator[tuple[float, dict | None]]:
    yield from evaluate_steps(load_for_eval(source), sets)


def recorded_evidence() -> tuple[evidence_view.Evidence | None, str]:
    """The project's recorded evidence and, when it is unavailable, why (read from the shipped file on each
    call: it is small, and a replaced file shows without a restart)."""
    try:
        return evidence_view.load_evidence(), ""
    except evidence_view.EvidenceUnavailable as error:
        return None, str(error)


def evidence_views(rows: dict) -> tuple[pd.DataFrame, object, object, str]:
    """(table, STS chart, NLI chart, verdicts) of the recorded evidence, the visitor's own evaluations
    (``rows``) joined to the table."""
    found, reason = recorded_evidence()
    return (evidence_view.evidence_frame(found, rows), evidence_view.evidence_figure(found, evidence_view.STS),
            evidence_view.evidence_figure(found, evidence_view.NLI), evidence_view.claims_markdown(found, reason))


def benchmark_table(rows: dict) -> pd.DataFrame:
    return plots.results_frame({**rows, **PUBLISHED_SCORES})


def benchmark_chart(rows: dict):
    return plots.benchmark_figure(rows, PUBLISHED_SCORES)


def benchmark_stream(state, session: str, choice: str) -> Iterator[tuple[str, object, object]]:
    """Evaluate a model on the 7 tasks: yields (progress HTML, table, bar chart) as it goes; ``SKIP`` for a
    part that did not change."""
    name = model_cache.display_name(session, choice)
    source = model_cache.resolve_choice(session, choice, encoder_default=True)
    rows = state.bench_rows(session)
    results = cached_results(source)
    if results is None:
        started = time.perf_counter()
        yield (plots.progress_html(0.0, f"Loading {name} and the seven test sets…"), benchmark_table(rows),
               benchmark_chart(rows))
        for fraction, found in _benchmark_gpu(source, state.test_sets()):
            if found is not None:
                results = found
                break
            elapsed = time.perf_counter() - started
            eta = elapsed / fraction * (1 - fraction) if fraction > 0 else 0
            yield (plots.progress_html(fraction, f"Encoding the test sentences with {name}: {fraction:.0%} · "
                                                 f"about {duration(eta)} left"), SKIP, SKIP)
        if results is None:
            raise InputError("the evaluation ended without results")
        store_results(source, results)
        note = f"Evaluated {name} in {duration(time.perf_counter() - started)}."
    else:
        note = f"{name}: cached results (this encoder was evaluated before)."
    rows = state.add_bench_row(session, name, results)
    yield plots.progress_html(1.0, note, "done"), benchmark_table(rows), benchmark_chart(rows)
