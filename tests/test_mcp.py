"""The app as an MCP server (``python app.py --mcp``): a real client from the ``mcp`` package lists the tools
and calls them over streamable HTTP. Needs the optional extra ``pip install "gradio[mcp]"``
(requirements-test.txt installs it, so CI runs this file)."""

import asyncio
import json

import pytest

mcp = pytest.importorskip("mcp", reason='the MCP extra is not installed (pip install "gradio[mcp]==6.31.0")')

from app_fixtures import served, small_app_state  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

PAIR = ("A man is playing a guitar.", "A man plays the guitar.")


@pytest.fixture(scope="module")
def mcp_app(tmp_path_factory):
    """The app launched in this process with its MCP server; yields its URL."""
    for url in served(small_app_state(), tmp_path_factory.getbasetemp() / "runs", mcp=True):
        yield url.rstrip("/")


def _session(url: str, work):
    """Run ``work(session)`` in a fresh MCP client session against the app's streamable HTTP endpoint."""
    from mcp import ClientSession

    async def main():
        async with streamable_http_client(f"{url}/gradio_api/mcp/") as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)

    return asyncio.run(main())


def _text(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_the_tools_are_the_scorer_the_loss_and_the_playground_described_by_their_docstrings(mcp_app):
    async def work(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in _session(mcp_app, work)}
    assert set(tools) == {"score_pair", "loss_at", "playground"}  # the app's other endpoints stay API-only
    score = tools["score_pair"]
    assert score.description.startswith("Score how similar two sentences are")
    assert "Returns:" in score.description and "Args:" not in score.description
    properties = score.inputSchema["properties"]
    assert {"sentence1", "sentence2", "scheme", "model"} <= set(properties)
    assert properties["sentence1"]["description"].startswith("The first sentence")
    assert "nli" in properties["scheme"]["description"]
    assert set(score.inputSchema.get("required", [])) == {"sentence1", "sentence2"}
    loss = tools["loss_at"]
    assert loss.description.startswith("Evaluate the paper's buffer-zone losses")
    assert {"prediction", "label", "k", "x0", "d"} <= set(loss.inputSchema["properties"])
    assert "d/2" in loss.inputSchema["properties"]["x0"]["description"]
    playground = tools["playground"]
    assert playground.description.startswith(
        "Train the paper's regression head on frozen sentence embeddings"
    )
    arguments = playground.inputSchema["properties"]
    assert {"data", "loss", "head", "noise", "train_pairs", "k", "x0", "seeds", "steps", "model"} <= set(
        arguments
    )
    assert "<= 20" in arguments["seeds"]["description"]  # the limit of its one declaration
    assert "one of sk2, trelu" in arguments["loss"]["description"]


def test_the_servers_own_table_holds_only_the_three_tools(mcp_app):
    """Its /schema (which the Hugging Face MCP server reads for a Space) and calls by name: the other
    endpoints are not tools, though the API still serves them."""
    import urllib.request

    with urllib.request.urlopen(f"{mcp_app}/gradio_api/mcp/schema", timeout=30) as response:
        schema = json.loads(response.read())
    assert sorted(tool["name"] for tool in schema) == ["loss_at", "playground", "score_pair"]

    async def work(session):
        return await session.call_tool("score_and_draw", {})

    refused = _session(mcp_app, work)
    assert refused.isError and "Unknown tool" in _text(refused)


def test_calling_the_scorer_and_the_loss_through_a_real_client(mcp_app):
    async def work(session):
        scored = await session.call_tool("score_pair", {"sentence1": PAIR[0], "sentence2": PAIR[1]})
        nli = await session.call_tool(
            "score_pair", {"sentence1": PAIR[0], "sentence2": PAIR[1], "scheme": "nli"}
        )
        losses = await session.call_tool(
            "loss_at", {"prediction": 3.6, "label": 3.0, "k": 2.0, "x0": 0.25, "d": 1}
        )
        return scored, nli, losses

    scored, nli, losses = _session(mcp_app, work)
    assert not scored.isError, _text(scored)
    result = json.loads(_text(scored))
    assert 3.5 <= result["prediction"] <= 5.5 and result["category"] in {"4", "5"} and result["cosine"] > 0.5
    assert result["scheme"] == ["0", "1", "2", "3", "4", "5"] and result["notice"] == ""
    # NLI does not fit the STS scorer: the shipped NLI scorer answers, and the notice says why
    nli = json.loads(_text(nli))
    assert nli["scheme"] == ["contradiction", "neutral", "entailment"] and "Switched to" in nli["notice"]
    rows = {row["loss"]: row for row in json.loads(_text(losses))["losses"]}
    assert rows["Translated ReLU"]["value"] == pytest.approx(2.0 * (0.6 - 0.25))
    assert rows["Smooth K2"]["gradient"] == pytest.approx(2 * 2.0 * (0.6 - 0.25))


def test_a_playground_run_through_a_real_client(mcp_app):
    """Both twins over three seeds on the small data set: the paired difference is the twins' difference, read by
    the paired-seed rule, at the last step and with each head stopped at its best."""

    async def work(session):
        return await session.call_tool(
            "playground", {"seeds": 3, "steps": 50, "noise": 0.5, "train_pairs": 100}
        )

    answer = _session(mcp_app, work)
    assert not answer.isError, _text(answer)
    result = json.loads(_text(answer))
    assert (
        result["settings"]["seeds"] == 3 and result["step"] == 50 and result["encoder"] == "all-MiniLM-L6-v2"
    )
    twins, paired = result["twins"], result["paired"]["spearman"]
    assert paired["n"] == 3 and paired["mean"] == pytest.approx(
        twins["buffer"]["spearman"]["mean"] - twins["none"]["spearman"]["mean"], abs=1e-3
    )
    assert paired["verdict"] in ("holds", "reversed", "negligible", "no measurable difference")
    assert 0 <= twins["buffer"]["inside"]["mean"] <= 100 and twins["none"]["error"]["mean"] > 0
    best = result["stopped_at_best"]  # the second reading: each head at its own best step
    assert best["paired"]["spearman"]["n"] == 3 and set(best["steps"]) == {"buffer", "none"}
    assert all(len(steps) == 3 and all(0 <= step <= 50 for step in steps) for steps in best["steps"].values())


def test_bad_arguments_get_the_apis_one_line_error(mcp_app):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    async def work(session):
        return (
            await session.call_tool(
                "loss_at", {"prediction": 3.6, "label": 3.0, "k": 2.0, "x0": 0.8, "d": 1}
            ),
            await session.call_tool("score_pair", {"sentence1": "   ", "sentence2": "x"}),
            await session.call_tool("score_pair", {"sentence1": "a", "sentence2": "b", "scheme": "stss"}),
            await session.call_tool("playground", {"seeds": 50}),
            await session.call_tool("playground", {"x0": 0.8}),
            await session.call_tool("playground", {"head": "mlp", "width": 64, "seeds": 20, "steps": 5000}),
        )

    results = _session(mcp_app, work)
    client = Client(mcp_app + "/", verbose=False)
    calls = [
        dict(prediction=3.6, label=3.0, k=2.0, x0=0.8, d=1, api_name="/loss_at"),
        dict(sentence1="   ", sentence2="x", api_name="/score_pair"),
        dict(sentence1="a", sentence2="b", scheme="stss", api_name="/score_pair"),
        dict(seeds=50, api_name="/playground"),
        dict(x0=0.8, api_name="/playground"),
        dict(head="mlp", width=64, seeds=20, steps=5000, api_name="/playground"),
    ]
    for result, call in zip(results, calls):
        text = _text(result)
        assert result.isError and "\n" not in text.strip() and "Traceback" not in text
        with pytest.raises(AppError) as api_error:
            client.predict(**call)
        assert str(api_error.value).strip() in text, (text, str(api_error.value))


def test_a_refused_argument_is_named_nan_included(mcp_app):
    """MCP's own schema check named no argument ("None is not of type 'number'" for a NaN, which a client sends as
    null); the app reads each argument as its REST API does, and a numeric string is read as a number."""

    async def work(session):
        return [
            await session.call_tool("loss_at", {"prediction": 3.6, "label": 3.0, "k": value})
            for value in (float("nan"), True, "2")
        ]

    nan, true, text = _session(mcp_app, work)
    assert nan.isError and _text(nan) == (
        "Input validation error: k must be a finite number, got null (JSON has no "
        "NaN or infinity: an MCP client sends them as null)"
    )
    assert true.isError and "k must be a number, got true" in _text(true)
    assert not text.isError and json.loads(_text(text))["k"] == 2.0
