"""The tuned evidence, as the Benchmark tab shows it: every STS arm at the learning rate it chose on STS-B dev (one
grid of four rates for every arm, the buffer-zone losses at the paper's x0 and k), the paper's claims re-read on
those arms for each encoder beside the fixed-setting verdicts (each on one machine and precision, with the seeds left
out and the runs not yet run named), and why CoSENT and AnglE lowered dev at the fixed settings.

The numbers are the ``tuning`` block of the app's ``evidence.json``, written by ``python -m bench.evidence.report`` from
the runs of ``python -m bench.evidence.tuning`` recorded in docs/results.json (each names its machine; ``python -m
bench.evidence.tuning_report`` rewrites that block alone). Read only; a file without the block shows a one-line notice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ...evidence import EVIDENCE_FILE

UNAVAILABLE = (
    "No tuned evidence is recorded yet (`python -m bench.evidence.tuning`, then "
    "`python -m bench.evidence.report`)."
)
TUNED_COLUMNS = [
    "encoder",
    "arm",
    "seeds",
    "tuned: 7-task mean ± sd",
    "fixed settings: 7-task mean (seeds)",
    "STS-B test on node (%)",
    "point",
    "machine, precision",
    "in the verdicts",
]
GRID_COLUMNS = [
    "arm",
    "chosen point",
    "STS-B dev at the grid seed",
    "dev at lr 2e-5",
    "runs that kept the untrained encoder",
]


def load_tuning(path: Path | None = None) -> dict | None:
    """The ``tuning`` block of the evidence file, or None when the file or the block is missing or unreadable."""
    try:
        block = json.loads((path or EVIDENCE_FILE).read_text(encoding="utf-8")).get("tuning")
    except (OSError, ValueError, AttributeError):
        return None
    return block if isinstance(block, dict) and block.get("rows") else None


def point_text(point: dict | None, tag: str = "tuned") -> str:
    """A grid point in words: ``lr 5e-05 · k 1 · x0 0.1``."""
    if not point:
        return "documented recipe" if tag == "doc" else "–"
    return " · ".join(
        f"{name} {value:g}" if isinstance(value, float) else f"{name} {value}"
        for name, value in point.items()
    )


def _mean(value, sd=None) -> str:
    return "–" if value is None else f"{value:.2f}" + (f" ± {sd:.2f}" if sd else "")


def tuned_frame(block: dict | None) -> pd.DataFrame:
    """One row per tuned arm and encoder (and the documented CoSENT/AnglE recipes), beside the fixed settings; a
    point not run yet, seeds on another machine and seeds of an earlier choice each have their own row, marked."""
    rows = [
        [
            row["encoder"],
            row["label"],
            ", ".join(map(str, row["seeds"])) or "–",
            _mean(row["avg"], row["avg_sd"]) if row["avg"] is not None else "not run",
            f"{row['fixed_avg']:.2f} ({row['fixed_n']})" if row.get("fixed_avg") is not None else "not run",
            _mean(row.get("node")),
            point_text(row.get("point"), row.get("tag", "tuned")),
            row["machine"] or "–",
            row.get("in_verdicts", "yes"),
        ]
        for row in (block or {}).get("rows", [])
    ]
    return pd.DataFrame(rows, columns=TUNED_COLUMNS)


def grid_frame(block: dict | None) -> pd.DataFrame:
    """The learning rate each arm chose, and what lr 2e-5 (the fixed settings' rate) scored on the same grid."""
    rows = [
        [
            row["label"],
            point_text(row["point"]),
            f"{row['dev']:.2f}",
            _mean(row.get("fixed_dev")),
            f"{row['kept_start']} of {row['points']}",
        ]
        for row in (block or {}).get("grid", [])
    ]
    return pd.DataFrame(rows, columns=GRID_COLUMNS)


def _difference(line: dict) -> str:
    if not line.get("n"):
        return "not run"
    spread = f" ± {line['se']:.2f} se" if line.get("se") is not None else ""
    return f"{line['mean']:+.2f}{spread}, n = {line['n']}"


def claims_markdown(block: dict | None) -> str:
    """The readings, the verdict rule at each n, then each claim per encoder with its verdict on the tuned arms and,
    per comparison, the paired difference (mean ± standard error over seeds) beside the fixed-setting verdict, the
    seeds left out for another machine, and last the runs the selection needs that are not run."""
    if not block:
        return UNAVAILABLE
    parts = [f"**How the arms were tuned.** {block['protocol']}", ""]
    parts += [f"- {reading}" for reading in block.get("readings", [])]
    if block.get("rules"):
        parts += ["", "**The verdict rule.** " + " ".join(block["rules"])]
    for claim in block.get("claims", []):
        parts += [
            "",
            f"**{claim['claim']} on {claim['encoder']}: {claim['text']}** — tuned: *{claim['verdict']}*",
        ]
        for line in claim["lines"]:
            fixed = line.get("fixed")
            before = f"{fixed['verdict']} ({_difference(fixed)})" if fixed else "not run"
            out = f"; left out: {'; '.join(line['left_out'])}" if line.get("left_out") else ""
            verdict = f"{line['verdict']} ({_difference(line)})" if line.get("n") else "not run"
            parts.append(f"- {line['test']}: {verdict}{out}; at the fixed settings: {before}")
    if block.get("missing"):
        parts += ["", f"**Not run** (`{block['run_missing']}`, on the machine of each encoder's verdicts):"]
        parts += [
            f"- {m['encoder']}, {m['label']} at {m['point']}: seed{'s' if len(m['seeds']) > 1 else ''} "
            f"{', '.join(map(str, m['seeds']))}, on {m['machine']}"
            for m in block["missing"]
        ]
    return "\n".join(parts)


def diagnosis_frame(block: dict | None) -> pd.DataFrame:
    """Why CoSENT and AnglE lowered dev: one factor changed at a time, STS-B dev mean ± sd over seeds."""
    rows = [
        [
            row["loss"],
            row["description"],
            _mean(row["dev"], row["dev_sd"]),
            _mean(row["last"], row["last_sd"]),
            f"{row['kept_start']} of {row['n']}",
        ]
        for row in (block or {}).get("diagnosis", [])
    ]
    return pd.DataFrame(
        rows,
        columns=[
            "loss",
            "what changed",
            "best STS-B dev ± sd",
            "dev at the end ± sd",
            "runs that kept the untrained encoder",
        ],
    )
