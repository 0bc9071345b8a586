"""Fixtures for the app tests: the Gradio app launched in-process on a free port, runs in a tmp folder.

Imported by test_app_api.py and test_browser.py (tests/conftest.py belongs to the core tests). Test runs
score only the first DEV_PAIRS STS-B dev pairs at each evaluation, so they stay short on a CPU.
"""

import os
import shutil
import time
import urllib.request

import pytest

DEV_PAIRS = 150

# A tiny fine-tune: 64 pairs, batch 16, 4 steps, dev score every 2 steps, no 7-task evaluation.
TINY = dict(model="default", data="STS-B train", upload=None, scheme="sts", loss="Smooth K2 (ours) [sk2]", k=2.0,
            x0=0.25, lr=2e-5, batch_size=16, epochs=1.0, max_steps=4, max_length=32, eval_every=2, log_every=1,
            max_pairs=64, two_stage=False, final_eval=False, seed=42, max_dev_pairs=DEV_PAIRS, head_lr=1e-3,
            select_by="head Spearman (what Score a pair uses)")
TRAIN_ORDER = ("model", "data", "upload", "scheme", "loss", "k", "x0", "lr", "batch_size", "epochs", "max_steps",
               "max_length", "eval_every", "log_every", "max_pairs", "two_stage", "final_eval", "seed",
               "max_dev_pairs", "head_lr", "select_by")


def train_args(**overrides) -> list:
    """Positional arguments of the /train endpoint."""
    values = {**TINY, **overrides}
    return [values[name] for name in TRAIN_ORDER]


def wait_for_info(url: str, timeout: float = 60.0) -> None:
    """Poll GET /gradio_api/info until the app answers (it prints its URL before it can serve)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/gradio_api/info", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer /gradio_api/info within {timeout:.0f} s")
        time.sleep(0.3)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """Launch the app in this process; yields its URL. Runs go to <pytest tmp>/runs (as in conftest.py)."""
    output = tmp_path_factory.getbasetemp() / "runs"
    saved = {name: os.environ.get(name) for name in ("STSDEMO_OUTPUT_DIR", "GRADIO_ANALYTICS_ENABLED")}
    os.environ["STSDEMO_OUTPUT_DIR"] = str(output)
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

    from stsdemo import settings
    from stsdemo.ui import build_demo, launch_kwargs

    demo = build_demo()
    try:
        _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, show_error=True,
                                max_file_size=settings.max_upload(), blocked_paths=[str(output)],
                                **launch_kwargs())
        wait_for_info(url)
        yield url
    finally:
        demo.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="module")
def client(app_url):
    from gradio_client import Client

    # A cancel waits on the server until the generator's current step ends: allow for a slow CPU.
    return Client(app_url, verbose=False, httpx_kwargs={"timeout": 120})


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        # keep a headless page painting while the tests wait (screenshots otherwise can stall)
        "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows"]


@pytest.fixture
def page(app_url):  # noqa: F811
    """The app open in headless Debian Chromium, driven by Playwright."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(app_url)
            yield page
        finally:
            browser.close()
