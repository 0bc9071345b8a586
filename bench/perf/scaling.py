"""How cost grows: training and evaluation time against the number of pairs and the max length.

* training (stsdemo's loop, Smooth K2, batch 16): seconds for N pairs, N in --train-pairs; and seconds
  per step at each max length in --lengths (padding is per batch, so a max length beyond the longest
  sentence of the data costs nothing);
* evaluation (``evaluate_senteval`` on STS-B test + SICK-R test pairs): seconds for N pairs, and at each max
  length, beside the naive evaluator's cost when every batch is padded to that length.

    python -m bench.perf.scaling
    python -m bench.perf.scaling --train-pairs 256,512,1024 --lengths 32,64,128,256
    python -m bench.perf.scaling --quick

The plot goes to assets/bench-scaling.png (``python -m bench.evidence.report`` redraws it from results.json).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..common import Timer, device_name, log, median, out_dir, setup_environment, update_results


def train_seconds(pairs, batch_size: int, max_length: int) -> float:
    """Seconds of training steps (stsdemo's own per-step clock; dev evaluation excluded) over ``pairs``."""
    from stsdemo.config import TrainConfig
    from stsdemo.train import DoneEvent, train

    config = TrainConfig(
        loss="sk2",
        batch_size=batch_size,
        max_length=max_length,
        eval_every=10**6,
        log_every=10**6,
        max_pairs=len(pairs),
        max_dev_pairs=8,
        output_dir=str(out_dir() / "runs" / "scaling"),
    )
    for event in train(config, train_sets=[pairs]):  # exactly these pairs
        if isinstance(event, DoneEvent):
            return event.steps * batch_size / event.pairs_per_s
    raise RuntimeError("training gave no DoneEvent")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.scaling",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--train-pairs", default="128,256,512,1024")
    parser.add_argument("--eval-pairs", default="500,1000,2000,4000")
    parser.add_argument("--lengths", default="16,32,64,128,256")
    parser.add_argument("--length-pairs", type=int, default=256, help="pairs timed at each max length")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--repeats", type=int, default=2, help="round-robin repeats of every point (median kept)"
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    from stsdemo.data import PairSet, load_sick, load_stsb, load_training_data
    from stsdemo.model import SiameseRegressor

    from .speed import naive_evaluate

    ints = lambda text: [int(x) for x in text.split(",") if x.strip()]  # noqa: E731
    train_sizes, eval_sizes, lengths = ints(args.train_pairs), ints(args.eval_pairs), ints(args.lengths)
    length_pairs, batch = args.length_pairs, args.batch_size
    if args.quick:
        train_sizes, eval_sizes, lengths, length_pairs, batch = [8, 16], [16, 32], [16, 32], 16, 4
    rng = np.random.default_rng(0)
    data = load_training_data("stsb+sick")
    data = data.select(rng.permutation(len(data)))
    tests = PairSet.concat([load_stsb("test"), load_sick("test")], "STS-B test + SICK-R test")
    model = SiameseRegressor.from_encoder(None)
    result = dict(device=device_name(), batch_size=batch, train=[], eval=[], train_length=[], eval_length=[])

    from stsdemo.evaluate import evaluate_senteval

    def eval_seconds(subset, naive: bool = False, pad_to: int = 256) -> float:
        with Timer() as timer:
            if naive:
                naive_evaluate(model, {"STSBenchmark": subset}, pad_to=pad_to)
            else:
                evaluate_senteval(model.encode, tasks=("STSBenchmark",), test_sets={"STSBenchmark": subset})
        return timer.seconds

    # Every point is measured --repeats times, round-robin over the points (so a change in the load from
    # other processes hits all points alike), and the median is kept.
    samples: dict[tuple, list] = {}
    length_subset = tests.spaced(length_pairs)
    for repeat in range(args.repeats):
        for n in train_sizes:
            samples.setdefault(("train", n), []).append(train_seconds(data.select(range(n)), batch, 256))
        for length in lengths:
            samples.setdefault(("train_length", length), []).append(
                train_seconds(data.select(range(length_pairs)), batch, length)
            )
        for n in eval_sizes:
            samples.setdefault(("eval", n), []).append(eval_seconds(tests.spaced(n)))
        for length in lengths:
            model.max_length = length
            samples.setdefault(("eval_length", length), []).append(eval_seconds(length_subset))
            samples.setdefault(("naive_length", length), []).append(eval_seconds(length_subset, True, length))
        model.max_length = 256
        log(f"scaling repeat {repeat + 1} done")
    result["repeats"] = args.repeats
    result["train"] = [
        dict(pairs=n, seconds=median(samples[("train", n)]), all=samples[("train", n)]) for n in train_sizes
    ]
    result["train_length"] = [
        dict(
            max_length=m,
            pairs=length_pairs,
            seconds=median(samples[("train_length", m)]),
            all=samples[("train_length", m)],
        )
        for m in lengths
    ]
    result["eval"] = [
        dict(pairs=n, seconds=median(samples[("eval", n)]), all=samples[("eval", n)]) for n in eval_sizes
    ]
    result["eval_length"] = [
        dict(
            max_length=m,
            pairs=length_pairs,
            seconds=median(samples[("eval_length", m)]),
            naive_seconds=median(samples[("naive_length", m)]),
        )
        for m in lengths
    ]
    for row in result["train"] + result["train_length"] + result["eval"] + result["eval_length"]:
        log(row)
    model.max_length = 256
    update_results("scaling", {"quick" if args.quick else "cost": result})
    if not args.quick:
        from ..evidence.report_plots import plot_scaling

        plot_scaling(result)
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
