"""The layout of ``docs/results.json``, declared once: the writers check their records against it and the
report and the claims read the file through its accessors.

The file is one JSON object of sections; each writer merges its entries into its own section
(:func:`bench.common.update_results`), so records are kept as they were written:

* ``quality``: ``{"runs": {run key: QualityRun}, "failed": {run key: "Error: message"}}`` (bench.evidence.quality)
* ``nli``: ``{"runs": {run key: NliRun}}`` (bench.evidence.nli)
* ``fusion``: ``{fusion key: FusionEntry}`` (bench.evidence.fusion)
* ``tuning``: ``{"runs": {run key: TuningRun}, "failed": {run key: "Error: message"}}``: the dev-only runs
  of bench.evidence.tuning (the grid, tag ``grid``, and the CoSENT/AnglE diagnosis, tag ``diagnosis``); its tuned
  runs, with test scores, are quality runs (tag ``tuned``); a run that failed twice is in its section's
  ``failed``
* ``sweep``: ``{"speedup": measurements}``: a small sweep timed serially and on local Ray workers, with the
  load before and after (bench.perf.sweep_speed)
* ``speed``: ``{part: measurements}``, parts train, eval, latency, view, cli, eval7 and stsb (bench.perf.speed),
  app_default and app_compare (bench.perf.app_default); ``<part>_quick`` for ``--quick``; and ``machines``:
  ``{machine: {part: measurements, "precision": [bench.perf.precision rows], "source": folder}}``, the figures of
  another machine merged from its folder (bench.evidence.merge_runs), beside this machine's and never over them;
  bench.perf.speed writes ``speed.<part>`` when that holds the same device's record (or none), else
  ``machines[<device>][part]``. A part's record names its ``device``, its ``repeats`` and ``warmup_repeats`` (left out
  of the medians) and, where measured, the ``load`` before and after and ``gpu_shared``
* ``memory``: ``{"peak" | "quick": measurements}``, claim C6 reads ``peak`` (bench.perf.memory)
* ``playground``: ``{"speed" | "speed_quick": measurements}`` (bench.perf.playground_speed) and ``{cell key: payoff
  cell}``, keys ``payoff/<data>/<loss>/<head>/noise<sigma>/pairs<N>`` (bench.evidence.payoff; stsdemo.playground.payoff
  reads them), their confirmations on fresh seeds under ``confirm/<data>/...`` and the presets' under
  ``preset/<name>`` (bench.evidence.presets)
* ``scaling``: ``{"cost" | "quick": measurements}`` (bench.perf.scaling)
* ``cost_fit``: ``{"fit" | "fit_before_fix" | "quick": measurements}``: the fine-tune cost model against short
  real runs, with each model's worst under-estimate (bench.perf.cost_fit)
* ``load``: ``{"classroom" | "quick": measurements}``: a classroom of visitors against a running app, each kind's
  success rate and latency, the server's peak RSS (bench.perf.load); ``{"one_address" | "one_address_quick":
  measurements}``: 30 students' sessions and a flooder at one address, each round's refusals (bench.perf.classroom)
* ``machine``: the first writer's machine: python, torch, cpus, torch_threads, platform, cuda, gpu, ram_gib
  (bench.common.machine)

Run keys are ``model/arm/seedN/budget-tag`` (:func:`run_key`), e.g. ``minilm/sk2-2stage/seed42/paper``; the
oldest quality records use ``arm/seedN``. Fusion keys are ``<run key>/linear`` and
``model/arm/seeds42+43/budget-tag/delta``. Fields added after the first runs (``model``, ``budget_tag``,
``machine``, ``stsb_node_accuracy``, ...) are optional, so older records still load and render.
"""

from __future__ import annotations

from typing import TypedDict

SECTIONS = (
    "quality",
    "nli",
    "fusion",
    "tuning",
    "speed",
    "memory",
    "scaling",
    "playground",
    "cost_fit",
    "load",
    "sweep",
    "machine",
)


def run_key(model: str, arm: str, seed: int, tag: str) -> str:
    return f"{model}/{arm}/seed{seed}/{tag}"


class _QualityRunRequired(TypedDict):
    arm: str  # a key of bench.evidence.quality.ARMS
    seed: int  # 42, 43 or 44
    label: str  # the arm's label, its encoder named
    group: str  # the arm's group: main, stages, variant, head, nli, sweep
    kind: str  # base (no training), ours (stsdemo.train), st (sentence-transformers' trainer)
    budget: dict  # bench.evidence.quality.QualityBudget as a dict
    budget_key: str  # QualityBudget.key(): every budget setting in one string
    test: dict  # {SentEval task or "Avg.": Spearman x100 of cosine}
    eval_seconds: float  # the 7-task test pass (0 where the base run's scores were reused)
    steps: int  # optimiser steps of the last stage (0 for base)
    pairs_seen: int
    wall_seconds: float
    finished: str  # "YYYY-MM-DD HH:MM:SS"


class QualityRun(_QualityRunRequired, total=False):
    """One run of ``bench.evidence.quality`` (``run_one``, from ``run_base``, ``run_ours`` or ``run_st``)."""

    model: str  # minilm, mpnet, or a folder / hub id; absent: minilm (see record_model)
    model_path: str  # the encoder it loaded
    family: str | None  # head ([u, v, |u-v|] head), cosine (a*cos + b), or None
    notes: str
    budget_tag: str  # QualityBudget.tag(): paper, quick, or "b" + a hash of the settings
    machine: str  # the device it ran on; absent: the file's ``machine``
    stsb_node_accuracy: float  # STS-B test pairs whose prediction rounds to the gold node (%)
    node_accuracy_from: str  # the prediction it used: the run's own, or a*cos + b fitted on dev
    test_from: str  # checkpoint, or base (best dev at step 0: the base run's scores)
    dev_best: float  # best STS-B dev cosine Spearman x100 (trained arms)
    best_step: str  # "stage:step" of that checkpoint; "1:0" is the untrained encoder
    dev_curve: list  # [{stage, step, dev_cosine, dev_head (ours only)}]
    stages: list  # ours: [{stage, name, train_pairs, total_steps}]
    settings: dict  # the loss and optimiser settings the arm ran with
    train_pairs: int
    train_seconds: float
    pairs_per_s: float  # ours
    train_runtime: float  # st: the trainer's own runtime
    checkpoint: str  # folder of the best checkpoint (bench.evidence.fusion reads it)
    chosen_by_dev: dict  # a "best:a|b" plan entry: {entry, first_seed_dev}
    point: dict  # bench.evidence.tuning: the settings that override the arm's (lr, k, x0, scale, data)
    lr: float | None  # the (encoder) learning rate it trained at; None: no training
    chosen_from: dict  # bench.evidence.tuning, tag tuned: {grid run key: STS-B dev}, the point's choice


class _TuningRunRequired(TypedDict):
    arm: str  # a key of bench.evidence.quality.ARMS
    seed: int
    point: dict  # the settings that override the arm's (lr, k, x0; scale, data)
    lr: float | None
    budget: dict
    budget_key: str
    budget_tag: str  # grid or diagnosis
    dev_best: float  # best STS-B dev cosine Spearman x100 over the run's dev evaluations
    best_step: str
    dev_curve: list
    steps: int
    wall_seconds: float
    machine: str
    finished: str


class TuningRun(_TuningRunRequired, total=False):
    """One dev-only run of ``bench.evidence.tuning`` (``quality.run_one`` with no test sets): no test score, no
    checkpoint."""

    model: str
    model_path: str
    label: str
    group: str
    kind: str
    family: str | None
    notes: str
    settings: dict
    stages: list
    pairs_seen: int
    train_pairs: int
    train_seconds: float
    pairs_per_s: float
    train_runtime: float


class NliRun(TypedDict):
    """One run of ``bench.evidence.nli`` (``run_one``); the encoder is always all-MiniLM-L6-v2."""

    arm: str  # a key of bench.evidence.nli.ARMS
    seed: int
    label: str
    loss: str
    k: float | None  # None: the loss's paper default
    x0: float | None
    budget: dict  # bench.evidence.nli.NliBudget as a dict
    budget_tag: str  # epoch, epoch-<N>pairs, <E>epochs-<N>pairs, or quick
    train_pairs: int
    held_out_pairs: int  # SNLI dev pairs kept out of training to select the checkpoint
    test_pairs: int
    held_out_best: float  # best held-out accuracy (%)
    best_step: str  # "stage:step" of that checkpoint
    held_out_curve: list  # [{step, accuracy}]
    test_accuracy: float  # SNLI test (%)
    test_macro_f1: float  # SNLI test (%)
    confusion: list  # rows: gold class, columns: predicted
    categories: list  # the class names, in the confusion's order
    steps: int
    train_seconds: float
    eval_seconds: float
    wall_seconds: float
    machine: str
    finished: str
    checkpoint: str


class _FusionEntryRequired(TypedDict):
    kind: str  # linear (one run with the base) or delta (delta-guided fusion of seeds)
    model: str
    arm: str
    seeds: list
    label: str  # "<arm label> + fusion (alpha=...)"
    alpha: float  # chosen on STS-B dev
    dev_by_alpha: dict  # {alpha as text: STS-B dev}
    dev: float  # STS-B dev at the chosen alpha
    run_dev: float | None  # the fused runs' own dev (mean over seeds)
    run_test_avg: float  # the fused runs' own 7-task Avg. (mean over seeds)
    test: dict  # as QualityRun.test, at the chosen alpha
    test_from: str  # fused, run (alpha 1) or base (alpha 0)
    eval_seconds: float
    budget_key: str
    budget_tag: str | None
    run_finished: list  # the fused runs' ``finished``: a rerun makes the fusion due again
    wall_seconds: float
    finished: str


class FusionEntry(_FusionEntryRequired, total=False):
    """One fusion of ``bench.evidence.fusion`` (``fuse_run`` or ``fuse_seeds``)."""

    run: str  # linear: the run key
    runs: list  # delta: the run keys
    machine: str  # where it ran (entries from before it was recorded: the results file's machine)


RECORDS = {"quality": QualityRun, "nli": NliRun, "fusion": FusionEntry, "tuning": TuningRun}


def check_record(kind: str, record: dict) -> None:
    """Raise ``ValueError`` unless ``record`` has every required field of its ``kind`` (a key of ``RECORDS``)
    and no unknown one."""
    spec = RECORDS[kind]
    missing = sorted(spec.__required_keys__ - set(record))
    unknown = sorted(set(record) - spec.__required_keys__ - spec.__optional_keys__)
    if missing or unknown:
        raise ValueError(f"{kind} record: missing fields {missing}, unknown fields {unknown}")


# ---- reading --------------------------------------------------------------------------------------------


def section(results: dict, name: str) -> dict:
    """A section of the results (``{}`` when none was written)."""
    if name not in SECTIONS:
        raise KeyError(f"no section {name!r} in docs/results.json; sections: {', '.join(SECTIONS)}")
    return results.get(name, {})


def quality_runs(results: dict) -> dict[str, QualityRun]:
    return section(results, "quality").get("runs", {})


def quality_failed(results: dict) -> dict[str, str]:
    """``{run key: "Error: message"}`` of the quality runs that raised."""
    return section(results, "quality").get("failed", {})


def tuning_runs(results: dict) -> dict[str, TuningRun]:
    return section(results, "tuning").get("runs", {})


def nli_runs(results: dict) -> dict[str, NliRun]:
    return section(results, "nli").get("runs", {})


def fusion_entries(results: dict) -> dict[str, FusionEntry]:
    return section(results, "fusion")


def record_model(run: dict) -> str:
    """The encoder a recorded run used (records from before --model existed, and NLI runs: all-MiniLM-L6-v2)."""
    return run.get("model", "minilm")
