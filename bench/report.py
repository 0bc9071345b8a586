"""Turn docs/results.json into the tables of docs/results.md and the plots in assets/bench-*.png.

    python -m bench.report

The tables are written between the ``<!-- BEGIN AUTO -->`` and ``<!-- END AUTO -->`` markers of
docs/results.md; the text around them (commands, commentary) is left as it is. Plots need matplotlib;
without it they are skipped with a message.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import textwrap
from pathlib import Path

from stsdemo.app.evidence_view import (NLI, STS, Claim, ClaimLine, Evidence, EvidenceRow, claims_markdown,
                                       evidence_frame, node_cell, spread_cell)
from stsdemo.evaluate import TABLE_NAMES, TASKS

from . import payoff, playground, tuning, tuning_report
from .common import ASSETS, REPO, load_results, log, mean_sd
from .schema import fusion_entries, nli_runs, quality_failed, quality_runs, record_model, section

RESULTS_MD = REPO / "docs" / "results.md"
BEGIN, END = "<!-- BEGIN AUTO -->", "<!-- END AUTO -->"
EVIDENCE_MD = REPO / "docs" / "evidence.md"   # the evidence block's page (it left the README, issue 27)
EVIDENCE_BEGIN, EVIDENCE_END = "<!-- BEGIN EVIDENCE (python -m bench.report) -->", "<!-- END EVIDENCE -->"
GROUP_TITLES = {
    "main": "Main comparison (STS-B + SICK-R train, filtered)",
    "stages": "One-stage versions",
    "variant": "Variants (cosine target; in tables before the paper's budget: the loss on 5·cos(u, v))",
    "head": "Head ablation (paper Table 6), Smooth K2 two-stage",
    "nli": "Before bench.nli: NLI data (SNLI dev+test) scored on the 7 STS tasks, one stage",
    "sweep": "k / x0 sweep (paper Table 5), Smooth K2 two-stage",
}
# the row each group is read against, repeated at its top: the untrained encoder, or the default setting
# (head [u,v,|u-v|], k = 2, x0 = 0.25) that the head ablation and the sweep vary
REFERENCE_ROWS = {"main": "base", "head": "sk2-2stage", "sweep": "sk2-2stage"}
HEADER = ["Arm", "n", *(TABLE_NAMES.get(t, t) for t in TASKS), "Avg.", "STS-B dev", "STS-B test on node (%)",
          "best dev step", "last-step dev: cosine / head"]


def budget_text(budget: dict) -> str:
    steps = budget.get("max_steps")
    seen = f"{steps} steps x batch {budget['batch_size']} = {steps * budget['batch_size']:,} pairs seen" if steps \
        else f"{budget['epochs']:g} epoch(s), batch {budget['batch_size']}"
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
    from .quality import MODELS

    return MODELS.get(model, model)


def quality_sections(results: dict, include_quick: bool = False) -> list[tuple[str, str, dict, dict]]:
    """(model, budget key, budget, runs of that model) per table, models in order (MiniLM, mpnet, others),
    each model's budgets with the paper's budget first, then the most recent. The tuning's runs have their own
    tables (:mod:`bench.tuning_report`)."""
    from .quality import MODELS

    runs = {k: v for k, v in quality_runs(results).items()
            if (include_quick or not k.endswith("quick")) and v.get("budget_tag") not in tuning.QUALITY_TAGS}
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
        order = sorted(budgets, key=lambda k: budgets[k][1], reverse=True)       # the most recent first,
        order = sorted(order, key=lambda k: budgets[k][2] != "paper")            # the paper's budget before all
        sections += [(model, key, budgets[key][0], model_runs) for key in order]
    return sections


def section_summary(runs: dict, model: str, key: str) -> dict:
    """``summarize`` for one table, with the base row's dev taken from step 0 of the runs' dev curves."""
    from .quality import summarize

    summary = summarize(runs, key, model)
    if "base" in summary and "dev" not in summary["base"]:
        step0 = [r["dev_curve"][0]["dev_cosine"] for r in runs.values()
                 if r.get("budget_key") == key and r.get("dev_curve") and r["dev_curve"][0]["step"] == 0]
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
    return f"| {label} (`{arm}`) | {n} | " + " | ".join(cells) + f" | **{avg}** | {dev} | {node} | {steps} | {last} |"


def group_tables(summary: dict, runs: dict, key: str, model: str) -> list[str]:
    from .quality import ARMS, summarize

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
        lines += [f"##### {title}\n", "| " + " | ".join(HEADER) + " |",
                  "|" + "|".join(["---", "---:"] + ["---:"] * (len(HEADER) - 2)) + "|"]
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
    lines = ["##### Weight-space fusion with the untrained encoder (alpha chosen on STS-B dev)\n",
             "| Row | n | alpha | STS-B dev at alpha | Avg. | vs the arm itself (same seeds) | vs base |",
             "|---|---:|---:|---:|---:|---:|---:|"]
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
        lines.append(f"| {label.replace('|', chr(92) + '|')} (`{arm}`) | {n} | {alphas} | "
                     f"{spread_cell(dev, dev_sd, n)} | **{spread_cell(avg, sd, n)}** | {avg - own:+.2f} | {versus} |")
    lines.append("\n(alpha 0 = the untrained encoder, 1 = the run's own checkpoint; one test pass per row at the "
                 "alpha dev chose. Delta-guided: the seeds' changes merged per parameter by their size, then scaled "
                 "by alpha.)\n")
    return lines


def cpu_time_table(results: dict) -> list[str]:
    runs = quality_runs(results)
    totals: dict[tuple, list] = {}
    for key, result in runs.items():
        if key.endswith("quick"):
            continue
        slot = totals.setdefault((record_model(result), budget_short(result["budget"])), [0, 0.0, 0.0])
        slot[0] += 1
        slot[1] += result.get("wall_seconds", 0.0) or 0.0
    for entry in fusion_entries(results).values():
        if entry.get("budget_tag") == "quick":
            continue
        budget = next((r["budget"] for r in runs.values()
                       if r.get("budget_key") == entry.get("budget_key")), None)
        if budget:
            slot = totals.setdefault((entry["model"], budget_short(budget)), [0, 0.0, 0.0])
            slot[2] += entry.get("wall_seconds", 0.0) or 0.0
    for pairs, epochs, _, nli in nli_groups(results):
        slot = totals.setdefault(("minilm", f"NLI, {_epochs(epochs)} on {pairs:,} SNLI pairs"), [0, 0.0, 0.0])
        slot[0] += len(nli)
        slot[1] += sum(run["wall_seconds"] for run in nli)
    if not totals:
        return []
    lines = ["CPU time of the recorded runs (wall clock, one run at a time):\n",
             "| Encoder | budget | runs | run hours (wall) | fusion hours (wall) |", "|---|---|---:|---:|---:|"]
    for (model, budget), (count, run_s, fusion_s) in totals.items():
        lines.append(f"| {encoder_name(model)} | {budget} | {count} | {run_s / 3600:.1f} | {fusion_s / 3600:.1f} |")
    return lines + [""]


def quality_tables(results: dict, include_quick: bool = False) -> list[str]:
    sections = quality_sections(results, include_quick)
    if not sections:
        return ["_No quality runs recorded yet._"]
    lines = []
    for model, key, budget, runs in sections:
        summary = section_summary(runs, model, key)
        lines.append(f"#### {encoder_name(model)}: {budget_short(budget)}\n")
        lines.append(f"**Budget:** {budget_text(budget)}. Test sets scored once per finished run, on the "
                     "checkpoint with the best STS-B dev cosine Spearman (dev is also scored at step 0, so an arm "
                     "that never beats the untrained encoder on dev keeps it). Mean ± sd over seeds where n > 1.\n")
        lines += group_tables(summary, runs, key, model)
        lines += fusion_table(fusion_entries(results), summary, model, key)
        lines.append("(In brackets: difference of Avg. from the untrained base model. Best dev step is "
                     "`stage:step`; `1:0` means no checkpoint beat the untrained encoder on STS-B dev, so the "
                     "arm's test row is the base model's. Last-step dev: STS-B dev Spearman at the end of training, "
                     "of the cosine and of the head's prediction (mean over seeds; no head for "
                     "sentence-transformers' arms), shown whatever was selected.)\n")
    failed = {k: v for k, v in quality_failed(results).items()
              if k not in quality_runs(results) and not k.endswith("quick")}
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


def verdict_table(results: dict) -> list[str]:
    """One line per claim and comparison, the paired differences beside each verdict (bench.claims)."""
    from .claims import claim_verdicts, memory_verdict

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["Paired by seed (the same seed: the same data order and initialisation); a comparison **holds** when "
             "the mean difference is more than 2 standard errors above zero, is **reversed** when more than 2 below, "
             "else shows no measurable difference. STS: 7-task Avg. of all-MiniLM-L6-v2 at the paper's budget; NLI: "
             "SNLI test accuracy (%).\n",
             "| Claim | comparison (a vs b) | per-seed a - b | mean ± se, n | verdict |", "|---|---|---|---|---|"]
    for claim in claim_verdicts(results):
        lines.append(f"| **{claim.claim}** {cell(claim.text)} | | | n = {claim.n} | **{cell(claim.verdict)}** |")
        for line in claim.lines:
            diffs = ", ".join(f"{d:+.2f}" for d in line.result.diffs) or "-"
            lines.append(f"| {claim.claim} | {cell(line.comparison.test)} (`{line.comparison.a}` vs "
                         f"`{line.comparison.b}`) | {diffs} | {line.result.numbers() or '-'} | {cell(line.verdict)} |")
    evidence, verdict = memory_verdict(section(results, "memory"))
    lines += [f"| **C6** memory about half of contrastive training | {cell(evidence)} | | | **{cell(verdict)}** |", ""]
    return lines


def nli_groups(results: dict) -> list[tuple[int, float, str, list[dict]]]:
    """The recorded NLI runs (no quick ones) as ``(training pairs, epochs, arm, runs)``: most pairs first, then
    fewest epochs, then the arms in ``bench.nli``'s order."""
    from .nli import ARMS

    groups: dict[tuple, list] = {}
    for run in nli_runs(results).values():
        if run["budget_tag"] != "quick":
            groups.setdefault((run["train_pairs"], run["budget"]["epochs"], run["arm"]), []).append(run)
    order = list(ARMS)
    return [(pairs, epochs, arm, runs) for (pairs, epochs, arm), runs in
            sorted(groups.items(), key=lambda kv: (-kv[0][0], kv[0][1], order.index(kv[0][2])))]


def _epochs(epochs: float) -> str:
    return f"{epochs:g} epoch{'' if epochs == 1 else 's'}"


def nli_table(results: dict) -> list[str]:
    """SNLI test accuracy and macro-F1 per arm and training-set size, mean ± sd over seeds."""
    from .nli import ARMS

    groups = nli_groups(results)
    if not groups:
        return ["_No NLI runs recorded yet (`python -m bench.nli --seeds 3 --skip-done`)._\n"]
    lines = ["Trained at batch 16 on SNLI dev less 1,000 held-out pairs (or a fixed sample of them) for the epochs "
             "given, checkpoint chosen by held-out accuracy, scored once on SNLI test (9,824 pairs). The class of a "
             "regression is the node nearest its prediction (contradiction 0, neutral 1, entailment 2).\n",
             "| training pairs x epochs | arm | n | accuracy (%) | macro-F1 (%) | held-out accuracy (%) | minutes per run (median) |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for pairs, epochs, arm, runs in groups:
        n = len(runs)
        acc, f1, held = (mean_sd([r[k] for r in runs]) for k in ("test_accuracy", "test_macro_f1", "held_out_best"))
        minutes = statistics.median(r["wall_seconds"] for r in runs) / 60  # a run paused for the test suite is long
        lines.append(f"| {pairs:,} x {epochs:g} | {ARMS[arm]['label']} (`{arm}`) | {n} | **{spread_cell(*acc, n)}** | "
                     f"{spread_cell(*f1, n)} | {spread_cell(*held, n)} | {minutes:.1f} |")
    return lines + [""]


def speed_tables(results: dict) -> list[str]:
    speed, memory, lines = section(results, "speed"), section(results, "memory"), []
    train = speed.get("train")
    lines.append("| Measurement | ours | reference | ratio | setting |")
    lines.append("|---|---:|---:|---:|---|")
    if train:
        lines.append(f"| training throughput (pairs/s, median of {train['repeats']}) | {train['ours_pairs_per_s']:.1f} | "
                     f"{train['st_pairs_per_s']:.1f} (SentenceTransformerTrainer, {train['st_loss']}) | "
                     f"**{train['ratio']:.2f}x** | {train['steps']} steps, batch {train['batch_size']}, max length "
                     f"{train['max_length']}, {train['device']} |")
    else:
        lines.append("| training throughput | not run | | | `python -m bench.speed --parts train` |")
    ev = speed.get("eval")
    if ev:
        lines.append(f"| evaluation time (s, median of {ev['repeats']}) | {ev['ours_seconds']:.1f} | "
                     f"{ev['naive_seconds']:.1f} (naive: pad to 256, every pair) | **{ev['speedup']:.2f}x faster** | "
                     f"{', '.join(TABLE_NAMES.get(t, t) for t in ev['tasks'])} ({ev['pairs']:,} pairs); max abs. "
                     f"difference of the scores {ev['max_abs_diff']:.4f} |")
    else:
        lines.append("| evaluation time | not run | | | `python -m bench.speed --parts eval` |")
    lat = speed.get("latency")
    if lat:
        api = (f"{lat['api_p50_ms']:.0f} / {lat['api_p95_ms']:.0f}" if "api_p50_ms" in lat
               else f"not measured: {lat.get('api_error', '?')}")
        lines.append(f"| single-pair latency p50 / p95 (ms) | {lat['in_process_p50_ms']:.0f} / "
                     f"{lat['in_process_p95_ms']:.0f} (in-process `score_pair`) | {api} (app `/score` via gradio_client) "
                     f"| | {lat['calls']} calls, {lat['device']} |")
    else:
        lines.append("| single-pair latency | not run | | | `python -m bench.speed --parts latency` |")
    mem = memory.get("peak")
    if mem:
        p = mem["peak_rss_mib"]
        lines.append(f"| peak RSS (MiB), own subprocess each | {p['ours']:.0f} (batch {mem['batches']['ours']}) | "
                     f"{p['infonce']:.0f} (InfoNCE, batch {mem['batches']['infonce']}) | **{mem['ratio_rss']:.2f}x** "
                     f"(above the {p['idle']:.0f} MiB idle floor: {mem['ratio_rss_above_idle']:.2f}x) | max length "
                     f"{mem['max_length']}, {mem['steps']} steps, {mem['device']} |")
        if "ratio_cuda" in mem:
            c = mem["cuda_peak_mib"]
            lines.append(f"| CUDA max_memory_allocated (MiB) | {c['ours']:.0f} | {c['infonce']:.0f} | "
                         f"**{mem['ratio_cuda']:.2f}x** | |")
    else:
        lines.append("| peak memory | not run | | | `python -m bench.memory` |")
    lines.append("")
    lines += edge_table(speed)
    scaling = section(results, "scaling").get("cost")
    if scaling:
        lines.append("Cost growth (plot: `assets/bench-scaling.png`):\n")
        lines.append("| training pairs | " + " | ".join(str(r["pairs"]) for r in scaling["train"]) + " |")
        lines.append("|---|" + "---:|" * len(scaling["train"]))
        lines.append("| train seconds | " + " | ".join(f"{r['seconds']:.1f}" for r in scaling["train"]) + " |\n")
        lines.append("| eval pairs | " + " | ".join(str(r["pairs"]) for r in scaling["eval"]) + " |")
        lines.append("|---|" + "---:|" * len(scaling["eval"]))
        lines.append("| eval seconds | " + " | ".join(f"{r['seconds']:.1f}" for r in scaling["eval"]) + " |\n")
        rows = scaling["train_length"]
        lines.append("| max length | " + " | ".join(str(r["max_length"]) for r in rows) + " |")
        lines.append("|---|" + "---:|" * len(rows))
        lines.append(f"| train seconds ({rows[0]['pairs']} pairs) | " + " | ".join(f"{r['seconds']:.1f}" for r in rows) + " |")
        ev_rows = scaling["eval_length"]
        lines.append(f"| eval seconds ({ev_rows[0]['pairs']} pairs), per-batch padding | "
                     + " | ".join(f"{r['seconds']:.1f}" for r in ev_rows) + " |")
        lines.append(f"| eval seconds ({ev_rows[0]['pairs']} pairs), padded to max length | "
                     + " | ".join(f"{r['naive_seconds']:.1f}" for r in ev_rows) + " |\n")
    else:
        lines.append("Cost growth: not run (`python -m bench.scaling`).\n")
    return lines


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def edge_table(speed: dict) -> list[str]:
    """The edges of issue 11 (API latency, score view, CLI start-up, evaluation), each beside its reference
    measured in the same run, and whether its target is met."""
    rows = []  # (what, measured, reference in the same run, target, met)
    lat, view, cli = speed.get("latency", {}), speed.get("view"), speed.get("cli")
    ev, stsb = speed.get("eval7"), speed.get("stsb")
    if "api_p50_ms" in lat and "echo_p50_ms" in lat:
        rows.append((f"`/score` via gradio_client, p50 of {lat['calls']} (ms)", f"{lat['api_p50_ms']:.0f}",
                     f"{lat['echo_p50_ms']:.0f} (bare Gradio echo app)", "within 40 ms of the echo app",
                     _met(lat["api_p50_ms"] - lat["echo_p50_ms"] <= 40)))
    if view:
        rows.append((f"`score_view` in-process, p50 of {view['calls']} (ms)", f"{view['view_p50_ms']:.0f}",
                     f"{view['score_pair_p50_ms']:.0f} (`score_pair`)", "<= 30 ms", _met(view["view_p50_ms"] <= 30)))
    if cli:
        rows.append((f"`python -m stsdemo --help`, median of {cli['repeats']} (s)", f"{cli['help_seconds']:.2f}", "",
                     "<= 1 s", _met(cli["help_seconds"] <= 1)))
    if cli and "score_seconds" in cli:
        rows.append((f"cold `python -m stsdemo score A B`, median of {cli['repeats']} (s)",
                     f"{cli['score_seconds']:.1f}", "", "<= 5 s", _met(cli["score_seconds"] <= 5)))
    if ev:
        rows.append((f"{len(ev['tasks'])}-task evaluation, {ev['pairs']:,} pairs, median of {ev['repeats']} (s)",
                     f"{ev['ours_seconds']:.1f}", f"{ev['reference_seconds']:.1f} (sentence-transformers "
                     "EmbeddingSimilarityEvaluator)", "<= 0.6x, same scores to 4 decimals",
                     f"{ev['ratio']:.2f}x, max diff {ev['max_abs_diff']:.1e}: "
                     + _met(ev["ratio"] <= 0.6 and ev["identical_4dp"])))
    if stsb:
        rows.append((f"`eval --tasks STSBenchmark`, median of {stsb['repeats']} (s)",
                     f"{stsb['cli_seconds']:.1f} (command, start-up included)",
                     f"{stsb['in_process_seconds']:.1f} (in-process)", "", ""))
    if not rows:
        return ["Edges (API, CLI start-up, 7-task evaluation): not run (`python -m bench.speed --parts "
                "latency,view,cli,eval7,stsb`).\n"]
    return ["| Edge | measured | reference in the same run | target | met |", "|---|---:|---:|---|---|",
            *("| " + " | ".join(row) + " |" for row in rows), ""]


# ---- plots ------------------------------------------------------------------------------------------


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        log("matplotlib is not installed: plots skipped (pip install matplotlib)")
        return None


def _save(plt, fig, path: Path) -> Path:
    """Lay out, write and close a figure; returns where it went."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_scaling(scaling: dict, path: Path | None = None) -> Path | None:
    plt = _pyplot()
    if plt is None:
        return None
    path = path or ASSETS / "bench-scaling.png"
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot([r["pairs"] for r in scaling["train"]], [r["seconds"] for r in scaling["train"]], "o-", label="training")
    left.plot([r["pairs"] for r in scaling["eval"]], [r["seconds"] for r in scaling["eval"]], "s-", label="evaluation")
    left.set(xlabel="pairs", ylabel="seconds", title="Cost against number of pairs")
    left.legend()
    right.plot([r["max_length"] for r in scaling["train_length"]], [r["seconds"] for r in scaling["train_length"]],
               "o-", label=f"training, {scaling['train_length'][0]['pairs']} pairs")
    right.plot([r["max_length"] for r in scaling["eval_length"]], [r["seconds"] for r in scaling["eval_length"]],
               "s-", label=f"evaluation, per-batch padding, {scaling['eval_length'][0]['pairs']} pairs")
    right.plot([r["max_length"] for r in scaling["eval_length"]], [r["naive_seconds"] for r in scaling["eval_length"]],
               "^--", label="evaluation, padded to max length")
    right.set(xlabel="max length (tokens)", ylabel="seconds", title="Cost against max length", xscale="log")
    right.minorticks_off()
    right.set_xticks([r["max_length"] for r in scaling["eval_length"]],
                     [str(r["max_length"]) for r in scaling["eval_length"]])
    right.legend(fontsize=8)
    fig.suptitle(f"stsdemo cost growth on {scaling['device']}", fontsize=10)
    return _save(plt, fig, path)


def plot_quality(results: dict, path: Path | None = None) -> Path | None:
    """7-task Avg. per arm, one panel per encoder (its headline table), fused rows beside their arms."""
    from .quality import ARMS

    plt = _pyplot()
    chosen = headline_sections(results)
    if plt is None or not chosen:
        return None
    panels = []
    for model, (key, budget, runs) in chosen.items():
        summary = section_summary(runs, model, key)
        bars = {arm: (row["label"], row["Avg."], row["Avg. sd"], len(row["seeds"]),
                      "#888888" if arm == "base" else "#d62728" if row.get("kind") == "st" else "#1f77b4")
                for arm, row in summary.items() if row["group"] == "main" or arm not in ARMS}
        fused: dict[str, list] = {}
        for entry in fusion_entries(results).values():
            if entry.get("model") == model and entry.get("budget_key") == key and entry["kind"] == "linear":
                fused.setdefault(entry["arm"], []).append(entry["test"]["Avg."])
        for arm, values in fused.items():
            label = f"{summary.get(arm, {}).get('label', arm)} + fusion"
            bars[f"{arm}+fusion"] = (label, *mean_sd(values), len(values), "#9ecae1")
        panels.append((model, budget, summary, bars))
    height = max(len(p[3]) for p in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(10 * len(panels), 0.45 * height + 1.5), squeeze=False)
    for ax, (model, budget, summary, bars) in zip(axes[0], panels):
        order = sorted(bars, key=lambda a: bars[a][1])
        ax.barh(range(len(order)), [bars[a][1] for a in order], xerr=[bars[a][2] for a in order],
                color=[bars[a][4] for a in order])
        ax.set_yticks(range(len(order)), [textwrap.fill(f"{bars[a][0]} (n={bars[a][3]})", 45) for a in order],
                      fontsize=7)
        ax.set_xlim(min(bars[a][1] for a in order) - 2, max(bars[a][1] for a in order) + 1)
        if "base" in summary:
            ax.axvline(summary["base"]["Avg."], color="#888888", linestyle=":", linewidth=1)
        ax.set_xlabel("7-task SentEval Avg. (Spearman x100, cosine)")
        ax.set_title(f"{encoder_name(model)} fine-tunes, {budget_short(budget)}", fontsize=8)
    return _save(plt, fig, path or ASSETS / "bench-quality.png")


def plot_speed(results: dict, path: Path | None = None) -> Path | None:
    speed, memory = section(results, "speed"), section(results, "memory")
    panels = [p for p in (("train", speed.get("train")), ("eval", speed.get("eval")), ("memory", memory.get("peak")))
              if p[1]]
    plt = _pyplot()
    if plt is None or not panels:
        return None
    path = path or ASSETS / "bench-speed.png"
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.4))
    axes = [axes] if len(panels) == 1 else list(axes)
    for ax, (name, data) in zip(axes, panels):
        if name == "train":
            values, labels, title = [data["ours_pairs_per_s"], data["st_pairs_per_s"]], ["stsdemo", "ST trainer"], \
                "training pairs/s (higher is better)"
        elif name == "eval":
            values, labels, title = [data["ours_seconds"], data["naive_seconds"]], ["stsdemo", "naive (pad 256)"], \
                "evaluation seconds (lower is better)"
        else:
            values = [data["peak_rss_mib"]["ours"], data["peak_rss_mib"]["infonce"]]
            labels = [f"ours b{data['batches']['ours']}", f"InfoNCE b{data['batches']['infonce']}"]
            title = "peak RSS MiB (lower is better)"
        ax.bar(labels, values, color=["#1f77b4", "#d62728"])
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:.1f}", ha="center", va="bottom", fontsize=8)
        ax.set_title(title, fontsize=9)
    return _save(plt, fig, path)


def machine_text(run: dict, results: dict) -> str:
    """The machine a run names (older records: the results file's machine)."""
    if run.get("machine"):
        return run["machine"]
    machine = section(results, "machine")
    return machine.get("gpu") or f"CPU ({machine.get('cpus', '?')} cores)"


def evidence(results: dict):
    """The app's evidence (:mod:`stsdemo.app.evidence_view`): every arm at the paper's budget with its seeds, and
    the claims' verdicts with the numbers behind them, all from ``results``."""
    import time

    from .claims import SOURCES, claim_verdicts, memory_verdict
    from .nli import ARMS as NLI_ARMS
    from .quality import ARMS, MODELS

    rows = []
    for model, (key, budget, runs) in headline_sections(results).items():
        for arm, row in section_summary(runs, model, key).items():
            if arm in ARMS and ARMS[arm]["group"] not in ("main", "head"):  # the head group holds C5's arms
                continue
            same = [r for r in runs.values() if r["arm"] == arm and (arm == "base" or r.get("budget_key") == key)]
            config = ARMS.get(arm, {}).get("config", {})
            rows.append(EvidenceRow(arm, row["label"], MODELS.get(model, model), STS, row["seeds"], row["Avg."],
                                    row["Avg. sd"], row.get("node"), row.get("node sd"), row.get("node n"),
                                    dev=row.get("dev"), dev_sd=row.get("dev sd"), loss=config.get("loss", ""),
                                    target=row.get("family") or "", setting=budget_short(budget),
                                    machine=machine_text(same[-1], results)))
        for entry in fusion_entries(results).values():  # one merged model each, so no sd and no node figure
            if entry["model"] == model and entry["budget_key"] == key:
                rows.append(EvidenceRow(f"{entry['arm']}+{entry['kind']}", entry["label"], MODELS.get(model, model),
                                        STS, sorted(entry["seeds"]), entry["test"]["Avg."], dev=entry["dev"],
                                        target=ARMS.get(entry["arm"], {}).get("family", ""),
                                        setting=budget_short(budget), machine=machine_text(entry, results)))
    for pairs, epochs, arm, runs in nli_groups(results):
        (acc, acc_sd), (f1, _), (held, held_sd) = (mean_sd([r[k] for r in runs]) for k in
                                                   ("test_accuracy", "test_macro_f1", "held_out_best"))
        small = f" · {pairs:,} training pairs, {_epochs(epochs)}" if pairs < 5000 else ""
        rows.append(EvidenceRow(arm, NLI_ARMS[arm]["label"] + small,
                                "all-MiniLM-L6-v2", NLI, sorted(r["seed"] for r in runs), nli=acc, nli_sd=acc_sd,
                                nli_f1=f1, dev=held, dev_sd=held_sd, loss=runs[0]["loss"], target="head",
                                setting=f"{_epochs(epochs)}, batch 16, {pairs:,} SNLI pairs",
                                machine=machine_text(runs[-1], results)))
    claims = []
    for found in claim_verdicts(results):
        lines = [ClaimLine(line.comparison.test, line.comparison.a, line.comparison.b, line.result.diffs,
                           line.result.mean if line.result.n else None, line.result.se if line.result.n > 1 else None,
                           line.result.n, line.verdict, SOURCES[line.comparison.source][2]) for line in found.lines]
        claims.append(Claim(found.claim, found.text, found.verdict, found.n, lines))
    memory, verdict = memory_verdict(section(results, "memory"))
    claims.append(Claim("C6", f"memory about half of contrastive training ({memory})", verdict, "1"))
    return Evidence(rows, claims, time.strftime("%Y-%m-%d"))


def write_evidence(found, path: Path | None = None, tuning: dict | None = None) -> Path:
    """Write ``found`` (:func:`evidence`) as the app's ``evidence.json`` (default: the one that ships with it),
    with ``tuning`` (:func:`bench.tuning_report.evidence_block`) as its ``tuning`` block."""
    from stsdemo.app.evidence_view import EVIDENCE_FILE  # read at call time: tests point it elsewhere
    from stsdemo.atomic import write_json_atomic

    path = path or EVIDENCE_FILE
    write_json_atomic(path, {**found.to_dict(), **({"tuning": tuning} if tuning else {})})
    return path


def evidence_page_block(found) -> str:
    """The evidence block of docs/evidence.md: the table and the verdict lines the app's Benchmark tab shows, drawn by the
    same functions from the same :func:`evidence` (``found``)."""
    frame = evidence_frame(found)
    rows = [frame.columns.tolist(), ["---"] * len(frame.columns),
            *[[str(cell).replace("|", "\\|") for cell in record] for record in frame.itertuples(index=False)]]
    table = "\n".join("| " + " | ".join(row) + " |" for row in rows)
    return f"{table}\n\n{claims_markdown(found)}\n"


def _replace_between(path: Path, begin: str, end: str, body: str, missing: str) -> None:
    """Write ``body`` between the ``begin`` and ``end`` markers of ``path`` (``missing``: the file's text when it
    does not exist yet)."""
    text = path.read_text(encoding="utf-8") if path.is_file() else missing
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{begin}\n{body}\n{end}{tail}"
    else:
        text += f"\n{begin}\n{body}\n{end}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def render(results: dict | None = None, md_path: Path | None = None, include_quick: bool = False) -> str:
    """Write the AUTO part of ``md_path`` (default docs/results.md); ``include_quick`` keeps --quick runs."""
    results = results if results is not None else load_results()
    parts = ["### Verdicts on the paper's claims (computed from the tables below)\n",
             *verdict_table(results),
             *tuning_report.markdown(results),
             "### NLI accuracy (SNLI test)\n", *nli_table(results),
             "### Quality (7-task SentEval, Spearman x100 of cosine)\n",
             *quality_tables(results, include_quick),
             *cpu_time_table(results),
             "### Speed and memory (measured side by side in one run)\n", *speed_tables(results),
             "### Playground: speed (`python -m bench.playground`)\n", *playground.markdown(results),
             "### Playground: where the buffer pays off (`python -m bench.payoff`)\n",
             *payoff.markdown(payoff.recorded_map(results))]
    machine = section(results, "machine")
    if machine:
        parts.append(f"Machine: {machine.get('cpus')} CPU cores, torch {machine.get('torch')} "
                     f"({machine.get('torch_threads')} threads), CUDA: {machine.get('cuda')}.\n")
    auto = "\n".join(parts)
    _replace_between(md_path or RESULTS_MD, BEGIN, END, auto, "# Benchmark results\n")
    return auto


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    results = load_results()
    render(results)
    found = evidence(results)  # one computation for the app's file and the evidence page: both carry one date
    log(f"wrote {write_evidence(found, tuning=tuning_report.evidence_block(results))}")
    if EVIDENCE_BEGIN in EVIDENCE_MD.read_text(encoding="utf-8"):
        _replace_between(EVIDENCE_MD, EVIDENCE_BEGIN, EVIDENCE_END, evidence_page_block(found), "")
        log(f"wrote the evidence block of {EVIDENCE_MD}")
    if not args.no_plots:
        cost = section(results, "scaling").get("cost")
        for made in (plot_quality(results), plot_speed(results), plot_scaling(cost) if cost else None):
            if made:
                log(f"wrote {made}")
    log(f"wrote {RESULTS_MD}")


if __name__ == "__main__":
    main(sys.argv[1:])
