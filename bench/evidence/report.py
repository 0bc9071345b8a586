"""Turn docs/results.json into the tables of docs/results.md and the plots in assets/bench-*.png.

    python -m bench.evidence.report

The tables are written between the ``<!-- BEGIN AUTO -->`` and ``<!-- END AUTO -->`` markers of
docs/results.md; the text around them (commands, commentary) is left as it is. Plots need matplotlib;
without it they are skipped with a message.
"""
# This module assembles the page and runs the command; the sections' tables come from bench.evidence.quality_tables,
# bench.evidence.nli_tables and bench.perf.speed_tables (the tuning's and the Playground's from their own parts), the
# plots from bench.evidence.report_plots, the app's evidence file and the evidence page's block from
# bench.evidence.app_evidence.

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stsdemo.evaluate import TASKS
from stsdemo.paired import RULE_IN_WORDS

from ..common import REPO, load_results, log
from ..perf import browser_playground, disk, first_visit, playground_speed
from ..perf.speed_tables import machine_tables, speed_tables
from ..schema import section
from . import evidence_prose, payoff, presets, tuning_evidence, tuning_report
from .app_evidence import evidence, evidence_page_block, write_evidence
from .nli_tables import nli_table
from .quality_tables import cpu_time_table, quality_tables
from .report_plots import plot_quality, plot_scaling, plot_speed

RESULTS_MD = REPO / "docs" / "results.md"
BEGIN, END = "<!-- BEGIN AUTO -->", "<!-- END AUTO -->"
EVIDENCE_MD = REPO / "docs" / "evidence.md"  # the evidence block's page (it left the README, issue 27)
EVIDENCE_BEGIN, EVIDENCE_END = (
    "<!-- BEGIN EVIDENCE (python -m bench.evidence.report) -->",
    "<!-- END EVIDENCE -->",
)


def verdict_table(results: dict) -> list[str]:
    """One line per claim and comparison, the paired differences beside each verdict (bench.evidence.claims)."""
    from .claims import claim_verdicts, memory_verdict

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        f"Paired by seed (the same seed: the same data order and initialisation); {RULE_IN_WORDS}. STS: "
        "7-task Avg. of all-MiniLM-L6-v2 at the paper's budget; NLI: SNLI test accuracy (%).\n",
        "| Claim | comparison (a vs b) | per-seed a - b | mean ± se, n | verdict |",
        "|---|---|---|---|---|",
    ]
    for claim in claim_verdicts(results):
        lines.append(
            f"| **{claim.claim}** {cell(claim.text)} | | | n = {claim.n} | **{cell(str(claim.verdict))}** |"
        )
        for line in claim.lines:
            diffs = ", ".join(f"{d:+.2f}" for d in line.result.diffs) or "-"
            lines.append(
                f"| {claim.claim} | {cell(line.comparison.test)} (`{line.comparison.a}` vs "
                f"`{line.comparison.b}`) | {diffs} | {line.result.numbers() or '-'} | {cell(line.verdict)} |"
            )
    evidence, verdict = memory_verdict(section(results, "memory"))
    lines += [
        f"| **C6** memory about half of contrastive training | {cell(evidence)} | | | **{cell(verdict)}** |",
        "",
    ]
    return lines


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
    parts = [
        "### Verdicts on the paper's claims (computed from the tables below)\n",
        *verdict_table(results),
        *tuning_report.markdown(results),
        "### NLI accuracy (SNLI test)\n",
        *nli_table(results),
        f"### Quality ({len(TASKS)}-task SentEval, Spearman x100 of cosine)\n",
        *quality_tables(results, include_quick),
        *cpu_time_table(results),
        "### Speed and memory (measured side by side in one run)\n",
        *speed_tables(results),
        *machine_tables(results),
        "### Playground in the browser (`python -m bench.perf.browser_playground`)\n",
        *browser_playground.markdown(results),
        "### Playground: speed (`python -m bench.perf.playground_speed`)\n",
        *playground_speed.markdown(results),
        "### Disk per run (`python -m bench.perf.disk`)\n",
        *disk.markdown(results),
        "### Playground: the first visit to a fresh app (`python -m bench.perf.first_visit`)\n",
        *first_visit.markdown(results),
        "### Playground: the story presets (`python -m bench.evidence.presets`)\n",
        *presets.markdown(results),
        "### Playground: where the buffer pays off (`python -m bench.evidence.payoff`)\n",
        *payoff.markdown(payoff.map_from_results(results)),
    ]
    machine = section(results, "machine")
    if machine:
        parts.append(
            f"Machine: {machine.get('cpus')} CPU cores, torch {machine.get('torch')} "
            f"({machine.get('torch_threads')} threads), CUDA: {machine.get('cuda')}.\n"
        )
    auto = "\n".join(parts)
    _replace_between(md_path or RESULTS_MD, BEGIN, END, auto, "# Benchmark results\n")
    return auto


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    results = load_results()
    render(results)
    found = evidence(results)  # one computation for the app's file and the evidence page: both carry one date
    log(f"wrote {write_evidence(found, tuning=tuning_evidence.evidence_block(results))}")
    if EVIDENCE_BEGIN in EVIDENCE_MD.read_text(encoding="utf-8"):
        _replace_between(EVIDENCE_MD, EVIDENCE_BEGIN, EVIDENCE_END, evidence_page_block(found), "")
        log(f"wrote the evidence block of {EVIDENCE_MD}")
    if evidence_prose.BEGIN in EVIDENCE_MD.read_text(encoding="utf-8"):
        _replace_between(
            EVIDENCE_MD, evidence_prose.BEGIN, evidence_prose.END, evidence_prose.prose(results), ""
        )
        log(f"wrote the prose of {EVIDENCE_MD}")
    if not args.no_plots:
        cost = section(results, "scaling").get("cost")
        for made in (plot_quality(results), plot_speed(results), plot_scaling(cost) if cost else None):
            if made:
                log(f"wrote {made}")
    log(f"wrote {RESULTS_MD}")


if __name__ == "__main__":
    main(sys.argv[1:])
