"""The *Benchmark* tab as plain Python: the 7-task SentEval evaluation with progress, and the recorded evidence.

7-task results depend on the encoder alone (cosine similarity), so they are cached per encoder on disk
(:func:`~stsdemo.app.model_cache.result_cache`): a base model is evaluated once, and a head-only run shares its
base's entry. The GPU-heavy generator carries ``@spaces.GPU``: on a ZeroGPU Space it runs in a GPU worker,
elsewhere the decorator returns the function unchanged. An evaluated model's results download as MTEB result
files (:mod:`stsdemo.mteb_format`), zipped.
"""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import spaces  # noqa: I001  (before torch, so ZeroGPU can patch CUDA initialisation)

from ... import mteb_format
from ...atomic import atomic_write
from ...errors import InputError
from ...final_eval import TestScores, scoring_steps
from ...model import SiameseRegressor, default_device
from ...serving import session_files
from .. import model_cache, task_tables
from ..progress import SKIP, duration, progress_html
from . import evidence_view, figures
from .reference import PUBLISHED_SCORES


@spaces.GPU(duration=240)
def _benchmark_gpu(source: str, sets: dict) -> Iterator[tuple[float, TestScores | None]]:
    model = SiameseRegressor.load(source or None, allowed_roots=model_cache.allowed_roots()).to(
        default_device()
    )
    yield from scoring_steps(model, sets)


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
    return (
        evidence_view.evidence_frame(found, rows, markup=True),
        evidence_view.evidence_figure(found, evidence_view.STS),
        evidence_view.evidence_figure(found, evidence_view.NLI),
        evidence_view.claims_view(found, reason),
    )


def benchmark_table(rows: dict) -> pd.DataFrame:
    return task_tables.results_frame({**rows, **PUBLISHED_SCORES})


def benchmark_chart(rows: dict):
    return figures.benchmark_figure(rows, PUBLISHED_SCORES)


def benchmark_stream(state, session: str, choice: str) -> Iterator[tuple[str, object, object]]:
    """Evaluate a model on the 7 tasks: yields (progress HTML, table, bar chart) as it goes; ``SKIP`` for a
    part that did not change."""
    name = model_cache.display_name(session, choice)
    source = model_cache.resolve_choice(session, choice, encoder_default=True)
    rows = state.bench_rows(session)
    cache = model_cache.result_cache()
    results = cache.get(source)
    if results is None:
        started = time.perf_counter()
        yield (
            progress_html(0.0, f"Loading {name} and the seven test sets…"),
            benchmark_table(rows),
            benchmark_chart(rows),
        )
        for fraction, found in _benchmark_gpu(source, state.test_sets()):
            if found is not None:
                results = found.cosine
                break
            elapsed = time.perf_counter() - started
            eta = elapsed / fraction * (1 - fraction) if fraction > 0 else 0
            yield (
                progress_html(
                    fraction,
                    f"Encoding the test sentences with {name}: {fraction:.0%} · about {duration(eta)} left",
                ),
                SKIP,
                SKIP,
            )
        if results is None:
            raise InputError("evaluation_no_results")
        cache.put(source, results)
        note = f"Evaluated {name} in {duration(time.perf_counter() - started)}."
    else:
        note = f"{name}: cached results (this encoder was evaluated before)."
    rows = state.add_bench_row(session, name, results)
    yield progress_html(1.0, note, "done"), benchmark_table(rows), benchmark_chart(rows)


def mteb_zip(state, session: str, choice: str) -> Path:
    """The chosen model's 7-task results as MTEB result files (one JSON per task and ``model_meta.json``, see
    :mod:`stsdemo.mteb_format`), zipped and staged for this session. The results are the ones the evaluation
    cached, never recomputed: a model not evaluated yet is refused."""
    name = model_cache.display_name(session, choice)
    source = model_cache.resolve_choice(session, choice, encoder_default=True)
    results = model_cache.result_cache().get(source)
    if results is None:
        raise InputError("evaluate_first", name=name)
    pairs = {task: len(found) for task, found in state.test_sets().items()}
    files = mteb_format.mteb_files(source, results, pairs, label=name)
    target = session_files.downloads_dir(session) / f"mteb-{next(iter(files)).split('/')[0]}.zip"
    with atomic_write(target, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
        for relative, payload in files.items():
            archive.writestr(relative, json.dumps(payload, indent=2))
    return target
