"""The Playground's page as the app serves it, under ``/playground/``: the static site's page and engine
(:mod:`stsdemo.static_site`), which trains in the visitor's browser, plus the two things a page cannot do alone.

* ``site.json``: the site's manifest, with the app's routes in its ``app`` entry;
* ``data/<sts|nli>.safetensors``: a built-in data set's pinned file (:mod:`stsdemo.playground.pinned`), the same
  bytes everywhere, and ``data/<sts|nli>.sentences.json``, its sentences from the data folder;
* ``api/upload`` (POST a CSV or TSV of labelled pairs, then GET ``?job=``): the server embeds the visitor's
  pairs (:meth:`~.memory.PlaygroundMemory.upload`, one upload a visitor at a time, one encoding at a time,
  held to the caps of the client's address, not of the ``session`` field the page writes) and writes them as
  ``data/upload/<key>.safetensors``, which the page then trains on; uploads evict only uploads, in memory and
  on disk;
* ``api/export`` (POST the page's settings and its trained head): the engine measures that head again on the
  same sets and writes it as a scorer zip (:func:`~stsdemo.playground.export_run.page_head`), handed out by
  ``api/download/<name>``.

Nothing here runs while a page plays: no frame, no step, no per-visitor run in memory. Bodies are capped
before they are read (a chunked one too), and every refusal is one line of JSON (``{"error": ...}``) with no
server path in it: a path no route takes (``..%2f`` included) is a 404, a wrong method a 405, a malformed form
a 400.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import threading
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, Router

from ... import environment
from ...atomic import atomic_write
from ...errors import InputError, Text
from ...playground import payoff, pinned
from ...playground.config import BUILT_IN_DATA, PlaygroundConfig
from ...playground.export_run import export_playground, page_head
from ...playground.run import Playground
from ...serving import caps, session_files, slots
from ...static_site import manifest, page_files
from .. import model_cache
from .memory import PlaygroundMemory, Prepared

PREFIX = "/playground"
APP_ROUTES = {"upload": "api/upload", "export": "api/export"}
PAGE = {path.name: path for path in page_files()}
FORM_BYTES = 64 * 1024  # an upload's form around its file: the field names, the session and scale
JSON_BODY_BYTES = 1 << 20  # an export's settings and head (1,153 numbers) fit in well under 1 MB
UPLOAD_KEY = re.compile(r"^upload:([0-9a-f]{12})$")
CACHE = "public, max-age=3600"
KEEP_UPLOAD_FILES = 32  # uploads' compact files kept on disk, apart from the built-in sets'


def _map_stamp() -> int:
    """When the recorded map (the manifest's one file) last changed; 0 when there is none."""
    try:
        return payoff.MAP_FILE.stat().st_mtime_ns
    except OSError:
        return 0


def refusal(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


class PlaygroundSite:
    """An ASGI middleware serving ``/playground/...`` for ``memory`` and passing every other request on."""

    def __init__(self, app, memory: PlaygroundMemory):
        self.app, self.memory = app, memory
        self.written: dict[str, Path] = {}  # data set name -> its compact file, once written
        self.manifest_made: tuple[int, bytes] | None = (
            None  # (the recorded map's mtime, site.json made from it)
        )
        self.exports = threading.Semaphore(1)  # one scorer written at a time: a model load and a zip each
        self.router = Router(
            [
                Route(PREFIX, lambda request: RedirectResponse(PREFIX + "/index.html" + _query(request))),
                Route(
                    PREFIX + "/", lambda request: RedirectResponse(PREFIX + "/index.html" + _query(request))
                ),
                Route(PREFIX + "/site.json", self.site),
                Route(PREFIX + "/data/{name}.safetensors", self.data),
                Route(PREFIX + "/data/{name}.sentences.json", self.sentences),
                Route(PREFIX + "/data/upload/{key}.safetensors", self.uploaded),
                Route(PREFIX + "/api/upload", self.upload, methods=["GET", "POST"]),
                Route(PREFIX + "/api/export", self.export, methods=["POST"]),
                Route(PREFIX + "/api/download/{session}/{name}", self.download),
                Route(PREFIX + "/{name}", self.page),
            ]
        )

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == PREFIX or path.startswith(PREFIX + "/"):
            try:
                await self.router(scope, receive, send)
            except HTTPException as error:  # the router's 404/405 in an app: past a middleware, a bare 500
                await refusal(error.detail, error.status_code)(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # ---- the page and its manifest ---------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        found = PAGE.get(request.path_params["name"])
        return (
            FileResponse(found, headers={"Cache-Control": "no-cache"})
            if found
            else refusal("no such file", 404)
        )

    async def site(self, request: Request) -> Response:
        stamp = _map_stamp()
        made = self.manifest_made
        body = made[1] if made and made[0] == stamp else await asyncio.to_thread(self.make_manifest, stamp)
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})

    def make_manifest(self, stamp: int) -> bytes:
        """site.json, made off the event loop and again only when the recorded map's file changes: making it (the
        map's confirmations and t-tests) took about 0.4 s of a core on every visit."""
        body = JSONResponse(manifest(APP_ROUTES)).body
        self.manifest_made = (stamp, body)
        return body

    # ---- data files ----------------------------------------------------------------------------------------------

    async def data(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in BUILT_IN_DATA:
            return refusal(f"no data set {name!r}: one of {', '.join(BUILT_IN_DATA)}", 404)
        return FileResponse(
            pinned.path_of(name), media_type="application/octet-stream", headers={"Cache-Control": CACHE}
        )

    async def sentences(self, request: Request) -> Response:
        """A built-in set's sentences, which its pinned file does not hold, from the data folder (the page shows a
        report pair's two sentences)."""
        name = request.path_params["name"]
        if name not in BUILT_IN_DATA:
            return refusal(f"no data set {name!r}: one of {', '.join(BUILT_IN_DATA)}", 404)
        try:
            found = await asyncio.to_thread(pinned.sentences_of, name)
        except InputError as error:
            return refusal(str(error), 404)
        return JSONResponse(list(found), headers={"Cache-Control": CACHE})

    def compact_file(self, name: str, prepared: Prepared) -> Path:
        """The compact file of a prepared upload, written once (named by its checksum) in a folder of the
        uploads' own, so that uploads evict only uploads, least recently used first (the built-ins are pinned)."""
        folder = environment.cache_dir() / "playground-site" / "uploads"
        path = folder / f"{prepared.source.checksum[:24]}.safetensors"
        if path.is_file():
            path.touch()  # used again: the last to go
        else:
            folder.mkdir(parents=True, exist_ok=True)
            with atomic_write(path, "wb", encoding=None) as handle:
                handle.write(prepared.source.payload)
            kept = sorted(folder.glob("*.safetensors"), key=lambda f: f.stat().st_mtime, reverse=True)
            for stale in kept[KEEP_UPLOAD_FILES:]:
                stale.unlink(missing_ok=True)
            self.written = {known: file for known, file in self.written.items() if file.is_file()}
        self.written[name] = path
        return path

    async def uploaded(self, request: Request) -> Response:
        key = request.path_params["key"]
        path = self.written.get(f"upload:{key}")
        return (
            FileResponse(path, media_type="application/octet-stream")
            if path and path.is_file()
            else refusal("no such upload: upload the file again", 404)
        )

    # ---- uploads -----------------------------------------------------------------------------------------------

    async def upload(self, request: Request) -> Response:
        if request.method == "GET":
            return self.upload_status(request.query_params.get("job", ""))
        limit = caps.value("playground_file_bytes")
        too_large = Text("playground_file_too_large", size=f"{limit / 1024**2:.1f}")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit + FORM_BYTES:
            return refusal(too_large, 413)
        body = await _bounded(request, limit + FORM_BYTES)  # a chunked body declares no length
        if body is None:
            return refusal(too_large, 413)
        try:
            form = await Request(request.scope, _replayed(body)).form(max_files=1, max_fields=4)
        except (MultiPartException, HTTPException, ValueError):  # in an app, Starlette raises HTTPException
            return refusal("send a multipart form with your CSV as 'file' and your page's 'session'")
        try:
            session, scale, upload = (
                form.get("session", ""),
                str(form.get("scale", "infer")),
                form.get("file"),
            )
            if not session_files.SESSION_RE.match(str(session)) or upload is None or isinstance(upload, str):
                raise InputError("upload_form")
            content = await upload.read(limit + 1)
            if len(content) > limit:
                raise InputError("playground_file_too_large", **too_large.values)
            suffix = Path(upload.filename or "pairs.csv").suffix.lower()
            if suffix not in (".csv", ".tsv", ".txt"):
                raise InputError("choose_pairs_file")
            await asyncio.to_thread(
                self.start_upload,
                str(session),
                content,
                suffix,
                Path(upload.filename).name,
                scale,
                slots.visitor_of(request),
            )
        except InputError as error:
            return refusal(str(error))
        return JSONResponse({"job": str(session)})

    def start_upload(
        self, session: str, content: bytes, suffix: str, filename: str, scale: str, address: str | None
    ) -> None:
        folder = Path(tempfile.mkdtemp(prefix="stsdemo-playground-upload-"))
        path = folder / (Path(filename).stem[:80] + suffix)
        try:
            path.write_bytes(content)
            self.memory.upload(session, path, scale, model_cache.DEFAULT_CHOICE, address)
        finally:
            path.unlink(missing_ok=True)
            folder.rmdir()

    def upload_status(self, session: str) -> Response:
        if not session_files.SESSION_RE.match(session):
            return refusal("no such upload", 404)
        run = self.memory.upload_of(session)
        if run is None or run.embedding is None or run.uploaded is None:
            return refusal("no upload from this page yet", 404)
        if not run.embedding.done.is_set():
            return JSONResponse({"done": False, "progress": run.embedding.progress_text()})
        if run.embedding.error is not None:
            return refusal(f"could not embed the file: {type(run.embedding.error).__name__}")
        data = run.uploaded.data
        self.compact_file(data.name, run.embedding.result)
        pairs = len(data.train) + len(data.held_out)
        text = (
            f"{data.title}: {pairs:,} pairs, {len(data.held_out):,} held out as the report set, "
            f"{len(data.train):,} in the pool. {run.uploaded.scale_text}"
            + (f" Cleaned: {run.uploaded.notice}." if run.uploaded.notice else "")
        )
        return JSONResponse(
            {"done": True, "key": UPLOAD_KEY.match(data.name)[1], "title": data.title, "text": text}
        )

    # ---- export --------------------------------------------------------------------------------------------------

    async def export(self, request: Request) -> Response:
        body = await _bounded(request, JSON_BODY_BYTES)
        if body is None:
            return refusal("the export request is too large", 413)
        if not self.exports.acquire(blocking=False):
            return refusal("another export is being written: try again in a few seconds", 429)
        try:
            asked = json.loads(body)
            return JSONResponse(await asyncio.to_thread(self.write_export, asked))
        except InputError as error:  # first: an InputError is a ValueError too
            return refusal(str(error))
        except (ValueError, TypeError, KeyError, AttributeError):
            return refusal("send {session, config, steps, head: {twin, step, params}} as JSON")
        finally:
            self.exports.release()

    def write_export(self, asked: dict) -> dict:
        session = str(asked["session"])
        if not session_files.SESSION_RE.match(session):
            raise InputError("bad_session_id")
        config = PlaygroundConfig(**{**asked["config"], "model": ""})
        prepared = self.memory.prepared(
            session, model_cache.DEFAULT_CHOICE, config.data
        )  # InputError: no upload
        name = prepared.data.name
        head = asked["head"]
        with Playground(config, prepared.source, seeds=[0], parts=1) as playground:
            best = page_head(
                playground, head["params"], int(head["twin"]), int(head["step"]), int(asked["steps"])
            )
            file = f"stsdemo-playground-{name.replace(':', '-')}-best-step{best.step}-of-{playground.steps_done}.zip"
            staging = session_files.session_dir(session)
            staging.mkdir(parents=True, exist_ok=True)
            session_files.zip_export(
                lambda out: export_playground(
                    playground, "", out, twin=best.twin, allowed_roots=environment.model_roots(), best=best
                ),
                staging,
                session_files.downloads_dir(session) / file,
            )
        return {"url": f"api/download/{session}/{file}", "name": file}

    async def download(self, request: Request) -> Response:
        session, name = request.path_params["session"], request.path_params["name"]
        if not session_files.SESSION_RE.match(session) or not re.fullmatch(r"[\w.-]{1,200}\.zip", name):
            return refusal("no such file", 404)
        path = session_files.downloads_dir(session) / name
        return FileResponse(path, filename=name) if path.is_file() else refusal("no such file", 404)


def _query(request: Request) -> str:
    return f"?{request.url.query}" if request.url.query else ""


async def _bounded(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes ``limit`` bytes (nothing more is read)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _replayed(body: bytes):
    """``receive`` for a request whose body was read already (:func:`_bounded`): that body, once."""

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
