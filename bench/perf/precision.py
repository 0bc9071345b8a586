"""Training throughput by arithmetic precision on a GPU (fp32, bf16, fp16), and the share of the GPU's peak; on a
CPU, whether its rule (fp32, not timed) picks the faster precision.

    python -m bench.perf.precision                       # the embedded all-MiniLM-L6-v2, batch 16, max length 256
    python -m bench.perf.precision --model PATH --batch-size 64 --steps 120

Each precision runs the real training loop (``stsdemo.train.train``) on the leakage-filtered STS-B + SICK-R
pairs; pairs/s is the loop's own figure over the steps after the first logging window (warm-up: kernel
selection, allocator growth). The share of peak counts the model's matrix work, 6 x parameters x tokens per
pair (forward and backward, both sentences, padded per batch as the loop pads them), against the GPU's dense
peak for that precision (``--peak-tflops``; the H100 SXM's by default). ``auto`` is the loop's own choice, by a few
timed steps of each candidate (:mod:`stsdemo.precision`); its row names what it chose and the timings it chose by,
from the run's record.

On a CPU the loop trains in fp32 without timing, because CPU autocast (bf16 only) is taken to be slower there.
This checks that rule where it runs: the probe that times a GPU's candidates
(:func:`stsdemo.precision.training_step_timer`, the median of its timed steps) times fp32 and bf16 autocast on the
CPU, alternately, ``--cpu-repeats`` times, and :func:`stsdemo.precision.fastest` says which it would pick. The
record (``speed.precision``, or ``speed.machines[<device>].precision`` when another machine holds that place)
names the machine, its load, both timings and whether the rule's fp32 is the faster.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from stsdemo.config import TrainConfig
from stsdemo.precision import choose, fastest, training_step_timer
from stsdemo.save_format import RUN_RECORD
from stsdemo.train import StepEvent, load_pairs, probe_batches, train

from ..common import device_name, machine_load, setup_environment
from .speed import record_speed

CPU_CANDIDATES = ("fp32", "bf16")  # CPU autocast is bf16 only

# Dense peak TFLOP/s of an H100 SXM (NVIDIA's datasheet, without sparsity): fp32 on the CUDA cores, tf32 on the tensor
# cores (fp32 training with TF32 matrix products).
H100_PEAK = {"fp32": 66.9, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4}


def tokens_per_pair(config: TrainConfig, tokenizer, samples: int = 200) -> float:
    """Mean padded tokens per pair (both sentences) over random batches, padded per batch like the loop."""
    pairs = load_pairs(config, config.data)
    rng = np.random.default_rng(0)
    counts = []
    for _ in range(samples):
        index = rng.choice(len(pairs), config.batch_size, replace=False)
        for side in (pairs.sentences1, pairs.sentences2):
            ids = tokenizer(
                [side[i] for i in index], padding=True, truncation=True, max_length=config.max_length
            )["input_ids"]
            counts.append(len(ids[0]))
    return 2 * float(np.mean(counts))


def measure(precision: str, args) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = TrainConfig(
            model=args.model,
            precision=precision,
            batch_size=args.batch_size,
            max_length=args.max_length,
            max_steps=args.steps,
            log_every=args.log_every,
            eval_every=10**6,
            max_dev_pairs=16,
            output_dir=folder,
        )
        events = [e for e in train(config) if isinstance(e, StepEvent)]
        chosen = json.loads((Path(folder) / RUN_RECORD).read_text())["precision"]
    rates = [e.pairs_per_s for e in events[1:]]  # the first window holds the warm-up
    return dict(
        precision=precision,
        chosen=chosen["chosen"],
        why=chosen["why"],
        probe_step_seconds=chosen["step_seconds"],
        pairs_per_s=statistics.median(rates),
        windows=len(rates),
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--log-every", type=int, default=20)
    parser.add_argument("--precisions", default="fp32,tf32,bf16,fp16,auto")
    parser.add_argument(
        "--peak-tflops",
        type=json.loads,
        default=H100_PEAK,
        help='dense peak per precision, JSON, e.g. \'{"fp32": 66.9, "tf32": 494.7, "bf16": 989.4}\'',
    )
    parser.add_argument(
        "--cpu-repeats", type=int, default=3, help="on a CPU: alternating timings of each precision"
    )
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        cpu_rule(args)
        return
    precisions = args.precisions.split(",")
    if len(precisions) > 1:
        # Accelerate fixes the mixed precision once per process: each precision gets its own.
        argv = sys.argv[1:] if argv is None else list(argv)
        for precision in precisions:
            subprocess.run(
                [sys.executable, "-m", "bench.perf.precision", *argv, "--precisions", precision], check=True
            )
        return
    from stsdemo.model import SiameseRegressor

    probe = SiameseRegressor.from_encoder(args.model or None)
    parameters = sum(p.numel() for p in probe.encoder.parameters())
    tokens = tokens_per_pair(
        TrainConfig(batch_size=args.batch_size, max_length=args.max_length), probe.tokenizer
    )
    flops_per_pair = 6 * parameters * tokens
    row = measure(precisions[0], args)
    achieved = row["pairs_per_s"] * flops_per_pair / 1e12
    peak = args.peak_tflops.get(row["chosen"])
    row.update(
        batch_size=args.batch_size,
        max_length=args.max_length,
        gpu=torch.cuda.get_device_name(),
        bf16_native=torch.cuda.is_bf16_supported(False),
        parameters=parameters,
        tokens_per_pair=round(tokens, 1),
        model_tflops=round(achieved, 2),
        share_of_peak=round(achieved / peak, 4) if peak else None,
    )
    print(json.dumps(row), flush=True)


def cpu_rule(args) -> dict:
    """Time fp32 and bf16 autocast training steps on this CPU, alternately, and record whether the loop's rule
    (fp32, not timed) is the faster choice."""
    from stsdemo.losses.registry import build_loss
    from stsdemo.model import SiameseRegressor

    setup_environment()
    config = TrainConfig(model=args.model, batch_size=args.batch_size, max_length=args.max_length)
    model = SiameseRegressor.from_encoder(args.model or None, max_length=args.max_length)
    pairs = load_pairs(config, config.data)
    timer = training_step_timer(
        model, build_loss(config.loss), probe_batches(config, model, pairs, torch.device("cpu"))
    )
    before = machine_load()
    rounds = [
        fastest(
            "auto",
            CPU_CANDIDATES,
            timer,
            f"{device_name()}, batch {args.batch_size}, max length {args.max_length}",
        )
        for _ in range(args.cpu_repeats)
    ]
    step_seconds = {p: statistics.median(r.step_seconds[p] for r in rounds) for p in CPU_CANDIDATES}
    rule = choose("auto", torch.device("cpu"))
    faster = min(step_seconds, key=step_seconds.get)
    record = dict(
        device=device_name(),
        batch_size=args.batch_size,
        max_length=args.max_length,
        repeats=args.cpu_repeats,
        step_seconds=step_seconds,
        step_seconds_all={p: [r.step_seconds[p] for r in rounds] for p in CPU_CANDIDATES},
        pairs_per_s={p: args.batch_size / s for p, s in step_seconds.items()},
        bf16_over_fp32=step_seconds["bf16"] / step_seconds["fp32"],
        rule=rule.chosen,
        rule_why=rule.why,
        faster=faster,
        rule_is_faster=rule.chosen == faster,
        **machine_load(before),
    )
    record_speed("precision", record)
    print(json.dumps(record), flush=True)
    return record


if __name__ == "__main__":
    main()
