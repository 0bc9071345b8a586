"""The tuned evidence, as the Benchmark tab shows it: every STS arm at the grid point it chose on STS-B dev, the
paper's claims re-read on those arms for each encoder beside the fixed-setting verdicts, and why CoSENT and AnglE
lowered dev at the fixed settings.

The numbers are the ``tuning`` block of the app's ``evidence.json``, written by ``python -m bench.report`` from the
runs of ``python -m bench.tuning`` recorded in docs/results.json (each names its machine). Read only; a file
without the block shows a one-line notice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .evidence_view import EVIDENCE_FILE

UNAVAILABLE = "No tuned evidence is recorded yet (`python -m bench.tuning`, then `python -m bench.report`)."
TUNED_COLUMNS = ["encoder", "arm", "seeds", "tuned: 7-task mean ± sd", "fixed settings: 7-task mean (seeds)",
                 "STS-B test on node (%)", "chosen point", "machine"]
GRID_COLUMNS = ["arm", "chosen point", "STS-B dev at the grid seed", "dev at the fixed settings",
                "runs that kept the untrained encoder"]


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
    return " · ".join(f"{name} {value:g}" if isinstance(value, float) else f"{name} {value}"
                      for name, value in point.items())


def _mean(value, sd=None) -> str:
    return "–" if value is None else f"{value:.2f}" + (f" ± {sd:.2f}" if sd else "")


def tuned_frame(block: dict | None) -> pd.DataFrame:
    """One row per tuned arm and encoder (and the documented CoSENT/AnglE recipes), beside the fixed settings."""
    rows = [[row["encoder"], row["label"], ", ".join(map(str, row["seeds"])), _mean(row["avg"], row["avg_sd"]),
             f"{row['fixed_avg']:.2f} ({row['fixed_n']})" if row.get("fixed_avg") is not None else "not run",
             _mean(row.get("node")), point_text(row.get("point"), row.get("tag", "tuned")), row["machine"]]
            for row in (block or {}).get("rows", [])]
    return pd.DataFrame(rows, columns=TUNED_COLUMNS)


def grid_frame(block: dict | None) -> pd.DataFrame:
    """The grid point each arm chose, and what the fixed settings scored on the same grid."""
    rows = [[row["label"], point_text(row["point"]), f"{row['dev']:.2f}", _mean(row.get("fixed_dev")),
             f"{row['kept_start']} of {row['points']}"] for row in (block or {}).get("grid", [])]
    return pd.DataFrame(rows, columns=GRID_COLUMNS)


def _difference(line: dict) -> str:
    spread = f" ± {line['se']:.2f} se" if line.get("se") is not None else ""
    return f"{line['mean']:+.2f}{spread}, n = {line['n']}"


def claims_markdown(block: dict | None) -> str:
    """The readings, then each claim per encoder with its verdict on the tuned arms and, per comparison, the
    paired difference (mean ± standard error over seeds) beside the fixed-setting verdict."""
    if not block:
        return UNAVAILABLE
    parts = [f"**How the arms were tuned.** {block['protocol']}", ""]
    parts += [f"- {reading}" for reading in block.get("readings", [])]
    for claim in block.get("claims", []):
        parts += ["", f"**{claim['claim']} on {claim['encoder']}: {claim['text']}** — tuned: *{claim['verdict']}*"]
        for line in claim["lines"]:
            fixed = line.get("fixed")
            before = f"{fixed['verdict']} ({_difference(fixed)})" if fixed else "not run"
            parts.append(f"- {line['test']}: {line['verdict']} ({_difference(line)}); at the fixed settings: {before}")
    return "\n".join(parts)


def diagnosis_frame(block: dict | None) -> pd.DataFrame:
    """Why CoSENT and AnglE lowered dev: one factor changed at a time, STS-B dev mean ± sd over seeds."""
    rows = [[row["loss"], row["description"], _mean(row["dev"], row["dev_sd"]), _mean(row["last"], row["last_sd"]),
             f"{row['kept_start']} of {row['n']}"] for row in (block or {}).get("diagnosis", [])]
    return pd.DataFrame(rows, columns=["loss", "what changed", "best STS-B dev ± sd", "dev at the end ± sd",
                                       "runs that kept the untrained encoder"])
