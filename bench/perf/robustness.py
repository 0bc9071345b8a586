"""Robustness figures: scoring latency while a fine-tune runs, and memory/threads over start/stop cycles.

    python -m bench.perf.robustness                         # everything below, full sizes
    python -m bench.perf.robustness --part concurrency      # 20 API clients scoring during a training run
    python -m bench.perf.robustness --part cycles           # 10 start/stop cycles of train() (the core)
    python -m bench.perf.robustness --part app-cycles       # 10 start/stop cycles through the app's API
    python -m bench.perf.robustness --quick                 # small sizes: a smoke run

* ``concurrency``: the app serves from a process of its own (``python app.py``, as on a Space:
  :mod:`bench.perf.served_app`); one client starts a fine-tune, then ``--clients`` clients (each its own session) send
  ``--requests`` /score calls each, all at once. Reported: latency p50/p95/max of every call, idle (no training)
  and during training, how many were answered, and whether the fine-tune was still streaming throughout.
* ``cycles``: ``train()`` in a thread, stopped at its first step - odd cycles with the stop event, even ones
  by closing the generator (what a closed browser tab does). Reported: RSS at the start, after a warm-up
  cycle and after all cycles; Python threads; whether the best checkpoint still loads.
* ``app-cycles``: the same through the served app (/train, then /stop or a cancelled job), each cycle's run read
  from the records the app wrote (its status, whether its checkpoint loads as a scorer); RSS and threads are the
  server process's (threads as the operating system counts them: Python's and its libraries').

Figures are printed and written to ``bench/out/robustness.json`` (not to docs/results.json).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.common import percentile  # noqa: E402 - once the repository is importable

PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("A woman is slicing an onion.", "A woman is cutting an onion."),
    ("A dog runs in the park.", "Stocks fell sharply on Monday."),
    ("Two children play football.", "Kids are playing soccer."),
    ("The cat sleeps on the sofa.", "A cat is asleep on a couch."),
]


def rss_mib() -> float:
    import psutil

    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


# ---- the app, served -------------------------------------------------------------------------------------


class App:
    """The app served from a process of its own (:func:`bench.perf.served_app.serve_app`), its runs in a temporary
    folder; ``threads``: torch's CPU threads there (default: torch's choice)."""

    def __init__(self, dev_pairs: int, threads: int | None = None):
        from bench.perf.served_app import serve_app

        self.folder = Path(tempfile.mkdtemp(prefix="stsdemo-robustness-"))
        self.dev_pairs = dev_pairs
        self.served = serve_app(self.folder, **({"OMP_NUM_THREADS": str(threads)} if threads else {}))

    def client(self):
        return self.served.client(httpx_kwargs={"timeout": 300})

    def train_kwargs(self, client, **overrides) -> dict:
        """Named arguments for /train: a long run on STS-B train, small enough to start quickly."""
        params = {
            p["parameter_name"]
            for p in client.view_api(return_format="dict", print_info=False)["named_endpoints"]["/train"][
                "parameters"
            ]
        }
        values = dict(
            model="default",
            data="STS-B train",
            upload=None,
            scheme="sts",
            loss="Smooth K2 (ours) [sk2]",
            k=2.0,
            x0=0.25,
            lr=2e-5,
            batch_size=16,
            epochs=1.0,
            max_steps=100_000,
            max_length=64,
            eval_every=100_000,
            log_every=1,
            max_pairs=0,
            two_stage=False,
            final_eval=False,
            seed=42,
            max_dev_pairs=self.dev_pairs,
        )
        values.update(overrides)
        return {name: value for name, value in values.items() if name in params}

    def runs(self, session: str) -> list[dict]:
        """The run records of ``session`` the app wrote, oldest first."""
        from bench.perf.served_app import session_runs

        return session_runs(self.folder, session)

    def close(self) -> None:
        self.served.close()


def wait_for_step(job, timeout: float = 600) -> None:
    """Block until the run streams its first training step (its progress text says 'step k/N')."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any("· step" in str(output[0]) or "· step" in str(output[1]) for output in job.outputs()):
            return
        if job.done():
            raise RuntimeError(f"the run ended before its first step: {job.outputs()[-1:]}")
        time.sleep(0.2)
    raise TimeoutError("no training step arrived")


def score_burst(clients: list, requests: int) -> dict:
    """Every client sends ``requests`` /score calls, all clients at once; latency of each call."""
    latencies, errors = [], []
    lock = threading.Lock()
    start = threading.Barrier(len(clients))

    def work(index, client):
        start.wait()
        for r in range(requests):
            s1, s2 = PAIRS[(index + r) % len(PAIRS)]
            tick = time.perf_counter()
            try:
                client.predict("default", s1, s2, "STS 0–5", "", 1.0, None, api_name="/score")
                with lock:
                    latencies.append(time.perf_counter() - tick)
            except Exception as error:  # noqa: BLE001 - counted and reported
                with lock:
                    errors.append(f"{type(error).__name__}: {error}"[:200])

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(clients)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return dict(
        calls=len(clients) * requests,
        answered=len(latencies),
        errors=errors[:5],
        error_count=len(errors),
        p50_s=round(percentile(latencies, 50), 3),
        p95_s=round(percentile(latencies, 95), 3),
        max_s=round(max(latencies, default=float("nan")), 3),
        mean_s=round(statistics.fmean(latencies), 3) if latencies else None,
        wall_s=round(wall, 1),
    )


def concurrency(clients: int, requests: int, dev_pairs: int, threads: int | None = None) -> dict:
    app = App(dev_pairs, threads)
    try:
        pool = [app.client() for _ in range(clients)]
        pool[0].predict(
            "default", *PAIRS[0], "STS 0–5", "", 1.0, None, api_name="/score"
        )  # load the model once
        idle = score_burst(pool, requests)
        print(f"idle:   {idle}", flush=True)
        trainer = app.client()
        job = trainer.submit(**app.train_kwargs(trainer), api_name="/train")
        wait_for_step(job)
        during = score_burst(pool, requests)
        still_training = not job.done()  # the fine-tune streams until its run ends
        print(f"during: {during} (training still running: {still_training})", flush=True)
        trainer.predict(api_name="/stop")
        list(job)
        return dict(
            clients=clients,
            requests_per_client=requests,
            idle=idle,
            during_training=during,
            training_ran_throughout=still_training,
            training_ended=job.status().success,
        )
    finally:
        app.close()


# ---- start/stop cycles --------------------------------------------------------------------------------------


def core_cycle(index: int, folder: Path, close: bool, dev_pairs: int) -> dict:
    """One run of train() in its own thread, stopped at its first step."""
    from stsdemo.train import DoneEvent, StepEvent, TrainConfig, train

    stop, stepped, seen = threading.Event(), threading.Event(), {}
    config = TrainConfig(
        data="stsb",
        max_pairs=64,
        max_length=32,
        batch_size=8,
        max_steps=1000,
        eval_every=1000,
        log_every=1,
        max_dev_pairs=dev_pairs,
        output_dir=str(folder),
    )
    run = train(config, stop)

    def consume():
        for event in run:
            seen["last"] = event
            if isinstance(event, StepEvent):
                stepped.set()
                if close:
                    break
        run.close()

    thread = threading.Thread(target=consume, name=f"robustness-cycle-{index}", daemon=True)
    thread.start()
    if not stepped.wait(600):
        raise TimeoutError("no training step")
    stop.set()
    thread.join(300)
    last = seen.get("last")
    return dict(
        ended=not thread.is_alive(),
        how="closed" if close else "stop event",
        done=isinstance(last, DoneEvent) and (last.message or last.outcome),
    )


def cycles(count: int, dev_pairs: int) -> dict:
    from stsdemo.model import SiameseRegressor

    folder = Path(tempfile.mkdtemp(prefix="stsdemo-cycles-")) / "run"
    os.environ.setdefault("STSDEMO_MODEL_ROOTS", str(folder.parent))
    threads_start, rss_start = threading.active_count(), rss_mib()
    warm = core_cycle(0, folder, False, dev_pairs)
    threads_warm, rss_warm = threading.active_count(), rss_mib()
    results = []
    for index in range(1, count + 1):
        results.append(core_cycle(index, folder, index % 2 == 0, dev_pairs))
        print(
            f"cycle {index}: {results[-1]} rss {rss_mib():.0f} MiB threads {threading.active_count()}",
            flush=True,
        )
    rss_end, threads_end = rss_mib(), threading.active_count()
    loads = SiameseRegressor.load(str(folder)).predict(["a man plays."], ["a man is playing."]).shape == (1,)
    return dict(
        cycles=count,
        warm_up=warm,
        all_ended=all(r["ended"] for r in results),
        rss_start_mib=round(rss_start),
        rss_after_warmup_mib=round(rss_warm),
        rss_end_mib=round(rss_end),
        rss_growth_vs_warmup=round(rss_end / rss_warm - 1, 3),
        threads_start=threads_start,
        threads_after_warmup=threads_warm,
        threads_end=threads_end,
        training_threads_left=any(t.name.startswith("robustness-cycle-") for t in threading.enumerate()),
        best_checkpoint_loads=loads,
    )


def app_cycles(count: int, dev_pairs: int, threads: int | None = None) -> dict:
    from stsdemo.save_format import is_scorer

    app = App(dev_pairs, threads)
    server = app.served
    try:
        client = app.client()
        kwargs = app.train_kwargs(client, max_length=32, max_pairs=64, batch_size=8)
        client.predict("default", *PAIRS[0], "STS 0–5", "", 1.0, None, api_name="/score")
        rss_start, threads_start = server.rss_mib(), server.threads()
        rss_warm = threads_warm = None
        outcomes = []
        for index in range(count + 1):
            job = client.submit(**kwargs, api_name="/train")
            wait_for_step(job)
            if index % 2:
                job.cancel()  # the browser tab closes
            else:
                client.predict(api_name="/stop")
                list(job)
            deadline = time.monotonic() + 300
            while app.runs(client.session_hash)[-1]["status"] == "running" and time.monotonic() < deadline:
                time.sleep(0.2)
            info = app.runs(client.session_hash)[-1]
            outcomes.append(dict(status=info["status"], checkpoint=is_scorer(info["config"]["output_dir"])))
            if index == 0:
                rss_warm, threads_warm = server.rss_mib(), server.threads()
            else:
                print(
                    f"app cycle {index}: {outcomes[-1]} rss {server.rss_mib():.0f} MiB threads "
                    f"{server.threads()}",
                    flush=True,
                )
        rss_end, threads_end = server.rss_mib(), server.threads()
        running = [info["run_id"] for info in app.runs(client.session_hash) if info["status"] == "running"]
        return dict(
            cycles=count,
            outcomes=outcomes[1:],
            rss_start_mib=round(rss_start),
            rss_after_warmup_mib=round(rss_warm),
            rss_end_mib=round(rss_end),
            rss_growth_vs_warmup=round(rss_end / rss_warm - 1, 3),
            threads_start=threads_start,
            threads_after_warmup=threads_warm,
            threads_end=threads_end,
            training_threads_left=bool(running),
            active_runs_left=running,
        )
    finally:
        app.close()


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.robustness",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--part", choices=["all", "concurrency", "cycles", "app-cycles"], default="all")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=5, help="/score calls per client")
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--dev-pairs", type=int, default=100, help="STS-B dev pairs each evaluation scores")
    parser.add_argument("--quick", action="store_true", help="4 clients x 2 calls, 2 cycles")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads, here and in the served app (default: torch's choice)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.requests, args.cycles, args.dev_pairs = 4, 2, 2, 16
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    report = dict(
        machine=dict(
            cpus=os.cpu_count(),
            torch_threads=torch.get_num_threads(),
            cuda=torch.cuda.is_available(),
            load_average=os.getloadavg(),
        )
    )
    if args.part in ("all", "concurrency"):
        report["concurrency"] = concurrency(args.clients, args.requests, args.dev_pairs, args.threads)
    if args.part in ("all", "cycles"):
        report["cycles"] = cycles(args.cycles, args.dev_pairs)
    if args.part in ("all", "app-cycles"):
        report["app_cycles"] = app_cycles(args.cycles, args.dev_pairs, args.threads)
    text = json.dumps(report, indent=2)
    print(text)
    out = REPO / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "robustness.json").write_text(text + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
