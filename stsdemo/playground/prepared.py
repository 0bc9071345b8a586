"""A Playground data set with its sentences embedded: what a run needs before its first step.

:func:`embedded` loads the data set and reads its sentence vectors from the cache (or computes them once);
:func:`default_encoder` is the embedded all-MiniLM-L6-v2, loaded only when sentences must be encoded. The app
(through its store), the benchmarks and the command line all prepare data this way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..model_source import resolve_model
from .datasets import PlaygroundData, load_playground_data
from .embeddings import Embeddings, Encoder, Progress, embed_sentences, encoder_from

DEFAULT_NAME = "all-MiniLM-L6-v2"


def default_encoder(load: Callable[[], object] | None = None) -> Encoder:
    """The embedded all-MiniLM-L6-v2; ``load`` gives the model when sentences must be encoded (default: load it
    with a fresh head, which is not used)."""
    source, _ = resolve_model(None)
    if load is None:
        from ..model import SiameseRegressor

        def load():
            return SiameseRegressor.from_encoder(None)

    return encoder_from(source, load, DEFAULT_NAME)


def embedded(
    dataset: str,
    encoder: Encoder,
    max_pairs: int | None = None,
    progress: Progress | None = None,
    folder: Path | None = None,
) -> tuple[PlaygroundData, Embeddings]:
    """The data set ``dataset`` (at most ``max_pairs`` evenly spread pairs a part) and its sentences' vectors
    under ``encoder`` (cached in ``folder``, default the cache folder)."""
    data = load_playground_data(dataset, max_pairs)
    return data, embed_sentences(data.sentences, encoder, progress, folder)
