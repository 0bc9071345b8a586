"""Weight-space fusion of fine-tuned encoders with the untrained one (beyond the paper), dev-selected.

For every fine-tuned run that ``bench.evidence.quality`` recorded (its best checkpoint kept under
``bench/out/checkpoints/``):

* **linear fusion**: ``theta(alpha) = (1 - alpha) * theta_base + alpha * theta_tuned`` over the encoder's
  weights; alpha is chosen on STS-B dev (cosine Spearman) from ``--alphas`` (default 0, 0.1, ..., 1), then
  the 7 test sets are scored once at that alpha;
* **delta-guided fusion of the seeds** (CoDiEmb-style), for an arm with two or more seeds: each run's change
  ``delta_s = theta_s - theta_base``; per parameter element the seeds are weighted by the size of their
  change, ``w_s = |delta_s| / sum_s' |delta_s'|`` (equal weights where no seed moved it); the merged change
  ``delta = sum_s w_s * delta_s`` is added to the base, ``theta(alpha) = theta_base + alpha * delta``, with
  the same dev search for alpha and one test pass.

Alpha 0 is the untrained encoder and alpha 1 the run itself, so a fused row is never chosen below what dev
says of either. Results go to docs/results.json, section ``fusion``, after every fused run; the rows are
labelled "<arm> + fusion (alpha=...)" by ``bench.evidence.report``.

    python -m bench.evidence.fusion                                  # every MiniLM run at the paper's budget
    python -m bench.evidence.fusion --model mpnet --alphas 0,0.25,0.5,0.75,1 --skip-done
    python -m bench.evidence.fusion --arms sk2-2stage,st-cossim --budget paper
    python -m bench.evidence.fusion --quick                          # the --quick runs of bench.evidence.quality
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ..common import REPO, Timer, device_name, load_results, log, setup_environment, update_results
from ..schema import check_record, fusion_entries, quality_runs, record_model
from .quality import QualityBudget, base_scores, expand, quick_budget


def parse_alphas(text: str) -> list[float]:
    """``"0:1:0.1"`` (start:stop:step, both ends included) or a comma-separated list, as sorted floats."""
    if ":" in text:
        start, stop, step = (float(x) for x in text.split(":"))
        count = int(round((stop - start) / step)) + 1
        values = [start + i * step for i in range(count)]
    else:
        values = [float(x) for x in text.split(",") if x.strip()]
    values = sorted({round(v, 6) for v in values})
    if not values or values[0] < 0 or values[-1] > 1:
        raise SystemExit(f"alphas must lie in 0..1, got {text!r}")
    return values


# ---- the arithmetic ---------------------------------------------------------------------------------


def float_keys(state: dict) -> list[str]:
    """The parameters fusion mixes: floating-point tensors (integer buffers such as position ids stay)."""
    return [k for k, v in state.items() if v.is_floating_point()]


def interpolate(base: dict, tuned: dict, alpha: float) -> dict:
    """``(1 - alpha) * base + alpha * tuned`` for floating tensors; others as in ``base``."""
    out = dict(base)
    for key in float_keys(base):
        out[key] = base[key] + alpha * (tuned[key] - base[key])
    return out


def delta_guided(base: dict, tuned: list[dict]) -> dict:
    """The seeds' merged change: per element, each seed's change weighted by its share of the total size
    of change, ``sum_s |d_s| d_s / sum_s |d_s|`` (the plain mean where no seed moved the element)."""
    import torch

    merged = {}
    for key in float_keys(base):
        deltas = torch.stack([state[key].float() - base[key].float() for state in tuned])
        sizes = deltas.abs()
        total = sizes.sum(0)
        weights = torch.where(
            total > 0, sizes / total.clamp_min(1e-30), torch.full_like(sizes, 1.0 / len(tuned))
        )
        merged[key] = (weights * deltas).sum(0).to(base[key].dtype)
    return merged


def shifted(base: dict, delta: dict, alpha: float) -> dict:
    """``base + alpha * delta`` for the tensors in ``delta``; others as in ``base``."""
    out = dict(base)
    for key, change in delta.items():
        out[key] = base[key] + alpha * change
    return out


def check_same_shape(base: dict, tuned: dict, where: str) -> None:
    missing = sorted(set(float_keys(base)) - set(tuned))
    wrong = [k for k in float_keys(base) if k in tuned and tuned[k].shape != base[k].shape]
    if missing or wrong:
        raise ValueError(
            f"{where}: not the base encoder's shape (missing {missing[:3]}, different {wrong[:3]})"
        )


# ---- scoring ----------------------------------------------------------------------------------------


class Fuser:
    """One encoder in memory whose weights are swapped per alpha; dev and test scoring on it."""

    def __init__(self, model_path: str | None, budget: QualityBudget):
        from stsdemo.config import TrainConfig
        from stsdemo.model import SiameseRegressor
        from stsdemo.train import load_dev

        from .quality import test_sets

        self.model = SiameseRegressor.from_encoder(model_path, max_length=budget.max_length)
        self.model.eval()
        self.base = {k: v.detach().clone() for k, v in self.model.encoder.state_dict().items()}
        self.dev = load_dev(TrainConfig(max_dev_pairs=budget.dev_pairs))
        self.budget = budget
        self._tests = None
        self._test_sets = test_sets
        self.base_dev: float | None = None

    def load(self, state: dict) -> None:
        self.model.encoder.load_state_dict(state)

    def dev_score(self) -> float:
        from stsdemo.evaluate import evaluate_senteval

        return evaluate_senteval(
            self.model.encode, tasks=("STSBenchmark",), test_sets={"STSBenchmark": self.dev}
        )["STSBenchmark"]

    def test_scores(self) -> tuple[dict, float]:
        from .quality import evaluate_encoder

        if self._tests is None:
            self._tests = self._test_sets(self.budget)
        return evaluate_encoder(self.model.encode, self._tests)

    def encoder_state(self, checkpoint: str | Path) -> dict:
        from stsdemo.model import SiameseRegressor

        state = {
            k: v.detach().clone()
            for k, v in SiameseRegressor.load(str(checkpoint)).encoder.state_dict().items()
        }
        check_same_shape(self.base, state, str(checkpoint))
        return state

    def search(self, weights_at, alphas: list[float]) -> tuple[float, dict]:
        """Dev score at every alpha (``weights_at(alpha)`` gives the state); returns (best alpha, curve).
        Alpha 0 (the base) is scored once per Fuser; ties go to the smaller change."""
        curve = {}
        for alpha in alphas:
            if alpha == 0 and self.base_dev is not None:
                curve[alpha] = self.base_dev
                continue
            self.load(weights_at(alpha))
            curve[alpha] = self.dev_score()
            if alpha == 0:
                self.base_dev = curve[alpha]
        best = max(curve, key=lambda a: (round(curve[a], 6), -a))
        return best, curve


def alpha_text(alpha: float) -> str:
    return f"{alpha:.2f}".rstrip("0").rstrip(".") if alpha not in (0, 1) else f"{alpha:g}"


def fuse_run(fuser: Fuser, key: str, run: dict, alphas: list[float], base_test: dict | None) -> dict:
    """Linear fusion of one recorded run with the base encoder."""
    started = time.perf_counter()
    tuned = fuser.encoder_state(REPO / run["checkpoint"])  # records hold repository-relative paths
    alpha, curve = fuser.search(lambda a: interpolate(fuser.base, tuned, a), alphas)
    seconds = 0.0
    if alpha == 1:
        test, test_from = dict(run["test"]), "run"  # the run's own checkpoint, already scored
    elif alpha == 0 and base_test is not None:
        test, test_from = dict(base_test), "base"
    else:
        fuser.load(interpolate(fuser.base, tuned, alpha))
        (test, seconds), test_from = fuser.test_scores(), "fused"
    return dict(
        kind="linear",
        run=key,
        model=record_model(run),
        arm=run["arm"],
        seeds=[run["seed"]],
        label=f"{run['label']} + fusion (alpha={alpha_text(alpha)})",
        alpha=alpha,
        dev_by_alpha={f"{a:g}": round(v, 4) for a, v in curve.items()},
        dev=curve[alpha],
        run_dev=run.get("dev_best"),
        run_test_avg=run["test"]["Avg."],
        test=test,
        test_from=test_from,
        eval_seconds=seconds,
        budget_key=run["budget_key"],
        budget_tag=run.get("budget_tag"),
        run_finished=[run.get("finished")],
        wall_seconds=time.perf_counter() - started,
        machine=device_name(),
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
    )


def fuse_seeds(
    fuser: Fuser, keys: list[str], runs: list[dict], alphas: list[float], base_test: dict | None
) -> dict:
    """Delta-guided fusion of several seeds of one arm."""
    started = time.perf_counter()
    merged = delta_guided(fuser.base, [fuser.encoder_state(REPO / r["checkpoint"]) for r in runs])
    alpha, curve = fuser.search(lambda a: shifted(fuser.base, merged, a), alphas)
    seconds = 0.0
    if alpha == 0 and base_test is not None:
        test, test_from = dict(base_test), "base"
    else:
        fuser.load(shifted(fuser.base, merged, alpha))
        (test, seconds), test_from = fuser.test_scores(), "fused"
    first = runs[0]
    return dict(
        kind="delta",
        runs=keys,
        model=record_model(first),
        arm=first["arm"],
        seeds=sorted(r["seed"] for r in runs),
        label=f"{first['label']} + delta-guided fusion of {len(runs)} seeds (alpha={alpha_text(alpha)})",
        alpha=alpha,
        dev_by_alpha={f"{a:g}": round(v, 4) for a, v in curve.items()},
        dev=curve[alpha],
        run_dev=float(np.mean([r.get("dev_best") or np.nan for r in runs])),
        run_test_avg=float(np.mean([r["test"]["Avg."] for r in runs])),
        test=test,
        test_from=test_from,
        eval_seconds=seconds,
        budget_key=first["budget_key"],
        budget_tag=first.get("budget_tag"),
        run_finished=[r.get("finished") for r in runs],
        wall_seconds=time.perf_counter() - started,
        machine=device_name(),
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
    )


# ---- which runs -------------------------------------------------------------------------------------


def fusable(runs: dict, model: str, tag: str, arms: list[str] | None) -> dict:
    """The fine-tuned runs of ``model`` at budget ``tag`` whose checkpoint is on disk and moved away from the
    untrained encoder (a best step of 0 kept the base: there is nothing to fuse)."""
    chosen = {}
    for key, run in runs.items():
        if record_model(run) != model or run.get("budget_tag") != tag or run["arm"] == "base":
            continue
        if arms is not None and run["arm"] not in arms:
            continue
        checkpoint = run.get("checkpoint")
        if not checkpoint or not (REPO / checkpoint).is_dir():
            log(f"fusion: {key} has no checkpoint on disk; rerun it with bench.evidence.quality to fuse it")
            continue
        if run.get("best_step") == "1:0":
            log(f"fusion: {key} kept the untrained encoder (best dev step 1:0); nothing to fuse")
            continue
        chosen[key] = run
    return chosen


def best_arm(runs: dict) -> dict:
    """The runs of the arm with the highest mean STS-B dev (dev only: test never picks)."""
    devs: dict[str, list[float]] = {}
    for run in runs.values():
        devs.setdefault(run["arm"], []).append(run["dev_best"])
    arm = max(devs, key=lambda a: np.mean(devs[a]))
    return {key: run for key, run in runs.items() if run["arm"] == arm}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.fusion",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model", default="minilm", help="minilm, mpnet or a model folder (as in bench.evidence.quality)"
    )
    parser.add_argument(
        "--budget", default="paper", help="budget tag of the runs to fuse (paper, quick, b1234abcd)"
    )
    parser.add_argument("--arms", default=None, help="arms or groups to fuse (default: every fine-tuned run)")
    parser.add_argument("--alphas", default="0:1:0.1", help="alphas tried on dev: start:stop:step or a list")
    parser.add_argument(
        "--best",
        action="store_true",
        help="fuse only the best arm by mean STS-B dev: its best-dev "
        "seed (linear) and its seeds (delta-guided)",
    )
    parser.add_argument("--no-delta", action="store_true", help="skip the delta-guided fusion of seeds")
    parser.add_argument(
        "--skip-done", action="store_true", help="skip fusions already recorded for the same runs"
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="fuse the --quick runs (alphas 0, 0.5, 1)")
    args = parser.parse_args(argv)
    setup_environment(args.threads)
    from .mpnet import model_location, model_tag

    model, model_path = model_tag(args.model), model_location(args.model)
    tag = "quick" if args.quick else args.budget
    alphas = parse_alphas("0,0.5,1" if args.quick else args.alphas)
    runs = quality_runs(load_results())
    chosen = fusable(runs, model, tag, expand(args.arms) if args.arms else None)
    if not chosen:
        log(f"fusion: no fusable runs of {model} at budget {tag}")
        return {}
    if args.best:
        chosen = best_arm(chosen)
    # what to fuse: (result key, runs, their keys); linear per run, delta-guided per arm with 2+ seeds
    linear = [max(chosen, key=lambda k: chosen[k]["dev_best"])] if args.best else list(chosen)
    jobs = [(f"{key}/linear", [chosen[key]], [key]) for key in linear]
    by_arm: dict[str, list] = {}
    for key, run in sorted(chosen.items(), key=lambda kv: kv[1]["seed"]):
        by_arm.setdefault(run["arm"], []).append((key, run))
    if not args.no_delta:
        jobs += [
            (
                f"{model}/{arm}/seeds{'+'.join(str(r['seed']) for _, r in items)}/{tag}/delta",
                [r for _, r in items],
                [k for k, _ in items],
            )
            for arm, items in by_arm.items()
            if len(items) > 1
        ]
    done = fusion_entries(load_results())
    if args.skip_done:  # done = recorded for the very same runs (a rerun of a run makes its fusion due again)
        for out_key, items, _ in jobs:
            if done.get(out_key, {}).get("run_finished") == [r.get("finished") for r in items]:
                log(f"skip {out_key} (done)")
        jobs = [
            job
            for job in jobs
            if done.get(job[0], {}).get("run_finished") != [r.get("finished") for r in job[1]]
        ]
    if not jobs:
        return {}
    budget = quick_budget() if args.quick else QualityBudget(**jobs[0][1][0]["budget"])
    base_test = base_scores(budget, model)  # reused at alpha 0 (None for --quick sizes: scored then)
    fuser = Fuser(model_path, budget)
    log(f"fusion: {len(jobs)} fusions of {model} runs at budget {tag}, alphas {alphas}")
    finished = {}
    for out_key, items, keys in jobs:
        with Timer() as timer:
            if out_key.endswith("/linear"):
                result = fuse_run(fuser, keys[0], items[0], alphas, base_test)
            else:
                result = fuse_seeds(fuser, keys, items, alphas, base_test)
        check_record("fusion", result)
        finished[out_key] = result
        update_results("fusion", {out_key: result})
        log(
            f"fusion {out_key}: alpha {result['alpha']:g}, dev {result['dev']:.2f} (run {result['run_dev']:.2f}), "
            f"Avg. {result['test']['Avg.']:.2f} (run {result['run_test_avg']:.2f}) in {timer.seconds:.0f}s"
        )
    return finished


if __name__ == "__main__":
    main(sys.argv[1:])
