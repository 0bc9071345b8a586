"""How fast and how large the Playground is in the visitor's browser (issue 37's targets), in headless Chromium on
this machine, against a static site written by ``python -m stsdemo site``:

* ``engine``: 20 seeds x 2 twins x 1,000 steps at the defaults, with the selection set every 10 steps and both
  readings at the end, in Web Workers (worker.js) split over 1, 2 and 4 workers (target 1 s; the Python core's
  float32 run took 1.74 s);
* ``fps``: the page playing at its defaults: screen updates per second in a 1280 px window, and in a 390 px window
  with Chromium's CPU throttled 4x (a stand-in for a mid-range phone) (targets 30 and 15);
* ``classroom``: ``--pages`` pages playing the start-here preset at once against one app (``python app.py`` in a
  process of its own, :mod:`bench.perf.served_app`, on this machine's embedding cache): the app process's CPU seconds
  while they play, and each page's updates per second;
* ``size``: the site's files, raw and gzip-compressed (target 15 MB);
* ``python``: the Python side's default run, ``run_seeds`` whole through the page's engine in mini-racer, median of
  3 (target 3 s; the API and MCP run it);
* ``first_visit``: a fresh app (its own process and an empty cache), asked for the STS-B data file as soon as it
  answers (target 5 s: the data sets are pinned files, nothing is embedded);
* ``site``: ``python -m stsdemo site DIR`` whole (target 30 s).

    python -m bench.perf.browser_playground --no-record          # print only
    python -m bench.perf.browser_playground --parts engine,size  # record these (section playground, key browser)

Timings mean something only on an idle machine; each record names the machine and its load before and after.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import tempfile
import threading
import time
from pathlib import Path

from stsdemo.environment import cache_dir

from ..common import device_name, log, machine_load, setup_environment, update_results
from .served_app import serve_app

SECTION = "playground"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
]
PARTS = ("engine", "fps", "classroom", "size", "python", "first_visit", "site")

# Times one run split over `workers` Web Workers (worker.js's own protocol), the data already parsed in each.
ENGINE_JS = """async ({workers, seeds, steps, data}) => {
  const pool = Array.from({length: workers}, () => new Worker("worker.js"));
  const ask = (worker, message) => new Promise((resolve, reject) => {
    worker.onmessage = (event) =>
      event.data.type === "error" ? reject(new Error(event.data.message)) : resolve(event.data);
    worker.postMessage(message);
  });
  const config = window.SITE.settings, defaults = {};
  for (const name in config) defaults[name] = config[name].default;
  const slices = pool.map((_, p) => Array.from({length: seeds}, (_, i) => i).filter((s) => s % workers === p));
  await Promise.all(pool.map((w, p) =>
    ask(w, {type: "init", id: 1, source: data, config: defaults, seeds: slices[p], declared: window.SITE.engine})));
  const started = performance.now();
  await Promise.all(pool.map((w) => ask(w, {type: "advance", id: 1, steps, shown: 0})));
  const seconds = (performance.now() - started) / 1000;
  pool.forEach((w) => w.terminate());
  return seconds;
}"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """A plain file server over ``folder`` on a free port, in a thread."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


def write_full_site(folder: Path) -> dict:
    from stsdemo.static_site import write_site

    return write_site(folder)


def site_seconds() -> dict:
    """``python -m stsdemo site DIR`` in a process of its own: its wall seconds (the pinned files copied, the
    sentences read from the data folder, the manifest written)."""
    import subprocess
    import sys

    with tempfile.TemporaryDirectory() as scratch:
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "stsdemo", "site", str(Path(scratch) / "site")],
            check=True,
            capture_output=True,
        )
        seconds = time.monotonic() - started
    log(f"site: python -m stsdemo site took {seconds:.2f} s")
    return {"site_s": round(seconds, 2)}


def engine_seconds(url: str, repeats: int = 3) -> dict:
    """The default run's seconds in Chromium's Web Workers, 1, 2 and 4 of them (median of ``repeats``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto(url + "index.html")
        page.evaluate("async () => { window.SITE = await (await fetch('site.json')).json(); }")
        found = {}
        for workers in (1, 2, 4):
            times = [
                page.evaluate(
                    ENGINE_JS,
                    {"workers": workers, "seeds": 20, "steps": 1000, "data": "data/sts.safetensors"},
                )
                for _ in range(repeats)
            ]
            found[f"workers_{workers}"] = round(statistics.median(times), 3)
            log(
                f"engine: 20 seeds x 2 twins x 1,000 steps in {workers} worker(s): {found[f'workers_{workers}']:.2f} s"
            )
        found["cores"] = page.evaluate("navigator.hardwareConcurrency")
        browser.close()
    return found


COUNT_UPDATES_JS = """() => { window.UPDATES = 0;
  new MutationObserver(() => { window.UPDATES += 1; }).observe(document.body, {attributeFilter: ["data-step"]}); }"""


def start_playing(page, url: str) -> None:
    """Open the page at ``url``, wait for its data, start counting its screen updates and press Play."""
    page.goto(url)
    page.wait_for_function("document.body.dataset.step === '0'", timeout=600_000)
    page.evaluate(COUNT_UPDATES_JS)
    page.click("#play")


def updates_per_second(url: str, seconds: float = 10.0) -> dict:
    """Screen updates per second of the page playing 5,000 steps at its other defaults: a 1280 px window, and a
    390 px one with the CPU throttled 4x."""
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for name, viewport, throttle in (
            ("desktop", {"width": 1280, "height": 900}, 1),
            ("phone_4x_throttled", {"width": 390, "height": 844}, 4),
        ):
            page = browser.new_context(viewport=viewport).new_page()
            page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            start_playing(page, url + "index.html?steps=5000")
            page.wait_for_timeout(seconds * 1000)
            found[name] = round(page.evaluate("window.UPDATES") / seconds, 1)
            log(f"fps: {name}: {found[name]} screen updates a second")
            page.context.close()
        browser.close()
    return found


def classroom(pages: int, seconds: float = 30.0) -> dict:
    """``pages`` pages playing the start-here preset at once against one app launched here: the app process's CPU
    seconds while they play (after each has its data) and each page's screen updates per second."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as output,
        serve_app(Path(output), STSDEMO_CACHE_DIR=str(cache_dir())) as served,
    ):
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            windows = [
                browser.new_context(viewport={"width": 1280, "height": 900}).new_page() for _ in range(pages)
            ]
            for window in windows:
                start_playing(window, served.url + "playground/index.html?preset=memorisation")
            cpu = served.cpu_seconds()
            time.sleep(seconds)
            app_cpu = served.cpu_seconds() - cpu
            rates = [window.evaluate("window.UPDATES") / seconds for window in windows]
            browser.close()
    log(
        f"classroom: {pages} pages for {seconds:.0f} s: the app used {app_cpu:.2f} CPU s; updates a second per page: "
        f"median {statistics.median(rates):.1f}, lowest {min(rates):.1f}"
    )
    return {
        "pages": pages,
        "seconds": seconds,
        "app_cpu_s": round(app_cpu, 2),
        "updates_per_s": {"median": round(statistics.median(rates), 2), "lowest": round(min(rates), 2)},
    }


def python_seconds(repeats: int = 3) -> float:
    from stsdemo.playground.config import PlaygroundConfig
    from stsdemo.playground.run import pinned_source, run_seeds

    config = PlaygroundConfig()
    source = pinned_source(config.data)
    run_seeds(config, source)  # warm up: the engines made and handed the data once
    times = [run_seeds(config, source)["seconds"] for _ in range(repeats)]
    log(
        f"python: the default run through the page's engine: {statistics.median(times):.2f} s (each: {times})"
    )
    return round(statistics.median(times), 3)


def first_visit_seconds(after: float = 0.0) -> dict:
    """A fresh app (its own empty cache), asked for the STS-B data file ``after`` seconds after it starts."""
    import urllib.error
    import urllib.request

    with tempfile.TemporaryDirectory() as output:
        started = time.monotonic()
        with serve_app(Path(output), STSDEMO_CACHE_DIR=str(Path(output) / "cache")) as served:
            time.sleep(max(0.0, after - (time.monotonic() - started)))
            asked = time.monotonic()
            while True:
                try:
                    with urllib.request.urlopen(
                        served.url + "playground/data/sts.safetensors", timeout=600
                    ) as answer:
                        answer.read()
                        break
                except urllib.error.HTTPError as busy:  # 503 with its progress: still being embedded
                    if busy.code != 503:
                        raise
                time.sleep(0.5)
            waited = time.monotonic() - asked
    log(f"first visit: asked {after:.0f} s after launch, the data file came in {waited:.2f} s")
    return {"asked_after_s": after, "answer_s": round(waited, 2)}


# Issue 37's targets, each declared once: seconds at most, screen updates a second at least, MB at most
ENGINE_S, DESKTOP_UPDATES, PHONE_UPDATES, GZIP_MB, PYTHON_S, SITE_S, FIRST_PLAY_S = (
    1.0,
    30,
    15,
    15,
    3.0,
    30,
    5,
)
TARGETS = {
    "engine": f"≤ {ENGINE_S:g} s",
    "desktop": f"≥ {DESKTOP_UPDATES} / s",
    "phone_4x_throttled": f"≥ {PHONE_UPDATES} / s",
    "gzip": f"≤ {GZIP_MB} MB",
    "python": f"≤ {PYTHON_S:g} s",
    "site": f"≤ {SITE_S} s",
    "first_visit": f"≤ {FIRST_PLAY_S} s",
}


def markdown(results: dict) -> list[str]:
    """The recorded figures beside issue 37's targets, each with its machine and load, as docs/results.md shows."""
    found = {part: results.get(SECTION, {}).get(f"browser/{part}") for part in PARTS}
    if not any(found.values()):
        return ["Not measured yet (`python -m bench.perf.browser_playground`).\n"]

    def where(part: dict) -> str:
        load = part["load"]
        return (
            f"{part['machine']}, load {load['before']['load_1min']:g} → {load['after']['load_1min']:g}, "
            f"{part['finished']}"
        )

    def missed(factor: float) -> str:
        """How far a measurement is from its target, as a factor (nothing when it meets it)."""
        return f" (missed: {factor:.1f}× off the target)" if factor > 1 else ""

    rows = ["| what | target | measured | machine, 1-min load before → after |", "| --- | --- | --- | --- |"]
    if found["engine"]:
        engine = found["engine"]
        rows.append(
            f"| 20 seeds × 2 twins × 1,000 steps, both readings, in Chromium's Web Workers (1 / 2 / 4) | "
            f"{TARGETS['engine']} | {engine['workers_1']:.2f} / {engine['workers_2']:.2f} / "
            f"{engine['workers_4']:.2f} s{missed(min(engine['workers_2'], engine['workers_4']) / ENGINE_S)} | "
            f"{where(engine)} |"
        )
    if found["fps"]:
        fps = found["fps"]
        rows.append(
            f"| screen updates while playing: 1280 px / 390 px at 4× CPU throttling | {TARGETS['desktop']} / "
            f"{TARGETS['phone_4x_throttled']} | {fps['desktop']:g} / {fps['phone_4x_throttled']:g}"
            f"{missed(max(DESKTOP_UPDATES / fps['desktop'], PHONE_UPDATES / fps['phone_4x_throttled']))} | "
            f"{where(fps)} |"
        )
    if found["classroom"]:
        room = found["classroom"]
        rows.append(
            f"| {room['pages']} pages playing the start-here preset against one app, {room['seconds']:g} s "
            f"(all {room['pages']} browsers on this machine's cores too) | "
            f"the app idle | the app: {room['app_cpu_s']:g} CPU s; each page: median "
            f"{room['updates_per_s']['median']:g}, lowest {room['updates_per_s']['lowest']:g} updates / s | "
            f"{where(room)} |"
        )
    if found["size"]:
        size = found["size"]
        rows.append(
            f"| the static site, {size['files']} files, gzip-compressed | {TARGETS['gzip']} | "
            f"{size['gzip_bytes'] / 1e6:.1f} MB ({size['bytes'] / 1e6:.1f} MB raw) | {where(size)} |"
        )
    if found["python"]:
        rows.append(
            f"| the Python side's default run through the page's engine (API, MCP) | {TARGETS['python']} | "
            f"{found['python']['default_run_s']:.2f} s{missed(found['python']['default_run_s'] / PYTHON_S)} | "
            f"{where(found['python'])} |"
        )
    if found["first_visit"]:
        visit = found["first_visit"]
        rows.append(
            f"| a fresh app's STS-B data file, asked {visit['asked_after_s']:g} s after it answers | "
            f"{TARGETS['first_visit']} | {visit['answer_s']:.2f} s"
            f"{missed(visit['answer_s'] / FIRST_PLAY_S)} | {where(visit)} |"
        )
    if found["site"]:
        rows.append(
            f"| `python -m stsdemo site DIR`, whole | {TARGETS['site']} | {found['site']['site_s']:.2f} s"
            f"{missed(found['site']['site_s'] / SITE_S)} | {where(found['site'])} |"
        )
    return [
        "\n".join(rows) + "\n\nTimings on a loaded machine are slower than its idle figures; the load is "
        "the 1-minute average on its 2 cores.\n"
    ]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.browser_playground",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--parts", default="engine,size,python", help=f"comma-separated, of: {', '.join(PARTS)}"
    )
    parser.add_argument(
        "--site", help="a site folder written by `python -m stsdemo site` (default: write one)"
    )
    parser.add_argument("--pages", type=int, default=30, help="pages playing at once in the classroom part")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args(argv)
    parts = [part.strip() for part in args.parts.split(",") if part.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    setup_environment(1)
    found = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.site) if args.site else Path(scratch) / "site"
        if not args.site and {"engine", "size", "fps", "classroom"} & set(parts):
            write_full_site(folder)
        url, server = serve(folder) if {"engine", "fps", "classroom"} & set(parts) else (None, None)
        measures = {
            "size": lambda: site_bytes(folder),
            "engine": lambda: engine_seconds(url),
            "fps": lambda: updates_per_second(url),
            "classroom": lambda: classroom(args.pages),
            "python": lambda: {"default_run_s": python_seconds()},
            "first_visit": first_visit_seconds,
            "site": site_seconds,
        }
        for part in parts:
            before = machine_load()
            found[part] = {
                **measures[part](),
                "machine": device_name(),
                **machine_load(before),
                "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            }
            if not args.no_record:
                update_results(SECTION, {f"browser/{part}": found[part]})
        if server is not None:
            server.shutdown()
    return found


def site_bytes(folder: Path) -> dict:
    from stsdemo.static_site import site_size

    size = site_size(folder)
    log(f"size: {size['bytes'] / 1e6:.1f} MB, {size['gzip_bytes'] / 1e6:.1f} MB gzip-compressed")
    return {"bytes": size["bytes"], "gzip_bytes": size["gzip_bytes"], "files": len(size["files"])}


if __name__ == "__main__":
    main()
