"""Speed, measured side by side in one process: arms alternate, each repeated; the first repeat of each arm is a
warm-up (kernel selection, caches, the allocator's growth), left out of the median of the rest and kept in ``*_all``.

Parts (``--parts``, default all):

* ``train``: training throughput (pairs/s) of stsdemo's loop vs sentence-transformers'
  SentenceTransformerTrainer: same model, pairs, batch size, max length and device;
* ``eval``: evaluation time of ``evaluate_senteval`` vs a naive evaluator that pads every batch to 256 tokens
  and encodes every pair's two sentences, and whether the numbers agree;
* ``eval7``: the 7-task evaluation, ``evaluate_senteval`` vs the reference evaluator (sentence-transformers'
  ``EmbeddingSimilarityEvaluator`` per task at its defaults, the library's own STS evaluation), timed
  alternately; the correlations must be identical to four decimals (``identical_4dp``: each Spearman, 0..1,
  rounded to 4 places; ``max_abs_diff`` is on the x100 scale);
* ``stsb``: ``python -m stsdemo eval --tasks STSBenchmark`` wall time (a subprocess, median of ``--cli-repeats``)
  and the same evaluation in-process;
* ``latency``: single-pair scoring, p50/p95: ``score_pair`` in-process, the app's ``/score`` endpoint through
  gradio_client (``python app.py`` served in its own process: :mod:`bench.perf.served_app`; the endpoint runs the
  Score tab's whole view, its number-line figure included), and a bare Gradio echo app (two text boxes in, one
  out) served the same way, calls alternating;
* ``view``: the core's scoring as the Score tab's view calls it, in-process, p50: ``score_pair`` on the view's
  line (the scheme its "STS 0–5" choice names, :func:`stsdemo.labels.get_scheme`), beside ``score_pair`` alone
  on the model's own line; the view's figure is the app's, timed with it through ``/score`` in ``latency``;
* ``cli``: ``python -m stsdemo --help`` and a cold ``python -m stsdemo score A B``, each a fresh subprocess,
  median of ``--cli-repeats``.

    python -m bench.perf.speed                      # all parts, full sizes
    python -m bench.perf.speed --parts latency,view,cli,eval7,stsb --threads 2
    python -m bench.perf.speed --parts train --train-steps 40 --repeats 3
    python -m bench.perf.speed --quick              # tiny sizes: a smoke test

On a GPU the same code runs both trainers in the precision the core picks and reports CUDA timings.

Every record names its machine (``device``) and how busy it was (``load``: the load average and, on a GPU, the other
processes on it, before and after: ``shared`` is true when anything else ran there). A record goes under
``speed.<part>`` when that holds this machine's figures (or none), else under ``speed.machines[<device>]``: a GPU's
figures never replace the CPU's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from stsdemo.atomic import write_json_atomic
from stsdemo.save_format import RUN_RECORD

from ..common import (
    REPO,
    Timer,
    device_name,
    load_results,
    log,
    machine,
    machine_load,
    median,
    out_dir,
    percentile,
    portable,
    results_lock,
    results_path,
    setup_environment,
    st_module,
)
from .served_app import serve_app, serve_echo

PARTS = ("train", "eval", "eval7", "stsb", "latency", "view", "cli")
PAIR = ("A man is playing a guitar.", "Someone is playing music.")
WARMUP_REPEATS = 1  # leading repeats of an alternating comparison left out of its medians
VIEW_TIMED = "`score_pair` as the Score view calls it, in-process"  # what the view part times (its table row)


def steady(values: list) -> list:
    """The repeats after the warm-up (all of them when there is only one)."""
    return values[WARMUP_REPEATS:] if len(values) > WARMUP_REPEATS else values


def record_speed(part: str, record: dict, path=None) -> None:
    """Keep ``record`` (it names its ``device``) under ``speed[part]`` when that holds the same device's record or
    nothing, else under ``speed.machines[device][part]``: one record per machine, none replacing another's."""
    path = path or results_path()
    with results_lock(path):
        data = load_results(path)
        speed = data.setdefault("speed", {})
        if speed.get(part, {}).get("device", record["device"]) == record["device"]:
            speed[part] = portable(record)
        else:
            found = speed.setdefault("machines", {}).setdefault(record["device"], {})
            found.setdefault("source", "python -m bench.perf.speed on that machine")
            found[part] = portable(record)
        data.setdefault("machine", machine())
        write_json_atomic(path, data)


# ---- training throughput ----------------------------------------------------------------------------


def ours_throughput(steps: int, batch_size: int, max_length: int, pairs, seed: int = 42) -> dict:
    """stsdemo.train on ``pairs``: pairs/s between the end of the first logged window and the end of step N, by the
    wall clock at each logged step (the loop reads its loss there, so the GPU has caught up); the loop logs every
    ``steps // 6`` steps, as a run logs every few, so no step waits for the GPU in between (batch selection,
    tokenization, forward, backward, clip, optimizer step)."""
    from stsdemo.config import TrainConfig
    from stsdemo.train import StepEvent, train

    every = max(1, steps // 6)
    config = TrainConfig(
        loss="sk2",
        batch_size=batch_size,
        max_length=max_length,
        max_steps=steps,
        eval_every=10**6,
        log_every=every,
        max_pairs=len(pairs),
        max_dev_pairs=8,
        seed=seed,
        output_dir=str(out_dir() / "runs" / "speed-ours"),
    )
    ends = []
    with Timer() as wall:
        for event in train(config, train_sets=[pairs]):
            if isinstance(event, StepEvent):
                ends.append((event.step, time.perf_counter(), event.pairs_per_s))
    precision = json.loads((Path(config.output_dir) / RUN_RECORD).read_text())["precision"]["chosen"]
    if len(ends) < 2:
        return dict(
            pairs_per_s=ends[0][2] if ends else float("nan"),
            steps=steps,
            wall_seconds=wall.seconds,
            precision=precision,
        )
    (first, start, _), (last, end, _) = ends[0], ends[-1]
    return dict(
        pairs_per_s=batch_size * (last - first) / (end - start),
        steps=steps,
        wall_seconds=wall.seconds,
        precision=precision,
    )


def st_throughput(
    steps: int, batch_size: int, max_length: int, pairs, precision: str, seed: int = 42
) -> dict:
    """SentenceTransformerTrainer (CoSENTLoss) on the same pairs in ``precision`` (the one ours trained in): pairs/s
    between the end of step 1 and the end of step N (each step: fetching and collating the batch, forward, backward,
    clip, step)."""
    from transformers import TrainerCallback

    from stsdemo.precision import matmul_precision

    from ..evidence.quality import QualityBudget, st_trainer

    ends = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            ends.append(time.perf_counter())

    budget = QualityBudget(max_steps=steps, batch_size=batch_size, max_length=max_length, eval_every=10**6)
    with matmul_precision(precision):  # TrainingArguments(tf32=True) sets TF32 process-wide: put back after
        trainer, *_ = st_trainer(
            "CoSENTLoss",
            seed,
            budget,
            out_dir() / "runs" / "speed-st",
            train_pairs=pairs,
            evaluate=False,
            precision=precision,
        )
        trainer.add_callback(Clock())
        with Timer() as wall:
            trainer.train()
    return dict(
        pairs_per_s=batch_size * (len(ends) - 1) / (ends[-1] - ends[0]) if len(ends) > 1 else float("nan"),
        steps=len(ends),
        wall_seconds=wall.seconds,
        precision=precision,
    )


def bench_train(steps: int, batch_size: int, max_length: int, repeats: int) -> dict:
    from stsdemo.data import load_training_data

    pairs = load_training_data("stsb+sick")
    pairs = pairs.select(np.random.default_rng(0).permutation(len(pairs))[: steps * batch_size])
    ours, theirs, precisions = [], [], []
    for repeat in range(repeats):  # alternate, so load from other processes hits both alike
        mine = ours_throughput(steps, batch_size, max_length, pairs)
        st = st_throughput(steps, batch_size, max_length, pairs, mine["precision"])  # the same arithmetic
        for name, result, sink in (("ours", mine, ours), ("st", st, theirs)):
            sink.append(result["pairs_per_s"])
            log(
                f"train throughput repeat {repeat + 1}: {name} {result['pairs_per_s']:.1f} pairs/s "
                f"({result['precision']})"
            )
        precisions.append(mine["precision"])
    ours_median, st_median = median(steady(ours)), median(steady(theirs))
    return dict(
        ours_pairs_per_s=ours_median,
        st_pairs_per_s=st_median,
        ratio=ours_median / st_median,
        ours_all=ours,
        st_all=theirs,
        steps=steps,
        batch_size=batch_size,
        max_length=max_length,
        repeats=repeats,
        warmup_repeats=len(ours) - len(steady(ours)),
        st_loss="CoSENTLoss",
        ours_loss="sk2 (one stage)",
        precision_all=precisions,
        device=device_name(),
    )


# ---- evaluation time --------------------------------------------------------------------------------


def naive_evaluate(model, sets: dict, batch_size: int = 64, pad_to: int = 256) -> dict:
    """The naive way: every batch padded to ``pad_to`` tokens, both sentences of every pair encoded (no
    de-duplication, no length sorting), cosine, Spearman x100, averaged."""
    import torch

    from stsdemo.evaluate import cosine_rows, spearman100

    def encode(sentences):
        out = []
        with torch.inference_mode():
            for start in range(0, len(sentences), batch_size):
                batch = model.tokenizer(
                    sentences[start : start + batch_size],
                    padding="max_length",
                    truncation=True,
                    max_length=pad_to,
                    return_tensors="pt",
                )
                batch = {k: v.to(model.device) for k, v in batch.items()}
                out.append(model.embed(batch).float().cpu().numpy())
        return np.concatenate(out)

    model.eval()
    results = {}
    for task, pairs in sets.items():
        results[task] = spearman100(
            cosine_rows(encode(pairs.sentences1), encode(pairs.sentences2)), pairs.labels
        )
    results["Avg."] = float(np.mean([results[t] for t in sets]))
    return results


def reference_evaluate(st_model, sets: dict) -> dict:
    """The reference evaluator: sentence-transformers' ``EmbeddingSimilarityEvaluator`` on each task at its
    defaults (cosine, Spearman), x100; STS12-16 as one set of all their pairs, as in ``evaluate_senteval``."""
    evaluator_class = st_module("evaluation").EmbeddingSimilarityEvaluator
    results = {}
    for task, pairs in sets.items():
        evaluator = evaluator_class(
            pairs.sentences1,
            pairs.sentences2,
            pairs.labels.tolist(),
            main_similarity="cosine",
            name=task,
            write_csv=False,
        )
        metrics = evaluator(st_model)
        results[task] = float(metrics[f"{task}_spearman_cosine"]) * 100.0
    results["Avg."] = float(np.mean([results[t] for t in sets]))
    return results


def _eval_sets(tasks: list[str], test_pairs: int | None) -> dict:
    from stsdemo.data import senteval_test_sets

    sets = {t: p for t, p in senteval_test_sets().items() if t in tasks}
    if test_pairs:
        sets = {t: p.spaced(test_pairs) for t, p in sets.items()}
    return sets


def compare_evaluators(ours, reference, sets: dict, repeats: int, name: str) -> dict:
    """Time ``ours(sets)`` and ``reference(sets)`` alternately; medians after the warm-up, ratio, score agreement."""
    ours_t, ref_t, ours_scores, ref_scores = [], [], None, None
    for repeat in range(repeats):
        with Timer() as timer:
            ours_scores = ours(sets)
        ours_t.append(timer.seconds)
        with Timer() as timer:
            ref_scores = reference(sets)
        ref_t.append(timer.seconds)
        log(f"{name} repeat {repeat + 1}: ours {ours_t[-1]:.1f}s, {name} {ref_t[-1]:.1f}s")
    diff = max(abs(ours_scores[k] - ref_scores[k]) for k in ours_scores)
    ours_median, ref_median = median(steady(ours_t)), median(steady(ref_t))
    return dict(
        tasks=list(sets),
        pairs=sum(len(p) for p in sets.values()),
        ours_seconds=ours_median,
        reference_seconds=ref_median,
        ratio=ours_median / ref_median,
        ours_all=ours_t,
        reference_all=ref_t,
        repeats=repeats,
        warmup_repeats=len(ours_t) - len(steady(ours_t)),
        ours_scores=ours_scores,
        reference_scores=ref_scores,
        max_abs_diff=diff,
        identical_4dp=all(
            round(ours_scores[k] / 100, 4) == round(ref_scores[k] / 100, 4) for k in ours_scores
        ),
        device=device_name(),
    )


def on_device(model):
    """``model`` on this machine's device, where the CLI's ``eval`` and the app put it (left on the CPU, a GPU
    machine's evaluation ran on its CPU cores)."""
    from stsdemo.model import default_device

    return model.to(default_device())


def bench_eval(tasks: list[str], repeats: int, test_pairs: int | None = None) -> dict:
    """``evaluate_senteval`` vs the naive evaluator (pad to 256, every pair)."""
    from stsdemo.evaluate import evaluate_senteval
    from stsdemo.model import SiameseRegressor

    model = on_device(SiameseRegressor.from_encoder(None, max_length=256))
    sets = _eval_sets(tasks, test_pairs)
    result = compare_evaluators(
        lambda s: evaluate_senteval(model.encode, tasks=tuple(s), test_sets=s),
        lambda s: naive_evaluate(model, s),
        sets,
        repeats,
        "naive",
    )
    # the keys results.md has always read
    result.update(
        naive_seconds=result["reference_seconds"],
        speedup=1.0 / result["ratio"],
        naive_scores=result["reference_scores"],
    )
    return result


def bench_eval7(tasks: list[str], repeats: int, test_pairs: int | None = None) -> dict:
    """``evaluate_senteval`` vs sentence-transformers' evaluator on the same model and pairs."""
    from sentence_transformers import SentenceTransformer

    from stsdemo import environment
    from stsdemo.evaluate import evaluate_senteval
    from stsdemo.model import SiameseRegressor

    model = on_device(SiameseRegressor.from_encoder(None, max_length=256))
    st_model = SentenceTransformer(str(environment.default_model_path()), device=model.device.type)
    st_model.max_seq_length = 256
    sets = _eval_sets(tasks, test_pairs)
    result = compare_evaluators(
        lambda s: evaluate_senteval(model.encode, tasks=tuple(s), test_sets=s),
        lambda s: reference_evaluate(st_model, s),
        sets,
        repeats,
        "reference",
    )
    result["reference"] = "sentence-transformers EmbeddingSimilarityEvaluator (defaults), per task"
    return result


def bench_stsb(repeats: int) -> dict:
    """``eval --tasks STSBenchmark`` as a person runs it (a subprocess, wall time) and in-process."""
    from stsdemo.evaluate import evaluate_senteval
    from stsdemo.model import SiameseRegressor

    cli = [
        subprocess_seconds([sys.executable, "-m", "stsdemo", "eval", "--tasks", "STSBenchmark"])
        for _ in range(repeats)
    ]
    model = on_device(SiameseRegressor.from_encoder(None, max_length=256))
    inproc = []
    for _ in range(repeats):
        with Timer() as timer:
            scores = evaluate_senteval(model.encode, tasks=("STSBenchmark",))
        inproc.append(timer.seconds)
    return dict(
        cli_seconds=median(cli),
        cli_all=cli,
        in_process_seconds=median(inproc),
        in_process_all=inproc,
        score=scores["STSBenchmark"],
        repeats=repeats,
        device=device_name(),
    )


# ---- the app: latency and the score view ------------------------------------------------------------


def bench_latency(calls: int, warmup: int = 3) -> dict:
    """p50/p95 of single-pair scoring: in-process, the app's /score, and a bare echo app, alternating."""
    from stsdemo.data import load_stsb
    from stsdemo.model import SiameseRegressor
    from stsdemo.scoring import score_pair

    dev = load_stsb("dev")
    pairs = [(dev.sentences1[i], dev.sentences2[i]) for i in range(0, len(dev), max(1, len(dev) // calls))][
        :calls
    ]
    model = on_device(SiameseRegressor.load(None))
    result = dict(calls=len(pairs), device=device_name())
    paths = {"in_process": lambda a, b: score_pair(model, a, b)}
    servers, folder = [], Path(tempfile.mkdtemp(prefix="speed-app-", dir=out_dir()))
    try:
        app = serve_app(folder)
        servers.append(app)
        api = app.client()
        paths["api"] = lambda a, b: api.predict("default", a, b, "STS 0–5", "", 1.0, None, api_name="/score")
    except Exception as error:  # the app is another engineer's part; report, don't crash
        result["api_error"] = f"{type(error).__name__}: {error}"
        log(f"app API not measured: {result['api_error']}")
    try:
        echo_server = serve_echo()
        servers.append(echo_server)
        echo = echo_server.client()
        paths["echo"] = lambda a, b: echo.predict(a, b, api_name="/echo")
    except Exception as error:
        result["echo_error"] = f"{type(error).__name__}: {error}"
        log(f"echo app not measured: {result['echo_error']}")
    times: dict[str, list] = {name: [] for name in paths}
    try:
        for a, b in pairs[:warmup]:
            for fn in paths.values():
                fn(a, b)
        for a, b in pairs:  # alternate the paths pair by pair
            for name, fn in paths.items():
                with Timer() as timer:
                    fn(a, b)
                times[name].append(timer.seconds * 1000)
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(folder, ignore_errors=True)
    for name, values in times.items():
        result[f"{name}_p50_ms"], result[f"{name}_p95_ms"] = percentile(values, 50), percentile(values, 95)
    if "api" in times and "echo" in times:
        result["api_minus_echo_p50_ms"] = result["api_p50_ms"] - result["echo_p50_ms"]
    return result


def bench_view(calls: int, warmup: int = 2) -> dict:
    """The core's scoring as the Score tab's view calls it (``score_pair`` on the line its "STS 0–5" choice
    names) beside ``score_pair`` alone; the view's figure is the app's and is timed through ``/score``
    (:func:`bench_latency`)."""
    from stsdemo.labels import get_scheme
    from stsdemo.model import SiameseRegressor
    from stsdemo.scoring import score_pair

    model = on_device(SiameseRegressor.load(None))

    def view():
        return score_pair(model, *PAIR, get_scheme("sts"))

    times, plain = [], []
    for _ in range(warmup):
        view()
    for _ in range(calls):
        with Timer() as timer:
            view()
        times.append(timer.seconds * 1000)
        with Timer() as timer:
            score_pair(model, *PAIR)
        plain.append(timer.seconds * 1000)
    return dict(
        calls=calls,
        view_p50_ms=percentile(times, 50),
        view_p95_ms=percentile(times, 95),
        score_pair_p50_ms=percentile(plain, 50),
        timed=VIEW_TIMED,
        device=device_name(),
    )


# ---- the command line -------------------------------------------------------------------------------


def subprocess_seconds(command: list[str], expect: str = "") -> float:
    """Wall seconds of one fresh ``command`` in the repository root (it must exit 0 and print ``expect``)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with Timer() as timer:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    if done.returncode or expect not in done.stdout:
        raise RuntimeError(
            f"{' '.join(command[1:])} exited {done.returncode}: {(done.stderr or done.stdout)[-500:]}"
        )
    return timer.seconds


def bench_cli(repeats: int, score: bool = True) -> dict:
    """``python -m stsdemo --help`` and a cold ``python -m stsdemo score A B``: fresh processes, medians."""
    result = dict(repeats=repeats, device=device_name())
    helps = [
        subprocess_seconds([sys.executable, "-m", "stsdemo", "--help"], "usage:") for _ in range(repeats)
    ]
    result.update(help_seconds=median(helps), help_all=helps)
    if score:
        scores = [
            subprocess_seconds([sys.executable, "-m", "stsdemo", "score", *PAIR]) for _ in range(repeats)
        ]
        result.update(score_seconds=median(scores), score_all=scores)
    return result


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, from {', '.join(PARTS)}")
    parser.add_argument("--train-steps", type=int, default=60, help="steps per throughput measurement")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument(
        "--repeats",
        type=int,
        default=4,
        help="alternating repeats of each arm; the first is a warm-up, the median of the rest reported",
    )
    parser.add_argument(
        "--eval-tasks",
        default="STS12,STS13,STS14,STS15,STS16,STSBenchmark,SICKRelatedness",
        help="tasks timed for both evaluators (the naive one is slow on a CPU)",
    )
    parser.add_argument("--eval-repeats", type=int, default=4)
    parser.add_argument(
        "--eval-pairs",
        type=int,
        default=None,
        help="time an evenly spread sample of this many pairs per task (default: all pairs)",
    )
    parser.add_argument(
        "--eval7-repeats",
        type=int,
        default=4,
        help="alternating repeats of the 7-task comparison (the first a warm-up)",
    )
    parser.add_argument("--latency-calls", type=int, default=20)
    parser.add_argument("--view-calls", type=int, default=20)
    parser.add_argument("--cli-repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise SystemExit(f"unknown parts {unknown}; choose from {', '.join(PARTS)}")
    suffix = "_quick" if args.quick else ""
    tasks = [t.strip() for t in args.eval_tasks.split(",") if t.strip()]
    q = args.quick
    jobs = {
        "train": lambda: bench_train(
            *((3, 4, 32, 1) if q else (args.train_steps, args.batch_size, args.max_length, args.repeats))
        ),
        "eval": lambda: (
            bench_eval(tasks[:2], 1, 16) if q else bench_eval(tasks, args.eval_repeats, args.eval_pairs)
        ),
        "eval7": lambda: (
            bench_eval7(tasks[:2], 1, 16) if q else bench_eval7(tasks, args.eval7_repeats, args.eval_pairs)
        ),
        "stsb": lambda: bench_stsb(1 if q else args.cli_repeats),
        "latency": lambda: bench_latency(4 if q else args.latency_calls, 1 if q else 3),
        "view": lambda: bench_view(3 if q else args.view_calls, 1 if q else 2),
        "cli": lambda: bench_cli(1 if q else args.cli_repeats, score=not q),
    }
    results = {}
    for part in PARTS:
        if part not in parts:
            continue
        before = machine_load()
        results[part + suffix] = {**jobs[part](), **machine_load(before)}
        record_speed(part + suffix, results[part + suffix])
        log(
            f"{part}: "
            + ", ".join(
                f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                for k, v in results[part + suffix].items()
                if not isinstance(v, (list, dict))
            )
        )
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
