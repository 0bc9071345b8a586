"""The Gradio seam (stsdemo/serving/gradio_seam.py): each workaround for Gradio 6.31 is still needed (Gradio
unpatched still shows what it works around) and still works (the private attribute it uses is there and acts
as assumed). After a Gradio upgrade, run this file first: a failure names the workaround to re-check.

Also: private Gradio attributes and internal modules appear in that one module only. No server is started here
(tests/test_fuzz_edges.py sends the edge cases to a live app).
"""

from __future__ import annotations

import ast
import asyncio
import json
import math
import re
from pathlib import Path

import gradio as gr
import pytest
from gradio_client import utils as client_utils

from stsdemo.app.ui import tools
from stsdemo.errors import InputError
from stsdemo.serving import gradio_seam, rest

ROOT = Path(__file__).resolve().parents[1]
SEAM = ROOT / "stsdemo" / "serving" / "gradio_seam.py"


def tiny_demo() -> gr.Blocks:
    """Two API endpoints (fresh functions each time: the seam marks them), one event of components (a Number
    field with a label and bounds) and a private one."""

    def _double(x: float) -> str:
        """Double a number.

        Args:
            x: the number.
        """
        return str(2 * x)

    def _halve(x: float, exact: bool = True) -> str:
        """Halve a number.

        Args:
            x: the number.
            exact: whether to keep the fraction.
        """
        return str(x / 2 if exact else x // 2)

    def echo(n):
        return str(n)

    with gr.Blocks() as demo:
        gr.api(_double, api_name="double")
        gr.api(_halve, api_name="halve")
        box = gr.Number(label="Batch size", minimum=1, precision=0)
        out = gr.Textbox()
        box.submit(echo, box, out, api_name="echo")
        box.change(echo, box, out, api_visibility="private", api_name="hidden")
    return demo


def test_the_seam_names_the_gradio_it_was_written_for():
    """Every workaround was written for and tested against this version; the LinePlot redraw
    (:class:`gradio_seam.CurveSender`) lives in Gradio's page code, which no Python test can watch: on a new
    version, check in the browser test (its Fine-tune curves) whether a LinePlot's colour scale follows an
    in-place data update, and drop the sender if it does."""
    assert gr.__version__ == gradio_seam.WRITTEN_FOR, (
        f"Gradio {gr.__version__}: re-check every workaround of stsdemo/serving/gradio_seam.py (written for "
        f"{gradio_seam.WRITTEN_FOR}), then update WRITTEN_FOR"
    )


def gradio_pins() -> dict[str, list[str]]:
    """Every place that names the Gradio to install, with the versions it names: the extras of pyproject.toml,
    both requirements files and the Space's ``sdk_version`` in README.md."""
    repo = Path(__file__).resolve().parent.parent
    found = {
        name: re.findall(
            r"^[^#\n]*gradio(?:\[mcp\])?\s*([<>=!~][^\s\",#]*(?:,[<>=!~][^\s\",#]*)*)",
            (repo / name).read_text(encoding="utf-8"),
            re.MULTILINE,
        )
        for name in ("requirements.txt", "requirements-test.txt")
    }
    pyproject = (repo / "pyproject.toml").read_text(encoding="utf-8")
    found["pyproject.toml"] = re.findall(r'"gradio(?:\[mcp\])?([<>=!~][^"]*)"', pyproject)
    found["README.md"] = re.findall(
        r"^sdk_version:\s*(\S+)", (repo / "README.md").read_text(encoding="utf-8"), re.MULTILINE
    )
    return found


def test_every_install_names_the_one_gradio_the_seam_was_written_for():
    """The workarounds hold for one version (the test above), so a range would install a Gradio they were never
    checked against: every install pins exactly that version."""
    pins = gradio_pins()
    assert all(pins.values()), pins  # each place still names Gradio where we look
    wrong = {
        name: found
        for name, found in pins.items()
        if any(pin.lstrip("=") != gradio_seam.WRITTEN_FOR for pin in found)
    }
    assert not wrong, f"pin gradio=={gradio_seam.WRITTEN_FOR} everywhere: {wrong}"


# ---- 1. a field's input check --------------------------------------------------------------------------------------


def test_unpatched_fields_still_name_nothing_and_misread_strings_booleans_and_nan():
    gradio_seam.name_input_errors()
    original = gr.Number.preprocess.__wrapped__  # Gradio's own check, under the seam's wrapper
    field = gr.Number(label="Batch size", minimum=1, precision=0)
    with pytest.raises(gr.Error) as refused:
        original(field, 0)
    assert "Batch size" not in refused.value.message  # no field named
    with pytest.raises(TypeError):  # a numeric string compared with the bound
        original(field, "2")
    assert original(field, True) == 1  # true read as 1
    assert math.isnan(gr.Number.preprocess.__wrapped__(gr.Number(label="gap", minimum=0), float("nan")))
    assert (
        gr.Checkbox.preprocess.__wrapped__(gr.Checkbox(label="final"), "yes") == "yes"
    )  # passed on as it is
    assert gr.Textbox.preprocess.__wrapped__(gr.Textbox(label="sentence"), 5) == "5"


def test_the_field_classes_read_their_input_strictly_and_name_the_field():
    gradio_seam.name_input_errors()
    number = gr.Number(label="Batch size", minimum=1, precision=0)
    assert number.preprocess("2") == 2 and number.preprocess(" 16 ") == 16 and number.preprocess(4) == 4
    for payload, message in [
        (True, "must be a number, got true"),
        ("abc", 'must be a number, got "abc"'),
        (float("nan"), "must be a finite number"),
        (2.5, "must be a whole number, got 2.5"),
        (0, "Value 0 is less than minimum value 1"),
    ]:
        with pytest.raises(gr.Error) as refused:
            number.preprocess(payload)
        assert refused.value.message.startswith("Batch size: ") and message in refused.value.message
        assert refused.value.print_exception is False  # the caller's value: no traceback in the log
    assert gr.Slider(0.1, 5, label="slope k").preprocess("2.5") == 2.5
    with pytest.raises(gr.Error, match="Final evaluation: must be true or false, got 1"):
        gr.Checkbox(label="Final evaluation").preprocess(1)
    with pytest.raises(gr.Error, match="Sentence 1: must be text, got 5"):
        gr.Textbox(label="Sentence 1").preprocess(5)
    model = gr.Dropdown(["default"], label="Model", allow_custom_value=True)
    with pytest.raises(gr.Error, match=r"Model: is too long \(100,000 characters; at most 1,000\)"):
        model.preprocess("x" * 100_000)
    assert model.preprocess("org/model") == "org/model"
    with pytest.raises(gr.Error, match=r"Loss: Value: 'hinge' is not in the list of choices"):
        gr.Radio(["sk2", "trelu"], label="Loss").preprocess("hinge")
    with pytest.raises(gr.Error, match="References: must be a list of choices"):
        gr.CheckboxGroup(["L1", "MSE"], label="References").preprocess("L1")


def test_gradio_still_checks_each_input_with_its_class_preprocess():
    """The wrapper sits on the class; Gradio must still call ``block.preprocess`` for every input."""
    import inspect

    assert "block.preprocess" in inspect.getsource(gr.Blocks.preprocess_data)


# ---- 2. the training curves' redraw --------------------------------------------------------------------------------


def test_the_curve_sender_sends_data_first_and_the_colour_map_one_update_later(monkeypatch):
    import pandas as pd

    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.app.finetune.curves import dev_y_range

    curves = finetune_view.curves_for("")
    curves.dev = pd.DataFrame({"step": [0, 1], "spearman": [80.0, 81.0], "run": ["a", "a"]})
    curves.dev_colors = {"a": "#1f77b4"}
    sender = gradio_seam.CurveSender(dev_y_range)
    first = sender.updates(curves)
    assert "color_map" not in first[0] and not sender.settled()
    assert first[1:] == (
        None,
        None,
    )  # loss and buffer have no point yet: no empty table for Vega to warn about
    monkeypatch.setattr(gradio_seam.CurveSender, "PAUSE_S", 0)
    (owed,) = list(sender.catch_up(curves))
    assert owed[0]["color_map"] == {"a": "#1f77b4"} and "y_lim" in owed[0] and sender.settled()
    assert list(sender.catch_up(curves)) == []
    # the props the sender changes still exist on a LinePlot
    import inspect

    assert {"color_map", "y_lim"} <= set(inspect.signature(gr.LinePlot).parameters)


# ---- 3. the MCP server ---------------------------------------------------------------------------------------------


def _mcp_server(demo):
    pytest.importorskip("mcp", reason='the MCP extra is not installed (pip install "gradio[mcp]==6.31.0")')
    from gradio.mcp import GradioMCPServer

    return GradioMCPServer(demo)


def _handle(server, request):
    """Run one MCP request through the server's handlers, as within a client's request (no HTTP)."""
    from mcp import types
    from mcp.server.lowlevel.server import request_ctx
    from mcp.shared.context import RequestContext

    async def main():
        request_ctx.set(
            RequestContext(request_id=1, meta=None, session=None, lifespan_context=None, request=None)
        )
        kind = types.ListToolsRequest if request is None else types.CallToolRequest
        return (await server.mcp_server.request_handlers[kind](request)).root

    return asyncio.run(main())


def _call(name, arguments):
    from mcp import types

    return types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))


def test_gradio_still_lists_every_public_endpoint_as_a_tool_and_a_marked_one_not():
    demo = tiny_demo()
    server = _mcp_server(demo)
    assert set(server.tool_to_endpoint) == {"_double", "_halve", "echo"}  # no public way to keep one off
    assert {tool.name for tool in _handle(server, None).tools} == {"_double", "_halve", "echo"}
    gradio_seam.tools_only(demo, ("double",))
    halve = next(fn.fn for fn in demo.fns.values() if fn.api_name == "halve")
    assert halve._mcp_type == "api-only"  # the private mark Gradio reads
    assert {tool.name for tool in _handle(server, None).tools} == {"_double"}


def test_the_mcp_lifespan_keeps_only_the_tools_and_names_the_argument_mcp_refuses():
    demo = tiny_demo()
    demo.mcp_server_obj = server = _mcp_server(demo)
    unnamed = _handle(server, _call("_double", {"x": None}))
    assert (
        unnamed.isError and unnamed.content[0].text == "Input validation error: None is not of type 'number'"
    )

    async def start():
        async with gradio_seam.mcp_lifespan(demo, ("double",))(None):
            pass

    asyncio.run(start())
    assert server.tool_to_endpoint == {"_double": "/double"}
    for arguments, message in [
        ({"x": None}, "x must be a finite number, got null (JSON has no NaN"),
        ({"x": True}, "x must be a number, got true"),
        ({}, "/double needs x"),
        ({"x": 1, "y": 2}, '/double has no argument "y"'),
    ]:
        named = _handle(server, _call("_double", arguments))
        assert named.isError and named.content[0].text.startswith("Input validation error: " + message), named
    unknown = _handle(server, _call("_halve", {"x": 1}))
    assert unknown.isError and "Unknown tool" in unknown.content[0].text


def test_tool_arguments_are_read_as_rest_reads_them():
    endpoint = tiny_demo().get_api_info()["named_endpoints"]["/halve"]
    assert gradio_seam.read_tool_arguments(endpoint, {"x": "3", "exact": "false"}, "halve") == {
        "x": 3,
        "exact": False,
    }
    assert gradio_seam.json_kind({"oneOf": [{"type": "null"}, {"type": "integer"}]}) == ("number", True)
    assert gradio_seam.json_kind({"type": "array", "items": {"type": "string"}}) == (None, False)


# ---- 4. raw REST calls ---------------------------------------------------------------------------------------------


def test_unpatched_gradio_still_fails_raw_calls_with_reprs_and_500s():
    from gradio.data_classes import PredictBody
    from gradio.route_utils import FnIndexInferError, get_fn

    demo = tiny_demo()
    with pytest.raises(FnIndexInferError):  # v1 and v2: an unknown endpoint is a 500
        get_fn(demo, "nothing", PredictBody(data=[]))
    assert get_fn(demo, "hidden", PredictBody(data=[])).api_visibility == "private"  # callable by name
    parameters = demo.get_api_info()["named_endpoints"]["/double"]["parameters"]
    with pytest.raises(TypeError, match="No value provided for required argument: x"):  # v2: a 500
        client_utils.construct_args(parameters, (), {})
    with pytest.raises(TypeError, match="not a valid key-word argument"):
        client_utils.construct_args(parameters, (), {"x": 1, "y": 2})
    echo = next(fn for fn in demo.fns.values() if fn.api_name == "echo")
    with pytest.raises(ValueError, match=r"object at 0x"):  # v1: a missing input shown as a component's repr
        demo.validate_inputs(echo, [])


def _post(demo, path: str, payload) -> tuple[int, dict | bytes]:
    """One POST through :class:`gradio_seam.StrictCalls`: (status, its JSON answer) when it answers itself, else
    (0, the body it passes on)."""
    passed = {}

    async def downstream(scope, receive, send):
        passed["body"] = (await receive())["body"]

    class App:
        @staticmethod
        def get_blocks():
            return demo

    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "app": App()}
    sent = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(gradio_seam.StrictCalls(downstream)(scope, receive, send))
    if "body" in passed:
        return 0, passed["body"]
    return sent[0]["status"], json.loads(sent[1]["body"])


def test_strict_calls_refuse_unknown_endpoints_and_arguments_and_complete_defaults():
    demo = tiny_demo()
    status, answer = _post(demo, "/gradio_api/call/v2/nothing", {})
    assert status == 404 and answer["detail"].startswith(
        "no endpoint /nothing; the API has /double, /echo, /halve"
    )
    assert _post(demo, "/gradio_api/call/hidden", {"data": [1]})[0] == 404  # private stays private
    assert _post(demo, "/gradio_api/call/halve", {"data": []}) == (
        422,
        {"detail": "/halve needs x: it takes x, [exact] (in brackets: optional)"},
    )
    assert _post(demo, "/gradio_api/call/v2/halve", {"exact": True})[1]["detail"].startswith("/halve needs x")
    assert _post(demo, "/gradio_api/call/v2/halve", {"x": 1, "y": 2})[1]["detail"].startswith(
        '/halve has no argument "y"'
    )
    assert _post(demo, "/gradio_api/call/halve", {"data": [1, True, 3]})[1]["detail"].startswith(
        "/halve takes at most 2 arguments, got 3"
    )
    assert json.loads(_post(demo, "/gradio_api/call/halve", {"data": [4]})[1]) == {"data": [4, True]}
    assert _post(demo, "/gradio_api/run/halve", {"data": []})[0] == 422
    assert _post(demo, "/gradio_api/call/halve", b"not json") == (0, b"not json")  # Gradio's own 422


def test_strict_calls_pass_the_pages_own_unqueued_events_on():
    # the page posts each queue=False event (a live redraw, a hidden event) to /run/predict by its fn_index
    demo = tiny_demo()
    body = {"data": [1], "fn_index": 0, "session_hash": "abc"}
    assert _post(demo, "/gradio_api/run/predict", body) == (0, json.dumps(body).encode())
    assert _post(demo, "/gradio_api/run/predict", {"data": [1]})[0] == 404  # no event named: no endpoint


def test_strict_calls_take_only_files_uploaded_to_this_app():
    from gradio.utils import get_upload_folder

    def count(pairs):
        return ""

    with gr.Blocks() as demo:
        upload, out = gr.File(label="Pairs"), gr.Textbox()
        gr.Button().click(count, upload, out, api_name="count")
    for value in (
        "x",
        {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}},
        {"path": "https://example.com/a.csv", "meta": {"_type": "gradio.FileData"}},
        {"path": str(Path(get_upload_folder()) / "a.csv")},
    ):
        status, answer = _post(demo, "/gradio_api/call/count", {"data": [value]})
        assert status == 422 and answer["detail"].startswith("pairs must be a file uploaded to this app"), (
            answer
        )
    uploaded = {
        "path": str(Path(get_upload_folder()) / "abc" / "pairs.csv"),
        "meta": {"_type": "gradio.FileData"},
    }
    assert _post(demo, "/gradio_api/call/count", {"data": [uploaded]})[0] == 0
    assert _post(demo, "/gradio_api/call/v2/count", {"pairs": "x"})[0] == 422


# ---- the edge's reading rules (stsdemo.serving.rest) ---------------------------------------------------------------


def test_reading_rules():
    assert (
        rest.read_number("k", "2") == 2
        and rest.read_number("k", " -0.5 ") == -0.5
        and rest.read_number("k", 3)
    )
    for value in (True, "nan", "١", "1_0", [1], None):
        with pytest.raises(InputError, match="^k must be a"):
            rest.read_number("k", value)
    with pytest.raises(InputError, match="^k must be a finite number"):
        rest.read_number("k", float("inf"))
    assert rest.read_bool("b", "True") is True and rest.read_bool("b", None, optional=True) is None
    with pytest.raises(InputError, match="^b must be true or false, got 0"):
        rest.read_bool("b", 0)
    with pytest.raises(InputError, match=r"^model is too long \(1,001 characters"):
        rest.read_text("model", "x" * 1001, max_chars=rest.MAX_NAME_CHARS)

    @rest.reads_arguments(long_text=("sentence",))
    def api(
        sentence: str,
        k: float = 1.0,
        seeds: int | None = None,
        flag: bool = False,
        names: list[str] | None = None,
        request: gr.Request = None,
    ):
        return sentence, k, seeds, flag, names, request

    assert api("x" * 5000, "2", seeds="3", flag="true", names=["L1"]) == (
        "x" * 5000,
        2,
        3,
        True,
        ["L1"],
        None,
    )
    with pytest.raises(InputError, match="^seeds must be a number, got true"):
        api("a", seeds=True)
    with pytest.raises(InputError, match="^sentence must be text, got 5"):
        api(5)


def test_the_api_functions_read_their_arguments():
    """Every API-only endpoint of the app (``gr.api``) reads its arguments at the edge (its chain of wrappers holds
    :func:`rest.reads_arguments`), so REST v1, v2, gradio_client and MCP read them alike."""
    from app_fixtures import small_app_state

    from stsdemo.app.page import build_demo

    demo = build_demo(small_app_state())
    endpoints = demo.get_api_info()["named_endpoints"]
    takes = {name: [p["component"] for p in endpoint["parameters"]] for name, endpoint in endpoints.items()}
    api_only = [
        fn
        for fn in demo.fns.values()
        if fn.fn is not None and takes.get(f"/{fn.api_name}") and set(takes[f"/{fn.api_name}"]) == {"Api"}
    ]
    assert {fn.api_name for fn in api_only} >= set(tools.MCP_TOOLS)
    for block_fn in api_only:
        chain, fn = [], block_fn.fn
        while fn is not None:
            chain.append(fn)
            fn = getattr(fn, "__wrapped__", None)
        assert any(getattr(fn, "reads_arguments", False) for fn in chain), block_fn.api_name


# ---- private Gradio attributes live in the seam only ---------------------------------------------------------------


def _python_files():
    for folder in ("stsdemo", "bench"):
        yield from sorted((ROOT / folder).rglob("*.py"))
    yield ROOT / "app.py"


def test_private_gradio_attributes_and_internal_modules_appear_in_the_seam_only():
    """Outside gradio_seam.py: no import of a Gradio module other than ``gradio`` itself (``gradio.utils``,
    ``gradio.mcp``, ... are internal) and, in a file that uses Gradio, no ``._name`` attribute of anything but
    the file's own ``self``/``cls``."""
    found = []
    for path in _python_files():
        if path == SEAM:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        uses_gradio = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            uses_gradio |= any(name == "gradio" or name.startswith("gradio.") for name in names)
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
                for name in names
                if name.startswith("gradio.")
            ]
        if not uses_gradio:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses .{node.attr}")
    assert not found, "private Gradio use outside stsdemo/serving/gradio_seam.py:\n" + "\n".join(found)


# ---- bounded bodies, unknown events and component functions (issue 40) -------------------------------------------


def _post_chunks(demo, path: str, chunks: list[bytes], headers=()) -> tuple[int, object, int]:
    """A POST whose body comes in ``chunks``: (status, answer or passed body, chunks read)."""
    passed, read = {}, [0]

    async def downstream(scope, receive, send):
        passed["body"] = (await receive())["body"]

    class App:
        @staticmethod
        def get_blocks():
            return demo

    async def receive():
        read[0] += 1
        return {"type": "http.request", "body": chunks[read[0] - 1], "more_body": read[0] < len(chunks)}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "headers": list(headers), "app": App()}
    asyncio.run(gradio_seam.StrictCalls(downstream)(scope, receive, send))
    if "body" in passed:
        return 0, passed["body"], read[0]
    return sent[0]["status"], json.loads(sent[1]["body"]), read[0]


def test_a_body_over_the_cap_is_refused_before_it_is_read(monkeypatch):
    monkeypatch.setenv("STSDEMO_MAX_BODY", "1kb")
    demo = tiny_demo()
    megabyte = [b"x" * 1024] * 1024
    status, answer, read = _post_chunks(demo, "/gradio_api/queue/join", megabyte)
    assert status == 413 and read == 2 and "1 KB" in answer["detail"], (
        status,
        answer,
        read,
    )  # stopped reading
    status, _, read = _post_chunks(
        demo, "/gradio_api/call/double", megabyte, headers=[(b"content-length", str(1024**2).encode())]
    )
    assert status == 413 and read == 0  # refused on its declared length
    length = [(b"content-length", str(1024**2).encode())]
    assert _post_chunks(demo, "/gradio_api/upload", megabyte, length)[0] == 0  # a file upload: its own caps
    assert _post_chunks(demo, "/gradio_api/upload", megabyte)[0] == 411  # one that declares no length


def test_unknown_events_and_component_functions_are_404_and_foreign_files_and_missing_values_422():
    demo = tiny_demo()
    for index in (99999, -1, "0", True, None):
        status, answer = _post(
            demo, "/gradio_api/queue/join", {"data": [1], "fn_index": index, "session_hash": "a"}
        )
        assert status == 404 and answer["detail"].startswith("no event"), (index, answer)
    known = next(iter(demo.fns))
    join = {"data": [1], "fn_index": known, "session_hash": "a"}
    assert _post(demo, "/gradio_api/queue/join", join)[0] == 0
    assert _post(demo, "/gradio_api/run/predict", {**join, "fn_index": 99999})[0] == 404
    status, answer = _post(
        demo,
        "/gradio_api/queue/join",
        {**join, "data": [[{"path": "../runs/x.zip", "meta": {"_type": "gradio.FileData"}}]]},
    )
    assert status == 422 and "uploaded to this app" in answer["detail"] and "/work" not in answer["detail"]
    for data in ([], "x", None):  # too few values: Gradio's own check logged a traceback (issue 51)
        status, answer = _post(demo, "/gradio_api/queue/join", {**join, "data": data})
        assert (
            status == 422
            and answer["detail"] == f"event {known} takes 1 values in data, got {json.dumps(data)}"
        ), answer
    number = next(block_id for block_id, block in demo.blocks.items() if isinstance(block, gr.Number))
    for component, name in ((number, "__init__"), (number, "preprocess"), (10**6, "x"), ("1", "x")):
        status, answer = _post(
            demo,
            "/gradio_api/component_server",
            {"session_hash": "a", "component_id": component, "fn_name": name, "data": None},
        )
        assert status == 404, (component, name, answer)


def test_a_whole_number_too_large_for_a_float_is_refused_naming_the_field():
    with pytest.raises(InputError, match=r"^k is too large \(401 digits"):
        rest.read_number("k", 10**400)
    with pytest.raises(InputError, match="too large"):
        gradio_seam.read_tool_arguments(
            {
                "parameters": [
                    {"parameter_name": "k", "type": {"type": "number"}, "parameter_has_default": False}
                ]
            },
            {"k": 10**400},
            "loss_at",
        )
    gradio_seam.name_input_errors()
    with pytest.raises(gr.Error, match=r"Batch size: is too large \(401 digits"):
        gr.Number(label="Batch size", minimum=1, precision=0).preprocess(10**400)
