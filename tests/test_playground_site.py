"""The app's side of the in-page Playground (stsdemo.app.playground.site) on small slices of STS-B and SNLI with a
stand-in encoder for uploads: the page and its manifest, the built-in data files served as the pinned bytes, an
upload embedded and served to the page, every refusal one line
with no server path, an exported head measured again by the core, and the API's bounded run."""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile

import numpy as np
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from test_playground_upload import label_of, write

from stsdemo.app.playground import api as playground_api
from stsdemo.app.playground.memory import PlaygroundMemory
from stsdemo.app.playground.site import PlaygroundSite
from stsdemo.errors import InputError
from stsdemo.playground import pinned
from stsdemo.playground.compact import sentences_digest
from stsdemo.playground.config import PlaygroundConfig
from stsdemo.playground.embeddings import Encoder
from stsdemo.playground.run import Playground

DIM = 384  # the embedded encoder's width, so an exported head fits it
SESSION = "page-session-1"


def stand_in(place: str, name: str, shown: str) -> Encoder:
    """Sentence vectors from character counts through a fixed projection: cheap, and a head can learn from them."""
    projection = np.random.default_rng(0).normal(size=(23, DIM))

    def encode(sentences):
        letters = "etaoinshrdlucmfwypvbgk"
        counts = np.array([[s.lower().count(c) for c in letters] + [len(s) / 20] for s in sentences])
        return (counts @ projection).astype(np.float32)

    return Encoder("stand-in", f"stand-in:{place}", 128, encode)


@pytest.fixture(scope="module")
def memory():
    return PlaygroundMemory(max_pairs=240, encoder_for=stand_in)


@pytest.fixture(scope="module")
def client(memory, tmp_path_factory, monkeypatch_module):
    monkeypatch_module.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path_factory.mktemp("runs")))
    inner = Starlette(routes=[Route("/{path:path}", lambda request: PlainTextResponse("the app"))])
    return TestClient(PlaygroundSite(inner, memory))


@pytest.fixture(scope="module")
def app_client(memory, client):
    """The site as the app serves it: a middleware inside a Starlette app (as Gradio's), whose requests carry
    the app in their scope (Starlette's router and form parser then raise HTTPExceptions)."""
    inner = Starlette(
        routes=[Route("/{path:path}", lambda request: PlainTextResponse("the app"))],
        middleware=[Middleware(PlaygroundSite, memory=memory)],
    )
    return TestClient(inner, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_page_and_its_manifest_with_the_apps_routes(client):
    assert client.get("/elsewhere").text == "the app"
    page = client.get("/playground/index.html")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert client.get("/playground/engine.js").status_code == 200
    site = client.get("/playground/site.json").json()
    assert site["app"] == {"upload": "api/upload", "export": "api/export"}
    assert (
        set(site["datasets"]) == {"sts", "nli"} and site["datasets"]["sts"]["file"] == "data/sts.safetensors"
    )
    assert {preset["name"] for preset in site["presets"]} >= {"memorisation", "nli-nodes"}
    assert site["settings"]["x0"]["high"] == 1 and site["rule"]["t_quantiles"]["20"] > 2
    assert site["engine"]["losses"]["sk2"]["power"] == 2 and site["engine"]["adam"]["beta2"] == 0.999
    assert client.get("/playground/").status_code == 200  # redirected to the page


def test_the_manifest_is_made_again_only_when_the_recorded_map_changes(client, monkeypatch):
    from stsdemo.app.playground import site as site_module

    made = []
    real = site_module.manifest
    monkeypatch.setattr(site_module, "manifest", lambda *args: made.append(1) or real(*args))
    monkeypatch.setattr(site_module, "_map_stamp", lambda: -1)  # a map no earlier request made it from
    first = client.get("/playground/site.json").content
    assert client.get("/playground/site.json").content == first and len(made) == 1
    monkeypatch.setattr(site_module, "_map_stamp", lambda: -2)  # the map's file changed
    assert client.get("/playground/site.json").content == first and len(made) == 2


@pytest.mark.parametrize("name", ["sts", "nli"])
def test_a_built_in_data_file_is_the_pinned_file_byte_for_byte(client, memory, name):
    answer = client.get(f"/playground/data/{name}.safetensors")
    assert answer.status_code == 200 and answer.content == pinned.file_bytes(name)
    assert hashlib.sha256(answer.content).hexdigest() == pinned.checksum(name)
    assert memory.prepared("", "default", name).source.payload == answer.content  # what the API trains on
    sentences = client.get(f"/playground/data/{name}.sentences.json").json()
    assert sentences_digest(sentences) == pinned.pinned()["sets"][name]["sentences_sha256"]
    site = client.get("/playground/site.json").json()
    entry = site["datasets"][name]
    assert entry["sha256"] == pinned.checksum(name) and entry["pool"] == len(pinned.load(name).train)


@pytest.mark.parametrize(
    "path",
    [
        "/playground/data/imdb.safetensors",
        "/playground/secret.py",
        "/playground/data/upload/0123456789ab.safetensors",
        "/playground/api/download/page-session-1/x.zip",
    ],
)
def test_what_is_not_there_is_one_line_without_a_path(client, path):
    answer = client.get(path)
    assert (
        answer.status_code == 404 and "\n" not in answer.json()["error"] and "/" not in answer.json()["error"]
    )


def test_an_upload_is_embedded_and_served_to_the_page(client, tmp_path):
    path = write(tmp_path, "pairs.csv", [label_of(i) for i in range(250)])
    with path.open("rb") as handle:
        started = client.post(
            "/playground/api/upload",
            files={"file": ("pairs.csv", handle, "text/csv")},
            data={"session": SESSION, "scale": "infer"},
        )
    assert started.status_code == 200 and started.json() == {"job": SESSION}
    deadline = time.monotonic() + 60
    while not (status := client.get(f"/playground/api/upload?job={SESSION}").json()).get("done"):
        assert "error" not in status and time.monotonic() < deadline
        time.sleep(0.2)
    assert "250 pairs" in status["text"] and status["title"] == "pairs.csv"
    data = client.get(f"/playground/data/upload/{status['key']}.safetensors")
    assert data.status_code == 200 and len(data.content) > 250 * DIM


def test_a_bad_upload_is_refused_with_one_line(client, tmp_path):
    path = write(tmp_path, "few.csv", [label_of(i) for i in range(20)])
    with path.open("rb") as handle:
        answer = client.post(
            "/playground/api/upload",
            files={"file": ("few.csv", handle, "text/csv")},
            data={"session": "page-session-2"},
        )
    assert answer.status_code == 400 and "pairs" in answer.json()["error"]
    big = client.post(
        "/playground/api/upload",
        files={"file": ("big.csv", b"a" * (6 * 1024**2), "text/csv")},
        data={"session": "page-session-2"},
    )
    assert big.status_code == 413 and "MB" in big.json()["error"]


ENCODED_PATHS = [
    "/playground/..%2f..%2fapp.py",
    "/playground/..%2fsite.json",
    "/playground/%2e%2e%2fapp.py",
    "/playground/data/..%2f..%2fapp.safetensors",
    "/playground/api/download/..%2f..%2fx/y.zip",
    "/playground/data/upload/..%2f..%2fsts.safetensors",
]


@pytest.mark.parametrize("path", ENCODED_PATHS)
def test_an_encoded_slash_is_a_404_in_one_line(app_client, path):
    """Issue 51: each answered a 500 with a traceback (the router's 404 raised past the middleware)."""
    answer = app_client.get(path)
    assert answer.status_code == 404 and "\n" not in answer.json()["error"], (path, answer.text[:200])


def test_a_wrong_method_and_a_malformed_or_chunked_upload_are_4xx_in_one_line(app_client, tmp_path):
    assert app_client.post("/playground/site.json").status_code == 405
    bad = app_client.post(
        "/playground/api/upload",
        content=b"--x\r\nnot a part",
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert bad.status_code == 400 and "multipart form" in bad.json()["error"], bad.text[:200]

    def chunks(body: bytes):
        yield from (body[i : i + 1000] for i in range(0, len(body), 1000))

    chunked = app_client.post(
        "/playground/api/upload",
        content=chunks(b"--x\r\n" + b"y" * 5000),
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert chunked.status_code == 400 and "multipart form" in chunked.json()["error"], chunked.text[:200]
    huge = app_client.post(
        "/playground/api/upload",
        content=chunks(b"y" * (6 * 1024**2)),
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert huge.status_code == 413 and "MB" in huge.json()["error"]
    path = write(tmp_path, "chunked.csv", [label_of(i) for i in range(250)])
    body, kind = _multipart(path.read_bytes(), {"session": "page-chunked", "scale": "infer"})
    started = app_client.post("/playground/api/upload", content=chunks(body), headers={"content-type": kind})
    assert started.status_code == 200 and started.json() == {"job": "page-chunked"}  # a chunked one is read


def _multipart(content: bytes, fields: dict) -> tuple[bytes, str]:
    parts = [
        f'--b\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        for key, value in fields.items()
    ]
    parts.append(
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="pairs.csv"\r\n'
        b"Content-Type: text/csv\r\n\r\n" + content + b"\r\n--b--\r\n"
    )
    return b"".join(parts), "multipart/form-data; boundary=b"


def test_uploads_from_made_up_sessions_evict_only_that_addresss_uploads(
    client, memory, tmp_path, monkeypatch
):
    """Issue 51, case 1: 18 uploads of 250 pairs from one address, each with a made-up session, pushed the
    built-in STS data out of memory and out of the disk cache. Now they evict uploads only: the address keeps
    its cap's worth (the most recent), another address's upload stays, and the built-in sets are pinned files."""
    monkeypatch.setenv("STSDEMO_PROXY_HOPS", "1")
    monkeypatch.setenv("STSDEMO_PLAYGROUND_UPLOADS", "5")
    built_in = client.get("/playground/data/sts.safetensors").content
    sts = memory.prepare("", "default", "sts")

    def upload(session: str, address: str, seed: int):
        path = write(
            tmp_path,
            f"{session}.csv",
            [label_of(i + seed) for i in range(250)],
            pairs=[(f"{seed} {i} one", f"{seed} {i} two", label_of(i)) for i in range(250)],
        )
        with path.open("rb") as handle:
            answer = client.post(
                "/playground/api/upload",
                files={"file": (path.name, handle, "text/csv")},
                data={"session": session},
                headers={"x-forwarded-for": address},
            )
        assert answer.status_code == 200, answer.text

    def done(session: str) -> dict:
        deadline = time.monotonic() + 60
        while not (status := client.get(f"/playground/api/upload?job={session}").json()).get("done"):
            assert "error" not in status and time.monotonic() < deadline, status
            time.sleep(0.1)
        return status

    upload("neighbour", "9.9.9.9", 100)
    done("neighbour")
    for n in range(18):
        upload(f"made-up-{n}", "8.8.8.8", n)
    kept = [done(f"made-up-{n}") for n in range(13, 18)]
    assert all(status["done"] for status in kept)
    for n in range(13):  # the address's least recently used went, one a new upload
        assert client.get(f"/playground/api/upload?job=made-up-{n}").status_code == 404
    assert done("neighbour")["done"]
    assert memory.prepare("", "default", "sts") is sts and sts.done.is_set()  # still in memory
    assert client.get("/playground/data/sts.safetensors").content == built_in == pinned.file_bytes("sts")


def test_a_malformed_export_is_refused(client):
    for body in (
        b"not json",
        json.dumps(
            {
                "session": SESSION,
                "config": {"x0": 3},
                "steps": 10,
                "head": {"twin": 0, "step": 10, "params": [0.0]},
            }
        ).encode(),
    ):
        answer = client.post("/playground/api/export", content=body)
        assert answer.status_code == 400 and answer.json()["error"]
    assert client.post("/playground/api/export", content=b"x" * (2 * 1024**2)).status_code == 413
    nothing = client.post(
        "/playground/api/export",
        json={
            "session": "page-session-9",
            "config": {"data": "upload"},
            "steps": 10,
            "head": {"twin": 0, "step": 10, "params": []},
        },
    )
    assert nothing.status_code == 400 and "no pairs uploaded" in nothing.json()["error"]


@pytest.mark.slow
def test_an_exported_head_is_measured_again_by_the_core(client, memory):
    config = PlaygroundConfig(seeds=1, steps=60, batch_size=16)
    prepared = memory.prepared("", "default", "sts")
    with Playground(config, prepared.source) as trained:
        trained.step(60)
        best = trained.best_head(0)
    params = best.params
    answer = client.post(
        "/playground/api/export",
        json={
            "session": SESSION,
            "config": config.to_dict(),
            "steps": 60,
            "head": {"twin": 0, "step": best.step, "params": params},
        },
    )
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert found["name"].endswith(f"best-step{best.step}-of-60.zip")
    archive = zipfile.ZipFile(io.BytesIO(client.get(f"/playground/{found['url']}").content))
    record = json.loads(archive.read(next(n for n in archive.namelist() if n.endswith("run.json"))))
    assert record["best_step"] == best.step and record["steps"] == 60
    assert record["report"]["spearman"] == pytest.approx(best.report["spearman"], abs=1e-4)
    assert record["selection"]["value"] == pytest.approx(best.selection, abs=1e-4)


def test_the_api_run_is_checked_and_bounded(memory):
    result = playground_api.api_run(memory, dict(seeds=2, steps=50, model="default"))
    assert result["step"] == 50 and result["paired"]["spearman"]["n"] == 2 and result["engine"]
    best = result["stopped_at_best"]
    assert best["paired"]["spearman"]["n"] == 2 and all(0 <= s <= 50 for s in best["steps"]["buffer"])
    assert result["twins_named"]["none"].startswith("no buffer: x0 = 0")
    with pytest.raises(InputError, match="model must be one of"):
        playground_api.api_run(memory, dict(model="bert-base-uncased"))
    with pytest.raises(InputError, match="too large"):
        playground_api.api_run(memory, dict(head="mlp", width=64, seeds=20, steps=5000, batch_size=256))


def test_an_api_run_past_its_wall_clock_stops_with_its_readings_there(memory, monkeypatch):
    memory.prepared("", "default", "sts")  # ready: the limit is the run's alone
    monkeypatch.setenv("STSDEMO_PLAYGROUND_SECONDS", "0.001")
    result = playground_api.api_run(memory, dict(seeds=2, steps=500, model="default"))
    assert result["stopped_early"] and result["step"] < 500
    assert f"stopped at step {result['step']:,} of 500" in result["notice"]
    assert result["paired"]["spearman"]["n"] == 2


def test_an_api_runs_wall_clock_covers_the_preparation_it_sets_going(monkeypatch):
    """Issue 51, case 4: the first call with model=scorer took 191 s, the data set embedded before the 30 s
    limit started (the default encoder's sets are pinned: only another encoder's are embedded). Here a slow encoder (2 s a chunk of sentences) and a 1 s limit: the first call is refused
    within about its limit, saying how far the embedding is; once it is ready, a call runs within the
    limit."""
    monkeypatch.setenv("STSDEMO_PLAYGROUND_SECONDS", "1")

    def slow(place: str, name: str, shown: str) -> Encoder:
        fast = stand_in(place, name, shown)

        def encode(sentences):
            time.sleep(2)
            return fast.encode(sentences)

        return Encoder("slow stand-in", f"slow:{place}:{time.monotonic()}", 128, encode)

    memory = PlaygroundMemory(max_pairs=240, encoder_for=slow)
    PlaygroundConfig().check_budget()  # its first call imports the cost model
    started = time.monotonic()
    with pytest.raises(InputError) as refused:
        playground_api.api_run(memory, dict(seeds=1, steps=50, model="scorer", data="sts"))
    took = time.monotonic() - started
    assert took < 2.5, took
    said = str(refused.value)
    assert "Embedding the sentences of sts" in said and "limit of 1 s passed" in said
    assert "\n" not in str(refused.value)
    memory.prepared("", "scorer", "sts")  # ready now
    started = time.monotonic()
    result = playground_api.api_run(memory, dict(seeds=1, steps=50, model="scorer", data="sts"))
    assert time.monotonic() - started < 2.5 and result["step"] >= 1
