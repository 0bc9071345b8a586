"""How a recorded figure reads in a table cell and a verdict in words: one wording for the app's Benchmark tab
(:mod:`stsdemo.app.benchmark.evidence_view`) and the tables bench writes into docs/, so the two never disagree."""

from __future__ import annotations

import math

from .paired import Verdict, mixed_counts


def spread_cell(mean: float | None, sd: float | None, n: int) -> str:
    """``mean ± sd`` over n seeds, the bare mean for one seed, "–" when nothing was measured."""
    if mean is None or not math.isfinite(mean):
        return "–"
    return f"{mean:.2f} ± {sd:.2f}" if n > 1 and sd is not None else f"{mean:.2f}"


def node_cell(node: float | None, sd: float | None, node_n: int, seeds: int) -> str:
    """The on-node share over the ``node_n`` of an arm's ``seeds`` runs that recorded it, naming that count
    when it is smaller: runs recorded before the node accuracy existed have none."""
    return spread_cell(node, sd, node_n) + (f" (n = {node_n})" if node is not None and node_n < seeds else "")


def verdict_words(verdict: str) -> str:
    """A claim's verdict as shown. "mixed: 2 reversed, 1 no measurable difference" alone reads as "it sometimes
    helps" though nothing held: a mixed verdict says what it means (the comparisons disagree) and in how many of
    them the claim holds, none included; any other verdict is shown as it is."""
    found = mixed_counts(verdict)
    if found is None:
        return verdict
    others = ", ".join(f"{count} {kind}" for kind, count in found.items() if kind != Verdict.HOLDS)
    held = found.get(Verdict.HOLDS, 0) or "none"
    return f"mixed (the comparisons disagree): holds in {held} of {sum(found.values())}; {others}"
