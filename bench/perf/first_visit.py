"""A fresh app's first Playground answer (issue 32): ``app.py`` started with an empty embedding cache (as a Space
is after every restart), asked for a default Playground run ``--after`` seconds after launch, timed from the ask.

    python -m bench.perf.first_visit              # ask 75 s after launch; records playground.first_visit
    python -m bench.perf.first_visit --after 5    # an early visitor: the answer waits for the embedding

The Playground's built-in data sets are pinned files that ship with the package, so nothing waits for an
embedding; the answer includes the run itself (the API's default run, whose seeds and steps the record names). Run it on an idle machine: it is a timing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from ..common import REPO, device_name, log, update_results
from .served_app import free_port

SECTION = "playground"


def markdown(results: dict) -> list[str]:
    """The recorded first visits as a table: when the visitor asked, how long the answer took."""
    found = {key: row for key, row in results.get(SECTION, {}).items() if key.startswith("first_visit/")}
    if not found:
        return ["Not measured yet (`python -m bench.perf.first_visit`).\n"]
    rows = [
        "| visitor asks (s after launch) | app serving after (s) | answer (s, the default run) | run | machine |",
        "| ---: | ---: | ---: | --- | --- |",
    ]
    for row in sorted(found.values(), key=lambda row: row["after_s"]):
        rows.append(
            f"| {row['asked_at_s']:g} | {row['serving_s']:g} | {row['answer_s']:.2f} | {row['seeds']} seeds "
            f"x {row['steps']:,} steps | {row['machine']} |"
        )
    return [
        "\n".join(rows) + "\n\nA fresh app (an empty cache, as a Space after a restart) reads the "
        "Playground's pinned data files: since they ship, no visitor waits for an embedding.\n"
    ]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.first_visit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--after", type=float, default=75.0, help="seconds after launch the visitor asks")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args(argv)
    import httpx
    from gradio_client import Client

    port, folder = free_port(), tempfile.mkdtemp(prefix="first-visit-")
    env = {
        **os.environ,
        "STSDEMO_CACHE_DIR": os.path.join(folder, "cache"),
        "GRADIO_SERVER_PORT": str(port),
        "STSDEMO_OUTPUT_DIR": os.path.join(folder, "runs"),
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    url = f"http://127.0.0.1:{port}/"
    launched = time.monotonic()
    app = subprocess.Popen(
        [sys.executable, "app.py"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            try:
                httpx.get(url + "gradio_api/info", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                if app.poll() is not None or time.monotonic() - launched > 300:
                    raise RuntimeError("the app did not start") from None
                time.sleep(0.5)
        serving = time.monotonic() - launched
        time.sleep(max(0.0, args.after - (time.monotonic() - launched)))
        client = Client(url, verbose=False)
        asked = time.monotonic()
        client.predict(api_name="/playground")
        answer = time.monotonic() - asked
    finally:
        app.terminate()
        app.wait(timeout=30)
    from stsdemo.playground.config import PlaygroundConfig

    default = PlaygroundConfig()
    row = {
        "after_s": args.after,
        "serving_s": round(serving, 1),
        "answer_s": round(answer, 2),
        "asked_at_s": round(asked - launched, 1),
        "seeds": default.seeds,
        "steps": default.steps,
        "machine": device_name(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    log(f"serving after {serving:.1f} s; asked at {asked - launched:.1f} s; answered in {answer:.2f} s")
    if not args.no_record:
        update_results(SECTION, {f"first_visit/after{args.after:g}": row})
    return row


if __name__ == "__main__":
    main()
