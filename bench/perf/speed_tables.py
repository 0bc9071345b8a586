"""The speed and memory section of docs/results.md: each of our measurements beside its reference measured in the
same run (throughput, evaluation time, latency, peak memory), the edges of issue 11 with their targets, and the
cost growth with pairs and length."""

from __future__ import annotations

from stsdemo.evaluate import TABLE_NAMES

from ..common import REPO
from ..schema import section


def speed_tables(results: dict) -> list[str]:
    speed, memory, lines = section(results, "speed"), section(results, "memory"), []
    train = speed.get("train")
    lines.append("| Measurement | ours | reference | ratio | setting |")
    lines.append("|---|---:|---:|---:|---|")
    if train:
        lines.append(
            f"| training throughput (pairs/s, {repeats_text(train)}) | {train['ours_pairs_per_s']:.1f} | "
            f"{train['st_pairs_per_s']:.1f} (SentenceTransformerTrainer, {train['st_loss']}) | "
            f"**{train['ratio']:.2f}x** | {train['steps']} steps, batch {train['batch_size']}, max length "
            f"{train['max_length']}, {train['device']}{load_text(train)} |"
        )
    else:
        lines.append("| training throughput | not run | | | `python -m bench.perf.speed --parts train` |")
    lines.append(cpu_precision_row(speed.get("precision")))
    ev = speed.get("eval")
    if ev:
        lines.append(
            f"| evaluation time (s, median of {ev['repeats']}) | {ev['ours_seconds']:.1f} | "
            f"{ev['naive_seconds']:.1f} (naive: pad to 256, every pair) | **{ev['speedup']:.2f}x faster** | "
            f"{', '.join(TABLE_NAMES.get(t, t) for t in ev['tasks'])} ({ev['pairs']:,} pairs); max abs. "
            f"difference of the scores {ev['max_abs_diff']:.4f} |"
        )
    else:
        lines.append("| evaluation time | not run | | | `python -m bench.perf.speed --parts eval` |")
    lat = speed.get("latency")
    if lat:
        api = (
            f"{lat['api_p50_ms']:.0f} / {lat['api_p95_ms']:.0f}"
            if "api_p50_ms" in lat
            else f"not measured: {lat.get('api_error', '?')}"
        )
        lines.append(
            f"| single-pair latency p50 / p95 (ms) | {lat['in_process_p50_ms']:.0f} / "
            f"{lat['in_process_p95_ms']:.0f} (in-process `score_pair`) | {api} (app `/score` via gradio_client) "
            f"| | {lat['calls']} calls, {lat['device']} |"
        )
    else:
        lines.append("| single-pair latency | not run | | | `python -m bench.perf.speed --parts latency` |")
    mem = memory.get("peak")
    if mem:
        p = mem["peak_rss_mib"]
        lines.append(
            f"| peak RSS (MiB), own subprocess each | {p['ours']:.0f} (batch {mem['batches']['ours']}) | "
            f"{p['infonce']:.0f} (InfoNCE, batch {mem['batches']['infonce']}) | **{mem['ratio_rss']:.2f}x** "
            f"(above the {p['idle']:.0f} MiB idle floor: {mem['ratio_rss_above_idle']:.2f}x) | max length "
            f"{mem['max_length']}, {mem['steps']} steps, {mem['device']} |"
        )
        if "ratio_cuda" in mem:
            c = mem["cuda_peak_mib"]
            lines.append(
                f"| CUDA max_memory_allocated (MiB) | {c['ours']:.0f} | {c['infonce']:.0f} | "
                f"**{mem['ratio_cuda']:.2f}x** | |"
            )
    else:
        lines.append("| peak memory | not run | | | `python -m bench.perf.memory` |")
    lines.append("")
    lines += edge_table(speed)
    scaling = section(results, "scaling").get("cost")
    if scaling:
        lines.append("Cost growth (plot: `assets/bench-scaling.png`):\n")
        lines.append("| training pairs | " + " | ".join(str(r["pairs"]) for r in scaling["train"]) + " |")
        lines.append("|---|" + "---:|" * len(scaling["train"]))
        lines.append(
            "| train seconds | " + " | ".join(f"{r['seconds']:.1f}" for r in scaling["train"]) + " |\n"
        )
        lines.append("| eval pairs | " + " | ".join(str(r["pairs"]) for r in scaling["eval"]) + " |")
        lines.append("|---|" + "---:|" * len(scaling["eval"]))
        lines.append(
            "| eval seconds | " + " | ".join(f"{r['seconds']:.1f}" for r in scaling["eval"]) + " |\n"
        )
        rows = scaling["train_length"]
        lines.append("| max length | " + " | ".join(str(r["max_length"]) for r in rows) + " |")
        lines.append("|---|" + "---:|" * len(rows))
        lines.append(
            f"| train seconds ({rows[0]['pairs']} pairs) | "
            + " | ".join(f"{r['seconds']:.1f}" for r in rows)
            + " |"
        )
        ev_rows = scaling["eval_length"]
        lines.append(
            f"| eval seconds ({ev_rows[0]['pairs']} pairs), per-batch padding | "
            + " | ".join(f"{r['seconds']:.1f}" for r in ev_rows)
            + " |"
        )
        lines.append(
            f"| eval seconds ({ev_rows[0]['pairs']} pairs), padded to max length | "
            + " | ".join(f"{r['naive_seconds']:.1f}" for r in ev_rows)
            + " |\n"
        )
    else:
        lines.append("Cost growth: not run (`python -m bench.perf.scaling`).\n")
    return lines


def cpu_precision_row(record: dict | None) -> str:
    """The CPU's precision rule checked (bench.perf.precision on a CPU): seconds per training step in fp32 (what the
    rule trains in, untimed) against bf16 autocast, the loop's own probe alternating the two."""
    if not record:
        return "| training step, fp32 vs bf16 autocast | not run | | | `python -m bench.perf.precision` on a CPU |"
    seconds = record["step_seconds"]
    verdict = (
        "the rule's fp32 is the faster" if record["rule_is_faster"] else f"**{record['faster']} is faster**"
    )
    return (
        f"| training step on a CPU, fp32 (the rule, untimed) vs bf16 autocast (s, median of {record['repeats']} "
        f"alternating probes) | {seconds['fp32']:.2f} | {seconds['bf16']:.2f} (bf16 autocast) | "
        f"**{record['bf16_over_fp32']:.1f}x slower in bf16**: {verdict} | batch {record['batch_size']}, max length "
        f"{record['max_length']}, {record['device']}{load_text(record)} |"
    )


def repeats_text(record: dict) -> str:
    """'median of 3 after 1 warm-up repeat' (records from before warm-ups were left out: 'median of N')."""
    warmup = record.get("warmup_repeats", 0)
    kept = record["repeats"] - warmup
    return f"median of {kept}" + (f" after {warmup} warm-up repeat{'s' * (warmup > 1)}" if warmup else "")


def load_text(record: dict) -> str:
    """How busy the machine was while a record ran: ', load 1.2-1.9 on 2 CPUs', and whether the GPU was shared."""
    load = record.get("load")
    if not load:
        return ""
    readings = [load["before"]["load_1min"], load["after"]["load_1min"]]
    text = f", load {min(readings):.1f}-{max(readings):.1f} on {load['after']['cpus']} CPUs"
    shared = record.get("gpu_shared")
    return text + ("" if shared is None else ", GPU shared" if shared else ", GPU to itself")


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def edge_table(speed: dict) -> list[str]:
    """The edges of issue 11 (API latency, score view, CLI start-up, evaluation), each beside its reference
    measured in the same run, and whether its target is met."""
    rows = []  # (what, measured, reference in the same run, target, met)
    lat, view, cli = speed.get("latency", {}), speed.get("view"), speed.get("cli")
    ev, stsb = speed.get("eval7"), speed.get("stsb")
    if "api_p50_ms" in lat and "echo_p50_ms" in lat:
        rows.append(
            (
                f"`/score` via gradio_client, p50 of {lat['calls']} (ms)",
                f"{lat['api_p50_ms']:.0f}",
                f"{lat['echo_p50_ms']:.0f} (bare Gradio echo app)",
                "within 40 ms of the echo app",
                _met(lat["api_p50_ms"] - lat["echo_p50_ms"] <= 40),
            )
        )
    if view:
        timed = view.get(
            "timed", "`score_view` in-process"
        )  # records before the view's figure moved to latency
        rows.append(
            (
                f"{timed}, p50 of {view['calls']} (ms)",
                f"{view['view_p50_ms']:.0f}",
                f"{view['score_pair_p50_ms']:.0f} (`score_pair`)",
                "<= 30 ms",
                _met(view["view_p50_ms"] <= 30),
            )
        )
    if cli:
        rows.append(
            (
                f"`python -m stsdemo --help`, median of {cli['repeats']} (s)",
                f"{cli['help_seconds']:.2f}",
                "",
                "<= 1 s",
                _met(cli["help_seconds"] <= 1),
            )
        )
    if cli and "score_seconds" in cli:
        rows.append(
            (
                f"cold `python -m stsdemo score A B`, median of {cli['repeats']} (s)",
                f"{cli['score_seconds']:.1f}",
                "",
                "<= 5 s",
                _met(cli["score_seconds"] <= 5),
            )
        )
    if ev:
        rows.append(
            (
                f"{len(ev['tasks'])}-task evaluation, {ev['pairs']:,} pairs, {repeats_text(ev)} (s)"
                + load_text(ev),
                f"{ev['ours_seconds']:.1f}",
                f"{ev['reference_seconds']:.1f} (sentence-transformers EmbeddingSimilarityEvaluator)",
                "<= 0.4x, same correlations to 4 decimals",
                f"{ev['ratio']:.2f}x, max diff {ev['max_abs_diff']:.1e} (x100): "
                + _met(ev["ratio"] <= 0.4 and ev["identical_4dp"]),
            )
        )
    if stsb:
        rows.append(
            (
                f"`eval --tasks STSBenchmark`, median of {stsb['repeats']} (s)",
                f"{stsb['cli_seconds']:.1f} (command, start-up included)",
                f"{stsb['in_process_seconds']:.1f} (in-process)",
                "",
                "",
            )
        )
    if not rows:
        return [
            "Edges (API, CLI start-up, 7-task evaluation): not run (`python -m bench.perf.speed --parts "
            "latency,view,cli,eval7,stsb`).\n"
        ]
    return [
        "| Edge | measured | reference in the same run | target | met |",
        "|---|---:|---:|---|---|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]


GPU_TRAIN_RATIO = 3.0  # issue 39: ours against sentence-transformers' trainer on the same GPU
GPU_EVAL7_SECONDS = 5.0  # issue 39: the 7-task evaluation on an H100


def machine_tables(results: dict) -> list[str]:
    """The figures merged from other machines' folders (``speed.machines``, bench.evidence.merge_runs), one table per
    machine, each row naming the log it came from: training pairs/s per precision and batch with the share of the
    GPU's dense peak, ours against sentence-transformers' trainer, and the 7-task evaluation against the reference
    evaluator with its largest score difference."""
    lines = []
    for machine, found in section(results, "speed").get("machines", {}).items():
        rows = [
            (
                f"training, {row['precision']}"
                + (f" (chose {row['chosen']})" if row["precision"] == "auto" else "")
                + f", batch {row['batch_size']}, max length {row['max_length']} (pairs/s)",
                f"{row['pairs_per_s']:.1f}",
                "",
                f"{100 * row['share_of_peak']:.2f} % of the dense peak "
                f"({row['model_tflops']:.2f} TFLOP/s of model matrix work)",
                f"bench.perf.precision, {row['log']}",
            )
            for row in found.get("precision", [])
        ]
        train, ev = found.get("train"), found.get("eval7")
        if train:
            rows.append(
                (
                    f"training throughput, {train['ours_loss']} vs {train['st_loss']} (pairs/s, median of "
                    f"{train['repeats']}; each repeat: "
                    + ", ".join(f"{v:.1f}" for v in train["ours_all"])
                    + " vs "
                    + ", ".join(f"{v:.1f}" for v in train["st_all"])
                    + (
                        f"; both in the precision ours chose: {', '.join(train['precision_all'])}"
                        if "precision_all" in train
                        else ""
                    )
                    + ")",
                    f"{train['ours_pairs_per_s']:.1f}",
                    f"{train['st_pairs_per_s']:.1f} (SentenceTransformerTrainer)",
                    f"{train['ratio']:.2f}x, batch {train['batch_size']}, {train['steps']} steps (target on a GPU "
                    f"≥ {GPU_TRAIN_RATIO:g}x: {_met(train['ratio'] >= GPU_TRAIN_RATIO)})",
                    "bench.perf.speed --parts train",
                )
            )
        if ev:
            rows.append(
                (
                    f"{len(ev['tasks'])}-task evaluation, {ev['pairs']:,} pairs (s, median of {ev['repeats']})",
                    f"{ev['ours_seconds']:.2f}",
                    f"{ev['reference_seconds']:.2f} ({ev['reference']})",
                    f"{ev['ratio']:.2f}x; largest score difference {ev['max_abs_diff']:.4f} (Spearman x100); target "
                    f"on a GPU ≤ {GPU_EVAL7_SECONDS:g} s: {_met(ev['ours_seconds'] <= GPU_EVAL7_SECONDS)}",
                    "bench.perf.speed --parts eval7",
                )
            )
        if rows:
            source = found["source"]  # the folder of its logs, or a note (a file) saying they were not kept
            where = (
                f"merged from records whose logs were not kept: `{source}`"
                if (REPO / source).is_file()
                else f"merged from the logs in `{source}`"
            )
            lines += [
                f"**{machine}** ({where}; its own runs, not this machine's):\n",
                "| measurement | ours | reference | reading | from |",
                "|---|---:|---:|---|---|",
                *("| " + " | ".join(row) + " |" for row in rows),
                "",
            ]
    return lines
