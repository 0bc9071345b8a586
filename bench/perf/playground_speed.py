"""How fast the Playground is on this machine: what issue 24's targets read.

* embedding: the embedded all-MiniLM-L6-v2 over STS-B train + dev's 13,177 distinct sentences, cold (into an empty
  cache folder; the model's own load reported apart) and cached (the data set loaded and its vectors read back);
  targets 30 s and 1 s; beside them, sentence-transformers encoding the same sentences (the reference);
* steps: the paper's head at the default settings, 1 and 20 seeds (x 2 twins), steps per second, and a whole run
  of 20 seeds x 1,000 steps with its final measurement (target 5 s); the one-hidden-layer head beside it;
* the default seeds (``--default-seeds``): the default run, whole (its selection measurements and final reading
  included), at 10 and 20 seeds, 5 times each; issue 32 makes 20 the default if 20 seeds stay under 2 s.

    python -m bench.perf.playground_speed --no-record   # while developing: print only
    python -m bench.perf.playground_speed               # on an idle machine: print and record (section playground)
    python -m bench.perf.playground_speed --default-seeds   # only the default run at 10 and 20 seeds

Timings mean something only when nothing else runs: other jobs on the two cores slow every figure here.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from ..common import Timer, device_name, log, median, setup_environment, update_results


def embedding_times() -> dict:
    """Cold and cached preparation of STS in a fresh cache folder."""
    from stsdemo.model import SiameseRegressor
    from stsdemo.playground.prepared import default_encoder, embedded

    with Timer() as load:
        model = SiameseRegressor.from_encoder(None)
    encoder = default_encoder(lambda: model)
    with tempfile.TemporaryDirectory() as folder:
        data, cold = embedded("sts", encoder, folder=Path(folder))
        cached = []
        for _ in range(3):
            with Timer() as timer:
                embedded("sts", encoder, folder=Path(folder))
            cached.append(timer.seconds)
    return dict(
        sentences=len(data.sentences),
        model_load_seconds=load.seconds,
        cold_seconds=cold.seconds,
        cached_seconds=median(cached),
        cached_all=cached,
        sentence_transformers_seconds=sentence_transformers_time(data.sentences),
    )


def sentence_transformers_time(sentences: list[str]) -> float:
    """The reference: sentence-transformers encoding the same sentences with the same model and max length."""
    from sentence_transformers import SentenceTransformer

    from stsdemo.model_source import resolve_model
    from stsdemo.playground.embeddings import MAX_LENGTH

    model = SentenceTransformer(resolve_model(None)[0], device="cpu")
    model.max_seq_length = MAX_LENGTH
    with Timer() as timer:
        model.encode(sentences, batch_size=64)
    return timer.seconds


def step_rates(steps: int = 1000) -> dict:
    """Steps per second of the default run at 1 and 20 seeds (paper and mlp heads), on the cached STS vectors."""
    from stsdemo.playground.config import PlaygroundConfig
    from stsdemo.playground.run import Playground, pinned_source, run_seeds

    source = pinned_source("sts")
    out = {}
    for head in ("paper", "mlp"):
        for seeds in (1, 20):
            config = PlaygroundConfig(head=head, seeds=seeds, steps=steps)
            with Playground(config, source) as run:
                run.step(50)  # warm up
                with Timer() as timer:
                    run.step(steps)
            out[f"{head}_seeds{seeds}_steps_per_s"] = steps / timer.seconds
        with Timer() as whole:
            run_seeds(PlaygroundConfig(head=head, seeds=20, steps=steps), source)
        out[f"{head}_20seeds_{steps}steps_seconds"] = whole.seconds
    return out


def default_run_seconds(repeats: int = 5) -> dict:
    """Seconds of the default run (:class:`PlaygroundConfig`'s defaults, whole) at 10 and 20 seeds: the median of
    ``repeats`` runs each, after one warm-up run."""
    from dataclasses import replace

    from stsdemo.playground.config import PlaygroundConfig
    from stsdemo.playground.run import pinned_source, run_seeds

    default = PlaygroundConfig()
    source = pinned_source(default.data)
    run_seeds(replace(default, seeds=2, steps=100), source)  # warm up
    out = {"steps": default.steps, "head": default.head}
    for seeds in (10, 20):
        times = []
        for _ in range(repeats):
            with Timer() as timer:
                run_seeds(replace(default, seeds=seeds), source)
            times.append(timer.seconds)
        out[f"seeds{seeds}_seconds"], out[f"seeds{seeds}_all"] = median(times), times
    return out


def markdown(results: dict) -> list[str]:
    """The recorded speed figures beside issue 24's targets, as docs/results.md shows them."""
    found = results.get("playground", {}).get("speed")
    if not found:
        return ["Not measured yet (`python -m bench.perf.playground_speed`).\n"]
    embedding, steps = found["embedding"], found["steps"]
    rows = [
        "| what | target | measured |",
        "| --- | --- | --- |",
        f"| embedding STS-B train + dev ({embedding['sentences']:,} sentences), cold | ≤ 30 s | "
        f"{embedding['cold_seconds']:.1f} s (sentence-transformers on the same sentences: "
        f"{embedding['sentence_transformers_seconds']:.1f} s) |",
        f"| the same, from the cache | ≤ 1 s | {embedding['cached_seconds']:.2f} s |",
        f"| 20 seeds × 2 twins × 1,000 steps, paper head | ≤ 5 s | "
        f"{steps['paper_20seeds_1000steps_seconds']:.1f} s (one hidden layer: "
        f"{steps['mlp_20seeds_1000steps_seconds']:.1f} s) |",
        f"| steps per second, 1 / 20 seeds, paper head | | {steps['paper_seeds1_steps_per_s']:.0f} / "
        f"{steps['paper_seeds20_steps_per_s']:.0f} |",
    ]
    seeds = results.get("playground", {}).get("default_seeds")
    if seeds:
        rows.append(
            f"| the default run whole ({seeds['steps']:,} steps, {seeds['head']} head), 10 / 20 seeds, median of "
            f"{len(seeds['seeds20_all'])} | 20 seeds ≤ 2 s makes 20 the default | {seeds['seeds10_seconds']:.2f} / "
            f"{seeds['seeds20_seconds']:.2f} s (measured {seeds['measured']} on {seeds['device']}) |"
        )
    return ["\n".join(rows) + f"\n\nMeasured {found['measured']} on {found['device']}.\n"]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.playground_speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument(
        "--default-seeds", action="store_true", help="only the default run at 10 and 20 seeds"
    )
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    result = {"device": device_name(), "measured": time.strftime("%Y-%m-%d %H:%M:%S")}
    if args.default_seeds:
        result.update(default_run_seconds())
        print(json.dumps(result, indent=1))
        if not args.no_record:
            update_results("playground", {"default_seeds": result})
        return result
    log("embedding ...")
    result["embedding"] = embedding_times()
    log("steps ...")
    result["steps"] = step_rates()
    print(json.dumps(result, indent=1))
    if not args.no_record:
        update_results("playground", {"speed": result})
    return result


if __name__ == "__main__":
    main()
