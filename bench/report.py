"""Turn docs/results.json into the tables of docs/results.md and the plots in assets/bench-*.png.

    python -m bench.report

The tables are written between the ``<!-- BEGIN AUTO -->`` and ``<!-- END AUTO -->`` markers of
docs/results.md; the text around them (commands, commentary) is left as it is. Plots need matplotlib;
without it they are skipped with a message.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import ASSETS, REPO, load_results, log

RESULTS_MD = REPO / "docs" / "results.md"
BEGIN, END = "<!-- BEGIN AUTO -->", "<!-- END AUTO -->"
TASKS = ("STS12", "STS13", "STS14", "STS15", "STS16", "STSBenchmark", "SICKRelatedness")
SHORT = {"STSBenchmark": "STS-B", "SICKRelatedness": "SICK-R"}
GROUP_TITLES = {
    "main": "Main comparison (STS-B + SICK-R train, filtered)",
    "stages": "One-stage versions",
    "variant": "Labelled variant: buffer-zone loss on 5·cos(u, v)",
    "head": "Head ablation (paper Table 6), Smooth K2 two-stage",
    "nli": "Paper Table 1's question on NLI data (SNLI dev+test), one stage",
    "sweep": "k / x0 sweep (paper Table 5), Smooth K2 two-stage",
}
# the row each group is read against, repeated at its top: the untrained encoder, or the default setting
# (head [u,v,|u-v|], k = 2, x0 = 0.25) that the head ablation and the sweep vary
REFERENCE_ROWS = {"main": "base", "head": "sk2-2stage", "sweep": "sk2-2stage"}


def _cell(mean: float, sd: float, n: int) -> str:
    return f"{mean:.2f} ± {sd:.2f}" if n > 1 else f"{mean:.2f}"


def budget_text(budget: dict) -> str:
    steps = budget.get("max_steps")
    seen = f"{steps} steps x batch {budget['batch_size']} = {steps * budget['batch_size']:,} pairs seen" if steps \
        else f"{budget['epochs']:g} epoch(s), batch {budget['batch_size']}"
    text = f"{seen}, max length {budget['max_length']}, STS-B dev every {budget['eval_every']} steps"
    if budget.get("stage1_max_steps"):
        text += f"; two-stage arms: stage 1 (head on SNLI, encoder frozen) {budget['stage1_max_steps']} steps first"
    return text


def quality_tables(quality: dict, include_quick: bool = False) -> list[str]:
    from .quality import ARMS, summarize

    runs = {k: v for k, v in quality.get("runs", {}).items() if include_quick or not k.endswith("/quick")}
    if not runs:
        return ["_No quality runs recorded yet._"]
    budgets = {}
    for result in runs.values():
        if result["arm"] != "base" or len(runs) == 1:
            budgets.setdefault(result["budget_key"], result["budget"])
    lines = []
    for key, budget in budgets.items():
        summary = summarize(runs, key)
        base = summary.get("base", {}).get("Avg.")
        if "base" in summary and "dev" not in summary["base"]:
            # the untrained encoder's dev score is step 0 of every run's dev curve
            step0 = [r["dev_curve"][0]["dev_cosine"] for r in runs.values()
                     if r.get("dev_curve") and r["dev_curve"][0]["step"] == 0]
            if step0:
                summary["base"]["dev"], summary["base"]["dev sd"] = step0[0], 0.0
        lines.append(f"**Budget:** {budget_text(budget)}. Test sets scored once per finished run, on the "
                     "checkpoint with the best STS-B dev cosine Spearman (dev is also scored at step 0, so an arm "
                     "that never beats the untrained encoder on dev keeps it). Mean ± sd over seeds where n > 1.\n")
        for group in GROUP_TITLES:
            arms = [a for a in ARMS if a in summary and ARMS[a]["group"] == group]
            if not arms:
                continue
            rows = dict(summary)
            reference = REFERENCE_ROWS.get(group)
            if reference in summary and reference not in arms:
                arms.insert(0, reference)
                # compared on the seeds the group's arms ran, not on all of the reference's seeds
                seeds = {seed for arm in arms[1:] for seed in summary[arm]["seeds"]}
                same_seeds = {k: r for k, r in runs.items() if r["arm"] == reference and r["seed"] in seeds}
                rows[reference] = summarize(same_seeds, key).get(reference, summary[reference])
            lines.append(f"#### {GROUP_TITLES[group]}\n")
            header = ["Arm", "n", *(SHORT.get(t, t) for t in TASKS), "Avg.", "STS-B dev", "best dev step",
                      "last-step dev: cosine / head"]
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|" + "|".join(["---", "---:"] + ["---:"] * (len(header) - 2)) + "|")
            for arm in arms:
                row = rows[arm]
                n = len(row["seeds"])
                # a "|" in a label would split the table cell
                label = row["label"].replace("|", "\\|") + (" *" if ARMS[arm].get("star") else "")
                cells = [_cell(row[t], row[f"{t} sd"], n) for t in TASKS]
                avg = _cell(row["Avg."], row["Avg. sd"], n)
                if base is not None and arm != "base":
                    avg += f" ({row['Avg.'] - base:+.2f})"
                dev = _cell(row["dev"], row["dev sd"], n) if "dev" in row else "-"
                steps = ", ".join(row["best_steps"]) if arm != "base" else "-"
                last = "-"
                if "last dev cosine" in row:
                    head = row["last dev head"]
                    last = f"{row['last dev cosine']:.2f} / " + (f"{head:.2f}" if head is not None else "-")
                lines.append(f"| {label} (`{arm}`) | {n} | " + " | ".join(cells)
                             + f" | **{avg}** | {dev} | {steps} | {last} |")
            lines.append("")
        lines.append("(In brackets: difference of Avg. from the untrained base model. Best dev step is "
                     "`stage:step`; `1:0` means no checkpoint beat the untrained encoder on STS-B dev, so the "
                     "arm's test row is the base model's. Last-step dev: STS-B dev Spearman at the end of training, of the "
                     "cosine and of the head's prediction (mean over seeds; no head for sentence-transformers' arms), "
                     "shown whatever was selected.)\n")
    failed = quality.get("failed", {})
    failed = {k: v for k, v in failed.items() if k not in runs and not k.endswith("/quick")}
    if failed:
        lines.append("Failed runs: " + "; ".join(f"`{k}`: {v}" for k, v in failed.items()) + "\n")
    return lines


def speed_tables(results: dict) -> list[str]:
    speed, memory, lines = results.get("speed", {}), results.get("memory", {}), []
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
                     f"{', '.join(SHORT.get(t, t) for t in ev['tasks'])} ({ev['pairs']:,} pairs); max abs. "
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
    scaling = results.get("scaling", {}).get("cost")
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


def plot_quality(quality: dict, path: Path | None = None) -> Path | None:
    from .quality import ARMS, summarize

    plt = _pyplot()
    runs = {k: v for k, v in quality.get("runs", {}).items() if not k.endswith("/quick")}
    if plt is None or not runs:
        return None
    keys = {}
    for result in runs.values():
        if result["arm"] != "base" or len(runs) == 1:  # base belongs to every budget
            keys[result["budget_key"]] = keys.get(result["budget_key"], 0) + 1
    key = max(keys, key=keys.get)  # the budget with the most runs
    summary = summarize(runs, key)
    arms = sorted(summary, key=lambda a: summary[a]["Avg."])
    path = path or ASSETS / "bench-quality.png"
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(arms) + 1.5))
    colors = ["#888888" if a == "base" else "#d62728" if ARMS[a]["kind"] == "st" else "#1f77b4" for a in arms]
    ax.barh(range(len(arms)), [summary[a]["Avg."] for a in arms], xerr=[summary[a]["Avg. sd"] for a in arms],
            color=colors)
    ax.set_yticks(range(len(arms)), [f"{summary[a]['label']} (n={len(summary[a]['seeds'])})" for a in arms], fontsize=8)
    low = min(summary[a]["Avg."] for a in arms)
    ax.set_xlim(low - 2, max(summary[a]["Avg."] for a in arms) + 1)
    if "base" in summary:
        ax.axvline(summary["base"]["Avg."], color="#888888", linestyle=":", linewidth=1)
    ax.set_xlabel("7-task SentEval Avg. (Spearman x100, cosine)")
    budget = next(r["budget"] for r in runs.values() if r["budget_key"] == key)
    ax.set_title(f"all-MiniLM-L6-v2 fine-tunes, {budget_text(budget).split(';')[0]}", fontsize=8)
    return _save(plt, fig, path)


def plot_speed(results: dict, path: Path | None = None) -> Path | None:
    speed, memory = results.get("speed", {}), results.get("memory", {})
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


def render(results: dict | None = None, md_path: Path | None = None, include_quick: bool = False) -> str:
    """Write the AUTO part of ``md_path`` (default docs/results.md); ``include_quick`` keeps --quick runs."""
    results = results if results is not None else load_results()
    parts = ["### Quality (7-task SentEval, Spearman x100 of cosine)\n",
             *quality_tables(results.get("quality", {}), include_quick),
             "### Speed and memory (measured side by side in one run)\n", *speed_tables(results)]
    machine = results.get("machine")
    if machine:
        parts.append(f"Machine: {machine.get('cpus')} CPU cores, torch {machine.get('torch')} "
                     f"({machine.get('torch_threads')} threads), CUDA: {machine.get('cuda')}.\n")
    auto = "\n".join(parts)
    md_path = md_path or RESULTS_MD
    text = md_path.read_text(encoding="utf-8") if md_path.is_file() else f"# Benchmark results\n\n{BEGIN}\n{END}\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = f"{head}{BEGIN}\n{auto}\n{END}{tail}"
    else:
        text += f"\n{BEGIN}\n{auto}\n{END}\n"
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text(text, encoding="utf-8")
    return auto


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    results = load_results()
    render(results)
    if not args.no_plots:
        for made in (plot_quality(results.get("quality", {})), plot_speed(results),
                     plot_scaling(results["scaling"]["cost"]) if results.get("scaling", {}).get("cost") else None):
            if made:
                log(f"wrote {made}")
    log(f"wrote {RESULTS_MD}")


if __name__ == "__main__":
    main(sys.argv[1:])
