"""Fixtures for the app tests: the Gradio app launched in-process on a free port, runs in a tmp folder.

Imported by test_app_api.py and test_browser.py (tests/conftest.py belongs to the core tests). Test runs
score only the first DEV_PAIRS STS-B dev pairs at each evaluation, so they stay short on a CPU.
"""

import os
import shutil
from pathlib import Path

import pytest
from tiny_models import tiny_encoder

from bench.perf.served_app import wait_for_info

DEV_PAIRS = 60  # each dev score encodes 2 x DEV_PAIRS sentences
PLAYGROUND_PAIRS = (
    240  # per part of a Playground data set embedded for another encoder (the built-ins are pinned)
)

# A tiny fine-tune: 64 pairs, batch 16, 4 steps, dev score every 2 steps, no 7-task evaluation; the paper's head
# on a tiny random encoder (tests/tiny_models.py: these tests check how a run goes, not what it learns). Inputs
# not named here take the form's defaults.
TINY = dict(
    data="STS-B train",
    upload=None,
    scheme="sts",
    loss="Smooth K2 (ours) [sk2]",
    target="head",
    k=2.0,
    x0=0.25,
    lr=2e-5,
    batch_size=16,
    epochs=1.0,
    max_steps=4,
    max_length=32,
    eval_every=2,
    log_every=1,
    max_pairs=64,
    two_stage=False,
    final_eval=False,
    seed=42,
    max_dev_pairs=DEV_PAIRS,
    head_lr=1e-3,
    select_by="head Spearman (what Score a pair uses)",
)


def train_order() -> tuple:
    """The /train endpoint's inputs in order (the form's: start model, data, then the settings)."""
    from stsdemo.app.finetune import form

    return ("model", "data", "upload", "scheme", *form.FORM_FIELDS, "final_eval")


def train_args(**overrides) -> list:
    """Positional arguments of the /train endpoint."""
    from stsdemo.app.finetune import form

    values = {**form.form_defaults(), **TINY, "model": tiny_encoder(), **overrides}
    values["target"] = form.field_text("target", values["target"])
    return [values[name] for name in train_order()]


@pytest.fixture(scope="module")
def app_state():
    """The launched app's state (its runs in progress, its line, its models)."""
    return small_app_state()


def small_app_state():
    """An app state whose Playground data sets embedded for another encoder (the scorer's) are cut to
    PLAYGROUND_PAIRS evenly spread pairs a part, so embedding them takes seconds."""
    from stsdemo.app.app_state import AppState
    from stsdemo.app.model_cache import ModelCache
    from stsdemo.app.playground.memory import PlaygroundMemory

    models = ModelCache()
    return AppState(models=models, playground=PlaygroundMemory(models, max_pairs=PLAYGROUND_PAIRS))


def served(state, output, mcp: bool | None = None):
    """Launch the app of ``state`` in this process, its runs in ``output`` (and its MCP server with ``mcp``); yields
    its URL, then closes it and puts the environment back."""
    saved = {name: os.environ.get(name) for name in ("STSDEMO_OUTPUT_DIR", "GRADIO_ANALYTICS_ENABLED")}
    os.environ["STSDEMO_OUTPUT_DIR"] = str(output)
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

    from stsdemo import environment
    from stsdemo.app.page import build_demo, launch_kwargs

    demo = build_demo(state)
    try:
        _, url, _ = demo.launch(
            prevent_thread_lock=True,
            server_name="127.0.0.1",
            quiet=True,
            show_error=True,
            max_file_size=environment.max_upload(),
            blocked_paths=[str(output)],
            **launch_kwargs(mcp=mcp, demo=demo, state=state),
        )
        wait_for_info(url, timeout=60)
        yield url
    finally:
        demo.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, app_state):
    """Launch the app in this process; yields its URL. Runs go to <pytest tmp>/runs (as in conftest.py)."""
    yield from served(app_state, tmp_path_factory.getbasetemp() / "runs")


@pytest.fixture(scope="session")
def shared_app_url(tmp_path_factory):
    """One app server for the whole test session (its own app state), for the modules whose tests only drive it
    through pages: each page is a Gradio session of its own, with its own runs, so they never see each other's. A
    module opts in with ``app_url = shared_app_url_for_module`` (``page`` and ``phone_page`` then open it); a
    module that reads or changes the app's state (its line, its runs in progress) keeps its own ``app_url``. A
    module that shares it leaves no run going when it ends (one place in the line per visitor: the next module's
    pages come from the same address)."""
    yield from served(small_app_state(), tmp_path_factory.getbasetemp() / "runs")


@pytest.fixture(scope="module")
def shared_app_url_for_module(shared_app_url):
    """``shared_app_url`` under a module's ``app_url``: ``from app_fixtures import shared_app_url_for_module as
    app_url``."""
    return shared_app_url


@pytest.fixture(scope="module")
def client(app_url):
    from gradio_client import Client

    # A cancel waits on the server until the generator's current step ends: allow for a slow CPU.
    return Client(app_url, verbose=False, httpx_kwargs={"timeout": 120})


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ASSETS = Path(__file__).resolve().parent.parent / "assets"  # the README's screenshots
SCREENSHOTS = (
    os.environ.get("STSDEMO_SCREENSHOTS") == "1"
)  # asked for: no test reads them, so a plain run takes none
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # keep a headless page painting while the tests wait (screenshots otherwise can stall)
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
]


def screenshot(page, path: Path, selector: str | None = None, full_page: bool = True) -> None:
    """With ``SCREENSHOTS``, a picture of the page (or of one element) once its charts have settled: the README's go
    to ``ASSETS``, a reviewer's to a test's tmp_path."""
    if not SCREENSHOTS:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(600)  # let plotly / vega finish their transitions
    target = page.locator(selector) if selector else page
    target.screenshot(path=str(path), animations="disabled", **({} if selector else {"full_page": full_page}))


# What an `expect` waits before it fails: Playwright's 5 s default is short for a page whose answer comes from a
# server sharing two cores with the other xdist worker's tests
EXPECT_TIMEOUT_MS = 20_000


_CHROMIUM_OF_THIS_MODULE = {}  # "playwright", "browser": started by a module's first page, shared by its others


def shared_chromium():
    """The headless Chromium of the module running, launched once: starting Playwright's driver and a browser costs
    about 2 CPU seconds and 5 s of wall time, so each page gets a fresh context of one browser instead (a context has
    its own cookies and storage, as a new browser would). Relaunched if it went away; tests/conftest.py stops it when
    the module ends (:func:`stop_chromium`)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    started = _CHROMIUM_OF_THIS_MODULE
    if "browser" not in started or not started["browser"].is_connected():
        if "playwright" not in started:
            started["playwright"] = sync_api.sync_playwright().start()
        started["browser"] = started["playwright"].chromium.launch(executable_path=CHROMIUM, args=ARGS)
    return started["browser"]


def stop_chromium() -> None:
    """Close the shared Chromium and stop Playwright: its sync API keeps an asyncio loop running in this thread
    while started, and a later module's ``asyncio.run`` (the MCP tests) would refuse to run beside it."""
    started = _CHROMIUM_OF_THIS_MODULE
    if "browser" in started:
        started.pop("browser").close()
    if "playwright" in started:
        started.pop("playwright").stop()


def open_page(app_url, **context):
    """The app open in headless Debian Chromium, driven by Playwright (``context``: browser context options), in a
    context of its own that is closed afterwards."""
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    window = shared_chromium().new_context(device_scale_factor=1, **context)
    try:
        page = window.new_page()
        page.set_default_timeout(60_000)
        page.goto(app_url)
        yield page
    finally:
        window.close()


@pytest.fixture
def page(app_url):  # noqa: F811
    """The app in a desktop window (1400 x 1000)."""
    yield from open_page(app_url, viewport={"width": 1400, "height": 1000})


@pytest.fixture
def phone_page(app_url):  # noqa: F811
    """The app on a phone-sized screen (390 x 844, touch, mobile viewport)."""
    yield from open_page(app_url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
