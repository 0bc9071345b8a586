"""Raw REST calls to the API-only endpoints (``/score_pair``, ``/loss_at``, ...) with optional arguments left out.

``gradio_client`` and ``POST /gradio_api/call/v2/<name>`` fill in an argument's default; a plain
``POST /gradio_api/call/<name>`` with ``{"data": [3.6, 3]}`` does not, and Gradio refuses it with an object
repr (and a traceback in the server log). :class:`OptionalArguments`, an ASGI middleware, completes such a
call with the defaults of the arguments it leaves out, or answers 422 with one line naming the missing ones.
Endpoints drawn from components (the tabs') are left as they are: their inputs have no defaults.
"""

from __future__ import annotations

import json
import re

from gradio.components.api_component import Api
from gradio.utils import get_function_params
from starlette.responses import JSONResponse

from ...errors import InputError

CALL = re.compile(r"^/gradio_api/call/(?P<name>[A-Za-z0-9_]+)/?$")


def api_arguments(blocks, name: str) -> list[tuple[str, bool, object]] | None:
    """``(name, has_default, default)`` of each argument of the API-only endpoint ``name`` (``gr.api``); None
    for an endpoint of components or no such endpoint."""
    for block_fn in blocks.fns.values():
        if block_fn.api_name == name and block_fn.fn is not None and block_fn.inputs \
                and all(isinstance(block, Api) for block in block_fn.inputs):
            return [(argument, has, default) for argument, has, default, _ in get_function_params(block_fn.fn)]
    return None


def completed(data: list, arguments: list[tuple[str, bool, object]], name: str) -> list:
    """``data`` with the defaults of the trailing arguments it leaves out; InputError when one of them has none."""
    if len(data) >= len(arguments):
        return data
    missing = [argument for argument, has, _ in arguments[len(data):] if not has]
    if missing:
        takes = ", ".join(f"[{argument}]" if has else argument for argument, has, _ in arguments)
        raise InputError(f"/{name} needs {', '.join(missing)}: it takes {takes} (in brackets: optional)")
    return [*data, *(default for _, _, default in arguments[len(data):])]


class OptionalArguments:
    """ASGI middleware: completes a positional REST call's optional arguments (see the module's docstring)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        match = CALL.match(scope.get("path", "")) if scope["type"] == "http" and scope["method"] == "POST" else None
        if match is None:
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        try:
            payload = json.loads(body)
            arguments = api_arguments(scope["app"].get_blocks(), match["name"])
            if arguments is not None and isinstance(payload, dict) and isinstance(payload.get("data"), list):
                payload["data"] = completed(payload["data"], arguments, match["name"])
                body = json.dumps(payload).encode()
        except InputError as error:
            return await JSONResponse({"detail": str(error)}, status_code=422)(scope, receive, send)
        except ValueError:  # not JSON: Gradio answers it as it would
            pass
        headers = [(key, value) for key, value in scope["headers"] if key != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
