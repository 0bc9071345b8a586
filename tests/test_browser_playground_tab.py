"""The app's Playground tab in headless Chromium: the tab frames the Playground's page, a link's parameters reach
the page (a preset, hidden controls), the page gets its data from the app and then plays to its end with no request
to the app while it plays, on a desktop and a 390 px phone. Takes the README's Playground screenshots.

The app here cuts each data set to PLAYGROUND_PAIRS pairs a part (tests/app_fixtures.py), so the run is short."""

from pathlib import Path

import pytest
from app_fixtures import ASSETS, CHROMIUM, open_page, screenshot, shared_app_url  # noqa: F401  (pytest fixtures)
from app_fixtures import shared_app_url_for_module as app_url  # noqa: F401  (one server for the browser modules)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="chromium is not installed"),
]
LINK = "?tab=playground&preset=memorisation&hide=lr,batch_size&seeds=4&steps=300&speed=50"


def quiet(window, asked: list, still_ms: int = 1500, most_ms: int = 30_000) -> None:
    """Wait until the page has asked nothing new for ``still_ms`` (``asked``: its requests so far), at most
    ``most_ms``."""
    seen, still = len(asked), 0
    for _ in range(most_ms // 250):
        window.wait_for_timeout(250)
        still = 0 if len(asked) != seen else still + 250
        seen = len(asked)
        if still >= still_ms:
            return


@pytest.mark.parametrize(
    "window_size, name",
    [({"width": 1400, "height": 1000}, "playground"), ({"width": 390, "height": 844}, "phone-playground")],
)
def test_the_tab_plays_the_page_with_no_request_to_the_app(app_url, window_size, name):  # noqa: F811
    from playwright.sync_api import expect

    phone = window_size["width"] < 500
    for window in open_page(
        app_url.rstrip("/") + "/" + LINK, viewport=window_size, is_mobile=phone, has_touch=phone
    ):
        frame = window.frame_locator("#playground-frame")
        expect(frame.locator("body")).to_have_attribute("data-step", "0", timeout=180_000)  # its data arrived
        expect(frame.locator("#preset-box")).to_be_visible()
        hidden = frame.locator(".field[data-name]").evaluate_all(
            "(rows) => rows.filter((r) => r.hidden).map((r) => r.dataset.name)"
        )
        assert set(hidden) == {"lr", "batch_size", "width"}  # the link's hide= reached the page
        asked = []
        window.on("request", lambda request: asked.append(request.url))
        quiet(window, asked)  # the app's own start (a link restored, its pair scored) may still be asking
        asked.clear()
        frame.locator("#play").click()
        expect(frame.locator("body")).to_have_attribute("data-finished", "true", timeout=180_000)
        assert asked == [], asked  # playing asked the app for nothing
        expect(frame.locator("#status")).to_contain_text("n = 4")
        width, scroll = window.evaluate("[window.innerWidth, document.scrollingElement.scrollWidth]")
        assert scroll <= width
        window.locator("#playground-frame").scroll_into_view_if_needed()
        screenshot(window, ASSETS / f"screenshot-{name}.png")
