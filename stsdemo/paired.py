"""The paired-seed rule: one verdict for "is arm A better than arm B", used by the claims, the Benchmark tab,
the Playground and Compare alike.

Runs of two arms that share a seed share their data order and initialisation, so their difference ``a - b``
is one measurement of the arms' difference. With ``n`` differences, their mean ``m`` and standard error
``se = sd / sqrt(n)``:

* **holds** when ``m > 2 se``;
* **reversed** when ``m < -2 se``;
* **no measurable difference at n = N** otherwise.

One seed gives no spread, so no verdict. No torch, no I/O.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass


@dataclass
class Paired:
    """The paired differences of one comparison and the verdict the rule gives them."""

    diffs: list[float]
    seeds: list

    @property
    def n(self) -> int:
        return len(self.diffs)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.diffs) if self.diffs else math.nan

    @property
    def sd(self) -> float:
        return statistics.stdev(self.diffs) if self.n > 1 else math.nan

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def verdict(self) -> str:
        if self.n == 0:
            return "not measured"
        if self.n == 1:
            return "one seed: n = 1"
        if self.mean > 2 * self.se:
            return "holds"
        if self.mean < -2 * self.se:
            return "reversed"
        return f"no measurable difference at n = {self.n}"

    def numbers(self, digits: int = 2) -> str:
        """``+0.12 ± 0.05 (se), n = 3``: the mean and its standard error, as the verdict reads them."""
        if self.n == 0:
            return ""
        spread = f" ± {self.se:.{digits}f} (se)" if self.n > 1 else ""
        return f"{self.mean:+.{digits}f}{spread}, n = {self.n}"


def paired(a: dict, b: dict) -> Paired:
    """Differences ``a[seed] - b[seed]`` over the seeds both have; a single-valued ``b`` of a deterministic
    arm (the untrained encoder, stored as ``{None: value}``) pairs with every seed of ``a``."""
    if set(b) == {None}:
        b = {seed: b[None] for seed in a}
    seeds = sorted(set(a) & set(b))
    return Paired([a[s] - b[s] for s in seeds], seeds)


def combine(verdicts: list[str]) -> str:
    """One verdict for a claim from the verdicts of its comparisons."""
    decided = [v for v in verdicts if v in ("holds", "reversed") or v.startswith("no measurable")]
    if not decided:
        return "one seed only" if any(v.startswith("one seed") for v in verdicts) else "not measured"
    kinds = {"holds" if v == "holds" else "reversed" if v == "reversed" else "no measurable difference"
             for v in decided}
    where = "" if len(decided) == len(verdicts) else " (comparisons with 2+ seeds)"
    if len(kinds) == 1:
        return kinds.pop() + where
    counts = {kind: sum(1 for v in decided if v == kind or (kind.startswith("no") and v.startswith("no")))
              for kind in ("holds", "reversed", "no measurable difference")}
    return "mixed: " + ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
