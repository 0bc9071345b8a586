"""Writing files and folders so that a kill or crash mid-write never leaves something that loads wrongly.

A file is written to a uniquely named temporary sibling, flushed to disk, then renamed over the target
(``os.replace`` is atomic on POSIX and Windows): a reader sees the old complete file or the new one. A
folder (a checkpoint) is built beside its target and swapped in with one ``renameat2(RENAME_EXCHANGE)``
where Linux offers it; elsewhere the old folder is moved aside first, so a kill in that short window
leaves no folder (a clear "does not exist" error on load, naming the kept previous version), never a
mixture of old and new files.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

STALE_STAGING_S = 3600  # temporary siblings older than this were left by a killed writer
PARTIAL_GLOB = ".*.tmp"  # the names atomic_write gives its temporary files: .<target name>.<random>.tmp


@contextmanager
def atomic_write(
    path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None
):
    """``with atomic_write(path) as handle: handle.write(...)``: the file appears complete or not at all."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        binary = "b" in mode
        with os.fdopen(fd, mode, **({} if binary else dict(encoding=encoding, newline=newline))) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(staging, path)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | os.PathLike, payload) -> None:
    """Write JSON through a temporary file and a rename, so readers never see half a file.

    Each writer gets its own temporary file, so two threads writing the same path cannot mix their bytes.
    """
    text = json.dumps(payload, indent=2)
    with atomic_write(path) as handle:
        handle.write(text)


def fsync_tree(folder: Path) -> None:
    """Flush every file under ``folder`` (and the folders themselves) to disk."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(first: Path, second: Path) -> bool:
    """Atomically swap two existing paths (Linux ``renameat2`` with ``RENAME_EXCHANGE``).

    Returns False where the system or file system does not offer it (the caller falls back).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def retired_path(folder: Path) -> Path:
    """Where the fallback swap parks the previous version of ``folder`` for a moment."""
    return folder.with_name(f".{folder.name}.old")


def replace_folder(staging: Path, folder: Path) -> None:
    """Put the complete folder ``staging`` at ``folder``, replacing what was there, as atomically as the
    system allows. ``staging`` is gone afterwards."""
    fsync_tree(staging)
    if not folder.exists():
        staging.rename(folder)
        shutil.rmtree(retired_path(folder), ignore_errors=True)  # left by an interrupted earlier swap
    elif exchange(staging, folder):
        shutil.rmtree(staging, ignore_errors=True)  # it now holds the previous version
    else:
        retired = retired_path(folder)
        shutil.rmtree(retired, ignore_errors=True)
        folder.rename(retired)
        staging.rename(folder)
        shutil.rmtree(retired, ignore_errors=True)
    _fsync_dir(folder.parent)


def remove_old_files(paths, max_age_s: float = 0.0) -> int:
    """Delete the plain files among ``paths`` older than ``max_age_s`` (one that vanishes or cannot go is passed
    over). Returns how many went."""
    now, removed = time.time(), 0
    for path in paths:
        try:
            if path.is_file() and now - path.stat().st_mtime >= max_age_s:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def remove_partial_writes(folder: Path, max_age_s: float = 0.0, recursive: bool = False) -> int:
    """Delete the temporary files of :func:`atomic_write` calls that a killed process never finished (those in
    ``folder``, or anywhere under it with ``recursive``, older than ``max_age_s``). Returns how many went.

    With ``max_age_s=0`` a live writer's file goes too: only call it so when no other process writes there."""
    return remove_old_files((folder.rglob if recursive else folder.glob)(PARTIAL_GLOB), max_age_s)


def remove_stale_staging(folder: Path, max_age_s: float = STALE_STAGING_S) -> None:
    """Delete temporary siblings of ``folder`` that a killed writer left behind (older than ``max_age_s``)."""
    now = time.time()
    for path in folder.parent.glob(f".{folder.name}.*"):
        try:
            if path != retired_path(folder) and now - path.stat().st_mtime > max_age_s:
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        except OSError:
            continue
