"""Uploads to Gradio's folder (``POST /gradio_api/upload``, ``GRADIO_TEMP_DIR``), held to the caps of
:mod:`stsdemo.serving.caps`: each visitor's share and the folder's total (:class:`UploadLedger`, which
:class:`~stsdemo.serving.gradio_seam.StrictCalls` asks before Gradio reads an upload), removed when their time
is up (the disk sweeper, :func:`stsdemo.serving.session_files.start_sweeper`), and this server's own folder
cleared at start-up (:func:`own_gradio_folder`, :func:`clear_folder`). Gradio takes any number of files up to
``max_file_size`` each from anyone, and deletes only what its own process made (issue 51)."""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import caps, session_files


def own_gradio_folder() -> Path:
    """Where ``app.py`` has Gradio keep its uploads and copies (``GRADIO_TEMP_DIR``) unless the operator names
    a folder: one per output folder, so that start-up may clear all of it (:func:`clear_folder`): Gradio
    deletes only the files its own process made, and a killed server's uploads stayed for ever (issue 51)."""
    return Path(tempfile.gettempdir()) / f"stsdemo-gradio-{session_files.server_key()}"


def clear_folder(folder: Path) -> int:
    """At start-up, before the app is built: remove everything in ``folder``; returns the bytes it took."""
    size = session_files.disk_use(folder) if folder.is_dir() else 0
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return size


@dataclass
class Upload:
    """Files one request uploaded to Gradio's folder: whose (a client address), how many bytes it declared,
    when, and the paths Gradio answered with (once it has)."""

    visitor: str
    size: int
    at: float = field(default_factory=time.monotonic)
    paths: tuple[str, ...] = ()


class UploadLedger:
    """The uploads to Gradio's folder (``POST /gradio_api/upload``,
    :class:`~stsdemo.serving.gradio_seam.StrictCalls` asks here first): each visitor may keep
    ``visitor_upload_bytes`` there, and the folder holds at most ``gradio_folder_bytes``; an upload is removed
    ``gradio_keep_seconds`` after it came (:meth:`sweep`, with the disk sweep), which frees its visitor's
    share again. A visitor is a client address (an upload carries no session); where none is known, every such
    upload shares one."""

    UNKNOWN = "an unknown address"
    MEASURE_EVERY_S = 10.0  # the folder's size is measured again at most this often (a walk of its files)

    def __init__(self):
        self._lock = threading.Lock()
        self._uploads: list[Upload] = []
        self._measured = (-math.inf, 0)  # (when, bytes) the folder last measured

    def admit(self, visitor: str | None, size: int, folder: Path) -> tuple[Upload | None, str]:
        """``(upload, "")`` for an upload of ``size`` bytes that fits the caps (record its paths with
        :meth:`landed`, or :meth:`cancel` it), else ``(None, why)`` naming the cap."""
        visitor = visitor or self.UNKNOWN
        per_visitor, most = int(caps.value("visitor_upload_bytes")), int(caps.value("gradio_folder_bytes"))
        with self._lock:
            now = time.monotonic()
            if now - self._measured[0] > self.MEASURE_EVERY_S:
                self._measured = (now, session_files.disk_use(folder) if folder.is_dir() else 0)
            since = sum(upload.size for upload in self._uploads if upload.at > self._measured[0])
            mine = sum(upload.size for upload in self._uploads if upload.visitor == visitor)
            keep = caps.value("gradio_keep_seconds")
            taken = self._measured[1] + since
            if mine + size > per_visitor:
                return None, (
                    f"uploads from {visitor.removeprefix('address ')} already take "
                    f"{caps.size_text(mine)} of this server's disk and this one is "
                    f"{caps.size_text(size)}: at most {caps.size_text(per_visitor)} a visitor "
                    f"(STSDEMO_VISITOR_UPLOADS); an upload is removed {keep:g} s after it came"
                )
            if taken + size > most:
                return None, (
                    f"uploaded files take {caps.size_text(taken)} of this server's disk, at most "
                    f"{caps.size_text(most)} (STSDEMO_GRADIO_FOLDER): try again in a few minutes"
                )
            upload = Upload(visitor, size)
            self._uploads.append(upload)
            return upload, ""

    def landed(self, upload: Upload, paths) -> None:
        """The paths Gradio stored the upload's files at (its answer)."""
        upload.paths = tuple(str(path) for path in paths)

    def cancel(self, upload: Upload) -> None:
        """An upload Gradio refused (too large a file, a malformed body): nothing of it is kept."""
        with self._lock:
            if upload in self._uploads:
                self._uploads.remove(upload)

    def sweep(self, folder: Path, max_age_s: float | None = None) -> int:
        """Remove the files of uploads older than ``max_age_s`` (default ``gradio_keep_seconds``) that lie in
        ``folder``, with their entries; returns how many uploads went."""
        max_age_s = caps.value("gradio_keep_seconds") if max_age_s is None else max_age_s
        with self._lock:
            now = time.monotonic()
            old = [upload for upload in self._uploads if now - upload.at >= max_age_s]
            self._uploads = [upload for upload in self._uploads if upload not in old]
            kept = {path for upload in self._uploads for path in upload.paths}  # the same file again
        root = folder.resolve()
        for path in {path for upload in old for path in upload.paths} - kept:
            path = Path(path).resolve()
            if path.is_relative_to(root) and path != root:
                path.unlink(missing_ok=True)
                with contextlib.suppress(OSError):  # <folder>/<hash>/: gone with its last file
                    if path.parent != root:
                        path.parent.rmdir()
        return len(old)


def uploaded_paths(body: bytes) -> list[str] | None:
    """The paths of Gradio's answer to an upload (a JSON list of them); None for any other answer."""
    try:
        paths = json.loads(body)
    except ValueError:
        return None
    return paths if isinstance(paths, list) and all(isinstance(path, str) for path in paths) else None
