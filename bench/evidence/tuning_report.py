"""The tuned evidence's part of docs/results.md (the tables of :mod:`bench.evidence.tuning_evidence`'s block, the
machines' speed and the CoSENT/AnglE diagnosis), and the command that rewrites that part and the app's tuning block
alone.

    python -m bench.evidence.tuning_report   # rewrite only the tuned section of docs/results.md and the app's block
"""

from __future__ import annotations

import argparse
import json
import sys

from ..common import REPO, log
from . import tuning
from .quality import point_slug
from .tuning_evidence import evidence_block, speed_rows

TITLE = "### Tuned evidence: every arm at its best learning rate (`python -m bench.evidence.tuning`)"


# ---- docs/results.md --------------------------------------------------------------------------------


def _cell(value, sd=None, digits=2, sign="") -> str:
    if value is None:
        return "–"
    return f"{value:{sign}.{digits}f}" + (f" ± {sd:.{digits}f}" if sd is not None else "")


def _table(title: str, header: list[str], rows: list[list], numeric_from: int) -> list[str]:
    """A markdown table under a bold title; columns from ``numeric_from`` on are right-aligned."""
    rule = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    return [
        "",
        title + "\n",
        "| " + " | ".join(header) + " |",
        "|" + "|".join(rule) + "|",
        *["| " + " | ".join(map(str, row)) + " |" for row in rows],
    ]


def _claim_cells(line: dict) -> list[str]:
    fixed = line["fixed"] or {}
    tuned = f"{_cell(line['mean'], line['se'], sign='+')} (n = {line['n']})" if line["n"] else "–"
    return [
        tuned,
        line["verdict"],
        "; ".join(line["left_out"]) or "–",
        f"{_cell(fixed['mean'], fixed['se'], sign='+')} (n = {fixed['n']})" if fixed else "–",
        fixed.get("verdict", "not run"),
    ]


def _tables(block: dict, results: dict) -> list[str]:
    kept = next((r["dev"] for r in block["grid"] if r["kept_start"] == r["points"]), None)
    grid = [
        [
            r["label"],
            point_slug(r["point"]),
            f"{r['dev']:.2f}",
            _cell(r["fixed_dev"]),
            f"{r['low']:.2f}",
            f"{r['points']} ({r['kept_start']})",
            r["machine"],
        ]
        for r in block["grid"]
    ]
    names = [cell["name"] for cell in block["ablation"][0]["cells"]] if block["ablation"] else []
    ablation = [
        [
            r["label"],
            f"{r['lr']:g}",
            *[f"{cell['dev']:.2f}" for cell in r["cells"]],
            f"{r['best_minus_paper']:+.2f} ({r['best']})",
        ]
        for r in block["ablation"]
    ]
    arms = [
        [
            r["encoder"],
            r["label"],
            ",".join(map(str, r["seeds"])) or "–",
            _cell(r["avg"], r["avg_sd"]),
            f"{r['fixed_avg']:.2f} ({r['fixed_n']})" if r["fixed_avg"] is not None else "–",
            _cell(r["dev"]),
            _cell(r["node"]),
            point_slug(r["point"]) if r["point"] else ("documented recipe" if r["tag"] == "doc" else "–"),
            r["machine"] or "–",
            r["in_verdicts"],
        ]
        for r in block["rows"]
    ]
    claim_rows = [
        [claim["encoder"], f"{claim['claim']}: {claim['text']}", line["test"], *_claim_cells(line)]
        for claim in block["claims"]
        for line in claim["lines"]
    ]
    return [
        *_table(
            "**The learning rate each arm chose** (STS-B dev ×100 at the grid seed, every arm on the same "
            f"{len(tuning.LRS)} points, the buffer-zone losses at the paper's x0 and k"
            + (f"; a run that kept its untrained encoder scores {kept:.2f}" if kept else "")
            + ")",
            [
                "arm",
                "chosen point",
                "dev",
                "dev at lr 2e-5",
                "lowest dev on its grid",
                "points (kept the start)",
                "machine",
            ],
            grid,
            2,
        ),
        *_table(
            "**Ablation: x0 × k for the buffer-zone losses** (STS-B dev ×100 at the grid seed, one run a "
            "cell, so no verdict; the first setting is the grid's, the rest chose nothing)",
            ["arm", "lr", *names, "best other setting − paper's"],
            ablation,
            2,
        ),
        *_table(
            "**Tuned arms** (7-task Avg. mean ± sd over seeds; fixed: the same arm at lr 2e-5, paper k and "
            "x0, on CPU; a row that is not in the verdicts says why)",
            [
                "encoder",
                "arm",
                "seeds",
                "tuned 7-task",
                "fixed 7-task (n)",
                "STS-B dev",
                "on node (%)",
                "point",
                "machine, precision",
                "in the verdicts",
            ],
            arms,
            3,
        ),
        *_table(
            "**Claims on the tuned arms** (paired by seed on one machine and precision; mean ± se; "
            + " ".join(block["rules"])
            + ")",
            [
                "encoder",
                "claim",
                "comparison",
                "tuned",
                "verdict",
                "left out (another machine)",
                "fixed settings",
                "verdict then",
            ],
            claim_rows,
            3,
        ),
    ]


def markdown(results: dict) -> list[str]:
    """The tuned-evidence part of docs/results.md."""
    block = evidence_block(results)
    if not block["grid"]:
        return []
    speed = [
        [
            r["machine"] + (" (shared by 3-10 jobs)" if r["shared"] else ""),
            r["encoder"],
            f"{_cell(r['pairs_per_s'], digits=1)} ({r['pairs_runs']})",
            f"{_cell(r['eval_seconds'], digits=0)} ({r['eval_runs']})",
        ]
        for r in speed_rows(results)
    ]
    diagnosis = [
        [
            r["loss"],
            r["description"],
            _cell(r["dev"], r["dev_sd"]),
            _cell(r["last"], r["last_sd"]),
            f"{r['kept_start']} of {r['n']}",
        ]
        for r in block["diagnosis"]
    ]
    missing = [
        f"- {m['encoder']}, {m['label']} at {m['point']}: seed{'s' if len(m['seeds']) > 1 else ''} "
        f"{', '.join(map(str, m['seeds']))}, on {m['machine']}"
        + (f" (recorded on {', '.join(m['recorded_on'])} only)" if m["recorded_on"] else "")
        for m in block["missing"]
    ]
    if missing:
        missing = [
            "",
            "**Not run** (the selection above needs them, each on the machine of its encoder's verdicts; "
            'until then their comparisons read "not run"): on that machine '
            f"`{block['run_missing']}`, then `python -m bench.evidence.tuning_report`\n",
            *missing,
        ]
    return [
        TITLE + "\n",
        block["protocol"] + "\n",
        *[f"- {line}" for line in block["readings"]],
        *_tables(block, results),
        *missing,
        *_table(
            "**Speed on each machine** (medians over the recorded runs; the GPU ran 3 to 10 jobs side by "
            "side on 16 CPU cores, so its figures are per job under that load, and its evaluation times are "
            "bound by the other jobs' tokenisation, not by the GPU; the GPU measured alone: the per-machine "
            "table under *Speed and memory*)",
            ["machine", "encoder", "training pairs/s (runs)", "7-task evaluation, s (runs)"],
            speed,
            2,
        ),
        *_table(
            "**Why CoSENT and AnglE lowered dev** (one factor changed from our settings at a time; STS-B "
            "dev ×100, mean ± sd over seeds 42-44; CosineSimilarityLoss as the control)",
            ["loss", "factor", "best dev", "dev at the end", "runs that kept the untrained encoder"],
            diagnosis,
            2,
        ),
        "",
    ]


# ---- writing only this part -------------------------------------------------------------------------


def write(results: dict, md_path=None, evidence_path=None) -> None:
    """Rewrite the tuned section of docs/results.md (from its title to the next ``### `` heading) and the
    ``tuning`` block of the app's evidence file, leaving every other section as it is (``python -m
    bench.evidence.report`` writes them all; this writes only the tuning's, while others regenerate theirs)."""
    from stsdemo.atomic import write_json_atomic
    from stsdemo.evidence import EVIDENCE_FILE

    md_path = md_path or REPO / "docs" / "results.md"
    text = md_path.read_text(encoding="utf-8")
    start = text.index("### Tuned evidence")
    end = text.index("\n### ", start + 1) + 1
    md_path.write_text(text[:start] + "\n".join(markdown(results)) + "\n" + text[end:], encoding="utf-8")
    log(f"wrote the tuned section of {md_path}")
    evidence_path = evidence_path or EVIDENCE_FILE
    shipped = json.loads(evidence_path.read_text(encoding="utf-8"))
    write_json_atomic(evidence_path, {**shipped, "tuning": evidence_block(results)})
    log(f"wrote the tuning block of {evidence_path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evidence.tuning_report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.parse_args(argv)
    from ..common import load_results

    write(load_results())


if __name__ == "__main__":
    main(sys.argv[1:])
