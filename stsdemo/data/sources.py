"""Where data comes from: the SentEval-format folder (``environment.data_dir()``) or the Hugging Face hub.

``source`` picks: ``"auto"`` (the folder if it exists, else the hub), ``"local"`` (the folder, or an error naming
STSDEMO_DATA_DIR) or ``"hub"``. Failures to reach either become an :class:`~stsdemo.errors.InputError`.
"""

from __future__ import annotations

from pathlib import Path

from .. import environment
from ..errors import InputError, Text

SOURCES = ("auto", "local", "hub")


def local_root(source: str) -> Path | None:
    """The SentEval folder to read, or None when the hub should be used."""
    if source not in SOURCES:
        raise InputError("unknown_data_source", source=repr(source), sources=", ".join(SOURCES))
    if source == "hub":
        return None
    folder = environment.data_dir()
    if folder is not None and folder.is_dir():
        return folder
    if source == "local":
        where = Text("data_folder_missing", folder=folder) if folder is not None else Text("no_data_folder")
        raise InputError("local_data_missing", where=where)
    return None


def hub_split(repo: str, split: str, config: str | None = None, revision: str | None = None):
    """One split of a hub dataset; failures (offline, renamed sets) become an InputError."""
    import datasets

    try:
        return datasets.load_dataset(repo, config, split=split, revision=revision)
    except Exception as exc:  # network, missing split, format change: all mean "cannot get it"
        raise InputError("hub_load_failed", repo=repo, split=split, exc=exc) from exc


def require_columns(table, repo: str, columns) -> None:
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise InputError(
            "hub_missing_columns",
            repo=repo,
            missing=", ".join(missing),
            column_names=", ".join(table.column_names),
        )


def check_choice(what: str, value, allowed) -> None:
    if value not in allowed:
        raise InputError(
            "unknown_allowed", what=what, value=repr(value), allowed=", ".join(map(str, allowed))
        )
