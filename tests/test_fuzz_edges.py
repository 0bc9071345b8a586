"""The app's edges under a hostile caller (issue 32, "strict edges"): every case below goes to a live app over REST
v1 (``POST /gradio_api/call/<name>``), REST v2 (``/gradio_api/call/v2/<name>``) and MCP where the endpoint is a
tool. Each refusal names the argument or field, carries no Gradio repr, and the server's log (its stderr and
every log record) holds no traceback and stays small.

* numeric strings are read as numbers (``loss_at`` with ``"2"``), or refused naming the field;
* ``true`` is refused as a number (``k = true`` read as 1 before);
* NaN is refused naming the field (an MCP client sends it as null);
* a missing argument, an unknown one, an unknown or private endpoint: 422 or 404 naming it (Gradio's object
  reprs and bare 500s before);
* a 100,000-character model or run name is refused before any lookup (an OSError and 104 KB of log before);
* a file the app did not receive is refused;
* a refusal does not tell another session's folder from a missing one;
* raw requests (issue 51): encoded slashes under ``/playground/``, a chunked upload with a bad multipart body,
  a page event with too few values: each a 4xx in one line, no traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
from app_fixtures import served, small_app_state

pytestmark = pytest.mark.slow

LONG_NAME = "x" * 100_000
MAX_LOG_PER_CALL = (
    2_000  # characters a refused call may add to the server's log (a few warnings, no traceback)
)


@dataclass
class Answer:
    status: int  # HTTP status of the call (200: its result came as a stream)
    ok: bool  # the endpoint answered with a result, not a refusal
    text: str  # the refusal's message, or the result as JSON


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The app launched in this process, with its MCP server when the extra is installed; yields (url, mcp)."""
    try:
        import mcp  # noqa: F401

        with_mcp = True
    except ImportError:
        with_mcp = False
    for url in served(small_app_state(), tmp_path_factory.getbasetemp() / "runs", mcp=with_mcp):
        yield url.rstrip("/"), with_mcp


# ---- the three ways in --------------------------------------------------------------------------------------------


def rest(url: str, name: str, payload, v2: bool = False) -> Answer:
    """One REST call: v1 takes ``{"data": payload}``, v2 ``payload`` (by argument name); then its result stream."""
    route = f"{url}/gradio_api/call/{'v2/' if v2 else ''}{name}"
    body = json.dumps(payload if v2 else {"data": payload})  # NaN as JSON's NaN, as Python writes it
    posted = httpx.post(route, content=body, headers={"content-type": "application/json"}, timeout=60)
    if posted.status_code != 200:
        try:
            return Answer(posted.status_code, False, str(posted.json().get("detail")))
        except ValueError:  # not JSON: a bare server error
            return Answer(posted.status_code, False, posted.text[:300])
    stream = httpx.get(f"{route}/{posted.json()['event_id']}", timeout=300).text
    events = re.findall(r"^event: (\w+)\ndata: (.*)$", stream, re.M)
    kind, data = [(kind, data) for kind, data in events if kind in ("complete", "error")][-1]
    data = json.loads(data)
    if kind == "error":
        return Answer(200, False, str(data.get("error") if isinstance(data, dict) else data))
    return Answer(200, True, json.dumps(data, ensure_ascii=False))


def mcp_tool(url: str, name: str, arguments: dict) -> Answer:
    """One MCP tool call through a real client session (streamable HTTP)."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with streamable_http_client(f"{url}/gradio_api/mcp/") as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(name, arguments)

    result = asyncio.run(main())
    text = "".join(getattr(part, "text", "") for part in result.content)
    return Answer(200, not result.isError, text)


# ---- the cases ----------------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One call and what its answer must say: ``names`` (a refusal naming it; None: answered), ``status`` (of a
    refusal the route makes itself: 404, 422; None: Gradio's error event), ``check`` (of an answer's JSON)."""

    title: str
    call: Callable[[str], Answer]
    names: str | None = None
    status: int | None = None
    check: Callable[[object], bool] | None = None
    mcp: bool = False


def v1(name, data, **expect) -> Case:
    return Case(f"v1 /{name} {json.dumps(data)[:60]}", lambda url: rest(url, name, data), **expect)


def v2(name, body, **expect) -> Case:
    return Case(f"v2 /{name} {json.dumps(body)[:60]}", lambda url: rest(url, name, body, v2=True), **expect)


def tool(name, arguments, **expect) -> Case:
    return Case(
        f"MCP {name} {json.dumps(arguments)[:60]}",
        lambda url: mcp_tool(url, name, arguments),
        mcp=True,
        **expect,
    )


def k_is(value):
    return lambda result: json.loads(result[0])["k"] == value


def x0_is(value):
    return lambda result: json.loads(result[0])["x0"] == value


# /train and /compare_buffer with a refused value among the given ones: the rest completed, nothing started
TRAIN_HEAD = ["default", "STS-B train", None, "sts"]
NOT_UPLOADED = {"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}}
NAN = float("nan")

CASES = [
    # numeric strings are read as numbers (loss_at answered "TypeError: only integer tensors..." before)
    v1("loss_at", [3.6, 3, "2"], check=k_is(2)),
    v1("loss_at", [3.6, 3, 2, "0.2"], check=x0_is(0.2)),
    v2("loss_at", {"prediction": "3.6", "label": "3", "k": "2", "x0": "0.25"}, check=k_is(2)),
    tool("loss_at", {"prediction": 3.6, "label": 3, "k": "2"}, check=lambda result: result["k"] == 2),
    v1(
        "score",
        ["default", "A man plays a guitar.", "A man is playing a guitar.", "STS 0–5", "", "1", "4.5"],
        check=lambda result: isinstance(result[0], float),
    ),
    v1("loss_at", [3.6, 3, "two"], names="k"),
    v1("score", ["default", "a", "b", "STS 0–5", "", "wide", None], names="Gap d"),
    # true is not a number
    v1("loss_at", [3.6, 3, True], names="k"),
    v2("loss_at", {"prediction": 3.6, "label": 3, "x0": False}, names="x0"),
    tool("loss_at", {"prediction": 3.6, "label": 3, "k": True}, names="k"),
    v1(
        "playground",
        ["sts", "sk2", "paper", 32, 2.0, 0.25, 1.0, 0.0, 0, False, 0.01, 32, 50, True],
        names="seeds",
    ),
    v2("playground", {"seeds": True}, names="seeds"),
    tool("playground", {"seeds": True}, names="seeds"),
    v1("score", ["default", "a", "b", "STS 0–5", "", 1.0, True], names="Gold label"),
    v1(
        "train",
        [
            *TRAIN_HEAD,
            "Smooth K2 (ours) [sk2]",
            "head: Linear on [u, v, |u−v|] (the paper's)",
            2.0,
            0.25,
            2e-5,
            True,
        ],
        names="Batch size",
    ),
    v2("compare_buffer", {"batch_size": True}, names="Batch size"),
    v1("playground", ["sts", "sk2", "paper", 32, 2.0, 0.25, 1.0, 0.0, 0, 1], names="round_labels"),
    # NaN
    v1("loss_at", [3.6, 3, NAN], names="k"),
    tool("loss_at", {"prediction": 3.6, "label": 3, "k": NAN}, names="k"),
    tool("playground", {"noise": NAN}, names="noise"),
    v1("score", ["default", "a", "b", "Custom ordered list", "bad, good", NAN, None], names="Gap d"),
    # missing arguments, unknown arguments and endpoints
    v1("loss_at", [3.6], names="label", status=422),
    v2("loss_at", {"prediction": 3.6}, names="label", status=422),
    tool("loss_at", {"prediction": 3.6}, names="label"),
    v1("score_pair", ["A man plays."], names="sentence2", status=422),
    v1("zip_run", [], names="choice", status=422),
    v2("delete_run", {}, names="choice", status=422),
    v1("score_file", ["default"], names="path", status=422),
    v2("loss_at", {"prediction": 3.6, "label": 3, "slope": 2}, names="slope", status=422),
    tool("loss_at", {"prediction": 3.6, "label": 3, "slope": 2}, names="slope"),
    v1("loss_at", [3.6, 3, 2, 0.25, 1, 9], names="at most 5", status=422),
    v1("no_such_endpoint", [], names="/no_such_endpoint", status=404),
    v2("no_such_endpoint", {}, names="/no_such_endpoint", status=404),
    v1("live", [2.0, 0.25, 1.0, [], 3.6, 3.0], names="/live", status=404),  # private: not callable by name
    v1(
        "score", ["default", "A man plays a guitar."], check=lambda result: isinstance(result[0], float)
    ),  # defaults
    v1(
        "train", [*TRAIN_HEAD, "sk2"], names="Loss"
    ),  # completed with defaults, the loss refused: nothing starts
    v1("compare_buffer", [*TRAIN_HEAD, "sk2"], names="Loss"),
    # a 100,000-character name is refused before any lookup
    v1("score", [LONG_NAME, "a", "b", "STS 0–5", "", 1.0, None], names="Model"),
    v1("score_pair", ["a", "b", "own", LONG_NAME], names="model"),
    tool("score_pair", {"sentence1": "a", "sentence2": "b", "model": LONG_NAME}, names="model"),
    v2("train", {"model": LONG_NAME}, names="Start from"),
    v1("zip_run", [LONG_NAME], names="Run"),
    v2("delete_run", {"choice": LONG_NAME}, names="Run"),
    v1("benchmark", [LONG_NAME], names="Model"),
    v2("playground", {"model": LONG_NAME}, names="model"),
    tool("playground", {"model": LONG_NAME}, names="model"),
    # a file the app did not receive
    v1("score_file", ["default", NOT_UPLOADED, "STS 0–5", "", 1.0], names="path", status=422),
    v2("train", {"upload": "/etc/passwd"}, names="upload", status=422),
]


class Records(logging.Handler):
    """Every log record with a traceback (exc_info), from any logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.tracebacks = []

    def emit(self, record):
        if record.exc_info:
            self.tracebacks.append(f"{record.name}: {record.getMessage()}")


def test_every_edge_case_is_refused_naming_its_field_with_no_traceback(live_app, capfd):
    url, with_mcp = live_app
    records = Records()
    logging.getLogger().addHandler(records)
    capfd.readouterr()
    failures = []
    try:
        for case in CASES:
            if case.mcp and not with_mcp:
                continue
            answer = case.call(url)
            log = "".join(capfd.readouterr())
            logged, records.tracebacks = records.tracebacks, []
            failures += [f"{case.title}: {problem}" for problem in problems(case, answer, log)]
            failures += [f"{case.title}: a log record with a traceback: {record}" for record in logged]
    finally:
        logging.getLogger().removeHandler(records)
    assert not failures, "\n".join(failures)


def problems(case: Case, answer: Answer, log: str) -> list[str]:
    """What is wrong with one answer and what the call wrote to the log."""
    found = []
    if "Traceback" in log:
        found.append(f"a traceback in the log: {log[-600:]}")
    if len(log) > MAX_LOG_PER_CALL:
        found.append(f"{len(log):,} characters of log")
    if (
        "object at 0x" in answer.text
        or "Something went wrong" in answer.text
        or (not answer.ok and ("\n" in answer.text or len(answer.text) > 1_000))
    ):
        found.append(f"not a one-line answer: {answer.text[:300]}")
    if case.names is None:
        if not answer.ok:
            found.append(f"refused: {answer.text[:300]}")
        elif case.check is not None and not case.check(json.loads(answer.text)):
            found.append(f"wrong result: {answer.text[:300]}")
        return found
    if answer.ok:
        found.append(f"answered instead of refused: {answer.text[:300]}")
    elif case.names not in answer.text:
        found.append(f"the refusal does not name {case.names!r}: {answer.text[:300]}")
    if case.status is not None and answer.status != case.status:
        found.append(f"status {answer.status}, not {case.status}: {answer.text[:300]}")
    return found


def test_a_refusal_does_not_tell_another_sessions_folder_from_a_missing_one(live_app):
    from stsdemo.serving import session_files

    url, _ = live_app
    existing = session_files.sessions_root() / "fuzzothersession" / "run1" / "checkpoint"
    existing.mkdir(parents=True, exist_ok=True)
    missing = session_files.sessions_root() / "fuzzmissingsession" / "run1" / "checkpoint"
    answers = [rest(url, "score_pair", ["a", "b", "own", str(path)]) for path in (existing, missing)]
    assert not any(answer.ok for answer in answers)
    said = [answer.text.replace(str(path), "<path>") for answer, path in zip(answers, (existing, missing))]
    assert said[0] == said[1], said


# ---- raw requests: bad paths and bodies (issue 51) ----------------------------------------------------


def chunked(body: bytes):
    """A body sent in chunks (Transfer-Encoding: chunked, no Content-Length)."""
    yield from (body[i : i + 512] for i in range(0, len(body), 512))


RAW = [  # (title, method, path, body, headers); fn_index of loss_at filled in from the app's config
    *[
        (f"GET {path}", "GET", path, None, {})
        for path in (
            "/playground/..%2f..%2fapp.py",
            "/playground/..%2fsite.json",
            "/playground/data/..%2f..%2fapp.safetensors",
            "/playground/api/download/..%2f..%2fx/y.zip",
            "/playground/data/upload/..%2fx.safetensors",
            "/playground/%2e%2e%2f%2e%2e%2fapp.py",
        )
    ],
    (
        "chunked bad multipart upload",
        "POST",
        "/playground/api/upload",
        b"--x\r\nnot a part" * 40,
        {"content-type": "multipart/form-data; boundary=x"},
    ),
    (
        "bad multipart upload",
        "POST",
        "/playground/api/upload",
        b"--x\r\nnot a part",
        {"content-type": "multipart/form-data; boundary=x"},
    ),
    ("queue/join loss_at data []", "POST", "/gradio_api/queue/join", {"data": [], "session_hash": "fj1"}, {}),
    (
        "queue/join loss_at data not a list",
        "POST",
        "/gradio_api/queue/join",
        {"data": "x", "session_hash": "fj2"},
        {},
    ),
    (
        "Gradio upload without a length",
        "POST",
        "/gradio_api/upload",
        b"--x\r\n",
        {"content-type": "multipart/form-data; boundary=x"},
    ),
]


def test_bad_paths_and_bodies_are_4xx_in_one_line_with_no_traceback(live_app, capfd):
    url, _ = live_app
    config = httpx.get(f"{url}/config", timeout=30).json()
    loss_at = next(dep["id"] for dep in config["dependencies"] if dep.get("api_name") == "loss_at")
    records = Records()
    logging.getLogger().addHandler(records)
    capfd.readouterr()
    failures = []
    try:
        for title, method, path, body, headers in RAW:
            if isinstance(body, dict):
                body = json.dumps({**body, "fn_index": loss_at}).encode()
                headers = {"content-type": "application/json"}
            content = chunked(body) if title.startswith("chunked") or "without a length" in title else body
            answer = httpx.request(method, url + path, content=content, headers=headers, timeout=60)
            log = "".join(capfd.readouterr())
            try:
                said = answer.json()
                said = str(said.get("error") or said.get("detail")) if isinstance(said, dict) else str(said)
            except ValueError:
                said = answer.text
            if not 400 <= answer.status_code < 500:
                failures.append(f"{title}: status {answer.status_code}: {answer.text[:200]}")
            if "\n" in said.strip() or not said.strip() or len(said) > 300:
                failures.append(f"{title}: not a one-line answer: {said[:200]!r}")
            if "Traceback" in log or records.tracebacks:
                failures.append(f"{title}: a traceback in the log: {log[-400:]} {records.tracebacks}")
            records.tracebacks = []
    finally:
        logging.getLogger().removeHandler(records)
    assert not failures, "\n".join(failures)
