"""A classroom against a running app, as no test can play it: visitors at their own addresses (behind one trusted
proxy hop, as on a Space) scoring pairs, asking the Loss explorer's ``loss_at``, calling the Playground API, one
fine-tune, and one flooder who fires the Playground API as fast as the server answers. Each kind's success rate,
p50/p95 latency (posting the call to its result) and HTTP refusals (503 queue full, 429 over a visitor's cap) are
recorded, with the server's peak RSS (the app's process and its children, when this benchmark started it).

    python -m bench.perf.load                              # start the app, 30 visitors for 90 s
    python -m bench.perf.load --url http://127.0.0.1:7860  # an app already running (its RSS not read)
    python -m bench.perf.load --quick                      # 6 visitors for 20 s: a smoke test

Every call goes through REST v2 (``POST /gradio_api/call/v2/<name>`` with its arguments by name, then the
result stream), the way an API client or an agent calls. Records go to ``docs/results.json`` under ``load``
(``classroom`` or ``quick``) with the machine, its load, the visitors and the duration.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from ..common import REPO, log, machine, machine_load, out_dir, percentile, update_results
from .served_app import free_port

PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("A dog runs in the park.", "Stocks fell."),
    ("A woman is slicing an onion.", "Someone is cutting an onion."),
    ("Kids play soccer.", "A cat sleeps."),
]
THINK_SECONDS = {"score_pair": 2.0, "loss_at": 1.0, "playground": 4.0}  # pause between a visitor's calls
PLAYGROUND_CALL = {"steps": 100, "seeds": 2, "train_pairs": 200}  # a classroom's modest Playground run
FINE_TUNE = {"max_steps": 6, "max_pairs": 96, "eval_every": 3, "max_dev_pairs": 64}
CLASSROOM = {"score_pair": 16, "loss_at": 8, "playground": 4, "train": 1, "flooder": 1}  # 30 visitors
QUICK = {"score_pair": 2, "loss_at": 2, "playground": 1, "train": 0, "flooder": 1}


@dataclass
class Tally:
    """One kind of visitor's calls: latencies of those answered, and how each call ended."""

    latencies: list = field(default_factory=list)
    outcomes: dict = field(
        default_factory=dict
    )  # "ok", "error" (the app's refusal or failure), "http 503", ...
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: str, seconds: float | None = None) -> None:
        with self.lock:
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
            if seconds is not None and outcome == "ok":
                self.latencies.append(seconds)

    def summary(self) -> dict:
        calls = sum(self.outcomes.values())
        return {
            "calls": calls,
            "outcomes": dict(self.outcomes),
            "success_rate": round(self.outcomes.get("ok", 0) / calls, 3) if calls else None,
            "p50_s": round(percentile(self.latencies, 50), 3) if self.latencies else None,
            "p95_s": round(percentile(self.latencies, 95), 3) if self.latencies else None,
        }


def call(client, url: str, name: str, arguments: dict, address: str) -> tuple[str, float]:
    """One call through REST v2 and its result stream: ``(outcome, seconds)``."""
    started = time.perf_counter()
    posted = client.post(
        f"{url}gradio_api/call/v2/{name}", json=arguments, headers={"x-forwarded-for": address}
    )
    if posted.status_code != 200:
        return f"http {posted.status_code}", time.perf_counter() - started
    stream = client.get(
        f"{url}gradio_api/call/v2/{name}/{posted.json()['event_id']}", headers={"x-forwarded-for": address}
    ).text
    kinds = re.findall(r"^event: (\w+)$", stream, re.M)
    outcome = "ok" if "complete" in kinds else "error"
    return outcome, time.perf_counter() - started


def arguments(kind: str, rng: random.Random) -> dict:
    if kind == "score_pair":
        first, second = rng.choice(PAIRS)
        return {"sentence1": first, "sentence2": second}
    if kind == "loss_at":
        return {"prediction": round(rng.uniform(0, 5), 2), "label": float(rng.randint(0, 5))}
    if kind == "playground":
        return dict(PLAYGROUND_CALL)
    return dict(FINE_TUNE)


def visitor(kind: str, number: int, url: str, until: float, tallies: dict) -> None:
    """One visitor at its own address: a loop of calls with a pause (the flooder: none, and 8 at once; the
    fine-tune: one run)."""
    import httpx

    rng = random.Random(number)
    address = f"10.0.{number // 250}.{number % 250 + 1}"
    name = "playground" if kind == "flooder" else kind
    with httpx.Client(timeout=600) as client:
        if kind == "train":
            tallies[kind].add(*call(client, url, name, arguments(kind, rng), address))
            return
        if kind == "flooder":
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(8) as pool:
                while time.time() < until:
                    for outcome in pool.map(
                        lambda _: call(client, url, name, arguments("playground", rng), address), range(8)
                    ):
                        tallies[kind].add(*outcome)
            return
        time.sleep(rng.uniform(0, THINK_SECONDS[kind]))  # visitors arrive spread out
        while time.time() < until:
            tallies[kind].add(*call(client, url, name, arguments(kind, rng), address))
            time.sleep(THINK_SECONDS[kind] * rng.uniform(0.5, 1.5))


def start_app() -> tuple[subprocess.Popen, str]:
    """``python app.py`` on a free port, behind one trusted proxy hop (each visitor's X-Forwarded-For is its
    address), its runs in the benchmark's output folder: the process and its URL, once it answers."""
    import httpx

    port = free_port()
    env = {
        **os.environ,
        "GRADIO_SERVER_PORT": str(port),
        "STSDEMO_PROXY_HOPS": "1",
        "STSDEMO_OUTPUT_DIR": str(out_dir() / "load-app"),
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    process = subprocess.Popen(
        [sys.executable, "app.py"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(out_dir() / "load-app.log", "w"),
    )
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200:
                return process, f"http://127.0.0.1:{port}/"
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"the app exited ({process.returncode}); see bench/out/load-app.log")
        time.sleep(2)
    process.terminate()
    raise RuntimeError("the app did not answer within 300 s")


def watch_rss(pid: int, stop: threading.Event, peak: list) -> None:
    """The peak RSS (MiB) of process ``pid`` and its children, sampled every 0.5 s into ``peak[0]``."""
    import psutil

    root = psutil.Process(pid)
    while not stop.wait(0.5):
        try:
            total = sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
        except psutil.Error:
            continue
        peak[0] = max(peak[0], total / 2**20)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--url", help="an app already running (default: start one)")
    parser.add_argument("--seconds", type=float, default=90.0, help="how long the classroom plays")
    parser.add_argument("--quick", action="store_true", help="6 visitors for 20 s")
    args = parser.parse_args(argv)
    crowd, seconds = (QUICK, 20.0) if args.quick else (CLASSROOM, args.seconds)
    if not 0 < seconds <= 600:
        print("bench.perf.load: error: --seconds must be in (0, 600]", file=sys.stderr)
        return {}
    process, url = (None, args.url.rstrip("/") + "/") if args.url else start_app()
    stop, peak = threading.Event(), [0.0]
    watcher = (
        threading.Thread(target=watch_rss, args=(process.pid, stop, peak), daemon=True) if process else None
    )
    try:
        before = machine_load()
        if watcher:
            watcher.start()
        tallies = {kind: Tally() for kind in crowd}
        until = time.time() + seconds
        threads = [
            threading.Thread(target=visitor, args=(kind, number, url, until, tallies))
            for number, kind in enumerate(kind for kind, count in crowd.items() for _ in range(count))
        ]
        log(f"{len(threads)} visitors for {seconds:g} s against {url}")
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        kinds = {kind: tally.summary() for kind, tally in tallies.items()}
        well_behaved = [kind for kind in kinds if kind != "flooder"]
        refused = {
            kind: {o: n for o, n in kinds[kind]["outcomes"].items() if o in ("http 503", "http 429")}
            for kind in well_behaved
        }
        record = {
            "machine": machine(),
            **machine_load(before),
            "url": "started by bench.perf.load" if process else url,
            "visitors": dict(crowd),
            "seconds": seconds,
            "kinds": kinds,
            "server_peak_rss_mib": round(peak[0]) if process else None,
            "well_behaved_refused_503_or_429": {k: v for k, v in refused.items() if v},
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
    finally:
        stop.set()
        if process:
            process.terminate()
            process.wait(30)
    update_results("load", {"quick" if args.quick else "classroom": record})
    log(
        json.dumps(
            {kind: {k: v for k, v in summary.items() if k != "outcomes"} for kind, summary in kinds.items()}
        )
    )
    log("well-behaved visitors refused (503/429):", record["well_behaved_refused_503_or_429"] or "none")
    return record


if __name__ == "__main__":
    sys.exit(0 if main() else 2)
