"""The server's work budget: what one fine-tune (or a Compare's whole job) may cost here, held against its
estimate before it starts, and which hub models a visitor may name.

A run's peak memory and time (training, dev evaluations and, when on, the final 7-task evaluation) are estimated
from its settings (batch size, max length, steps, epochs, evaluation, the size of its data) and its encoder's
``config.json`` by the cost model of :mod:`.run_cost`, and held against a budget derived from this machine
(:class:`stsdemo.config.WorkBudget` declares its parts, with defaults from :mod:`.caps`). A job of several
runs (a Compare) is held against the minutes one job may take, all its runs together. A run over it is refused
before it is queued, with the setting named and its largest allowed value (:func:`check_run`), and a link is
clamped to it with a notice (:func:`clamp`).

Environment variables (the operator's; each sets a :class:`~stsdemo.config.WorkBudget` field or the model and
visitor rules, and opens the budget for a private deployment):

STSDEMO_TRAIN_MEMORY_SHARE  share of the machine's memory one run may take at its peak (default 0.4: 6.4 GB of a
                            free Space's 16 GB), of the GPU's memory on a GPU; divided among the training slots.
STSDEMO_TRAIN_MINUTES       estimated minutes one job may take (a Compare: all its runs), dev and final evaluations
                            included (default 15).
STSDEMO_MODEL_MILLIONS      largest hub model a visitor may name, in millions of parameters (default 150).
STSDEMO_HUB_MODELS          comma-separated hub ids a visitor may name whatever their size (default
                            :data:`DEFAULT_HUB_MODELS`); ``*``: any hub id, unchecked.
STSDEMO_PROXY_HOPS          reverse proxies in front of the app that each append to X-Forwarded-For (default 1 on a
                            Hugging Face Space, 0 elsewhere); see :func:`stsdemo.serving.slots.client_address`.

A private GPU deployment opens it with, e.g., ``STSDEMO_TRAIN_MINUTES=600 STSDEMO_TRAIN_MEMORY_SHARE=0.9
STSDEMO_HUB_MODELS='*'``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from .. import environment
from ..config import TrainConfig, WorkBudget, as_written, check_setting, describe
from ..data import PairSet
from ..errors import InputError, Text
from ..model_source import ALLOWED_MODELS, hub_parameter_count
from .run_cost import (
    RUN_OVERHEAD_BYTES,
    RUN_START_SECONDS,
    STATIC_BYTES,
    TRAINED_BYTES,
    DataProfile,
    Encoder,
    Estimate,
    Machine,
    encode_seconds,
    encoder_of,
    final_eval_seconds,
    machine,
    profile_of,
)

ENVIRONMENT = {
    "memory_share": "STSDEMO_TRAIN_MEMORY_SHARE",
    "minutes": "STSDEMO_TRAIN_MINUTES",
    "model_millions": "STSDEMO_MODEL_MILLIONS",
}
# Hub models a visitor may name whatever their size: the encoders this project documents (all under the default
# size) and those allowed their own code (environment.DEFAULT_TRUSTED_REMOTE_CODE).
DEFAULT_HUB_MODELS = (
    "sentence-transformers/all-mpnet-base-v2",
    "google-bert/bert-base-uncased",
    "bert-base-uncased",
    "FacebookAI/roberta-base",
    "roberta-base",
    *environment.DEFAULT_TRUSTED_REMOTE_CODE,
)


@dataclass(frozen=True)
class Host:
    """What a run is held to besides its settings and the operator's variables: the machine it would train on
    (``machine``, read when a plan is made) and the hub's count of a named model's parameters
    (``parameter_count``; None: the hub not reached). The process's (:data:`HOST`) reads this machine and asks the
    hub; a caller that knows better (a test of a free Space's budget on whatever machine runs it, a tool with no
    network) hands its own to the functions that hold a run to the budget, as a trainer is handed its model."""

    machine: Callable[[], Machine] = machine
    parameter_count: Callable[[str], int | None] = hub_parameter_count


HOST = Host()

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
            except ValueError as error:  # not a number, or outside its declaration (an InputError)
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


def check_hub_model(hub_id: str, host: Host = HOST) -> None:
    """A hub model a visitor names must be on the allow list (:func:`hub_models`) or at most the budget's size,
    counted from the hub's metadata without downloading weights (``host.parameter_count``); without the hub, only
    the allow list's are taken. InputError says which models are."""
    allowed = hub_models()
    if "*" in allowed or hub_id.lower() in {name.lower() for name in allowed}:
        return
    limit = work_budget().model_millions
    listed = ", ".join(allowed) or "none"
    count = host.parameter_count(hub_id)
    if count is None:
        raise InputError(
            "hub_model_unlisted", hub_id=repr(hub_id), listed=listed, allowed_models=ALLOWED_MODELS
        )
    if count > limit * 1e6:
        raise InputError(
            "hub_model_too_large",
            hub_id=repr(hub_id),
            count=f"{count / 1e6:,.0f}",
            limit=f"{limit:g}",
            listed=listed,
        )


def run_memory(budget: WorkBudget, where: Machine) -> float:
    """Bytes one run may take at its peak: the budget's share of the machine, divided among the training slots."""
    return budget.memory_share * where.memory / max(1, environment.max_training_runs())


# ---- the estimate against the budget ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunPlan:
    """What a job's estimate needs besides its numbers: the encoder, each stage's data, the dev set, the machine
    and the budget, gathered once, so that the estimate of any variant of the settings is arithmetic; whether
    each run ends with the final 7-task evaluation, and how many runs of these settings the job trains one after
    the other (a Compare's pairs: seeds and x0 do not change the cost)."""

    encoder: Encoder
    data: dict
    dev: DataProfile
    where: Machine
    budget: WorkBudget
    final_eval: bool = False
    runs: int = 1

    @classmethod
    def of(
        cls,
        config: TrainConfig,
        given: dict[str, PairSet] | None = None,
        hf_config: dict | None = None,
        final_eval: bool = False,
        runs: int = 1,
        host: Host = HOST,
    ) -> RunPlan:
        """The plan of a job of ``runs`` runs of ``config`` (with the final evaluation: ``final_eval``) on
        ``host``'s machine; ``given``: data sets by the name the config gives them (an upload not copied yet, a
        caller's own sets); ``hf_config``: the encoder's config where the caller has it loaded."""
        from ..train import plan_stages

        given = given or {}
        data = {stage.data: profile_of(stage.data, config, given) for stage in plan_stages(config)}
        encoder = Encoder.from_config(hf_config) if hf_config else encoder_of(config.model)
        return cls(
            encoder,
            data,
            profile_of(config.dev_data, config, {}, dev=True),
            host.machine(),
            work_budget(),
            final_eval,
            runs,
        )

    def estimate(self, config: TrainConfig) -> Estimate:
        """Peak memory (the largest stage's) and time (all stages', and the final evaluation's when on) of one
        run of ``config``. A batch is padded to its longest sentence, so its memory is counted at ``max_length``
        (one sentence that long sets the whole batch's size), its time at the padded length the data's sentences
        give."""
        from ..train import plan_stages

        encoder, length = self.encoder, min(config.max_length, self.encoder.positions)
        peak, train_seconds, eval_seconds = 0.0, 0.0, 0.0
        dev_pairs = min(config.max_dev_pairs or self.dev.pairs, self.dev.pairs)
        for index, stage in enumerate(plan_stages(config)):
            data = self.data[stage.data]
            steps = stage.total_steps(min(config.max_pairs or data.pairs, data.pairs), config.batch_size)
            sentences = 2 * config.batch_size
            trained = (
                0
                if stage.frozen
                else encoder.lora_parameters(config.lora_rank)
                if config.lora_rank
                else encoder.parameters()
            )
            kept_layers = 1 if stage.frozen else encoder.layers  # a frozen encoder keeps no activations
            activations = sentences * length * kept_layers * encoder.activation_bytes(length)
            peak = max(
                peak,
                RUN_OVERHEAD_BYTES
                + STATIC_BYTES * encoder.parameters()
                + TRAINED_BYTES * trained
                + activations,
            )
            padded = data.padded(sentences, config.max_length)
            passes = 1 if stage.frozen else 3  # forward, or forward and backward
            flops = steps * sentences * padded * passes * encoder.forward_flops(padded)
            train_seconds += self.where.seconds(flops, steps)
            evaluations = steps // config.eval_every + (steps % config.eval_every > 0) + (index == 0)
            dev_length = self.dev.mean(config.max_length)
            eval_seconds += encode_seconds(encoder, self.where, evaluations * 2 * dev_pairs, dev_length)
        final_seconds = final_eval_seconds(encoder, self.where, config.max_length) if self.final_eval else 0.0
        start = RUN_START_SECONDS["gpu" if self.where.gpu else "cpu"]
        return Estimate(peak, train_seconds, eval_seconds, final_seconds, start)

    def memory_allowed(self) -> float:
        return run_memory(self.budget, self.where)

    def fits(self, config: TrainConfig) -> bool:
        estimate = self.estimate(config)
        return (
            estimate.memory <= self.memory_allowed()
            and self.runs * estimate.seconds <= 60 * self.budget.minutes
        )

    # ---- the bound of one setting ----------------------------------------------------------------------------

    def unbounded(self, config: TrainConfig, name: str):
        """The value an empty optional setting stands for: all the data, all the dev pairs, the epochs' steps."""
        from ..train import plan_stages

        if name == "max_pairs":
            return max(profile.pairs for profile in self.data.values())
        if name == "max_dev_pairs":
            return self.dev.pairs
        return max(
            stage.total_steps(
                min(config.max_pairs or self.data[stage.data].pairs, self.data[stage.data].pairs),
                config.batch_size,
            )
            for stage in plan_stages(config)
        )

    def limit(self, config: TrainConfig, name: str):
        """The largest value of setting ``name`` (its declaration says ``budget="most"``; the smallest for
        ``"least"``) with which ``config``'s run fits the budget, the other settings as they are; None when none
        within its declared range does."""
        meta = describe(name)
        value = getattr(config, name)
        value = self.unbounded(config, name) if value is None else value

        def fits(candidate) -> bool:
            return self.fits(with_setting(config, name, candidate))

        scale = 1 if meta["integer"] else 100  # a number with a fraction is bounded to its hundredths
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
        index = (
            min(index - 1, math.floor(index * 0.8)) if largest else max(index + 1, math.ceil(index * 1.25))
        )
    else:
        return None
    if previous is None:
        return value(index)
    lo, hi = (index, previous - 1) if largest else (previous + 1, index)
    while lo < hi:  # fits at the fitting end, not at the other
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
    order = sorted(
        NAMING_ORDER,
        key=lambda name: (
            not _raised(name, getattr(config, name)),
            evaluation_first and name not in EVALUATION_SETTINGS,
        ),
    )
    for name in order:
        bound = plan.limit(config, name)
        if bound is not None:
            return name, bound
    return None


def _gigabytes(size: float) -> str:
    return f"{size / 1024**3:.1f} GB"


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
    return {
        "max_pairs": f"the training data ({plan.unbounded(config, name):,} pairs)",
        "max_dev_pairs": f"the dev data ({plan.unbounded(config, name):,} pairs)",
    }.get(name, f"{title} empty ({plan.unbounded(config, name):,} steps)")


@dataclass(frozen=True)
class Overrun:
    """Why a run is over the budget (``why``: the estimate against the budget) and the setting to name with its
    bound (``name`` empty when no single setting brings the run within the budget); ``final_eval``: the final
    7-task evaluation is part of the time over, so turning it off is named too."""

    why: Text
    name: str = ""
    bound: object = None
    shown: str = ""  # the setting as the visitor gave it
    final_eval: bool = False

    def refusal(self) -> Text:
        final = Text("budget_or_final_eval") if self.final_eval else ""
        if not self.name:
            return Text("over_budget", why=self.why, final=final)
        meta = describe(self.name)
        return Text(
            "over_budget_at_least" if meta["budget"] == "least" else "over_budget_at_most",
            shown=self.shown,
            why=self.why,
            title=meta["title"],
            bound=_number(self.bound),
            final=final,
        )

    def notice(self) -> str:
        return f"{self.shown} is over the server's budget ({self.why}): using {_number(self.bound)}"


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(as_written(value))


def overrun(plan: RunPlan, config: TrainConfig) -> Overrun | None:
    """How ``config``'s run is over the budget (:class:`Overrun`), or None when it fits."""
    estimate, allowed = plan.estimate(config), plan.memory_allowed()
    if plan.fits(config):
        return None
    over_memory = estimate.memory > allowed
    if over_memory:
        why = Text("budget_memory", peak=_gigabytes(estimate.memory), allowed=_gigabytes(allowed))
    else:
        why = Text("budget_time", time=_time_text(plan, estimate), minutes=f"{plan.budget.minutes:g}")
    final_eval = not over_memory and estimate.final_seconds > 0
    found = binding(plan, config)
    if found is None:
        return Overrun(why, final_eval=final_eval)
    name, bound = found
    return Overrun(why, name, bound, _shown(plan, config, name), final_eval)


def _time_text(plan: RunPlan, estimate: Estimate) -> Text:
    """What a job would take, as a refusal says it: its runs together and each, the final evaluation's part."""
    final = (
        Text("budget_final_part", time=_duration(estimate.final_seconds)) if estimate.final_seconds else ""
    )
    if plan.runs == 1:
        return Text("budget_one_run", time=_duration(estimate.seconds), final=final)
    return Text(
        "budget_runs",
        runs=plan.runs,
        time=_duration(plan.runs * estimate.seconds),
        each=_duration(estimate.seconds),
        final=final,
    )


def check_run(
    config: TrainConfig,
    given: dict[str, PairSet] | None = None,
    hf_config: dict | None = None,
    final_eval: bool = False,
    runs: int = 1,
    host: Host = HOST,
) -> None:
    """InputError, before a job is queued or started, when its estimate is over the budget: the setting named
    with its bound (:func:`overrun`); the arguments as :meth:`RunPlan.of` takes them (``runs``: a job of that
    many runs of ``config``, a Compare's pairs)."""
    found = overrun(RunPlan.of(config, given, hf_config, final_eval, runs, host), config)
    if found is not None:
        raise InputError("run_refused", refusal=found.refusal())


def clamp(
    config: TrainConfig, final_eval: bool = False, host: Host = HOST
) -> tuple[TrainConfig, list[tuple[str, str]]]:
    """``config`` with each setting that takes it over the budget set to its bound, and ``(setting, notice)`` for
    each (a link's values: clamped, not refused); ``final_eval``: the run ends with the 7-task evaluation. A run
    that no single setting brings within the budget is left as it is, with a notice (setting ""): the form
    refuses it when it starts."""
    plan, notices = RunPlan.of(config, final_eval=final_eval, host=host), []
    for _ in NAMING_ORDER:
        found = overrun(plan, config)
        if found is None:
            break
        if not found.name:
            notices.append(("", str(found.refusal())))
            break
        config = with_setting(config, found.name, found.bound)
        notices.append((found.name, found.notice()))
    return config, notices
