"""One export of a saved scorer, shared by ``python -m stsdemo export``, the app's zip and the benchmarks.

An export is a folder that stands alone: the encoder's full weights (a LoRA adapter merged in, a head-only
scorer given its base encoder's weights), so it loads as ``SentenceTransformer(folder)`` and as
``SiameseRegressor.load(folder)``; the run's records (``run.json``, ``senteval.json``, ``snli.json``) and the
model card written from them. The weights, records and card are written into one staging folder and swapped
in together (:func:`stsdemo.save_format.write`), so a kill mid-export leaves no export without its card.

A record handed out this way names no folder of the machine that wrote it: a path inside the run's folder
(the checkpoint's parent; in the app, ``sessions/<session>/<run>/``) is written relative to it, e.g.
``./checkpoint``, a path elsewhere in the session's folder as ``../<run>/checkpoint``, any other path by its
last part only (as the card shows it). So a downloaded zip holds no server path and no session id.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from . import save_format
from .atomic import write_json_atomic
from .model import SiameseRegressor
from .model_card import write_card
from .model_source import resolve_model


def portable_path(value: str, run_folder: Path) -> str:
    """``value`` (a setting) as an exported record writes it: an absolute path relative to ``run_folder``
    when it lies in that folder or its parent, else by its last part; anything else as it is."""
    path = Path(value)
    if not path.is_absolute():
        return value
    for anchor in (run_folder, run_folder.parent):
        if path == anchor or anchor in path.parents:
            relative = Path(os.path.relpath(path, run_folder)).as_posix()
            return relative if relative.startswith("..") else f"./{relative}"
    return path.name


def portable_record(record, run_folder: Path):
    """A run's JSON record with every absolute path in it made portable (:func:`portable_path`)."""
    if isinstance(record, dict):
        return {key: portable_record(item, run_folder) for key, item in record.items()}
    if isinstance(record, list):
        return [portable_record(item, run_folder) for item in record]
    if isinstance(record, str):
        return portable_path(record, run_folder)
    return record


def copy_records(checkpoint: Path, staging: Path) -> None:
    """The checkpoint's records, their paths made portable, and the card written from them, into ``staging``
    (the export's folder before its swap)."""
    run_folder = checkpoint.resolve().parent
    for name in save_format.RECORDS:
        try:
            record = json.loads((checkpoint / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # a record the run never wrote (or a damaged one) is left out
            continue
        write_json_atomic(staging / name, portable_record(record, run_folder))
    write_card(staging)


def export_scorer(
    source: str | os.PathLike | None,
    out: str | os.PathLike,
    fp16: bool = False,
    allowed_roots: list[Path] | None = None,
) -> Path:
    """Write the scorer (or encoder) named ``source`` to the folder ``out`` with full encoder weights (fp16
    with ``fp16``), its records and its card; ``allowed_roots`` as for :meth:`SiameseRegressor.load`. A
    source that is no saved scorer (an encoder, a hub id) is written with a fresh head and no records."""
    model = SiameseRegressor.load(source, allowed_roots=allowed_roots)
    checkpoint = Path(resolve_model(source, allowed_roots)[0])
    if not save_format.is_scorer(checkpoint):
        return model.export(out, fp16=fp16)
    model.base_model = portable_path(model.base_model, checkpoint.resolve().parent)
    return model.export(out, fp16=fp16, beside=lambda staging: copy_records(checkpoint, staging))
