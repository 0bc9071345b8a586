"""The benchmark's plots, drawn from docs/results.json: assets/bench-quality.png, bench-speed.png and
bench-scaling.png. They need matplotlib; without it each is skipped with a message."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ..common import ASSETS, log, mean_sd
from ..schema import fusion_entries, section
from .quality_arms import ARMS
from .quality_tables import budget_short, encoder_name, headline_sections, section_summary


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
    left.plot(
        [r["pairs"] for r in scaling["train"]],
        [r["seconds"] for r in scaling["train"]],
        "o-",
        label="training",
    )
    left.plot(
        [r["pairs"] for r in scaling["eval"]],
        [r["seconds"] for r in scaling["eval"]],
        "s-",
        label="evaluation",
    )
    left.set(xlabel="pairs", ylabel="seconds", title="Cost against number of pairs")
    left.legend()
    right.plot(
        [r["max_length"] for r in scaling["train_length"]],
        [r["seconds"] for r in scaling["train_length"]],
        "o-",
        label=f"training, {scaling['train_length'][0]['pairs']} pairs",
    )
    right.plot(
        [r["max_length"] for r in scaling["eval_length"]],
        [r["seconds"] for r in scaling["eval_length"]],
        "s-",
        label=f"evaluation, per-batch padding, {scaling['eval_length'][0]['pairs']} pairs",
    )
    right.plot(
        [r["max_length"] for r in scaling["eval_length"]],
        [r["naive_seconds"] for r in scaling["eval_length"]],
        "^--",
        label="evaluation, padded to max length",
    )
    right.set(xlabel="max length (tokens)", ylabel="seconds", title="Cost against max length", xscale="log")
    right.minorticks_off()
    right.set_xticks(
        [r["max_length"] for r in scaling["eval_length"]],
        [str(r["max_length"]) for r in scaling["eval_length"]],
    )
    right.legend(fontsize=8)
    fig.suptitle(f"stsdemo cost growth on {scaling['device']}", fontsize=10)
    return _save(plt, fig, path)


def plot_quality(results: dict, path: Path | None = None) -> Path | None:
    """7-task Avg. per arm, one panel per encoder (its headline table), fused rows beside their arms."""
    plt = _pyplot()
    chosen = headline_sections(results)
    if plt is None or not chosen:
        return None
    panels = []
    for model, (key, budget, runs) in chosen.items():
        summary = section_summary(runs, model, key)
        bars = {
            arm: (
                row["label"],
                row["Avg."],
                row["Avg. sd"],
                len(row["seeds"]),
                "#888888" if arm == "base" else "#d62728" if row.get("kind") == "st" else "#1f77b4",
            )
            for arm, row in summary.items()
            if row["group"] == "main" or arm not in ARMS
        }
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
        ax.barh(
            range(len(order)),
            [bars[a][1] for a in order],
            xerr=[bars[a][2] for a in order],
            color=[bars[a][4] for a in order],
        )
        ax.set_yticks(
            range(len(order)),
            [textwrap.fill(f"{bars[a][0]} (n={bars[a][3]})", 45) for a in order],
            fontsize=7,
        )
        ax.set_xlim(min(bars[a][1] for a in order) - 2, max(bars[a][1] for a in order) + 1)
        if "base" in summary:
            ax.axvline(summary["base"]["Avg."], color="#888888", linestyle=":", linewidth=1)
        ax.set_xlabel("7-task SentEval Avg. (Spearman x100, cosine)")
        ax.set_title(f"{encoder_name(model)} fine-tunes, {budget_short(budget)}", fontsize=8)
    return _save(plt, fig, path or ASSETS / "bench-quality.png")


def plot_speed(results: dict, path: Path | None = None) -> Path | None:
    speed, memory = section(results, "speed"), section(results, "memory")
    panels = [
        p
        for p in (("train", speed.get("train")), ("eval", speed.get("eval")), ("memory", memory.get("peak")))
        if p[1]
    ]
    plt = _pyplot()
    if plt is None or not panels:
        return None
    path = path or ASSETS / "bench-speed.png"
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.4))
    axes = [axes] if len(panels) == 1 else list(axes)
    for ax, (name, data) in zip(axes, panels):
        if name == "train":
            values, labels, title = (
                [data["ours_pairs_per_s"], data["st_pairs_per_s"]],
                ["stsdemo", "ST trainer"],
                "training pairs/s (higher is better)",
            )
        elif name == "eval":
            values, labels, title = (
                [data["ours_seconds"], data["naive_seconds"]],
                ["stsdemo", "naive (pad 256)"],
                "evaluation seconds (lower is better)",
            )
        else:
            values = [data["peak_rss_mib"]["ours"], data["peak_rss_mib"]["infonce"]]
            labels = [f"ours b{data['batches']['ours']}", f"InfoNCE b{data['batches']['infonce']}"]
            title = "peak RSS MiB (lower is better)"
        ax.bar(labels, values, color=["#1f77b4", "#d62728"])
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:.1f}", ha="center", va="bottom", fontsize=8)
        ax.set_title(title, fontsize=9)
    return _save(plt, fig, path)
