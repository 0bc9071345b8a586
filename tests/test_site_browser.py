"""The static site (``python -m stsdemo site DIR``: the page, the pinned STS-B and SNLI files, site.json) served by a
plain file server and opened in Chromium: it plays the memorisation preset's classroom link, the preset's own 20
seeds x 3,000 steps, to its end in the browser, sending no request while it plays, and shows the readings its
record in docs/results.json quotes (made by the same engine on the same pinned file), to every digit shown; every
other preset (2 seeds x 60 steps) reads as the Python side's run of the same engine; ``hide=`` hides exactly the
controls it names and the copied link keeps it; a dot opens its pair next to it; the page fits a 1,280 px desktop
and a 390 px phone; a browser without Web Workers is told so.

With ``STSDEMO_SCREENSHOTS=1`` the layouts are written to assets/screenshot-site.png and screenshot-phone-site.png,
in Chinese to screenshot-site-zh.png and screenshot-phone-site-zh.png.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from app_fixtures import ASSETS, screenshot

from stsdemo.paired import rule_text
from stsdemo.playground import payoff

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's chromium"),
]

HIDDEN = ("lr", "batch_size")
LINK = f"index.html?preset=memorisation&hide={','.join(HIDDEN)}&speed=100"
CHROMIUM = dict(
    executable_path="/usr/bin/chromium",
    args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from stsdemo.static_site import write_site

    folder = tmp_path_factory.mktemp("site")
    write_site(folder)
    return folder


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(**CHROMIUM)
        yield launched
        launched.close()


def opened(browser, url: str, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_function("document.body.dataset.step === '0'", timeout=60_000)
    return page, errors


def core_run(site: Path, preset: str, seeds: int, steps: int) -> dict:
    """The Python side's run (the same engine) of ``preset`` at ``seeds`` and ``steps`` on the site's own data file."""
    from stsdemo.playground.presets import BY_NAME
    from stsdemo.playground.run import Source, run_seeds

    config = replace(BY_NAME[preset].config(), seeds=seeds, steps=steps)
    return run_seeds(config, Source((site / "data" / f"{config.data}.safetensors").read_bytes()))


@pytest.fixture(scope="module")
def reference() -> dict:
    """The memorisation preset's record: its last checkpoint (step 3,000)."""
    from stsdemo.playground.pinned import checksum

    entry = json.loads((Path(__file__).parents[1] / "docs" / "results.json").read_text())["playground"][
        "preset/memorisation"
    ]
    assert entry["data_sha256"] == checksum("sts")
    return entry["checkpoints"][-1]


def shown_readings(page) -> dict:
    """The page's two readings, each ``{"numbers": [...], "verdicts": [...]}`` of spearman and accuracy."""
    lines = page.locator("#status .readings li").all()
    return {
        reading: {
            "numbers": line.locator(".reading").all_inner_texts(),
            "verdicts": line.locator(".verdict").all_inner_texts(),
        }
        for line, reading in zip(lines, ("best", "step"), strict=True)
    }


def core_readings(run: dict) -> dict:
    """The same two readings as the Python side's run gives them."""
    found = {"best": run["stopped_at_best"]["paired"], "step": run["paired"]}
    return {
        reading: {
            "numbers": [paired[metric]["text"] for metric in ("spearman", "accuracy")],
            "verdicts": [paired[metric]["verdict"] for metric in ("spearman", "accuracy")],
        }
        for reading, paired in found.items()
    }


def click_a_dot(page) -> list[float]:
    """Click the first seed's first drawn report pair (the buffered twin's panel); where it is on the chart."""
    place = page.evaluate("""() => { const canvas = document.getElementById('dots'), [panel, frame] = canvas.frames[0];
                                     const dots = panel.dots[0]; return [frame.X(dots.x[0]), frame.Y(dots.y[0])]; }""")
    page.click("#dots", position={"x": place[0], "y": place[1]})
    return place


def test_the_preset_link_plays_to_its_end_without_a_request_and_shows_its_record(
    browser, base_url, reference
):
    page, errors = opened(browser, base_url + LINK, 1280)
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.click("#play")
    page.wait_for_function("document.body.dataset.finished === 'true'", timeout=300_000)
    assert asked == [], "the page asked the server for something while it played"
    assert page.get_attribute("body", "data-step") == "3000"

    recorded = {
        reading: {
            "numbers": [reference[f"{reading}_reading"][m]["text"] for m in ("spearman", "accuracy")],
            "verdicts": [reference[f"{reading}_reading"][m]["verdict"] for m in ("spearman", "accuracy")],
        }
        for reading in ("best", "step")
    }
    assert shown_readings(page) == recorded
    medians = [reference["best_steps"][twin] for twin in ("buffer", "none")]
    assert [float(step) for step in page.get_attribute("#dots", "data-best").split(",")] == medians
    assert "The memorisation brake" in page.inner_text("#preset-box")
    assert page.locator("#preset-box").is_visible()
    assert errors == []


OTHER_PRESETS = ("big-clean", "widest-buffer", "nli-nodes")  # memorisation: the link above


@pytest.mark.parametrize("preset", OTHER_PRESETS)
def test_every_other_preset_plays_to_its_end_and_reads_as_the_python_core(browser, base_url, site, preset):
    page, errors = opened(browser, base_url + f"index.html?preset={preset}&seeds=2&steps=60&speed=30", 1280)
    page.click("#play")
    page.wait_for_function("document.body.dataset.finished === 'true'", timeout=120_000)
    assert page.get_attribute("body", "data-step") == "60"
    assert shown_readings(page) == core_readings(core_run(site, preset, 2, 60))
    assert errors == []


def test_the_presets_are_the_tested_ones():
    from stsdemo.playground.presets import PRESETS

    assert {preset.name for preset in PRESETS} == {"memorisation", *OTHER_PRESETS}


def test_hide_hides_exactly_its_controls_and_the_copied_link_keeps_it(browser, base_url):
    page, _ = opened(browser, base_url + LINK, 1280)
    page.click("summary:has-text('Training and seeds')")
    rows = page.locator(".field[data-name]")
    hidden = {
        rows.nth(i).get_attribute("data-name") for i in range(rows.count()) if not rows.nth(i).is_visible()
    }
    assert hidden == {*HIDDEN, "width"}  # the hidden width belongs to the mlp head alone
    page.click("#copy-link")
    link = page.input_value("#link")
    assert f"hide={','.join(HIDDEN)}" in link and "preset=memorisation" in link
    page.select_option("#setting-head", "mlp")
    assert page.locator("#field-width").is_visible()
    assert f"hide={','.join(HIDDEN)}" in page.input_value("#link") and "head=mlp" in page.input_value("#link")


def test_a_clicked_dot_opens_its_pair_next_to_it(browser, base_url):
    page, errors = opened(browser, base_url + "index.html?steps=50&seeds=2", 1280)
    page.click("#step")
    page.wait_for_function("document.body.dataset.step === '1'")
    place = click_a_dot(page)
    panel = page.locator("#pair")
    assert panel.is_visible() and "Report pair" in panel.inner_text()
    assert "toward" in panel.inner_text() or "left alone" in panel.inner_text()
    canvas = page.locator("#dots").bounding_box()
    assert abs(panel.bounding_box()["y"] - (canvas["y"] + place[1])) < 40  # just below the dot
    page.keyboard.press("Escape")
    assert not panel.is_visible()
    assert errors == []


@pytest.mark.parametrize(
    "width, language, shot",
    [
        (1280, "en", "screenshot-site.png"),
        (390, "en", "screenshot-phone-site.png"),
        (1280, "zh", "screenshot-site-zh.png"),
        (390, "zh", "screenshot-phone-site-zh.png"),
    ],
)
def test_the_page_fits_a_desktop_and_a_phone(browser, base_url, width, language, shot):
    link = f"index.html?preset=memorisation&seeds=3&steps=100&speed=50&lang={language}"
    page, errors = opened(browser, base_url + link, width)
    page.click("#play")
    page.wait_for_function("document.body.dataset.finished === 'true'", timeout=60_000)
    click_a_dot(page)
    assert page.locator("#pair").is_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{overflow} px of horizontal overflow at {width} px"
    assert page.evaluate(SPLIT_WORDS) == [], "a word of a table wraps mid-word"
    assert page.evaluate(WRAPPED_NUMBERS) == [], "a number wraps"
    page.evaluate("window.scrollTo(0, 0)")  # the sticky buttons in their place
    screenshot(page, ASSETS / shot)
    assert errors == []


def test_a_box_shows_the_x0_the_run_uses(browser, base_url):
    page, _ = opened(browser, base_url + "index.html?x0=0.8&steps=50&seeds=1", 1280)
    assert page.input_value("#setting-x0") == "0.25" and "using x0 = 0.25" in page.inner_text("#notices")
    page.fill("#setting-d", "0.3")
    page.press("#setting-d", "Enter")
    page.wait_for_function("document.getElementById('setting-x0').value === '0.15'")
    assert "x0 = 0.15" in page.inner_text("#notices") and "x0=0.15" in page.input_value("#link")


def test_a_typed_loss_knob_past_its_range_is_drawn_at_its_end_and_said(browser, base_url):
    page, errors = opened(browser, base_url + "index.html?steps=50&seeds=1", 1280)
    page.fill("#loss-x0", "5")
    page.press("#loss-x0", "Enter")
    assert page.input_value("#loss-x0") == "1.5"
    assert "5 is outside this explorer's range (0 to 1.5): drawn at 1.5" in page.inner_text("#loss-clamped")
    page.fill("#loss-x0", "0.3")
    page.press("#loss-x0", "Enter")
    assert page.inner_text("#loss-clamped") == "" and errors == []


def test_in_the_app_a_refused_file_is_cleared_a_read_one_plays_and_a_run_exports(browser, base_url, site):
    """The app's routes answered here (Playwright's routing): a refused upload leaves the file box empty and says why;
    an accepted one plays data=upload from data/upload/<key>.safetensors; Export hands the best head to the app."""
    manifest = json.loads((site / "site.json").read_text(encoding="utf-8"))
    manifest["app"] = {"upload": "api/upload", "export": "api/export"}
    page = browser.new_page()
    uploads, exports = [], []
    page.route("**/site.json", lambda route: route.fulfill(json=manifest))

    def upload(route):  # the first file is refused, the second read
        uploads.append(route.request.method)
        route.fulfill(json={"error": "the file has no label column"} if len(uploads) == 1 else {"job": "j1"})

    page.route("**/api/upload", upload)
    page.route(
        "**/api/upload?job=j1",
        lambda route: route.fulfill(
            json={"done": True, "key": "k1", "title": "pairs.csv", "text": "300 pairs"}
        ),
    )
    page.route(
        "**/data/upload/k1.safetensors",
        lambda route: route.fulfill(body=(site / "data" / "sts.safetensors").read_bytes()),
    )
    page.route(
        "**/api/export",
        lambda route: (
            exports.append(route.request.post_data_json)
            or route.fulfill(json={"url": "data:application/zip,", "name": "head.zip"})
        ),
    )
    page.goto(base_url + "index.html?steps=50&seeds=1")
    page.wait_for_function("document.body.dataset.step === '0'", timeout=60_000)
    page.click("summary:has-text('Your own labelled pairs')")
    csv = {"name": "pairs.csv", "mimeType": "text/csv", "buffer": b"sentence1,sentence2,label\na,b,1\n"}
    page.set_input_files("#upload-file", files=[csv])
    page.wait_for_function("document.getElementById('upload-said').textContent.includes('Not read')")
    assert page.input_value("#upload-file") == "" and "no label column" in page.inner_text("#upload-said")
    page.set_input_files("#upload-file", files=[csv])
    page.wait_for_function("location.search.includes('upload=k1')", timeout=60_000)
    page.wait_for_function("document.body.dataset.step === '0'", timeout=60_000)
    assert page.input_value("#setting-data") == "upload" and "data=upload" in page.input_value("#link")
    page.click("#step")
    page.wait_for_function("document.body.dataset.step === '1'")
    page.click("summary:has-text('Export the trained head')")
    page.click("#export")
    page.wait_for_function("document.getElementById('export-said').textContent.includes('Ready')")
    sent = exports[0]
    assert uploads == ["POST", "POST"]
    assert sent["step"] == 1 and sent["config"]["data"] == "upload" and sent["head"]["twin"] == 0
    assert len(sent["head"]["params"]) == 3 * 384 + 1


# The words of every table cell that the page broke across lines, and the numbers (cells without a letter) that
# take more than one line: a heading may wrap between words, never inside one ("pre/dic/tion"), a number never.
LINES = (
    "const lines = (range) => new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size;"
)
SPLIT_WORDS = (
    "() => {"
    + LINES
    + """ const split = [];
  for (const cell of document.querySelectorAll('table th, table td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/[^\\s\\u3000-\\u9fff\\uff00-\\uffef]+/g)) {   // Chinese breaks anywhere
        const range = document.createRange();
        range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
        if (lines(range) > 1) split.push(match[0]);
      }
    }
  }
  return split; }"""
)
WRAPPED_NUMBERS = (
    "() => {"
    + LINES
    + """ return [...document.querySelectorAll('table td')].filter((cell) => {
    const range = document.createRange(); range.selectNodeContents(cell);
    return /^[-+−–±×%.,\\d\\s()]+$/.test(cell.textContent) && lines(range) > 1; }).map((cell) => cell.textContent); }"""
)


def test_a_browser_without_web_workers_is_told_so(browser, base_url):
    page = browser.new_page()
    page.add_init_script("delete window.Worker;")
    page.goto(base_url + "index.html")
    page.wait_for_selector("#no-worker", state="visible")
    assert "Web Worker" in page.inner_text("#no-worker")


# ---- the lesson on the page (story.js): by keyboard alone, on a desktop in English and a phone in Chinese ----
SHORT = "index.html?preset=memorisation&seeds=2&steps=200&speed=5"
FOCUSED = "(selector) => document.activeElement && document.activeElement.matches(selector)"
OUTLINED = "() => getComputedStyle(document.activeElement).outlineStyle !== 'none'"
# every change of ▶ Play's aria-pressed, kept from before the press: a short run may be over before a poll looks
WATCH_PLAY = """() => { window.pressed = []; new MutationObserver(() => window.pressed.push(
    document.getElementById('play').getAttribute('aria-pressed'))).observe(document.getElementById('play'),
    { attributes: true, attributeFilter: ['aria-pressed'] }); }"""


def tab_to(page, selector: str, key: str = "Tab", most: int = 120) -> None:
    """Press Tab (or ``key``) until the focus is on ``selector``, as a keyboard user would."""
    for _ in range(most):
        page.keyboard.press(key)
        if page.evaluate(FOCUSED, selector):
            assert page.evaluate(OUTLINED), f"{selector} has no visible focus"
            return
    raise AssertionError(f"{key} never reached {selector}")


@pytest.mark.parametrize("width, language", [(1280, "en"), (1280, "zh"), (390, "en"), (390, "zh")])
def test_a_student_answers_plays_and_reads_the_reveal_by_keyboard_alone(browser, base_url, width, language):
    from stsdemo.playground.presets import BY_NAME
    from stsdemo.story import GLOSSARY, plain

    story = BY_NAME["memorisation"].story
    said = lambda words: plain(getattr(words, language))  # noqa: E731 (the page's language)
    page, errors = opened(browser, base_url + SHORT + f"&lang={language}", width)
    assert said(story.question.ask) in page.inner_text("#story .question legend")
    assert page.inner_text("#notices") == ""  # the link's short run is the one played
    if width < 600:
        assert page.locator("#start > details").get_attribute("open") is None  # one line on a phone
    tab_to(page, "input[name=quiz-answer]")
    page.keyboard.press("Space")  # the first choice, the records' answer
    assert page.is_checked(f"input[name=quiz-answer][value='{story.question.answer}']")
    assert page.evaluate("JSON.parse(localStorage.getItem('stsdemo-quiz'))") == {"memorisation": 0}
    assert not page.locator("#reveal").is_visible()  # nothing is revealed before the run

    tab_to(page, "#play")
    page.evaluate(WATCH_PLAY)
    page.keyboard.press("Enter")
    page.wait_for_function("Number(document.body.dataset.step) > 0")
    button, count = page.locator("#play").bounding_box(), page.locator("#step-count").bounding_box()
    assert (
        count["y"] + count["height"] <= 900 and abs(count["y"] - button["y"]) < 60
    )  # beside or under ▶ Play
    page.wait_for_function("document.body.dataset.finished === 'true'", timeout=60_000)
    assert "true" in page.evaluate("window.pressed")  # ▶ Play said it was playing
    assert page.inner_text("#step-count").replace(",", "").count("200") == 2  # step 200 of 200

    reveal = page.locator("#reveal")
    assert reveal.is_visible() and said(story.reveal) in reveal.inner_text().replace("\n", "")
    right = {"en": ", right.", "zh": "，答对了。"}[language]
    assert said(story.question.choices[0]) + right in reveal.inner_text()
    assert (
        reveal.locator(".note").inner_text()
        == {"en": "Your answers so far: 1 of 1 right.", "zh": "目前的答题情况：1 题中答对 1 题。"}[language]
    )
    tab_to(page, "#reveal .curious summary", key="Shift+Tab")  # the fold, just before ▶ Play
    assert not page.locator("#reveal .curious p").is_visible()
    page.keyboard.press("Enter")
    assert page.locator("#reveal .curious p").inner_text() == said(story.curious)

    tab_to(page, "#reveal .term", key="Shift+Tab")  # a glossary word: its entry on focus
    tip = page.locator("#" + page.evaluate("document.activeElement.getAttribute('aria-describedby')"))
    key = next(key for key in GLOSSARY if said(GLOSSARY[key][0]) in tip.inner_text())
    assert tip.is_visible() and said(GLOSSARY[key][1]) in tip.inner_text()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the glossary entry overflows by {overflow} px at {width} px"
    page.keyboard.press("Escape")
    assert not tip.is_visible()
    assert errors == []


@pytest.mark.parametrize("width, language", [(1280, "en"), (1280, "zh"), (390, "en"), (390, "zh")])
def test_the_loss_explorers_step_is_answered_dragged_and_revealed_by_keys(browser, base_url, width, language):
    from stsdemo.lesson import STEPS
    from stsdemo.story import plain
    from stsdemo.strings import table

    found = next(step for step in STEPS if step.tab == "loss")
    said = lambda words: plain(getattr(words, language))  # noqa: E731 (the page's language)
    page, errors = opened(browser, f"{base_url}index.html{found.query}&lang={language}", width)
    question = page.locator("#loss-story .question")
    assert said(found.story.question.ask) in question.locator("legend").inner_text()
    assert not page.locator("#loss-reveal").is_visible()
    tab_to(page, "input[name=loss-quiz-answer]")
    page.keyboard.press("ArrowDown")  # the second choice: a wrong answer
    assert page.is_checked("input[name=loss-quiz-answer][value='1']")
    assert page.evaluate("JSON.parse(localStorage.getItem('stsdemo-quiz'))") == {"step:loss": 1}

    tab_to(page, "#loss-x0")  # what the step asks: x0 up, past d/2 = 0.5, by its arrow key
    for _ in range(40):
        if page.locator("#loss-reveal").is_visible():
            break
        page.keyboard.press("ArrowUp")
    x0, d = (float(page.input_value(f"#loss-{name}")) for name in ("x0", "d"))
    assert x0 > d / 2 and page.evaluate("document.getElementById('loss').dataset.pastHalf") == "true"
    reveal = page.locator("#loss-reveal")
    assert reveal.is_visible() and said(found.story.reveal) in reveal.inner_text().replace("\n", "")
    wrong = said(found.story.question.choices[1]) + table("page")[language]["story_wrong"]
    assert wrong in reveal.inner_text()
    assert said(found.story.question.choices[found.story.question.answer]) in reveal.inner_text()
    chosen = page.locator("input[name=loss-quiz-answer]").first
    assert chosen.is_disabled()  # the answer is the one given before the drag
    tab_to(page, "#loss-reveal .curious summary")
    assert not page.locator("#loss-reveal .curious p").is_visible()
    page.keyboard.press("Enter")
    assert page.locator("#loss-reveal .curious p").inner_text() == said(found.story.curious)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the Loss explorer's story overflows by {overflow} px at {width} px"
    assert errors == []
    page.close()


def test_the_teachers_link_is_big_asks_nothing_and_plays_by_its_keys(browser, base_url):
    from stsdemo.playground.presets import BY_NAME

    preset = BY_NAME["memorisation"]
    page, errors = opened(
        browser, base_url + "index.html?preset=memorisation&teach=1&quiz=0&seeds=2&steps=50", 1280
    )
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "20px"
    assert page.inner_text("#notices") == "" and page.input_value("#setting-steps") == "50"
    shown = [
        name
        for name in preset.hide
        if page.locator(f"#field-{name}").count() and page.locator(f"#field-{name}").is_visible()
    ]
    assert shown == []  # the preset's finer controls are hidden
    assert not page.locator("#story .question").is_visible()  # quiz=0: no question
    assert not page.locator("#story .watch").is_visible()  # the story step by step: watch once it plays
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.step === '1'")
    assert page.locator("#story .watch").is_visible()
    speed = int(page.input_value("#setting-speed"))
    page.keyboard.press("+")
    assert int(page.input_value("#setting-speed")) == min(2 * speed, 100)
    page.keyboard.press("-")
    assert int(page.input_value("#setting-speed")) == speed
    page.keyboard.press("r")
    page.wait_for_function("document.body.dataset.step === '0'")
    page.keyboard.press("Space")
    page.wait_for_function("document.body.dataset.finished === 'true'", timeout=60_000)
    reveal = page.locator("#reveal")
    assert reveal.is_visible() and reveal.inner_text().startswith("The answer: ")
    assert reveal.locator(".note").count() == 0  # no tally without questions
    link = page.input_value("#link")
    assert "teach=1" in link and "quiz=0" in link and "preset=memorisation" in link

    # the slow motion of one pair: the buffered prediction stops at the buffer's edge, its twin reaches the label
    page.click("#slow summary")
    for _ in range(80):
        page.click("#slow-once")
    moved = [float(value) for value in page.get_attribute("#slow-chart", "data-predictions").split(",")]
    label = float(page.get_attribute("#slow-chart", "data-label"))
    distances = [abs(prediction - label) for prediction in moved]
    assert distances[0] == pytest.approx(float(page.input_value("#setting-x0")), abs=1e-4)
    assert distances[1] < 1e-4 and "0.000" in page.inner_text("#slow-said")  # no pull left on either
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_speaks_the_language_its_link_names(browser, base_url, lang):
    from stsdemo.static_site import page_strings

    words = page_strings()[lang]
    page, errors = opened(browser, f"{base_url}index.html?lang={lang}", 1280)
    assert page.evaluate("document.documentElement.lang") == lang and page.title() == words["title"]
    assert page.locator("#play").inner_text() == words["play"]
    assert page.locator("#map-title").inner_text() == words["map_title"]
    for name in ("loss", "x0", "lr"):
        assert page.locator(f"label[for=setting-{name}]").text_content() == words[f"setting_{name}"]
    assert page.locator("#setting-loss option[value=sk2]").inner_text() == words["choice_loss_sk2"]
    titles = page.evaluate("document.getElementById('curves').frames.map(([panel]) => panel.title)")
    assert titles == [
        words["curve_report"].format(metric=words["metric_spearman"]),
        words["curve_selection"].format(metric=words["metric_spearman"]),
        words["curve_memorisation"],
        words["curve_inside"],
    ]
    axes = page.evaluate("document.getElementById('dots').frames.map(([panel]) => panel.x_title)")
    assert axes == [words["axis_gold"]] * 2
    assert page.locator("#status b").first.inner_text() == words["status_step"].format(step=0, steps="1,000")
    # the payoff map's readings and how its marks stand after their confirmations, in the page's words
    readings = page.locator("#map-reading option").all_inner_texts()
    assert readings == [words[f"map_reading_{name}"] for name in payoff.READINGS]
    assert payoff.confirmation_text(payoff.load_map(), "best", lang) in page.inner_text("#map-text")
    # the verdict rule, once a run has measured its seeds
    page.click("#step")
    page.wait_for_function("document.body.dataset.step !== '0'", timeout=60_000)
    seeds = int(page.input_value("#setting-seeds"))
    assert rule_text(seeds, "spearman", lang) in page.inner_text("#status .rule")
    assert not errors
    page.close()
