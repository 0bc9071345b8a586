"""The server's work budget: what one fine-tune may cost here, estimated before it starts, and which hub models a
visitor may name.

A run's peak memory and training time are estimated from its settings (batch size, max length, steps, epochs,
evaluation, the size of its data) and its encoder's ``config.json`` (hidden size, layers, heads), and held against
a budget derived from this machine (:class:`stsdemo.config.WorkBudget` declares its parts). A run over it is
refused before it is queued, with the setting named and its largest allowed value (:func:`check_run`), and a
link is clamped to it with a notice (:func:`clamp`). The estimates are upper bounds on shape, calibrated once:
see the constants below for where each number comes from.

Environment variables (the operator's; each sets a :class:`~stsdemo.config.WorkBudget` field or the model and
visitor rules, and opens the budget for a private deployment):

STSDEMO_TRAIN_MEMORY_SHARE  share of the machine's memory one run may take at its peak (default 0.4: 6.4 GB of a
                            free Space's 16 GB), of the GPU's memory on a GPU; divided among the training slots.
STSDEMO_TRAIN_MINUTES       estimated minutes one run may train, dev evaluations included (default 15).
STSDEMO_MODEL_MILLIONS      largest hub model a visitor may name, in millions of parameters (default 150).
STSDEMO_HUB_MODELS          comma-separated hub ids a visitor may name whatever their size (default
                            :data:`DEFAULT_HUB_MODELS`); ``*``: any hub id, unchecked.
STSDEMO_PROXY_HOPS          reverse proxies in front of the app that each append to X-Forwarded-For (default 1 on a
                            Hugging Face Space, 0 elsewhere); see :func:`stsdemo.app.slots.client_address`.

A private GPU deployment opens it with, e.g., ``STSDEMO_TRAIN_MINUTES=600 STSDEMO_TRAIN_MEMORY_SHARE=0.9
STSDEMO_HUB_MODELS='*'``.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from . import environment
from .config import TrainConfig, WorkBudget, as_written, check_setting, describe
from .data import PairSet, load_dev_data
from .errors import InputError
from .model_source import ALLOWED_MODELS, hub_config, hub_parameter_count, is_hub_id, start_encoder_config

ENVIRONMENT = {"memory_share": "STSDEMO_TRAIN_MEMORY_SHARE", "minutes": "STSDEMO_TRAIN_MINUTES",
               "model_millions": "STSDEMO_MODEL_MILLIONS"}
# Hub models a visitor may name whatever their size: the encoders this project documents (all under the default
# size) and those allowed their own code (environment.DEFAULT_TRUSTED_REMOTE_CODE).
DEFAULT_HUB_MODELS = ("sentence-transformers/all-mpnet-base-v2", "google-bert/bert-base-uncased",
                      "bert-base-uncased", "FacebookAI/roberta-base", "roberta-base",
                      *environment.DEFAULT_TRUSTED_REMOTE_CODE)

# ---- constants, and where they come from --------------------------------------------------------------------
# Activation memory kept for the backward pass, per token and encoder layer (fp32, CPU): ACTIVATION_BYTES per
# hidden unit plus ATTENTION_BYTES per head and key position (the attention scores grow with the length). Fitted
# (least squares, rounded up) to the peak-RSS growth of one forward + backward + AdamW step of all-MiniLM-L6-v2
# at batch/length 8/64, 8/128, 16/128, 8/256 and 32/64, every token real (measured 270, 696, 1464, 1794 and
# 1188 MiB; the fit gives 112.5 and 11.1; these constants predict 306, 720, 1440, 1872 and 1224 MiB). The shape
# is Korthikanti et al. 2022's (s·b·h·(34 + 5·a·s/h) bytes in 16-bit); under bf16 autocast on a GPU it is lower,
# so the estimate stays an upper bound there. Long pairs (issue 40): a run at batch 9, max length 512 on 300 pairs of
# about 550 tokens grew the process by 7.5 GiB (peak RSS 8.67 GB) where ATTENTION_BYTES = 12 estimated 6.35 GiB:
# eager fp32 attention keeps per head and key position its scores, softmax, dropout mask and dropped
# probabilities (13 bytes) and the backward pass briefly holds their gradients beside them, so 20 bytes bounds it
# (estimated 8.88 GiB, over the growth and the peak; a larger constant only raises the short runs' estimates, which
# stay over their measures). tests/test_one_budget.py holds the estimate over that measure.
ACTIVATION_BYTES = 112
ATTENTION_BYTES = 20
STATIC_BYTES = 4             # per parameter: fp32 weights
TRAINED_BYTES = 12           # per trained parameter: its fp32 gradient and AdamW's two moments
# Training throughput, from the FLOPs of a step (forward 2 per multiply-add, backward twice the forward) and the
# recorded speeds of docs/results.md ("Speed on each machine": the medians of bench.quality's runs, batch 16 on
# STS-B + SICK-R, whose batches pad to 29.3 tokens on average). CPU, 2 cores: all-MiniLM-L6-v2 37.6 pairs/s and
# all-mpnet-base-v2 4.6 pairs/s, i.e. 142 and 138 GFLOP/s: about 70 GFLOP/s a core, no overhead per step.
# NVIDIA H100 shared by 6-10 jobs: 389.7 and 193.7 pairs/s, i.e. 41.1 and 82.6 ms a step for 60.5 and 480.8
# GFLOP: 10.1 TFLOP/s plus 35 ms a step (a GPU to itself is faster, so the estimate errs long).
CPU_FLOPS_PER_CORE = 70e9
GPU_FLOPS = 10e12
GPU_STEP_SECONDS = 0.035
SAMPLE_PAIRS = 500           # pairs of a data set tokenized for its sentence lengths (evenly spread)
# The encoder assumed where a hub model's config.json cannot be read: BERT-base, the size of most STS encoders.
FALLBACK_ENCODER = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                        vocab_size=30522, max_position_embeddings=512)
# What each dimension is called in the config.json of the encoder families a visitor may name.
CONFIG_NAMES = {"hidden": ("hidden_size", "dim", "n_embd", "d_model"),
                "layers": ("num_hidden_layers", "n_layers", "n_layer", "num_layers"),
                "heads": ("num_attention_heads", "n_heads", "n_head"),
                "intermediate": ("intermediate_size", "hidden_dim", "n_inner", "ffn_dim"),
                "vocab": ("vocab_size",), "positions": ("max_position_embeddings", "n_positions")}


# ---- the operator's settings ------------------------------------------------------------------------------------


def work_budget() -> WorkBudget:
    """The budget in force: each :class:`~stsdemo.config.WorkBudget` field from its environment variable, else its
    declared default; ValueError naming the variable for a value outside its declaration."""
    values = {}
    for item in fields(WorkBudget):
        text = os.environ.get(ENVIRONMENT[item.name], "").strip()
        if text:
            try:
                values[item.name] = check_setting(item.name, float(text), WorkBudget)
            except ValueError as error:   # not a number, or outside its declaration (an InputError)
                raise ValueError(f"{ENVIRONMENT[item.name]}={text!r}: {error}") from None
    return WorkBudget(**values)


def hub_models() -> tuple[str, ...]:
    """Hub ids a visitor may name whatever their size (``STSDEMO_HUB_MODELS``; ``*`` allows any)."""
    configured = os.environ.get("STSDEMO_HUB_MODELS")
    if configured is None:
        return DEFAULT_HUB_MODELS
    return tuple(name.strip() for name in configured.split(",") if name.strip())


def proxy_hops() -> int:
    """Reverse proxies in front of the app whose X-Forwarded-For entries are trusted (``STSDEMO_PROXY_HOPS``;
    default 1 on a Hugging Face Space, whose proxy stands between every visitor and the app, else 0)."""
    text = os.environ.get("STSDEMO_PROXY_HOPS", "").strip()
    if not text:
        return 1 if os.environ.get("SPACE_ID") else 0
    if not text.isdigit():
        raise ValueError(f"STSDEMO_PROXY_HOPS={text!r}: expected a whole number >= 0")
    return int(text)


def check_hub_model(hub_id: str) -> None:
    """A hub model a visitor names must be on the allow list (:func:`hub_models`) or at most the budget's size,
    counted from the hub's metadata without downloading weights; without the hub, only the allow list's are
    taken. InputError says which models are."""
    allowed = hub_models()
    if "*" in allowed or hub_id.lower() in {name.lower() for name in allowed}:
        return
    limit = work_budget().model_millions
    listed = ", ".join(allowed) or "none"
    count = hub_parameter_count(hub_id)
    if count is None:
        raise InputError(f"could not load model {hub_id!r}: it is not on this server's list of hub models ({listed}) "
                         f"and its size could not be read from the hub. Allowed: {ALLOWED_MODELS}")
    if count > limit * 1e6:
        raise InputError(f"hub model {hub_id!r} has {count / 1e6:,.0f}M parameters; this server takes hub models of "
                         f"up to {limit:g}M parameters, and these: {listed}")


# ---- the machine and the encoder -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Machine:
    """Where a run trains: the memory its tensors live in (RAM, or the GPU's), its cores, whether it is a GPU."""

    memory: float
    cores: int
    gpu: bool

    def seconds(self, flops: float, steps: int) -> float:
        """Time for ``flops`` of work in ``steps`` optimiser steps (see the throughput constants)."""
        if self.gpu:
            return flops / GPU_FLOPS + steps * GPU_STEP_SECONDS
        return flops / (CPU_FLOPS_PER_CORE * self.cores)


def machine() -> Machine:
    """This machine, as a run here sees it: the first GPU when torch has one, else the RAM this process may use
    (the container's limit where one is set) and the threads torch trains with."""
    import torch

    if torch.cuda.is_available():
        return Machine(float(torch.cuda.get_device_properties(0).total_memory), 1, True)
    memory = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            memory = min(memory, float(Path(limit_file).read_text().strip()))
        except (OSError, ValueError):   # no such file, or "max": no limit
            continue
    return Machine(memory, max(1, torch.get_num_threads()), False)


def run_memory(budget: WorkBudget, where: Machine) -> float:
    """Bytes one run may take at its peak: the budget's share of the machine, divided among the training slots."""
    return budget.memory_share * where.memory / max(1, environment.max_training_runs())


@dataclass(frozen=True)
class Encoder:
    """The sizes of an encoder that its memory and work follow, from its ``config.json``."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    positions: int

    @classmethod
    def from_config(cls, hf_config: dict | None) -> "Encoder":
        """Each size under whichever name its family uses (:data:`CONFIG_NAMES`), else BERT-base's."""
        hf_config = hf_config or FALLBACK_ENCODER
        sizes = {}
        for size, names in CONFIG_NAMES.items():
            value = next((hf_config[name] for name in names if isinstance(hf_config.get(name), int)), None)
            sizes[size] = value if value and value > 0 else None
        hidden = sizes["hidden"] or FALLBACK_ENCODER["hidden_size"]
        return cls(hidden, sizes["layers"] or FALLBACK_ENCODER["num_hidden_layers"],
                   sizes["heads"] or FALLBACK_ENCODER["num_attention_heads"], sizes["intermediate"] or 4 * hidden,
                   sizes["vocab"] or FALLBACK_ENCODER["vocab_size"],
                   sizes["positions"] or FALLBACK_ENCODER["max_position_embeddings"])

    def parameters(self) -> int:
        """Weights of the embeddings and the layers (biases and norms, under 1 % of a BERT, left out)."""
        layer = 4 * self.hidden ** 2 + 2 * self.hidden * self.intermediate
        return (self.vocab + self.positions) * self.hidden + self.layers * layer

    def lora_parameters(self, rank: int) -> int:
        """A LoRA adapter of ``rank`` on every linear layer: four attention projections and the two of the MLP."""
        return rank * self.layers * (8 * self.hidden + 2 * (self.hidden + self.intermediate))

    def forward_flops(self, length: float) -> float:
        """FLOPs of one token's forward pass in a sentence of ``length`` tokens (projections, MLP, attention)."""
        per_layer = 8 * self.hidden ** 2 + 4 * self.hidden * self.intermediate + 4 * self.hidden * length
        return self.layers * per_layer

    def activation_bytes(self, length: float) -> float:
        """Bytes one token of a ``length``-token sentence keeps for the backward pass, in one layer."""
        return ACTIVATION_BYTES * self.hidden + ATTENTION_BYTES * self.heads * length


def encoder_of(model: str) -> Encoder:
    """The sizes of the encoder a run starts from (its base's for a saved scorer), read from its files or the
    hub's ``config.json`` without loading weights; BERT-base's when they cannot be read."""
    hf_config = start_encoder_config(model)
    if hf_config is None and is_hub_id(model):
        hf_config = hub_config(str(model).strip())
    return Encoder.from_config(hf_config)


# ---- the data -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataProfile:
    """A data set as its cost sees it: its size and the token counts of an evenly spread sample of its
    sentences (sorted), as the embedded encoder's tokenizer counts them."""

    pairs: int
    lengths: np.ndarray

    @classmethod
    def of(cls, pairs: PairSet) -> "DataProfile":
        sample = pairs.spaced(SAMPLE_PAIRS)
        sentences = [*sample.sentences1, *sample.sentences2]
        counts = _tokenizer()(sentences, truncation=False, return_length=True)["length"]
        return cls(len(pairs), np.sort(np.asarray(counts, dtype=float)))

    def padded(self, sentences: int, max_length: int) -> float:
        """The expected length a batch of ``sentences`` is padded to: its longest, cut at ``max_length``."""
        capped = np.minimum(self.lengths, max_length)
        share = np.arange(1, len(capped) + 1) / len(capped)
        below = np.concatenate([[0.0], share[:-1]])
        return float(np.sum(capped * (share ** sentences - below ** sentences)))

    def mean(self, max_length: int) -> float:
        """The mean sentence length cut at ``max_length`` (evaluation sorts by length: batches pad little)."""
        return float(np.minimum(self.lengths, max_length).mean())


@functools.lru_cache(maxsize=1)
def _tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(environment.default_model_path()))


@functools.lru_cache(maxsize=16)
def _named_profile(name: str, scheme: str, dev: bool, source: tuple) -> DataProfile:
    """A training or dev set's profile, computed once per process; ``source`` (where the data is read, and a
    file's time stamp and size) is part of the key, so a changed file is read anew."""
    from .train import load_pairs

    pairs = load_dev_data(name) if dev else load_pairs(TrainConfig(scheme=scheme), name)
    return DataProfile.of(pairs)


def profile_of(name: str, config: TrainConfig, given: dict[str, PairSet], dev: bool = False) -> DataProfile:
    """The profile of the data named ``name`` (a given set under that name wins)."""
    if name in given:
        return DataProfile.of(given[name])
    path = Path(name).expanduser()
    stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
    return _named_profile(name, config.scheme, dev, (str(environment.data_dir()), stamp))


# ---- the estimate -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A run's peak memory (bytes), its training and dev-evaluation time (seconds)."""

    memory: float
    train_seconds: float
    eval_seconds: float

    @property
    def seconds(self) -> float:
        return self.train_seconds + self.eval_seconds


@dataclass(frozen=True)
class RunPlan:
    """What a run's estimate needs besides its numbers: the encoder, each stage's data, the dev set, the machine
    and the budget, gathered once, so that the estimate of any variant of the settings is arithmetic."""

    encoder: Encoder
    data: dict
    dev: DataProfile
    where: Machine
    budget: WorkBudget

    @classmethod
    def of(cls, config: TrainConfig, given: dict[str, PairSet] | None = None,
           hf_config: dict | None = None) -> "RunPlan":
        """The plan of ``config``'s run; ``given``: data sets by the name the config gives them (an upload not
        copied yet, a caller's own sets); ``hf_config``: the encoder's config where the caller has it loaded."""
        from .train import plan_stages

        given = given or {}
        data = {stage.data: profile_of(stage.data, config, given) for stage in plan_stages(config)}
        encoder = Encoder.from_config(hf_config) if hf_config else encoder_of(config.model)
        return cls(encoder, data, profile_of(config.dev_data, config, {}, dev=True), machine(), work_budget())

    def estimate(self, config: TrainConfig) -> Estimate:
        """Peak memory (the largest stage's) and time (all stages') of ``config``'s run. A batch is padded to its
        longest sentence, so its memory is counted at ``max_length`` (one sentence that long sets the whole
        batch's size), its time at the padded length the data's sentences give."""
        from .train import plan_stages

        encoder, length = self.encoder, min(config.max_length, self.encoder.positions)
        peak, train_seconds, eval_seconds = 0.0, 0.0, 0.0
        dev_pairs = min(config.max_dev_pairs or self.dev.pairs, self.dev.pairs)
        for index, stage in enumerate(plan_stages(config)):
            data = self.data[stage.data]
            steps = stage.total_steps(min(config.max_pairs or data.pairs, data.pairs), config.batch_size)
            sentences = 2 * config.batch_size
            trained = (0 if stage.frozen else encoder.lora_parameters(config.lora_rank) if config.lora_rank
                       else encoder.parameters())
            kept_layers = 1 if stage.frozen else encoder.layers   # a frozen encoder keeps no activations
            activations = sentences * length * kept_layers * encoder.activation_bytes(length)
            peak = max(peak, STATIC_BYTES * encoder.parameters() + TRAINED_BYTES * trained + activations)
            padded = data.padded(sentences, config.max_length)
            passes = 1 if stage.frozen else 3                    # forward, or forward and backward
            flops = steps * sentences * padded * passes * encoder.forward_flops(padded)
            train_seconds += self.where.seconds(flops, steps)
            evaluations = steps // config.eval_every + (steps % config.eval_every > 0) + (index == 0)
            dev_length = self.dev.mean(config.max_length)
            eval_seconds += self.where.seconds(evaluations * 2 * dev_pairs * dev_length
                                               * encoder.forward_flops(dev_length), 0)
        return Estimate(peak, train_seconds, eval_seconds)

    def memory_allowed(self) -> float:
        return run_memory(self.budget, self.where)

    def fits(self, config: TrainConfig) -> bool:
        estimate = self.estimate(config)
        return estimate.memory <= self.memory_allowed() and estimate.seconds <= 60 * self.budget.minutes

    # ---- the bound of one setting ----------------------------------------------------------------------------

    def unbounded(self, config: TrainConfig, name: str):
        """The value an empty optional setting stands for: all the data, all the dev pairs, the epochs' steps."""
        from .train import plan_stages

        if name == "max_pairs":
            return max(profile.pairs for profile in self.data.values())
        if name == "max_dev_pairs":
            return self.dev.pairs
        return max(stage.total_steps(min(config.max_pairs or self.data[stage.data].pairs, self.data[stage.data].pairs),
                                     config.batch_size) for stage in plan_stages(config))

    def limit(self, config: TrainConfig, name: str):
        """The largest value of setting ``name`` (its declaration says ``budget="most"``; the smallest for
        ``"least"``) with which ``config``'s run fits the budget, the other settings as they are; None when none
        within its declared range does."""
        meta = describe(name)
        value = getattr(config, name)
        value = self.unbounded(config, name) if value is None else value

        def fits(candidate) -> bool:
            return self.fits(with_setting(config, name, candidate))

        scale = 1 if meta["integer"] else 100      # a number with a fraction is bounded to its hundredths
        if meta["budget"] == "least":
            return _search(fits, value, meta["high"], scale, largest=False)
        low = meta["low"] + (1 / scale if meta["low_open"] else 0)
        return _search(fits, max(low, 1 / scale), value, scale, largest=True)


def with_setting(config: TrainConfig, name: str, value) -> TrainConfig:
    """``config`` with one budgeted setting changed; stage 1's step cap follows the run's where they are the same
    (the form ties them)."""
    tied = name == "max_steps" and config.stage1_max_steps == config.max_steps
    return replace(config, **{name: value, **({"stage1_max_steps": value} if tied else {})})


def _search(fits, low, high, scale: int, largest: bool):
    """The largest (``largest``) or smallest multiple of 1/scale in [low, high] for which ``fits`` holds; None
    when none does. It walks from the far end of the range towards ``low`` (or ``high``) in steps of a fifth
    until a value fits, then bisects the last step: a smaller batch can cost more time than a middle one (more
    steps, more evaluations), so the values that fit need not reach the range's end."""
    value = (lambda i: i / scale) if scale > 1 else (lambda i: i)
    first, last = math.ceil(low * scale - 1e-9), math.floor(high * scale + 1e-9)
    start, end = (last, first) if largest else (first, last)
    previous, index = None, start
    while (index >= end) if largest else (index <= end):
        if fits(value(index)):
            break
        previous = index
        index = min(index - 1, math.floor(index * 0.8)) if largest else max(index + 1, math.ceil(index * 1.25))
    else:
        return None
    if previous is None:
        return value(index)
    lo, hi = (index, previous - 1) if largest else (previous + 1, index)
    while lo < hi:                      # fits at the fitting end, not at the other
        if largest:
            middle = (lo + hi + 1) // 2
            lo, hi = (middle, hi) if fits(value(middle)) else (lo, middle - 1)
        else:
            middle = (lo + hi) // 2
            lo, hi = (lo, middle) if fits(value(middle)) else (middle + 1, hi)
    return value(lo)


# ---- refusing and clamping --------------------------------------------------------------------------------------

# The order in which an over-budget run's settings are named: first those the visitor raised above their default
# (or set at all, where empty is the default), then the rest; the first whose bound exists is named. The data's
# size and the steps come before the batch and the length, which bound memory as well; the evaluation's settings
# come first where evaluating takes longer than training.
NAMING_ORDER = ("max_pairs", "max_steps", "epochs", "eval_every", "max_dev_pairs", "batch_size", "max_length")
EVALUATION_SETTINGS = ("eval_every", "max_dev_pairs")


def _raised(name: str, value) -> bool:
    """Whether a budgeted setting was moved the costly way from its declared default."""
    meta = describe(name)
    default = meta["default"]
    if value is None:
        return False
    if default is None:
        return True
    return value < default if meta["budget"] == "least" else value > default


def binding(plan: RunPlan, config: TrainConfig) -> tuple[str, object] | None:
    """The setting to name for an over-budget run, and its bound (:data:`NAMING_ORDER`); None when no single
    setting brings it within the budget."""
    estimate = plan.estimate(config)
    evaluation_first = estimate.eval_seconds > estimate.train_seconds
    order = sorted(NAMING_ORDER, key=lambda name: (not _raised(name, getattr(config, name)),
                                                   evaluation_first and name not in EVALUATION_SETTINGS))
    for name in order:
        bound = plan.limit(config, name)
        if bound is not None:
            return name, bound
    return None


def _gigabytes(size: float) -> str:
    return f"{size / 1024 ** 3:.1f} GB"


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def _shown(plan: RunPlan, config: TrainConfig, name: str) -> str:
    """A budgeted setting as a refusal names it: its value, or what its being empty stands for."""
    value = getattr(config, name)
    title = describe(name)["title"]
    if value is not None:
        return f"{title} {_number(value)}"
    return {"max_pairs": f"the training data ({plan.unbounded(config, name):,} pairs)",
            "max_dev_pairs": f"the dev data ({plan.unbounded(config, name):,} pairs)"}.get(
        name, f"{title} empty ({plan.unbounded(config, name):,} steps)")


@dataclass(frozen=True)
class Overrun:
    """Why a run is over the budget (``why``: the estimate against the budget) and the setting to name with its
    bound (``name`` empty when no single setting brings the run within the budget)."""

    why: str
    name: str = ""
    bound: object = None
    shown: str = ""          # the setting as the visitor gave it

    def refusal(self) -> str:
        if not self.name:
            return (f"this run is over the server's budget: {self.why}; lower the batch size, max length, steps or "
                    "epochs")
        meta = describe(self.name)
        which = "smallest" if meta["budget"] == "least" else "largest"
        return (f"{self.shown} is over the server's budget: {self.why}; the {which} allowed {meta['title']} is "
                f"{_number(self.bound)} (the other settings as they are)")

    def notice(self) -> str:
        return f"{self.shown} is over the server's budget ({self.why}): using {_number(self.bound)}"


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(as_written(value))


def overrun(plan: RunPlan, config: TrainConfig) -> Overrun | None:
    """How ``config``'s run is over the budget (:class:`Overrun`), or None when it fits."""
    estimate, allowed = plan.estimate(config), plan.memory_allowed()
    if estimate.memory <= allowed and estimate.seconds <= 60 * plan.budget.minutes:
        return None
    if estimate.memory > allowed:
        why = (f"at its peak it would take about {_gigabytes(estimate.memory)} of memory, and one run may take "
               f"{_gigabytes(allowed)} here")
    else:
        why = (f"it would train for about {_duration(estimate.seconds)}, and one run may take "
               f"{plan.budget.minutes:g} min here")
    found = binding(plan, config)
    if found is None:
        return Overrun(why)
    name, bound = found
    return Overrun(why, name, bound, _shown(plan, config, name))


def check_run(config: TrainConfig, given: dict[str, PairSet] | None = None, hf_config: dict | None = None) -> None:
    """InputError, before a run is queued or started, when its estimate is over the budget: the setting named
    with its bound (:func:`overrun`); ``given`` and ``hf_config`` as :meth:`RunPlan.of` takes them."""
    found = overrun(RunPlan.of(config, given, hf_config), config)
    if found is not None:
        raise InputError(found.refusal())


def clamp(config: TrainConfig) -> tuple[TrainConfig, list[tuple[str, str]]]:
    """``config`` with each setting that takes it over the budget set to its bound, and ``(setting, notice)`` for
    each (a link's values: clamped, not refused). A run that no single setting brings within the budget is left
    as it is, with a notice (setting ""): the form refuses it when it starts."""
    plan, notices = RunPlan.of(config), []
    for _ in NAMING_ORDER:
        found = overrun(plan, config)
        if found is None:
            break
        if not found.name:
            notices.append(("", found.refusal()))
            break
        config = with_setting(config, found.name, found.bound)
        notices.append((found.name, found.notice()))
    return config, notices
