"""How a recorded figure reads in a table cell, and the evidence table as rows of cells: one wording for the app's
Benchmark tab (:mod:`stsdemo.app.benchmark.evidence_view`) and the tables bench writes into docs/, so the two never
disagree. Plain strings, no pandas: the app makes its table of these rows, bench its Markdown."""

from __future__ import annotations

import html
import math

from .evidence import Evidence

COLUMNS = [
    "arm",
    "encoder",
    "seeds",
    "7-task mean ± sd",
    "STS-B test on node (%)",
    "SNLI test accuracy (%)",
    "machine",
]


def spread_cell(mean: float | None, sd: float | None, n: int) -> str:
    """``mean ± sd`` over n seeds, the bare mean for one seed, "–" when nothing was measured."""
    if mean is None or not math.isfinite(mean):
        return "–"
    return f"{mean:.2f} ± {sd:.2f}" if n > 1 and sd is not None else f"{mean:.2f}"


def node_cell(node: float | None, sd: float | None, node_n: int, seeds: int) -> str:
    """The on-node share over the ``node_n`` of an arm's ``seeds`` runs that recorded it, naming that count
    when it is smaller: runs recorded before the node accuracy existed have none."""
    return spread_cell(node, sd, node_n) + (f" (n = {node_n})" if node is not None and node_n < seeds else "")


def arm_cell(label: str, code: str, markup: bool = False) -> str:
    """An arm's name in the table: "label (code)", or as escaped HTML with the code in small type."""
    if not markup:
        return f"{label} ({code})"
    return f"{html.escape(label)}<br><small><code>{html.escape(code)}</code></small>"


def evidence_rows(evidence: Evidence | None, markup: bool = False) -> list[list[str]]:
    """Every recorded arm as a row of :data:`COLUMNS` cells. Each arm reads "full name (code)"; with ``markup``
    (the app's table, whose arm column is HTML) the full name, then its code in small type below it."""
    rows = []
    for row in evidence.rows if evidence else []:
        n = len(row.seeds)
        node_n = n if row.node_n is None else row.node_n
        rows.append(
            [
                arm_cell(row.label, row.arm, markup),
                row.encoder,
                ", ".join(map(str, row.seeds)) or "–",
                spread_cell(row.avg, row.avg_sd, n),
                node_cell(row.node, row.node_sd, node_n, n),
                spread_cell(row.nli, row.nli_sd, n),
                row.machine,
            ]
        )
    return rows
