"""The quality section of docs/results.md: one table per encoder and budget (7-task SentEval, Spearman x100 of
cosine), each arm's row the mean and sd over its seeds (:func:`summarize`) read against the untrained encoder,
the fused rows beside their arms, and the CPU time the recorded runs took. :func:`headline_sections` picks the
table per encoder that the plot and the app's evidence read.
"""

from __future__ import annotations

import numpy as np

from stsdemo.evaluate import TABLE_NAMES, TASKS
from stsdemo.evidence_cells import node_cell, spread_cell

from ..common import mean_sd
from ..schema import fusion_entries, quality_failed, quality_runs, record_model
from . import tuning
from .nli_tables import epochs_text, nli_groups
from .quality_arms import ARMS, MODELS

GROUP_TITLES = {
    "main": "Main comparison (STS-B + SICK-R train, filtered)",
    "stages": "One-stage versions",
    "variant": "Variants (cosine target; in tables before the paper's budget: the loss on 5·cos(u, v))",
    "head": "Head ablation (paper Table 6), Smooth K2 two-stage",
    "nli": "Before bench.evidence.nli: NLI data (SNLI dev+test) scored on the 7 STS tasks, one stage",
    "sweep": "k / x0 sweep (paper Table 5), Smooth K2 two-stage",
}
# the row each group is read against, repeated at its top: the untrained encoder, or the default setting
# (head [u,v,|u-v|], k = 2, x0 = 0.25) that the head ablation and the sweep vary
REFERENCE_ROWS = {"main": "base", "head": "sk2-2stage", "sweep": "sk2-2stage"}
HEADER = [
    "Arm",
    "n",
    *(TABLE_NAMES.get(t, t) for t in TASKS),
    "Avg.",
    "STS-B dev",
    "STS-B test on node (%)",
    "best dev step",
    "last-step dev: cosine / head",
]


def budget_text(budget: dict) -> str:
    steps = budget.get("max_steps")
    seen = (
        f"{steps} steps x batch {budget['batch_size']} = {steps * budget['batch_size']:,} pairs seen"
        if steps
        else f"{budget['epochs']:g} epoch(s), batch {budget['batch_size']}"
    )
    text = f"{seen}, max length {budget['max_length']}, STS-B dev every {budget['eval_every']} steps"
    if budget.get("stage1_max_steps"):
        text += f"; two-stage arms: stage 1 (head on SNLI, encoder frozen) {budget['stage1_max_steps']} steps first"
    return text


def budget_short(budget: dict | None) -> str:
    """The budget in a few words: ``1 epoch(s), batch 16`` or ``150 steps, batch 16``."""
    if not budget:
        return "no runs"
    size = f"{budget['max_steps']} steps" if budget.get("max_steps") else f"{budget['epochs']:g} epoch(s)"
    return f"{size}, batch {budget['batch_size']}"


def encoder_name(model: str) -> str:
    return MODELS.get(model, model)


def quality_sections(results: dict, include_quick: bool = False) -> list[tuple[str, str, dict, dict]]:
    """(model, budget key, budget, runs of that model) per table, models in order (MiniLM, mpnet, others),
    each model's budgets with the paper's budget first, then the most recent. The tuning's runs have their own
    tables (:mod:`bench.evidence.tuning_report`)."""
    runs = {
        k: v
        for k, v in quality_runs(results).items()
        if (include_quick or not k.endswith("quick")) and v.get("budget_tag") not in tuning.QUALITY_TAGS
    }
    by_model: dict[str, dict] = {}
    for key, result in runs.items():
        by_model.setdefault(record_model(result), {})[key] = result
    sections = []
    for model in sorted(by_model, key=lambda m: (list(MODELS).index(m) if m in MODELS else len(MODELS), m)):
        model_runs = by_model[model]
        budgets: dict[str, tuple] = {}
        for result in model_runs.values():
            if result["arm"] != "base" or len(model_runs) == 1:
                key = result["budget_key"]
                latest = max(budgets.get(key, (None, ""))[1], result.get("finished", ""))
                budgets[key] = (result["budget"], latest, result.get("budget_tag"))
        order = sorted(budgets, key=lambda k: budgets[k][1], reverse=True)  # the most recent first,
        order = sorted(order, key=lambda k: budgets[k][2] != "paper")  # the paper's budget before all
        sections += [(model, key, budgets[key][0], model_runs) for key in order]
    return sections


def summarize(runs: dict, budget_key: str | None = None, model: str | None = None) -> dict:
    """Per arm: mean and sd over seeds of each task and Avg., dev best, and how many seeds ran.

    Only runs of ``model`` (when given) and ``budget_key`` (when given; the untrained base run belongs to
    every budget of its model) count."""
    by_arm: dict[str, list] = {}
    for result in runs.values():
        if model is not None and record_model(result) != model:
            continue
        if budget_key is None or result.get("budget_key") == budget_key or result["arm"] == "base":
            by_arm.setdefault(result["arm"], []).append(result)
    summary = {}
    for arm, results in by_arm.items():
        if arm == "base":  # one base row per model: the most recent record
            results = sorted(results, key=lambda r: r.get("finished", ""))[-1:]
        row = {
            "label": results[0]["label"],
            "group": results[0]["group"],
            "kind": results[0].get("kind"),
            "family": results[0].get("family", ARMS.get(arm, {}).get("family")),
            "seeds": sorted(r["seed"] for r in results),
        }
        for task in (*TASKS, "Avg."):
            row[task], row[f"{task} sd"] = mean_sd([r["test"][task] for r in results])
        row["per_seed"] = {r["seed"]: r["test"]["Avg."] for r in results}
        row["best_steps"] = [r.get("best_step", "-") for r in sorted(results, key=lambda r: r["seed"])]
        devs = [r["dev_best"] for r in results if r.get("dev_best") is not None]
        if devs:
            row["dev"], row["dev sd"] = mean_sd(devs)
        nodes = [r["stsb_node_accuracy"] for r in results if "stsb_node_accuracy" in r]
        if nodes:
            (row["node"], row["node sd"]), row["node n"] = mean_sd(nodes), len(nodes)
        # where training ended up on dev, whatever was selected: cosine, and the head's own Spearman
        last = [r["dev_curve"][-1] for r in results if r.get("dev_curve")]
        if last:
            row["last dev cosine"] = float(np.mean([e["dev_cosine"] for e in last]))
            heads = [e["dev_head"] for e in last if "dev_head" in e]
            row["last dev head"] = float(np.mean(heads)) if heads else None
        row["train_seconds"] = sum(r.get("train_seconds", 0.0) or 0.0 for r in results)
        row["wall_seconds"] = sum(r.get("wall_seconds", 0.0) or 0.0 for r in results)
        summary[arm] = row
    return summary


def section_summary(runs: dict, model: str, key: str) -> dict:
    """``summarize`` for one table, with the base row's dev taken from step 0 of the runs' dev curves."""
    summary = summarize(runs, key, model)
    if "base" in summary and "dev" not in summary["base"]:
        step0 = [
            r["dev_curve"][0]["dev_cosine"]
            for r in runs.values()
            if r.get("budget_key") == key and r.get("dev_curve") and r["dev_curve"][0]["step"] == 0
        ]
        if step0:
            summary["base"]["dev"], summary["base"]["dev sd"] = step0[0], 0.0
    return summary


def arm_row(arm: str, row: dict, base: float | None) -> str:
    n = len(row["seeds"])
    label = row["label"].replace("|", "\\|")  # a "|" in a label would split the table cell
    cells = [spread_cell(row[t], row[f"{t} sd"], n) for t in TASKS]
    avg = spread_cell(row["Avg."], row["Avg. sd"], n)
    if base is not None and arm != "base":
        avg += f" ({row['Avg.'] - base:+.2f})"
    dev = spread_cell(row["dev"], row["dev sd"], n) if "dev" in row else "-"
    node = node_cell(row["node"], row["node sd"], row["node n"], n) if "node" in row else "-"
    steps = ", ".join(map(str, row["best_steps"])) if arm != "base" else "-"
    last = "-"
    if "last dev cosine" in row:
        head = row["last dev head"]
        last = f"{row['last dev cosine']:.2f} / " + (f"{head:.2f}" if head is not None else "-")
    return (
        f"| {label} (`{arm}`) | {n} | "
        + " | ".join(cells)
        + f" | **{avg}** | {dev} | {node} | {steps} | {last} |"
    )


def group_tables(summary: dict, runs: dict, key: str, model: str) -> list[str]:
    base = summary.get("base", {}).get("Avg.")
    known = [a for a in ARMS if a in summary] + [a for a in summary if a not in ARMS]
    lines = []
    for group, title in GROUP_TITLES.items():
        arms = [a for a in known if summary[a]["group"] == group]
        if not arms:
            continue
        rows = dict(summary)
        reference = REFERENCE_ROWS.get(group)
        if reference in summary and reference not in arms:
            arms.insert(0, reference)
            # compared on the seeds the group's arms ran, not on all of the reference's seeds
            seeds = {seed for arm in arms[1:] for seed in summary[arm]["seeds"]}
            same = {k: r for k, r in runs.items() if r["arm"] == reference and r["seed"] in seeds}
            rows[reference] = summarize(same, key, model).get(reference, summary[reference])
        lines += [
            f"##### {title}\n",
            "| " + " | ".join(HEADER) + " |",
            "|" + "|".join(["---", "---:"] + ["---:"] * (len(HEADER) - 2)) + "|",
        ]
        lines += [arm_row(arm, rows[arm], base) for arm in arms]
        lines.append("")
    return lines


def fusion_table(fusion: dict, summary: dict, model: str, key: str) -> list[str]:
    """Rows "<arm> + fusion (alpha=...)": linear fusion per arm (mean over its seeds) and the delta-guided
    fusion of an arm's seeds, beside the arm itself on the same seeds."""

    entries = [e for e in fusion.values() if e.get("model") == model and e.get("budget_key") == key]
    if not entries:
        return []
    base = summary.get("base", {}).get("Avg.")
    lines = [
        "##### Weight-space fusion with the untrained encoder (alpha chosen on STS-B dev)\n",
        "| Row | n | alpha | STS-B dev at alpha | Avg. | vs the arm itself (same seeds) | vs base |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    linear: dict[str, list] = {}
    for entry in entries:
        if entry["kind"] == "linear":
            linear.setdefault(entry["arm"], []).append(entry)
    rows = [(arm, items, "linear") for arm, items in linear.items()]
    rows += [(e["arm"], [e], "delta") for e in entries if e["kind"] == "delta"]
    for arm, items, kind in rows:
        items = sorted(items, key=lambda e: e["seeds"])
        n = len(items) if kind == "linear" else 1
        avg, sd = mean_sd([e["test"]["Avg."] for e in items])
        own = float(sum(e["run_test_avg"] for e in items) / len(items))
        alphas = ", ".join(f"{e['alpha']:g}" for e in items)
        dev, dev_sd = mean_sd([e["dev"] for e in items])
        if kind == "linear":
            label = summary.get(arm, {}).get("label", items[0]["label"].split(" + fusion")[0]) + " + fusion"
        else:
            label = items[0]["label"].split(" (alpha=")[0]
        versus = f"{avg - base:+.2f}" if base is not None else "-"
        lines.append(
            f"| {label.replace('|', chr(92) + '|')} (`{arm}`) | {n} | {alphas} | "
            f"{spread_cell(dev, dev_sd, n)} | **{spread_cell(avg, sd, n)}** | {avg - own:+.2f} | {versus} |"
        )
    lines.append(
        "\n(alpha 0 = the untrained encoder, 1 = the run's own checkpoint; one test pass per row at the "
        "alpha dev chose. Delta-guided: the seeds' changes merged per parameter by their size, then scaled "
        "by alpha.)\n"
    )
    return lines


def cpu_time_table(results: dict) -> list[str]:
    runs = quality_runs(results)
    totals: dict[tuple, list] = {}
    for key, result in runs.items():
        if key.endswith("quick") or "CPU" not in result.get("machine", "CPU"):  # no machine named: this CPU
            continue
        slot = totals.setdefault((record_model(result), budget_short(result["budget"])), [0, 0.0, 0.0])
        slot[0] += 1
        slot[1] += result.get("wall_seconds", 0.0) or 0.0
    for entry in fusion_entries(results).values():
        if entry.get("budget_tag") == "quick":
            continue
        budget = next(
            (r["budget"] for r in runs.values() if r.get("budget_key") == entry.get("budget_key")), None
        )
        if budget:
            slot = totals.setdefault((entry["model"], budget_short(budget)), [0, 0.0, 0.0])
            slot[2] += entry.get("wall_seconds", 0.0) or 0.0
    for pairs, epochs, _, nli in nli_groups(results):
        slot = totals.setdefault(
            ("minilm", f"NLI, {epochs_text(epochs)} on {pairs:,} SNLI pairs"), [0, 0.0, 0.0]
        )
        slot[0] += len(nli)
        slot[1] += sum(run["wall_seconds"] for run in nli)
    if not totals:
        return []
    lines = [
        "CPU time of the recorded runs (wall clock, one run at a time):\n",
        "| Encoder | budget | runs | run hours (wall) | fusion hours (wall) |",
        "|---|---|---:|---:|---:|",
    ]
    for (model, budget), (count, run_s, fusion_s) in totals.items():
        lines.append(
            f"| {encoder_name(model)} | {budget} | {count} | {run_s / 3600:.1f} | {fusion_s / 3600:.1f} |"
        )
    return lines + [""]


def quality_tables(results: dict, include_quick: bool = False) -> list[str]:
    sections = quality_sections(results, include_quick)
    if not sections:
        return ["_No quality runs recorded yet._"]
    lines = []
    for model, key, budget, runs in sections:
        summary = section_summary(runs, model, key)
        lines.append(f"#### {encoder_name(model)}: {budget_short(budget)}\n")
        lines.append(
            f"**Budget:** {budget_text(budget)}. Test sets scored once per finished run, on the "
            "checkpoint with the best STS-B dev cosine Spearman (dev is also scored at step 0, so an arm "
            "that never beats the untrained encoder on dev keeps it). Mean ± sd over seeds where n > 1.\n"
        )
        lines += group_tables(summary, runs, key, model)
        lines += fusion_table(fusion_entries(results), summary, model, key)
        lines.append(
            "(In brackets: difference of Avg. from the untrained base model. Best dev step is "
            "`stage:step`; `1:0` means no checkpoint beat the untrained encoder on STS-B dev, so the "
            "arm's test row is the base model's. Last-step dev: STS-B dev Spearman at the end of training, "
            "of the cosine and of the head's prediction (mean over seeds; no head for "
            "sentence-transformers' arms), shown whatever was selected.)\n"
        )
    failed = {
        k: v
        for k, v in quality_failed(results).items()
        if k not in quality_runs(results) and not k.endswith("quick")
    }
    if failed:
        lines.append("Failed runs: " + "; ".join(f"`{k}`: {v}" for k, v in failed.items()) + "\n")
    return lines


def headline_sections(results: dict, include_quick: bool = False) -> dict[str, tuple]:
    """Per encoder, the table the verdicts and the plot read: ``{model: (budget key, budget, runs)}``, the
    paper's budget where it was run, else the budget with the most runs."""
    chosen: dict[str, tuple] = {}
    for model, key, budget, runs in quality_sections(results, include_quick):
        count = sum(1 for r in runs.values() if r.get("budget_key") == key)
        paper = any(r.get("budget_tag") == "paper" for r in runs.values() if r.get("budget_key") == key)
        if model not in chosen or (paper, count) > chosen[model][0]:
            chosen[model] = ((paper, count), key, budget, runs)
    return {model: rest for model, (_, *rest) in chosen.items()}
