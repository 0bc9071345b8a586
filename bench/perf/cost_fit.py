"""How far the fine-tune cost model (:mod:`stsdemo.serving.run_cost`, held against the caps by
:mod:`stsdemo.serving.budget`) is from real runs on this machine, over the range of its settings: batch size, max
length, short and long pairs.

Each case is a short real fine-tune of the embedded all-MiniLM-L6-v2 (``stsdemo.train.train``, its dev set
scored at step 0 and at the end) beside the estimate of the same settings on the same data. Four models are
read, each as measured / estimated (above 1: an under-estimate):

* ``run``: the whole run's time (start-up, steps, evaluations, checkpoints) against ``Estimate.seconds``, the
  number the budget holds against the caps;
* ``encode``: encoding sentences (the dev and the final 7-task evaluations' cost) against
  :func:`stsdemo.serving.run_cost.encode_seconds`;
* ``memory``: the process's peak RSS growth during the run against ``Estimate.memory`` (a bound: it should stay
  under 1).

On a CPU shared with other work (this project's 2 cores often carry a load of 5-10), wall time measures the
neighbours as much as the model: torch trains on one thread here, the estimate is for one core, and ``run`` and
``encode`` are read from this process's CPU time, which the neighbours do not inflate; the wall times are recorded
beside them (``wall``), with the load before and after. On a GPU the wall time is read.

    python -m bench.perf.cost_fit            # 6 runs and 2 encodes: a few minutes on 2 CPU cores
    python -m bench.perf.cost_fit --quick    # 2 runs and 1 encode: a smoke test

Records go to ``docs/results.json`` under ``cost_fit`` (``--quick``: ``cost_fit_quick``): the machine, its load
before and after, each case with its estimate and measure, and each model's worst under-estimate.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import asdict, dataclass

from ..common import current_rss_mib, log, machine, machine_load, out_dir, setup_environment, update_results

STEPS = 3  # optimiser steps a case trains (its steps' time is read from the loop's own clock)
DEV_PAIRS = 32  # dev pairs scored at step 0 and at the end


@dataclass(frozen=True)
class Case:
    batch_size: int
    max_length: int
    data: str  # "short" (STS-B train pairs) or "long" (pairs of about 300 tokens)

    def key(self) -> str:
        return f"b{self.batch_size}-L{self.max_length}-{self.data}"


CASES = (
    Case(4, 32, "short"),
    Case(16, 128, "short"),
    Case(64, 64, "short"),
    Case(4, 256, "long"),
    Case(16, 64, "long"),
    Case(8, 256, "long"),
)
QUICK_CASES = (Case(4, 32, "short"), Case(8, 128, "long"))
ENCODES = (("short", 2000, 128), ("long", 120, 256))  # (data, sentences, max length)
QUICK_ENCODES = (("short", 200, 128),)


def datasets() -> dict:
    """The short pairs (STS-B train) and long ones: each sentence of a long pair is twenty STS-B sentences joined,
    about 300 tokens, so every max length up to 256 binds."""
    import numpy as np

    from stsdemo.config import TrainConfig
    from stsdemo.data import PairSet
    from stsdemo.labels import STS
    from stsdemo.train import load_dev, load_pairs

    short = load_pairs(TrainConfig(), "stsb").spaced(512)
    joined = [" ".join(short.sentences1[i : i + 20]) for i in range(0, 20 * 40, 20)]
    others = [" ".join(short.sentences2[i : i + 20]) for i in range(0, 20 * 40, 20)]
    long = PairSet("long", joined, others, np.linspace(0, 5, len(joined)), STS)
    return {"short": short, "long": long, "dev": load_dev(TrainConfig(max_dev_pairs=DEV_PAIRS))}


class Clocks:
    """The wall time and this process's CPU time (every thread) of a block; :meth:`seconds` is the one a
    measure reads: CPU time on a CPU (the neighbours' load does not inflate it), wall time on a GPU."""

    def __enter__(self):
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_):
        self.wall, self.cpu = time.perf_counter() - self._wall, time.process_time() - self._cpu

    def seconds(self) -> float:
        from stsdemo.serving.run_cost import machine

        return self.wall if machine().gpu else self.cpu


class PeakRss:
    """The process's peak RSS growth above its RSS at the start, sampled every 20 ms on a thread."""

    def __init__(self):
        self.start = self.peak = current_rss_mib()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._done.wait(0.02):
            self.peak = max(self.peak, current_rss_mib())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._done.set()
        self._thread.join()

    def growth_bytes(self) -> float:
        return (self.peak - self.start) * 2**20


def plan_for(data: dict, name: str):
    """The budget's plan of a run on ``data[name]`` with the dev set above, on this machine."""
    from stsdemo.serving import run_cost
    from stsdemo.serving.budget import RunPlan, work_budget

    return RunPlan(
        run_cost.encoder_of(""),
        {"stsb": run_cost.DataProfile.of(data[name])},
        run_cost.DataProfile.of(data["dev"]),
        run_cost.machine(),
        work_budget(),
    )


def run_case(case: Case, data: dict) -> dict:
    """One short real fine-tune of ``case`` beside its estimate."""
    from stsdemo.config import TrainConfig
    from stsdemo.train import DoneEvent, train

    pairs = data[case.data]
    config = TrainConfig(
        data="stsb",
        batch_size=case.batch_size,
        max_length=case.max_length,
        max_steps=STEPS,
        eval_every=10**6,
        log_every=1,
        max_pairs=len(pairs),
        max_dev_pairs=DEV_PAIRS,
        output_dir=str(out_dir() / "runs" / f"cost-fit-{case.key()}"),
    )
    estimate = plan_for(data, case.data).estimate(config)
    with Clocks() as clocks, PeakRss() as rss:
        done = next(
            event
            for event in train(config, train_sets=[pairs], dev=data["dev"])
            if isinstance(event, DoneEvent)
        )
    measured = {"run": clocks.seconds(), "memory": rss.growth_bytes()}
    estimated = {
        "run": estimate.seconds,
        "memory": estimate.memory,
        "train_seconds": estimate.train_seconds,
        "eval_seconds": estimate.eval_seconds,
    }
    return {
        **asdict(case),
        "steps": done.steps,
        "outcome": done.outcome,
        "measured": measured,
        "wall": {"run": clocks.wall, "steps": done.steps * case.batch_size / done.pairs_per_s},
        "estimated": estimated,
        "ratio": {model: measured[model] / estimated[model] for model in measured},
    }


def run_encode(name: str, count: int, max_length: int, data: dict) -> dict:
    """Encoding ``count`` sentences of ``data[name]`` at ``max_length`` beside :func:`encode_seconds`."""
    import numpy as np

    from stsdemo.model import SiameseRegressor
    from stsdemo.serving import run_cost

    model = SiameseRegressor.from_encoder(None, max_length=max_length)
    pairs = data[name]
    sentences = list(dict.fromkeys(pairs.sentences1 + pairs.sentences2))[:count]
    lengths = np.minimum(model.token_counts(sentences), max_length)
    model.encode(sentences[:8])  # warm-up: first-call allocations
    with Clocks() as clocks:
        model.encode(sentences)
    measured = clocks.seconds()
    estimated = run_cost.encode_seconds(
        run_cost.encoder_of(""), run_cost.machine(), len(sentences), float(lengths.mean())
    )
    return {
        "data": name,
        "sentences": len(sentences),
        "max_length": max_length,
        "mean_tokens": round(float(lengths.mean()), 1),
        "measured": {"encode": measured},
        "wall": {"encode": clocks.wall},
        "estimated": {"encode": estimated},
        "ratio": {"encode": measured / estimated},
    }


def worst(records: list[dict]) -> dict:
    """Each model's worst under-estimate (the largest measured / estimated) and the case it came from."""
    found = {}
    for record in records:
        for model, ratio in record["ratio"].items():
            if model not in found or ratio > found[model]["ratio"]:
                size = f"b{record['batch_size']}" if "batch_size" in record else f"x{record['sentences']}"
                found[model] = {
                    "ratio": round(ratio, 3),
                    "case": f"{record['data']} {size} L{record['max_length']}",
                }
    return found


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.cost_fit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="2 runs and 1 encode: a smoke test")
    args = parser.parse_args(argv)
    setup_environment(threads=1)  # the estimate is for one core; its CPU time does not count the neighbours
    before = machine_load()
    data = datasets()
    cases = []
    for case in QUICK_CASES if args.quick else CASES:
        cases.append(run_case(case, data))
        log(case.key(), {model: round(ratio, 2) for model, ratio in cases[-1]["ratio"].items()})
    encodes = []
    for name, count, max_length in QUICK_ENCODES if args.quick else ENCODES:
        encodes.append(run_encode(name, count, max_length, data))
        log("encode", name, round(encodes[-1]["ratio"]["encode"], 2))
    record = {
        "machine": machine(),
        **machine_load(before),
        "steps_per_run": STEPS,
        "dev_pairs": DEV_PAIRS,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "runs": cases,
        "encodes": encodes,
        "worst_under_estimate": worst(cases + encodes),
    }
    update_results("cost_fit", {"quick" if args.quick else "fit": record})
    log("worst under-estimate (measured / estimated):", record["worst_under_estimate"])
    return record


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
