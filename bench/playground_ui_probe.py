"""Headless Chromium plays the Playground of the app at ``argv[1]`` for ``argv[2]`` seconds and prints one JSON
line: canvas redraws per second overall and per 10-s window (the run is long enough to play throughout), the longest gap between redraws, the steps the run
advanced, and the main thread's long tasks. Run by ``bench.playground_speed`` (a process of its own, as a visitor's
browser would be)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from app_fixtures import open_page  # noqa: E402

WATCH = """() => {
    window.__redraws = []; window.__long = [];
    const canvas = () => document.querySelector('#pg-dots');
    new MutationObserver(() => {
        const drawn = canvas() && canvas().dataset.drawn;
        const last = window.__redraws[window.__redraws.length - 1];
        if (drawn && (!last || last[1] !== drawn)) window.__redraws.push([performance.now(), drawn]);
    }).observe(document.querySelector('#pg-live'), {subtree: true, attributes: true, childList: true});
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
        .observe({entryTypes: ['longtask']});
}"""


def windows(redraws: list, seconds: float, width: float = 10.0) -> list[float]:
    """Redraws per second in consecutive windows of ``width`` seconds from the first redraw."""
    start = redraws[0][0]
    counts = [0] * max(1, int(seconds // width))
    for moment, _ in redraws:
        index = int((moment - start) / 1000 // width)
        if index < len(counts):
            counts[index] += 1
    return [count / width for count in counts]


def main(url: str, seconds: float) -> dict:
    from playwright.sync_api import expect

    # the longest run at few steps per update, so that it plays for the whole window (about 8 updates a second
    # at 4 steps each reach 5,000 steps in some 150 s)
    for page in open_page(f"{url}?tab=playground&steps=5000&speed=4", viewport={"width": 1400, "height": 1000}):
        page.locator("#pg-step").click()
        expect(page.locator("#pg-dots")).to_have_attribute("data-drawn", "1", timeout=300_000)
        page.evaluate(WATCH)
        page.locator("#pg-play").click()
        page.wait_for_timeout(seconds * 1000)
        redraws, long_tasks = page.evaluate("[window.__redraws, window.__long]")
        page.locator("#pg-pause").click()
    span = (redraws[-1][0] - redraws[0][0]) / 1000 if len(redraws) > 1 else float("nan")
    gaps = [(b[0] - a[0]) / 1000 for a, b in zip(redraws, redraws[1:])]
    return dict(play_seconds=seconds, redraws=len(redraws), redraws_per_s=(len(redraws) - 1) / span,
                per_10s=windows(redraws, seconds), longest_gap_s=max(gaps, default=float("nan")),
                steps_advanced=int(redraws[-1][1]) - int(redraws[0][1]) if redraws else 0,
                long_tasks=len(long_tasks), long_task_seconds=sum(long_tasks) / 1000)


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], float(sys.argv[2]))))
