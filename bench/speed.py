"""Speed, measured side by side in one process: arms alternate, each repeated, medians reported.

* training throughput (pairs/s) of stsdemo's loop vs sentence-transformers' SentenceTransformerTrainer:
  same model (all-MiniLM-L6-v2), same pairs, batch size, max length and device;
* 7-task evaluation time of ``evaluate_senteval`` vs a naive evaluator that pads every batch to 256
  tokens and encodes every pair's two sentences (the reference implementation's way), and whether the
  numbers agree;
* single-pair scoring latency (p50/p95): ``stsdemo.scoring.score_pair`` in-process, and the app's
  ``/score`` endpoint through gradio_client with the app launched in this process.

    python -m bench.speed                      # all three parts, full sizes
    python -m bench.speed --parts train --train-steps 40 --repeats 3
    python -m bench.speed --quick              # tiny sizes: a smoke test

On a GPU the same code runs both trainers under bf16 autocast and reports CUDA timings.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from .common import (Timer, device_name, log, median, out_dir, percentile, setup_environment, small_dev,
                     spaced_subset, update_results)

PARTS = ("train", "eval", "latency")


# ---- training throughput ----------------------------------------------------------------------------


def ours_throughput(steps: int, batch_size: int, max_length: int, pairs, seed: int = 42) -> dict:
    """stsdemo.train on ``pairs``: pairs/s over steps 2..N (step 1 warms up), from its own per-step clock
    (batch selection, tokenization, forward, backward, clip, optimizer step)."""
    from stsdemo.train import StepEvent, TrainConfig, train

    config = TrainConfig(loss="sk2", batch_size=batch_size, max_length=max_length, max_steps=steps,
                         eval_every=10**6, log_every=1, max_pairs=len(pairs), seed=seed,
                         output_dir=str(out_dir() / "runs" / "speed-ours"))
    seconds = []
    with small_dev(8), Timer() as wall:
        for event in train(config):
            if isinstance(event, StepEvent):
                seconds.append(batch_size / event.pairs_per_s)
    timed = seconds[1:] or seconds
    return dict(pairs_per_s=batch_size * len(timed) / sum(timed), steps=len(seconds), wall_seconds=wall.seconds)


def st_throughput(steps: int, batch_size: int, max_length: int, pairs, seed: int = 42) -> dict:
    """SentenceTransformerTrainer (CoSENTLoss) on the same pairs: pairs/s between the end of step 1 and
    the end of step N (each step: fetching and collating the batch, forward, backward, clip, step)."""
    from transformers import TrainerCallback

    from .quality import Budget, st_trainer

    budget = Budget(max_steps=steps, batch_size=batch_size, max_length=max_length, eval_every=10**6)
    trainer, *_ = st_trainer("CoSENTLoss", seed, budget, out_dir() / "runs" / "speed-st", train_pairs=pairs,
                             evaluate=False)
    ends = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            ends.append(time.perf_counter())

    trainer.add_callback(Clock())
    with Timer() as wall:
        trainer.train()
    return dict(pairs_per_s=batch_size * (len(ends) - 1) / (ends[-1] - ends[0]) if len(ends) > 1 else float("nan"),
                steps=len(ends), wall_seconds=wall.seconds)


def bench_train(steps: int, batch_size: int, max_length: int, repeats: int) -> dict:
    from stsdemo.data import load_training_data

    pairs = load_training_data("stsb+sick")
    pairs = pairs.select(np.random.default_rng(0).permutation(len(pairs))[: steps * batch_size])
    ours, theirs = [], []
    for repeat in range(repeats):  # alternate, so load from other processes hits both alike
        for name, fn, sink in (("ours", ours_throughput, ours), ("st", st_throughput, theirs)):
            result = fn(steps, batch_size, max_length, pairs)
            sink.append(result["pairs_per_s"])
            log(f"train throughput repeat {repeat + 1}: {name} {result['pairs_per_s']:.1f} pairs/s")
    return dict(ours_pairs_per_s=median(ours), st_pairs_per_s=median(theirs), ratio=median(ours) / median(theirs),
                ours_all=ours, st_all=theirs, steps=steps, batch_size=batch_size, max_length=max_length,
                repeats=repeats, st_loss="CoSENTLoss", ours_loss="sk2 (one stage)", device=device_name())


# ---- evaluation time --------------------------------------------------------------------------------


def naive_evaluate(model, sets: dict, batch_size: int = 64, pad_to: int = 256) -> dict:
    """The reference implementation's way: every batch padded to ``pad_to`` tokens, both sentences of
    every pair encoded (no de-duplication, no length sorting), cosine, Spearman x100, averaged."""
    import torch

    from stsdemo.evaluate import cosine_rows, spearman100

    def encode(sentences):
        out = []
        with torch.inference_mode(), model.autocast():
            for start in range(0, len(sentences), batch_size):
                batch = model.tokenizer(sentences[start:start + batch_size], padding="max_length", truncation=True,
                                        max_length=pad_to, return_tensors="pt")
                batch = {k: v.to(model.device) for k, v in batch.items()}
                out.append(model.embed(batch).float().cpu().numpy())
        return np.concatenate(out)

    model.eval()
    results = {}
    for task, pairs in sets.items():
        results[task] = spearman100(cosine_rows(encode(pairs.sentences1), encode(pairs.sentences2)), pairs.labels)
    results["Avg."] = float(np.mean([results[t] for t in sets]))
    return results


def bench_eval(tasks: list[str], repeats: int, test_pairs: int | None = None) -> dict:
    from stsdemo.data import senteval_test_sets
    from stsdemo.evaluate import evaluate_senteval
    from stsdemo.model import SiameseRegressor

    model = SiameseRegressor.from_encoder(None, max_length=256)
    sets = {t: p for t, p in senteval_test_sets().items() if t in tasks}
    if test_pairs:
        sets = {t: spaced_subset(p, test_pairs) for t, p in sets.items()}
    ours_t, naive_t, ours_scores, naive_scores = [], [], None, None
    for repeat in range(repeats):
        with Timer() as timer:
            ours_scores = evaluate_senteval(model.encode, tasks=tuple(sets), test_sets=sets)
        ours_t.append(timer.seconds)
        with Timer() as timer:
            naive_scores = naive_evaluate(model, sets)
        naive_t.append(timer.seconds)
        log(f"eval repeat {repeat + 1}: ours {ours_t[-1]:.1f}s naive {naive_t[-1]:.1f}s")
    diff = max(abs(ours_scores[k] - naive_scores[k]) for k in ours_scores)
    return dict(tasks=list(sets), pairs=sum(len(p) for p in sets.values()), ours_seconds=median(ours_t),
                naive_seconds=median(naive_t), speedup=median(naive_t) / median(ours_t), ours_all=ours_t,
                naive_all=naive_t, repeats=repeats, ours_scores=ours_scores, naive_scores=naive_scores,
                max_abs_diff=diff, device=device_name())


# ---- latency ----------------------------------------------------------------------------------------


def launch_app():
    """The Gradio app in this process on a free port; returns (demo, url) or raises ImportError."""
    import os
    import urllib.request

    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from stsdemo.ui import build_demo, launch_kwargs

    demo = build_demo()
    _, url, _ = demo.launch(prevent_thread_lock=True, server_name="127.0.0.1", quiet=True, show_error=True,
                            **launch_kwargs())
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/gradio_api/info", timeout=5):
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    return demo, url


def bench_latency(calls: int, warmup: int = 3) -> dict:
    from stsdemo import runs
    from stsdemo.data import load_stsb
    from stsdemo.scoring import score_pair

    dev = load_stsb("dev")
    pairs = [(dev.sentences1[i], dev.sentences2[i]) for i in range(0, len(dev), max(1, len(dev) // calls))][:calls]
    model = runs.get_model(runs.default_model_source())  # the model the app scores with by default
    result = dict(calls=len(pairs), device=device_name())
    client = demo = None
    try:
        from gradio_client import Client

        demo, url = launch_app()
        client = Client(url, verbose=False)
    except Exception as error:  # the app is another engineer's part; report, don't crash
        result["api_error"] = f"{type(error).__name__}: {error}"
        log(f"app API not measured: {result['api_error']}")

    def api(a, b):
        return client.predict("default", a, b, "STS 0–5", "", 1.0, None, api_name="/score")

    for a, b in pairs[:warmup]:
        score_pair(model, a, b)
        if client:
            api(a, b)
    local, remote = [], []
    for a, b in pairs:  # alternate the two paths pair by pair
        with Timer() as timer:
            score_pair(model, a, b)
        local.append(timer.seconds * 1000)
        if client:
            with Timer() as timer:
                api(a, b)
            remote.append(timer.seconds * 1000)
    result.update(in_process_p50_ms=percentile(local, 50), in_process_p95_ms=percentile(local, 95))
    if remote:
        result.update(api_p50_ms=percentile(remote, 50), api_p95_ms=percentile(remote, 95))
    if demo is not None:
        demo.close()
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.speed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, from {', '.join(PARTS)}")
    parser.add_argument("--train-steps", type=int, default=60, help="steps per throughput measurement")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3, help="alternating repeats of each arm (median reported)")
    parser.add_argument("--eval-tasks", default="STS12,STS13,STS14,STS15,STS16,STSBenchmark,SICKRelatedness",
                        help="tasks timed for both evaluators (the naive one is slow on a CPU)")
    parser.add_argument("--eval-repeats", type=int, default=2)
    parser.add_argument("--eval-pairs", type=int, default=None,
                        help="time an evenly spread sample of this many pairs per task (default: all pairs)")
    parser.add_argument("--latency-calls", type=int, default=50)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    suffix = "_quick" if args.quick else ""
    results = {}
    if "train" in parts:
        steps, repeats, length = (3, 1, 32) if args.quick else (args.train_steps, args.repeats, args.max_length)
        results["train" + suffix] = bench_train(steps, args.batch_size if not args.quick else 4, length, repeats)
        update_results("speed", {"train" + suffix: results["train" + suffix]})
        log(f"train: ours {results['train' + suffix]['ours_pairs_per_s']:.1f} vs ST "
            f"{results['train' + suffix]['st_pairs_per_s']:.1f} pairs/s = {results['train' + suffix]['ratio']:.2f}x")
    if "eval" in parts:
        tasks = [t.strip() for t in args.eval_tasks.split(",") if t.strip()]
        results["eval" + suffix] = (bench_eval(tasks[:2], 1, test_pairs=16) if args.quick
                                    else bench_eval(tasks, args.eval_repeats, test_pairs=args.eval_pairs))
        update_results("speed", {"eval" + suffix: results["eval" + suffix]})
        log(f"eval: ours {results['eval' + suffix]['ours_seconds']:.1f}s vs naive "
            f"{results['eval' + suffix]['naive_seconds']:.1f}s, max |diff| {results['eval' + suffix]['max_abs_diff']:.4f}")
    if "latency" in parts:
        results["latency" + suffix] = bench_latency(4 if args.quick else args.latency_calls, 1 if args.quick else 3)
        update_results("speed", {"latency" + suffix: results["latency" + suffix]})
        log(f"latency: {results['latency' + suffix]}")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
