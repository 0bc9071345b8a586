"""The 7-task SentEval scores written as MTEB results: one JSON file per task and the model's ``model_meta.json``.

``stsdemo eval --mteb-out DIR`` and the app's *Benchmark* download lay the files out as MTEB's result cache does,
``<model name as path>/<revision>/<task>.json`` beside ``model_meta.json``, so ``mteb.ResultCache(cache).
load_results(...)`` reads them from ``<cache>/results/`` and the folder can join a clone of
embeddings-benchmark/results.

The format follows the ``mteb`` package, version :data:`MTEB_VERSION` (the wheel from PyPI):

* ``mteb/results/task_result.py``: ``TaskResult`` and ``TaskResult.to_disk`` (the keys ``dataset_revision``,
  ``task_name``, ``mteb_version``, ``scores``, ``evaluation_time``, ``kg_co2_emissions``, ``date``,
  ``evaluation_phases``; ``scores`` maps a split to a list of dicts with ``main_score``, ``hf_subset`` and
  ``languages``; scores rounded to 6 decimals);
* ``mteb/models/model_meta.py``: ``ModelMeta.to_dict`` (the fields of ``model_meta.json``; ``create_empty``
  names an unknown revision ``no_revision_available``);
* ``mteb/cache/result_cache.py``: ``ResultCache.save_to_cache`` and ``get_task_result_path`` (the layout);
* ``mteb/tasks/sts/eng/*.py``: each STS task's name, dataset revision, split (``test``), languages and main score
  (``cosine_spearman``); ``mteb/abstasks/sts.py``: STS scores are correlations as fractions, not x100;
* an example file: embeddings-benchmark/results, ``results/sentence-transformers__all-MiniLM-L6-v2/
  8b3219a92973c328a8e22fadcfa821b5dc75636a/STSBenchmark.json``.

What differs, and is said in every file's ``stsdemo_provenance`` (a key MTEB's loader ignores): the scores are
stsdemo's SentEval protocol (:func:`stsdemo.evaluate.evaluate_senteval`) on SentEval's copies of the test sets,
not MTEB's run on its Hugging Face datasets. ``dataset_revision`` names the MTEB dataset each task stands for;
``mteb_version`` names the release whose format the file follows (no mteb code ran). Only what stsdemo measures
is written: ``cosine_spearman`` and ``main_score`` (the same value); no Pearson, Euclidean or Manhattan scores,
no evaluation time or date (the results may come from a cache). STS12-16 and STS-B have as many test pairs as
MTEB's copies; MTEB's SICK-R ``test`` holds all 9,927 SICK pairs where SentEval's SICK-R test holds 4,927, so
that score is not MTEB's number (the provenance gives both counts).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import __version__, save_format
from .atomic import write_json_atomic
from .errors import InputError
from .evaluate import TASKS
from .model_source import DEFAULT_MODEL_NAMES, resolve_model, start_encoder_config

MTEB_VERSION = "2.26.24"
NO_REVISION = "no_revision_available"
DEFAULT_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
LOCAL_ORGANIZATION = "local"  # a local folder's "organization" in its MTEB name
META_NAME = "model_meta.json"
SPLIT = "test"
SUBSET = "default"
LANGUAGES = ["eng-Latn"]
SCORE_DECIMALS = 6
UNSAFE_IN_NAMES = re.compile(r"[^\w.-]")  # what a file name of the layout may not hold


@dataclass(frozen=True)
class MtebTask:
    """How one of our tasks appears in MTEB (``mteb/tasks/sts/eng/``): its name and dataset revision, the test
    pairs of MTEB's copy (``mteb/descriptive_stats/STS/<name>.json``), and which SentEval copy we score."""

    name: str
    dataset_revision: str
    mteb_pairs: int
    senteval_data: str


MTEB_TASKS = {
    "STS12": MtebTask(
        "STS12",
        "a0d554a64d88156834ff5ae9920b964011b16384",
        3108,
        "SentEval STS12, its subsets joined (SimCSE's 'all' setting)",
    ),
    "STS13": MtebTask(
        "STS13",
        "7e90230a92c190f1bf69ae9002b8cea547a64cca",
        1500,
        "SentEval STS13 (without the licensed SMT subset), its subsets joined ('all')",
    ),
    "STS14": MtebTask(
        "STS14",
        "6031580fec1f6af667f0bd2da0a551cf4f0b2375",
        3750,
        "SentEval STS14, its subsets joined ('all')",
    ),
    "STS15": MtebTask(
        "STS15",
        "ae752c7c21bf194d8b67fd573edf7ae58183cbe3",
        3000,
        "SentEval STS15, its subsets joined ('all')",
    ),
    "STS16": MtebTask(
        "STS16",
        "4d8694f8f0e0100860b497b999b3dbed754a0513",
        1186,
        "SentEval STS16, its subsets joined ('all')",
    ),
    "STSBenchmark": MtebTask(
        "STSBenchmark", "b0fddb56ed78048fa8b90373c8a3cfc37b684831", 1379, "SentEval's STS-B test split"
    ),
    "SICKRelatedness": MtebTask(
        "SICK-R", "20a6d6f312dd54037fe07a32d58e5e168867909d", 9927, "SentEval's SICK-R test split"
    ),
}


def task_result(task: str, cosine_spearman100: float, pairs: int) -> dict:
    """One task's result as MTEB writes it, from our Spearman x100 of the cosine on ``pairs`` test pairs."""
    mteb = MTEB_TASKS[task]
    score = round(float(cosine_spearman100) / 100, SCORE_DECIMALS)
    if pairs == mteb.mteb_pairs:
        comparison = f"MTEB's copy has as many test pairs ({pairs})"
    else:
        comparison = (
            f"MTEB's copy has {mteb.mteb_pairs} test pairs, this score used {pairs}: "
            "not directly comparable with MTEB's number"
        )
    return {
        "dataset_revision": mteb.dataset_revision,
        "task_name": mteb.name,
        "mteb_version": MTEB_VERSION,
        "scores": {
            SPLIT: [
                {
                    "cosine_spearman": score,
                    "main_score": score,
                    "hf_subset": SUBSET,
                    "languages": list(LANGUAGES),
                    "mteb_version": MTEB_VERSION,
                }
            ]
        },
        "evaluation_time": None,
        "kg_co2_emissions": None,
        "date": None,
        "evaluation_phases": None,
        "stsdemo_provenance": {
            "evaluated_by": f"stsdemo {__version__} (SentEval protocol), not the mteb package",
            "protocol": "Spearman correlation of the cosine similarity of mean-pooled embeddings with the gold "
            "scores, as a fraction (stsdemo's tables show it x100)",
            "data": f"{mteb.senteval_data}; not MTEB's dataset at dataset_revision",
            "pairs": pairs,
            "mteb_pairs": mteb.mteb_pairs,
            "comparison": comparison,
            "format": f"mteb {MTEB_VERSION}'s result format; mteb_version names that release, no mteb code ran",
        },
    }


def mteb_model_name(name: str | None, label: str | None = None) -> str:
    """The model's name in MTEB: the embedded default is all-MiniLM-L6-v2's hub id, a hub id is itself, and a
    local folder is ``local/`` and ``label`` (the app's name for it) or the folder's own name (MTEB wants an
    ``organization/model_name``). A folder that is gone (a scorer's base may be) is still named as a folder."""
    text = str(name or "").strip()
    if text in DEFAULT_MODEL_NAMES:
        return DEFAULT_ENCODER
    try:
        source, _ = resolve_model(text)
        if not Path(source).is_dir():
            return source  # a hub id
    except InputError:  # resolve_model refuses only a local folder that does not exist
        source = text
    return f"{LOCAL_ORGANIZATION}/{label or Path(source).name}"


def _hub_snapshot(repo_id: str) -> Path | None:
    """The local snapshot of a hub model the evaluation loaded (Hugging Face's cache), without the network."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, "config.json")
    if not isinstance(found, str) or Path(found).parent.parent.name != "snapshots":
        return None
    return Path(found).parent


def _read_json(path: Path) -> dict | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def model_meta(name: str | None, label: str | None = None) -> dict:
    """``model_meta.json`` for the model ``name`` (what ``SiameseRegressor.load`` takes), with what its files
    tell: the revision of a hub model's cached snapshot, the embedding size from the encoder's config, a saved
    scorer's base model and token limit. Everything else is null (unknown), as in ``ModelMeta.create_empty``."""
    text = str(name or "").strip()
    source, _ = resolve_model(text)
    local = Path(source).is_dir() and text not in DEFAULT_MODEL_NAMES  # the default is a hub model's copy
    snapshot = None if Path(source).is_dir() else _hub_snapshot(source)
    encoder_config = (
        _read_json(snapshot / "config.json") if snapshot is not None else start_encoder_config(text)
    )
    scorer = save_format.read_config(source) if save_format.is_scorer(source) else None
    mteb_name = mteb_model_name(text, label)
    return {
        "loader_kwargs": {},
        "name": mteb_name,
        "revision": snapshot.name if snapshot is not None else NO_REVISION,
        "release_date": None,
        "languages": None,
        "n_parameters": None,
        "n_active_parameters_override": None,
        "n_embedding_parameters": None,
        "memory_usage_mb": None,
        "max_tokens": float(scorer["max_length"]) if scorer and scorer.get("max_length") else None,
        "embed_dim": (encoder_config or {}).get("hidden_size"),
        "license": None,
        "open_weights": None,
        "public_training_code": None,
        "public_training_data": None,
        "framework": ["PyTorch", "Transformers"],
        "reference": None if local else f"https://huggingface.co/{mteb_name}",
        "similarity_fn_name": "cosine",
        "use_instructions": False,
        "training_datasets": None,
        "adapted_from": mteb_model_name(scorer.get("base_model", "")) if scorer else None,
        "superseded_by": None,
        "modalities": ["text"],
        "model_type": ["dense"],
        "citation": None,
        "contacts": None,
        "experiment_kwargs": None,
        "output_dtypes": None,
        "extra_requirements_groups": None,
        "loader": None,
        "is_cross_encoder": False,
    }


def model_folder(meta: dict) -> str:
    """``<name>/<revision>`` as ``ModelMeta.model_name_as_path`` spells the name ("/" -> "__", " " -> "_"), any
    other character a file name should not hold also turned into "_"."""
    name = UNSAFE_IN_NAMES.sub("_", meta["name"].replace("/", "__").replace(" ", "_")).strip(".") or "model"
    return f"{name}/{UNSAFE_IN_NAMES.sub('_', meta['revision'])}"


def mteb_files(
    name: str | None, cosine: dict[str, float], pairs: dict[str, int], label: str | None = None
) -> dict[str, dict]:
    """Every file of one model's MTEB results: ``{relative path: JSON payload}``, one per task in ``cosine``
    (our 7-task cosine row, Spearman x100; its ``Avg.`` is no MTEB task) plus ``model_meta.json``."""
    meta = model_meta(name, label)
    folder = model_folder(meta)
    files = {
        f"{folder}/{MTEB_TASKS[task].name}.json": task_result(task, cosine[task], pairs[task])
        for task in TASKS
        if task in cosine
    }
    if not files:
        raise InputError("mteb_no_results", tasks=", ".join(TASKS))
    files[f"{folder}/{META_NAME}"] = meta
    return files


def check_output_folder(path: str | os.PathLike) -> Path:
    """The folder ``--mteb-out`` names, checked before anything is evaluated: it must be a folder or creatable
    as one, and writable."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InputError("mteb_out_is_file", path=repr(str(path)))
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise InputError("mteb_out_cannot_create", path=repr(str(path)), existing=repr(str(existing)))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError("mteb_out_no_permission", path=repr(str(path)), existing=repr(str(existing)))
    return folder


def write_mteb_results(folder: str | os.PathLike, files: dict[str, dict]) -> Path:
    """Write :func:`mteb_files` under ``folder`` (each file atomically); returns the model's results folder."""
    for relative, payload in files.items():
        write_json_atomic(Path(folder) / relative, payload)
    return Path(folder) / Path(next(iter(files))).parent
