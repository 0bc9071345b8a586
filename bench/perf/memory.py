"""Peak memory of our fine-tune (batch 16, max length 256) vs InfoNCE at batch 512 (paper Table 4: ~0.5x).

Each measurement runs in its own subprocess so the peaks do not mix: the parent starts
``python -m bench.perf.memory --child ARM`` for each arm and reads one JSON line back. Reported per arm:
the process's peak resident set size (``ru_maxrss``), the same for an ``idle`` child that loads the
model and the data but does not train (the floor every arm shares), and on CUDA
``torch.cuda.max_memory_allocated``.

    python -m bench.perf.memory                      # idle, ours (b16, L256), infonce (b512, L256)
    python -m bench.perf.memory --steps 3 --repeats 2
    python -m bench.perf.memory --quick              # tiny sizes: a smoke test
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from ..common import (
    REPO,
    cuda_peak_mib,
    current_rss_mib,
    device_name,
    log,
    median,
    out_dir,
    peak_rss_mib,
    setup_environment,
    update_results,
)

ARMS = {
    "idle": dict(loss=None, batch_size=16),
    "ours": dict(loss="sk2", batch_size=16),  # the paper's fine-tune: regression head, batch 16
    "infonce": dict(loss="infonce", batch_size=512),  # +Contrast at the batch size contrastive training wants
}


def child(arm: str, steps: int, max_length: int, batch_size: int | None) -> dict:
    """Runs in the subprocess: train ``steps`` steps of ``arm`` and report this process's peaks."""
    import torch

    from stsdemo.config import TrainConfig
    from stsdemo.data import load_training_data
    from stsdemo.model import SiameseRegressor
    from stsdemo.train import DoneEvent, train

    spec = ARMS[arm]
    batch = batch_size or spec["batch_size"]
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    if spec["loss"] is None:  # the shared floor: libraries, model and data loaded, no training
        SiameseRegressor.from_encoder(None, max_length=max_length)
        load_training_data("stsb+sick")
        return dict(
            arm=arm, peak_rss_mib=peak_rss_mib(), rss_mib=current_rss_mib(), cuda_peak_mib=cuda_peak_mib()
        )
    config = TrainConfig(
        loss=spec["loss"],
        batch_size=batch,
        max_length=max_length,
        max_steps=steps,
        eval_every=10**6,
        log_every=1,
        max_pairs=batch * steps,
        max_dev_pairs=8,
        output_dir=str(out_dir() / "runs" / f"memory-{arm}-{os.getpid()}"),
    )
    done = None
    for event in train(config):
        if isinstance(event, DoneEvent):
            done = event
    import shutil

    shutil.rmtree(config.output_dir, ignore_errors=True)
    return dict(
        arm=arm,
        batch_size=batch,
        max_length=max_length,
        steps=steps,
        peak_rss_mib=peak_rss_mib(),
        rss_mib=current_rss_mib(),
        cuda_peak_mib=cuda_peak_mib(),
        reason=done and (done.message or done.outcome),
        pairs_per_s=done and done.pairs_per_s,
    )


def measure(
    arm: str, steps: int, max_length: int, batch_size: int | None = None, threads: int | None = None
) -> dict:
    command = [
        sys.executable,
        "-m",
        "bench.perf.memory",
        "--child",
        arm,
        "--steps",
        str(steps),
        "--max-length",
        str(max_length),
    ]
    if batch_size:
        command += ["--batch-size", str(batch_size)]
    if threads:
        command += ["--threads", str(threads)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=os.environ.copy())
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise RuntimeError(f"child {arm} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(lines[-1])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--steps", type=int, default=3, help="training steps per arm")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--ours-batch", type=int, default=16)
    parser.add_argument("--infonce-batch", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=1, help="alternating repeats (median reported)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: 1 step, batches 4 and 16, length 32"
    )
    parser.add_argument("--child", choices=list(ARMS), help=argparse.SUPPRESS)
    parser.add_argument("--batch-size", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    if args.child:
        print(json.dumps(child(args.child, args.steps, args.max_length, args.batch_size)), flush=True)
        return {}
    if args.quick:
        steps, length, batches = 1, 32, {"idle": None, "ours": 4, "infonce": 16}
    else:
        steps, length = args.steps, args.max_length
        batches = {"idle": None, "ours": args.ours_batch, "infonce": args.infonce_batch}
    samples: dict[str, list] = {arm: [] for arm in ARMS}
    for repeat in range(args.repeats):
        for arm in ARMS:
            result = measure(arm, steps, length, batches[arm], args.threads)
            samples[arm].append(result)
            log(f"memory repeat {repeat + 1}: {arm} peak RSS {result['peak_rss_mib']:.0f} MiB")
    peak = {arm: median(r["peak_rss_mib"] for r in rows) for arm, rows in samples.items()}
    summary = dict(
        device=device_name(),
        steps=steps,
        max_length=length,
        batches=batches,
        repeats=args.repeats,
        peak_rss_mib=peak,
        ratio_rss=peak["ours"] / peak["infonce"],
        ratio_rss_above_idle=(peak["ours"] - peak["idle"]) / max(1e-9, peak["infonce"] - peak["idle"]),
        samples=samples,
    )
    cuda = {arm: rows[0].get("cuda_peak_mib") for arm, rows in samples.items()}
    if all(v is not None for v in cuda.values()):
        summary["cuda_peak_mib"] = cuda
        summary["ratio_cuda"] = cuda["ours"] / cuda["infonce"]
    key = "quick" if args.quick else "peak"
    update_results("memory", {key: summary})
    log(
        f"memory: ours/infonce peak RSS = {summary['ratio_rss']:.2f} (above idle: {summary['ratio_rss_above_idle']:.2f})"
    )
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
