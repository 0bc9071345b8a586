"""Which dev metric picks a run's checkpoint, and in words what it picked: the metric, the score and where, and,
when the start (step 0) was kept, why.

A run keeps the evaluation with the best ``select_by`` score on its dev set (:class:`stsdemo.train.Checkpointer`;
ties go to the better node accuracy). Step 0 is the starting model, so a run whose metric never rises above the
start keeps the start, and says so here. Pure: no torch, no I/O; reads a run's config and its dev curve as
``run.json`` holds them (``{"stage", "step", "dev_cosine", "dev_head", "dev_accuracy"}`` per evaluation).
"""

from __future__ import annotations

import math

from .events import StageStep
from .paired import ACCURACY, SPEARMAN

METRICS = {  # select_by -> (its name in a sentence, the curve's key, what reads it)
    "cosine": ("cosine Spearman", "dev_cosine", "what the 7-task benchmark reads"),
    "head": ("head Spearman", "dev_head", "the prediction Score a pair shows"),
    "accuracy": ("node accuracy", "dev_accuracy", "the share of pairs in their category"),
}
DEV_SETS = {"stsb": "STS-B dev", "snli-heldout": "the held-out SNLI dev pairs"}
START = StageStep(1, 0)


def metric_name(config: dict) -> str:
    """'STS-B dev cosine Spearman': the dev set and the metric that pick a run's checkpoint."""
    dev = DEV_SETS.get(config.get("dev_data", "stsb"), str(config.get("dev_data")))
    return f"{dev} {METRICS[config.get('select_by', 'cosine')][0]}"


def dev_score(evaluation, select_by: str) -> float:
    """The score that picks a checkpoint under ``select_by``, read off one evaluation: a dev curve's point (a dict,
    as ``run.json`` holds it) or an :class:`~stsdemo.events.EvalEvent` (the same names, as attributes)."""
    key = METRICS[select_by][1]
    return evaluation[key] if isinstance(evaluation, dict) else getattr(evaluation, key)


def paired_metric(select_by: str) -> str:
    """The metric whose margin :mod:`stsdemo.paired` applies to a dev score's points."""
    return ACCURACY if select_by == "accuracy" else SPEARMAN


def score_text(value, select_by: str) -> str:
    """A dev score as the run's summaries print it: Spearman x100 to 2 decimals, node accuracy (recorded in
    percent) to 1."""
    if value is None or not math.isfinite(float(value)):
        return "–"
    return f"{float(value):.1f} %" if select_by == "accuracy" else f"{float(value):.2f}"


def where(step: StageStep, stages: int) -> str:
    """(1, 40) -> 'step 40', or 'stage 1, step 40' for a run of two stages or more; step 0 reads 'step 0 (the
    start)'."""
    text = f"stage {step.stage}, step {step.step}" if stages > 1 else f"step {step.step}"
    return text + (" (the start)" if tuple(step) == START else "")


STAGE_SETTINGS = ("two_stage", "head_only", "calibrate_data")  # the settings that decide a run's stages


def planned_stages(config: dict) -> list[tuple[str, bool]]:
    """The stages of a run, in order, as ``(kind, encoder frozen)``: ``head`` (the two-stage recipe's head on NLI,
    encoder frozen), ``main`` (the run's own stage; frozen for a head-only run), ``calibration`` (the head refit
    from the best checkpoint, encoder frozen). The one plan: the training loop (:func:`stsdemo.stages.plan_stages`)
    builds its stages from it and the run's summaries count them with it; ``config`` as ``run.json`` holds it."""
    two_stage, head_only, calibrate_data = (config.get(name) for name in STAGE_SETTINGS)
    return (
        ([("head", True)] if two_stage else [])
        + [("main", bool(head_only))]
        + ([("calibration", True)] if calibrate_data else [])
    )


def stage_plan(config: dict) -> list[bool]:
    """Whether the encoder is frozen in each stage of a run, in order (:func:`planned_stages`). Its length is the
    run's number of stages."""
    return [frozen for _, frozen in planned_stages(config)]


def encoder_frozen(config: dict, stage: int) -> bool:
    """Whether the encoder was frozen in ``stage`` (1, 2, ...) of a run."""
    plan = stage_plan(config)
    return 0 < stage <= len(plan) and plan[stage - 1]


def kept_start_reason(config: dict, curve: list[dict]) -> str:
    """Why a run that kept its start did so, from its config and dev curve."""
    select_by = config.get("select_by", "cosine")
    name, key, _ = METRICS[select_by]
    later = [point for point in curve if (point["stage"], point["step"]) != START]
    if not later:
        return "no evaluation after the start was made"
    start = next((point for point in curve if (point["stage"], point["step"]) == START), None)
    best = max(later, key=lambda point: point[key])
    beaten = (
        f"no later evaluation beat the start's {name} ({score_text(start[key] if start else None, select_by)}"
        f"; the best later was {score_text(best[key], select_by)})"
    )
    if select_by == "cosine" and all(encoder_frozen(config, point["stage"]) for point in later):
        return (
            "the encoder was frozen in every evaluated stage, so the cosine could not change: every evaluation "
            "tied with the start, and on the tie (node accuracy) none beat it"
        )
    if select_by == "cosine" and config.get("target", "head") == "head" and start is not None:
        return (
            f"{beaten}. The run trains the head's prediction (its head Spearman went from "
            f"{score_text(start['dev_head'], 'head')} to {score_text(later[-1]['dev_head'], 'head')}), which the "
            "cosine does not read; select by the head to keep the trained head"
        )
    return beaten


def selection_text(config: dict, best, best_step, curve: list[dict], stages: int = 1) -> str:
    """'Checkpoint picked by the STS-B dev head Spearman: 57.80 at step 60.', and when the start was kept, that it
    was and why."""
    if best_step is None or best is None or not math.isfinite(float(best)):
        return f"Checkpoint picked by the {metric_name(config)}: none scored yet."
    step = StageStep.parse(best_step)
    text = (
        f"Checkpoint picked by the {metric_name(config)}: {score_text(best, config.get('select_by', 'cosine'))} "
        f"at {where(step, stages)}."
    )
    if tuple(step) == START:
        text += f" The start was kept: {kept_start_reason(config, curve)}."
    elif config.get("select_by", "cosine") == "cosine" and step.stage == 1 and encoder_frozen(config, 1):
        text += f" The encoder kept is the start's: {frozen_stage_reason(curve)}."
    return text


def frozen_stage_reason(curve: list[dict]) -> str:
    """Why a cosine-picked run kept a checkpoint of its first stage, whose encoder is frozen (the head alone
    learns there): the cosine ties with the start's in that stage, and no later stage beat it."""
    start = next((point for point in curve if (point["stage"], point["step"]) == START), None)
    later = [point for point in curve if point["stage"] > 1]
    text = (
        "stage 1 trains the head alone, so the cosine there is the start's (node accuracy broke the tie with "
        "the start)"
    )
    if not later:
        return text + ", and the run ended before a later stage was scored"
    best = max(point["dev_cosine"] for point in later)
    return (
        text + f", and no evaluation of a later stage beat its cosine Spearman "
        f"({score_text(start['dev_cosine'] if start else None, 'cosine')}; the best later was "
        f"{score_text(best, 'cosine')})"
    )


def curve_of(evaluations) -> list[dict]:
    """A dev curve, as ``run.json`` holds it, from a run's :class:`~stsdemo.events.EvalEvent` s."""
    return [
        {
            "stage": e.stage,
            "step": e.step,
            "dev_cosine": e.dev_cosine,
            "dev_head": e.dev_head,
            "dev_accuracy": e.dev_accuracy,
        }
        for e in evaluations
    ]
