"""The app's one seam with Gradio's internals: every workaround for how Gradio behaves, and every reach into
what Gradio keeps private (an attribute or module it does not document), lives here and nowhere else.

Each was written for Gradio :data:`WRITTEN_FOR` and has a test in tests/test_gradio_seam.py that fails when
the workaround is no longer needed (Gradio fixed or changed what it works around) or no longer works (the
private attribute it uses is gone or behaves otherwise). On an upgrade, run that file first.

1. **A field's input check** (:func:`name_input_errors`). Gradio checks a Number's or Slider's bounds, and a
   Dropdown's choices, with messages that name no field, compares a numeric string with its bounds (a
   ``TypeError`` and a traceback), reads ``true`` as 1 and passes NaN on. The field classes' ``preprocess``
   reads the value by :mod:`.rest`'s rules first and names the field in every refusal.
2. **The training curves' redraw** (:class:`CurveSender`): a LinePlot's colour scale is rebuilt only by a
   changed ``color_map``, and then draws the data of the update before; the update that catches up waits a
   moment (:meth:`CurveSender.catch_up`), so the page draws the data first.
3. **The MCP tool list** (:func:`tools_only`, :func:`mcp_lifespan`): Gradio makes every public endpoint a tool;
   there is no public way to keep one in the API but off the tool list. MCP's own input check names no
   argument (``None is not of type 'number'`` for a NaN): arguments are read by :mod:`.rest`'s rules first.
4. **Raw REST calls** (:class:`StrictCalls`, an ASGI middleware): an argument left out of a v1 call is passed
   on as a component's repr, a v2 call missing one (or naming an unknown endpoint or argument) answers a bare
   500 with a traceback, and so does v1 for an unknown endpoint; private endpoints are callable by name; a file
   argument that is not an upload reaches Gradio's file handling, which answers with a traceback. A page event
   (``/queue/join``) naming an unknown ``fn_index`` and a ``/component_server`` call naming an unknown function
   answer 500, and so does one with too few values (a logged traceback); any request body is read whole,
   whatever its size. Bodies are capped before they are read. Gradio's upload route takes any number of files
   (each up to ``max_file_size``) from anyone: each upload is held to its visitor's share of the disk first.
5. **A fair queue** (:func:`fair_queue`): Gradio's queue takes events first come, first served up to its size, so
   one client can fill it for everyone; each event is held against its visitor first (:mod:`.fair_queue`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import re
import time
from contextvars import ContextVar
from pathlib import Path

import gradio as gr
from fastapi import HTTPException
from gradio.context import LocalContext
from gradio.utils import get_upload_folder
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..errors import InputError
from . import caps, rest, slots
from . import fair_queue as fair
from .field_values import json_kind, read_field
from .uploads import UploadLedger, uploaded_paths

WRITTEN_FOR = "6.31.0"  # the Gradio version every workaround below was written for and tested against


# ---- 1. a field's input check ------------------------------------------------------------------------------------

FIELD_CLASSES = (gr.Number, gr.Slider, gr.Dropdown, gr.Radio, gr.CheckboxGroup, gr.Textbox, gr.Checkbox)
TYPE_REPR = re.compile(
    r" \(type: <class '[^']*'>\)"
)  # in Gradio's "Value: 'x' (type: <class 'str'>) is not in ..."
_REQUEST: ContextVar = ContextVar("stsdemo_request", default=None)  # the request whose fields are read


def _as_written(text, language: str) -> str:
    return str(text)


def _english(request) -> str:
    return "en"


_label_text, _language_of = _as_written, _english  # a label in a language, a request's language: the app's


def name_input_errors(label_text=_as_written, language_of=_english) -> None:
    """Make every field's input check read its value strictly and name the field by ``label_text(label,
    language)``, in the language ``language_of(request)`` gives for the request being served (Gradio 6.31).

    Gradio checks a Number's or Slider's bounds (and a Dropdown's choices) before our handlers run, with a
    message that names no field ("Value 0 is less than minimum value 0.1."); an API caller sends many values
    at once, so each message is prefixed with the field's label. Before Gradio's check, the value is read by
    :mod:`.rest`'s rules (a numeric string as a number, ``true`` refused as one, NaN refused, a name of at most
    :data:`rest.MAX_NAME_CHARS` characters). A ``precision=0`` box would silently round 2.5 to 2; it says so
    instead. A refused value is the caller's, not the server's: no traceback goes to the log.

    The field classes' ``preprocess`` is wrapped, once per process, rather than each block's: Gradio copies a
    session's blocks when an event updates them (a link restored at page load does), and a copy would lose a
    per-block wrapper. Gradio runs ``preprocess`` before it sets the request of the event
    (``LocalContext.request``), so ``Blocks.process_api`` is wrapped too, to hold its request meanwhile."""
    global _label_text, _language_of
    _label_text, _language_of = label_text, language_of
    for cls in FIELD_CLASSES:
        if not getattr(cls.preprocess, "names_the_field", False):
            cls.preprocess = _naming_preprocess(cls.preprocess)
    if not getattr(gr.Blocks.process_api, "holds_the_request", False):
        gr.Blocks.process_api = _holding_request(gr.Blocks.process_api)


def field_name(block, language: str = "en") -> str:
    """How a refusal names a field: its label (what the page shows) in ``language``, else its id."""
    return _label_text(block.label or block.elem_id or type(block).__name__.lower(), language)


def served_language() -> str:
    """The language of the request being served ("en" outside one): by the rule the app passed."""
    request = _REQUEST.get() or LocalContext.request.get(None)
    return _language_of(request[0] if isinstance(request, list) else request)


def _holding_request(process_api):
    signature = inspect.signature(process_api)

    @functools.wraps(process_api)
    async def holding(*args, **kwargs):
        token = _REQUEST.set(signature.bind(*args, **kwargs).arguments.get("request"))
        try:
            return await process_api(*args, **kwargs)
        finally:
            _REQUEST.reset(token)

    holding.holds_the_request = True
    return holding


def _naming_preprocess(preprocess):
    @functools.wraps(preprocess)
    def checked(block, payload):
        language = served_language()
        label = field_name(block, language)
        try:
            return preprocess(block, read_field(block, payload, f"{label}:"))
        except InputError as error:
            raise gr.Error(error.in_language(language), print_exception=False) from None
        except gr.Error as error:
            message = TYPE_REPR.sub("", error.message)  # without the value's Python type
            raise gr.Error(f"{label}: {message}", print_exception=False) from None

    checked.names_the_field = True
    return checked


# ---- 2. the training curves' redraw --------------------------------------------------------------------------------


class CurveSender:
    """Updates for the three training LinePlots, working around how Gradio 6.31's LinePlot redraws.

    Its colour scale only knows the series present when the chart was last built, and an in-place data
    update does not rebuild it; a changed ``color_map`` does, but the rebuild draws the data of the
    *previous* update. So new data goes out first, and the colour map naming its series one update
    later (:meth:`catch_up` sends the update still owed, after :data:`PAUSE_S` so the page has drawn the
    data first). The dev chart's y range (``dev_range``: its frame -> ``[low, high]`` or None, the Fine-tune tab's
    :func:`~stsdemo.app.finetune.curves.dev_y_range`) rebuilds it too, so it travels with the colour map.
    """

    PAUSE_S = (
        0.3  # between the data and the colour map that rebuilds the chart: the page draws the data first
    )
    LEGEND = (
        2  # series the legend names, the newest (a Compare pair): Gradio 6.31's LinePlot legend is one row
    )
    # that does not wrap, so more names run off a narrow chart; hovering names every line

    def __init__(self, dev_range):
        self.dev_range = dev_range  # passed in by the tab: the seam imports no tab
        self.sent = (None, None, None)  # (colour map, y range) the plots were last given
        self.pending = (None, None, None)  # (colour map, y range) of the data sent last

    def updates(self, curves) -> tuple:
        maps = (
            (curves.dev_colors, self.dev_range(curves.dev)),
            (curves.loss_colors, None),
            (curves.buffer_colors, None),
        )
        out = []
        for frame, lagged, sent in zip((curves.dev, curves.loss, curves.buffer), self.pending, self.sent):
            if frame.empty:  # Vega warns "Infinite extent" for each field of an empty table: no chart yet
                out.append(None)
            elif lagged is not None and lagged != sent:
                colors, y_range = lagged
                out.append(
                    gr.update(
                        value=frame.copy(),
                        color_map=colors,
                        colors_in_legend=list(colors)[-self.LEGEND :],
                        **({"y_lim": y_range} if y_range is not None else {}),
                    )
                )
            else:
                out.append(gr.update(value=frame.copy()))
        self.sent = tuple(
            lagged if lagged is not None else sent for lagged, sent in zip(self.pending, self.sent)
        )
        self.pending = maps
        return tuple(out)

    def settled(self) -> bool:
        return self.sent == self.pending

    def catch_up(self, curves):
        """The update still owed for ``curves`` (the last ones sent), after a pause; nothing when settled."""
        if not self.settled():
            time.sleep(self.PAUSE_S)
            yield self.updates(curves)


# ---- 3. the MCP server ---------------------------------------------------------------------------------------------


def tools_only(demo: gr.Blocks, names) -> None:
    """Keep every public endpoint but ``names`` off the MCP tool list (they stay in the API).

    Gradio 6.31 lists as tools the public endpoints whose function is not marked as an MCP resource or
    prompt (``gradio.mcp``: ``fn._mcp_type``, set by ``gr.mcp.resource`` / ``gr.mcp.prompt``); a function
    marked with any type other than "tool" is left off. :func:`mcp_lifespan` also takes them out of the
    server's name table (so they cannot be called as tools, nor listed by its /schema).
    """
    for block_fn in demo.fns.values():
        if block_fn.fn is None or block_fn.api_visibility != "public" or block_fn.api_name in names:
            continue
        try:
            block_fn.fn._mcp_type = "api-only"
        except AttributeError:  # a builtin or bound method: nothing to mark
            pass


def mcp_lifespan(demo: gr.Blocks, names):
    """A server lifespan (``launch(app_kwargs={"lifespan": ...})``) that, once Gradio has built its MCP
    server, keeps only ``names`` in the server's tool table (``GradioMCPServer.tool_to_endpoint``, from which
    it lists, calls and describes tools) and reads each call's arguments first (:func:`read_tool_arguments`)."""

    @contextlib.asynccontextmanager
    async def lifespan(app):
        server = getattr(demo, "mcp_server_obj", None)
        if server is not None:
            server.tool_to_endpoint = {
                tool: endpoint
                for tool, endpoint in server.tool_to_endpoint.items()
                if endpoint.lstrip("/") in names
            }
            _read_tool_calls(server)
        yield

    return lifespan


def _read_tool_calls(server) -> None:
    """Put :func:`read_tool_arguments` before the MCP server's own call handler (``Server.request_handlers``),
    whose schema check names no argument."""
    from mcp import types

    handlers = server.mcp_server.request_handlers
    original = handlers[types.CallToolRequest]

    async def call(request):
        endpoint = server.tool_to_endpoint.get(request.params.name)
        if endpoint is not None:
            try:
                request.params.arguments = read_tool_arguments(
                    server.api_info["named_endpoints"][endpoint],
                    request.params.arguments or {},
                    endpoint.lstrip("/"),
                )
            except InputError as error:
                return types.ServerResult(
                    types.CallToolResult(
                        content=[types.TextContent(type="text", text=f"Input validation error: {error}")],
                        isError=True,
                    )
                )
        return await original(request)

    handlers[types.CallToolRequest] = call


def read_tool_arguments(endpoint: dict, arguments: dict, name: str) -> dict:
    """An MCP call's arguments read as a REST call's are (:mod:`.rest`), by the types of the endpoint's API
    description (``endpoint``): the argument named in each refusal. A JSON null where a number belongs is how an
    MCP client sends NaN or infinity, and the refusal says so."""
    parameters = parameters_of(endpoint)
    rest.checked_keywords(arguments, parameters, name)
    read = dict(arguments)
    for parameter in endpoint["parameters"]:
        key = parameter["parameter_name"]
        kind, optional = json_kind(parameter["type"])
        if key not in read or kind is None:
            continue
        if read[key] is None and not optional and kind == "number":
            raise InputError("mcp_null_number", key=key)
        reader = {"number": rest.read_number, "boolean": rest.read_bool, "string": rest.read_text}[kind]
        read[key] = reader(key, read[key], optional=optional)
    return read


# ---- 4. raw REST calls ---------------------------------------------------------------------------------------------

CALL = re.compile(r"^/gradio_api/(?P<route>call/v2|call|run|api)/(?P<name>[^/]+)/?$")
EVENT_ROUTE = re.compile(r"^/gradio_api/(?P<route>queue/join|run/predict|component_server)/?$")
UPLOAD = "/gradio_api/upload"  # multipart, its files capped by Gradio itself (launch(max_file_size=...))
PAGE_EVENTS = (
    "predict"  # Gradio 6.31's page posts its unqueued events (queue=False) to /run/predict by fn_index
)


def _names_an_event(body: bytes) -> bool:
    """Whether a /run/predict body names its event by ``fn_index``, as the page's own unqueued events do."""
    try:
        payload = json.loads(body)
    except ValueError:
        return False
    return isinstance(payload, dict) and isinstance(payload.get("fn_index"), int)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _file_values(data):
    """Every value in a page event's ``data`` marked as a file (``meta._type`` gradio.FileData), lists searched."""
    for value in data if isinstance(data, list) else ():
        if isinstance(value, list):
            yield from _file_values(value)
        elif isinstance(value, dict) and value.get("meta") == rest.FILE_META:
            yield value


def parameters_of(endpoint: dict) -> list[rest.Parameter]:
    """The arguments of an endpoint as its API description (``Blocks.get_api_info()``) declares them."""
    return [
        rest.Parameter(
            p["parameter_name"],
            bool(p.get("parameter_has_default")),
            p.get("parameter_default"),
            p["type"].get("title") == "FileData",
        )
        for p in endpoint["parameters"]
    ]


class StrictCalls:
    """ASGI middleware for every request with a body. A file upload is held to its visitor's share of Gradio's
    folder (:meth:`upload`). Any other body over ``request_body_bytes``
    (:mod:`.caps`) is refused with 413 before more of it is read; a page event or component call naming
    nothing of this app with 404 (:meth:`event_refusal`). Then ``POST /gradio_api/call/<name>`` (v1),
    ``/call/v2/<name>`` (v2) and ``/run/<name>`` (Gradio 6.31): an endpoint the API does not describe (unknown,
    or private) is refused with 404; a call
    leaving out an argument without a default, giving one the endpoint does not take, or a file it did not upload
    with 422 naming it; a v1 call leaving out arguments with defaults is completed with them, as gradio_client
    and v2 complete it. One line of JSON each (``{"detail": ...}``), no traceback."""

    def __init__(self, app, uploads: UploadLedger | None = None):
        self.app = app
        self.uploads = uploads or UploadLedger()  # the app's, which its disk sweep clears
        self.described = None  # (blocks, its named endpoints), read once

    def endpoints(self, blocks) -> dict:
        if self.described is None or self.described[0] is not blocks:
            self.described = (blocks, blocks.get_api_info()["named_endpoints"])
        return self.described[1]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            return await self.app(scope, receive, send)
        if scope.get("path", "").rstrip("/") == UPLOAD:
            return await self.upload(scope, receive, send)
        limit = int(caps.value("request_body_bytes"))
        body = await self.bounded_body(scope, receive, limit)
        if body is None:
            refusal = JSONResponse(
                {
                    "detail": f"the request body is over {caps.size_text(limit)}, this server's "
                    "limit (files go to POST /gradio_api/upload)"
                },
                status_code=413,
            )
            return await refusal(scope, receive, send)
        match = CALL.match(scope.get("path", ""))
        if match is None or (
            match["route"] == "run" and match["name"] == PAGE_EVENTS and _names_an_event(body)
        ):
            refused = self.event_refusal(scope, body) if scope.get("app") is not None else None
            if refused is not None:
                return await JSONResponse({"detail": refused[1]}, status_code=refused[0])(
                    scope, receive, send
                )
            return await self.app(
                scope, self.replayed(body, receive), send
            )  # the page's own events, and the rest
        endpoints = self.endpoints(scope["app"].get_blocks())
        endpoint = endpoints.get("/" + match["name"])
        if endpoint is None:
            refusal = JSONResponse(
                {"detail": rest.unknown_endpoint(match["name"], endpoints)}, status_code=404
            )
            return await refusal(scope, receive, send)
        try:
            body = self.checked(
                body, parameters_of(endpoint), match["name"], by_name=match["route"] == "call/v2"
            )
        except InputError as error:
            return await JSONResponse({"detail": str(error)}, status_code=422)(scope, receive, send)
        headers = [(key, value) for key, value in scope["headers"] if key != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        await self.app(scope, self.replayed(body, receive), send)

    async def upload(self, scope, receive, send):
        """A file upload, held to its visitor's share of Gradio's folder and to the folder's cap
        (:class:`~stsdemo.serving.uploads.UploadLedger`) on its declared length, before Gradio reads it (Gradio
        takes any number of files up to ``max_file_size`` each); the paths Gradio answers with are recorded,
        so that the sweep removes them when their time is up."""
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if not declared.isdigit():
            why = "an upload declares its length (Content-Length), held to its visitor's share of the disk"
            refusal = JSONResponse({"detail": why}, status_code=411)
            return await refusal(scope, receive, send)
        visitor = slots.visitor_of(Request(scope))
        upload, why = await asyncio.to_thread(self.uploads.admit, visitor, int(declared), gradio_cache())
        if upload is None:
            status = 429 if why.startswith("uploads from") else 503
            return await JSONResponse({"detail": why}, status_code=status)(scope, receive, send)
        answer = {"status": 0, "body": b""}

        async def recorded(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")
            await send(message)

        try:
            await self.app(scope, receive, recorded)
        finally:
            paths = uploaded_paths(answer["body"]) if answer["status"] == 200 else None
            if paths is None:
                self.uploads.cancel(upload)
            else:
                self.uploads.landed(upload, paths)

    @staticmethod
    async def bounded_body(scope, receive, limit: int) -> bytes | None:
        """The request's body, read in its chunks (joined once); None, read no further, when it declares or
        reaches more than ``limit`` bytes."""
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > limit:
            return None
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            chunk, more = message.get("body", b""), message.get("more_body", False)
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    @staticmethod
    def event_refusal(scope, body: bytes) -> tuple[int, str] | None:
        """``(status, why)`` for a page event (``/queue/join``, ``/run/predict``) naming no event of this app
        by ``fn_index``, carrying a file not uploaded to it or fewer values in ``data`` than the event takes,
        or a ``/component_server`` call naming no component or none of its server functions (Gradio 6.31
        answers each with a 500 or a logged traceback, or its file handling's message naming a server path);
        None for anything else, Gradio's to answer."""
        route = EVENT_ROUTE.match(scope.get("path", ""))
        try:
            payload = json.loads(body) if route else None
        except ValueError:
            return None  # not JSON: Gradio's own 422
        if not isinstance(payload, dict):
            return None
        blocks = scope["app"].get_blocks()
        if route["route"] == "component_server":
            block = (
                blocks.blocks.get(payload.get("component_id"))
                if _whole(payload.get("component_id"))
                else None
            )
            name = payload.get("fn_name")
            server_fn = (
                getattr(block, name, None) if isinstance(name, str) and not name.startswith("_") else None
            )
            if block is None or not getattr(server_fn, "_is_server_fn", False):
                return (
                    404,
                    f"no component {rest.shown(payload.get('component_id'))} with a server function "
                    f"{rest.shown(name)}",
                )
            return None
        index = payload.get("fn_index")
        if not _whole(index) or index not in blocks.fns:
            return 404, f"no event {rest.shown(index)}: fn_index names one of this app's events"
        wanted, data = len(blocks.fns[index].inputs), payload.get("data")
        if not isinstance(data, list) or len(data) < wanted:  # Gradio's own check raises, with a traceback
            return 422, f"event {index} takes {wanted} values in data, got {rest.shown(data)}"
        try:
            for value in _file_values(payload.get("data")):
                rest.read_file("a file", value, Path(get_upload_folder()))
        except InputError as error:
            return 422, str(error)
        return None

    @staticmethod
    def replayed(body: bytes, receive):
        """``receive`` for the app behind: the body read here once, then whatever the connection sends."""
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay

    @staticmethod
    def checked(body: bytes, parameters: list[rest.Parameter], name: str, by_name: bool) -> bytes:
        """The body a call goes on with (a v1 call completed with defaults); InputError for a refused call. A body
        that is not the JSON object the route takes goes on as it is (Gradio answers it with 422)."""
        try:
            payload = json.loads(body)
        except ValueError:
            return body
        upload = Path(get_upload_folder())
        if by_name and isinstance(payload, dict):
            given = {key: value for key, value in payload.items() if key != "oauth_token"}
            rest.checked_keywords(given, parameters, name)
            rest.checked_files(given, parameters, upload)
            return body
        if not by_name and isinstance(payload, dict) and isinstance(payload.get("data"), list):
            payload["data"] = rest.completed(payload["data"], parameters, name)
            rest.checked_files(dict(zip((p.name for p in parameters), payload["data"])), parameters, upload)
            return json.dumps(payload).encode()
        return body


# ---- 5. a fair queue -----------------------------------------------------------------------------------------------


def fair_queue(demo: gr.Blocks) -> None:
    """Hold each event to its visitor's caps before Gradio's queue takes it (:func:`.fair_queue.refusal`): an event
    over them is answered 429 with the reason, which the page shows as the event's error. Gradio 6.31 keeps every
    queued or running event in ``Queue.event_ids_to_events`` (from ``Queue.push`` until it ends or is
    cancelled); ``push`` is wrapped on this demo's queue."""
    queue = demo._queue
    push = queue.push

    def holder(session_hash, request) -> fair.Holder:
        visitor = slots.visitor_of(request)
        return fair.Holder(session_hash or "", visitor)

    async def fair_push(body, request, username):
        held = [
            holder(event.session_hash, event.request) for event in list(queue.event_ids_to_events.values())
        ]
        refused = fair.refusal(held, holder(body.session_hash or f"call {id(body)}", request))
        if refused is not None:
            raise HTTPException(status_code=429, detail=refused)
        return await push(body, request, username)

    queue.push = fair_push


def gradio_cache() -> Path:
    """Gradio's cache, where it keeps uploads and its copies of the files the app returns (``GRADIO_TEMP_DIR``)."""
    return Path(get_upload_folder())
