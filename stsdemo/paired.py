"""The paired-seed rule: one verdict for "is arm A better than arm B", used by the claims, the Benchmark tab,
the Playground, its payoff map and Compare alike.

Runs of two arms that share a seed share their data order and initialisation, so their difference ``a - b``
is one measurement of the arms' difference. With ``n`` differences, their mean ``m``, standard error
``se = sd / sqrt(n)`` and ``t = m / se``, a paired t-test with ``n - 1`` degrees of freedom reads them:

* **negligible** when ``|m|`` is under :data:`NEGLIGIBLE` points, whatever the test says (a real but tiny
  difference is no reason to pick one recipe over the other);
* **holds** when ``m`` is more than ``t* se`` above zero, ``t*`` the two-sided 95 % quantile of Student's t
  with ``n - 1`` degrees of freedom (4.30 at n = 3, 2.09 at n = 20): a two-sided test at the 5 % level;
* **reversed** when ``m`` is more than ``t* se`` below zero;
* **no measurable difference at n = N** otherwise.

A fixed 2 se would mark about 18 % of null comparisons at n = 3 and 6 % at n = 20; the t-quantile marks 5 % at
every n. One seed gives no spread, so no verdict. A family of comparisons read together (the payoff map's
cells) is corrected for multiplicity by :func:`benjamini_hochberg`. No torch, no I/O.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

LEVEL = 0.05         # the two-sided test's level; also the false discovery rate of benjamini_hochberg
NEGLIGIBLE = 0.1     # points (Spearman x100, accuracy %): a smaller mean difference is called negligible


def t_quantile(n: int) -> float:
    """The two-sided 95 % quantile of Student's t for ``n`` paired differences (``n - 1`` degrees of freedom)."""
    from scipy.stats import t  # here: importing this module should not pay for scipy

    return float(t.ppf(1 - LEVEL / 2, n - 1))


RULE_IN_WORDS = ("a comparison *holds* (is *reversed*) when the mean of its per-seed differences is more than t* "
                 "standard errors above (below) zero, t* the two-sided 95 % quantile of Student's t with n − 1 "
                 "degrees of freedom (4.30 at n = 3, 2.09 at n = 20: a paired t-test at the 5 % level); a mean under "
                 f"{NEGLIGIBLE:g} points is *negligible*; otherwise there is *no measurable difference* at that n")


def rule_text(n: int) -> str:
    """The verdict rule at ``n`` paired seeds, in words, for every place that shows a verdict."""
    if n < 2:
        return "one seed has no spread, so it gives no verdict"
    return (f"a difference holds (or is reversed) when its mean is more than {t_quantile(n):.2f} standard errors "
            f"above (below) zero: the two-sided 95 % t-quantile with {n - 1} degree{'' if n == 2 else 's'} of "
            f"freedom (a paired t-test at the 5 % level); under {NEGLIGIBLE:g} points it is negligible")


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
    def p_value(self) -> float:
        """The two-sided p-value of the paired t-test of ``mean = 0`` (NaN under 2 seeds; 1 when every difference
        is 0, 0 when they are all the same non-zero value)."""
        if self.n < 2:
            return math.nan
        if self.se == 0:
            return 1.0 if self.mean == 0 else 0.0
        from scipy.stats import t

        return float(2 * t.sf(abs(self.mean / self.se), self.n - 1))

    @property
    def verdict(self) -> str:
        """The verdict of this comparison tested alone (:func:`rule_text`)."""
        return self.verdict_given(self.n > 1 and self.p_value < LEVEL)

    def verdict_given(self, significant: bool) -> str:
        """The verdict when a test (alone, or corrected over a family) found the difference ``significant``."""
        if self.n == 0:
            return "not measured"
        if self.n == 1:
            return "one seed: n = 1"
        if abs(self.mean) < NEGLIGIBLE:
            return "negligible"
        if significant:
            return "holds" if self.mean > 0 else "reversed"
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


def benjamini_hochberg(p_values: list[float], rate: float = LEVEL) -> list[bool]:
    """Which of a family of tests are discoveries under the Benjamini-Hochberg procedure at false discovery rate
    ``rate``: the ``k`` smallest p-values, ``k`` the largest rank with ``p_(k) <= k rate / m``. A NaN p-value (one
    seed) is never a discovery but counts in ``m``. If no test has a real effect, the chance of any discovery is at
    most ``rate``; of the discoveries made, at most a share ``rate`` is expected to be false."""
    order = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    cut = max((rank for rank, (p, _) in enumerate(order, 1) if p <= rank * rate / len(p_values)), default=0)
    found = [False] * len(p_values)
    for _, index in order[:cut]:
        found[index] = True
    return found


def combine(verdicts: list[str]) -> str:
    """One verdict for a claim from the verdicts of its comparisons."""
    kinds = ("holds", "reversed", "negligible", "no measurable difference")

    def kind(verdict: str) -> str | None:
        return next((k for k in kinds if verdict.startswith(k[:13])), None)     # "no measurable" and the rest

    decided = [kind(v) for v in verdicts if kind(v)]
    if not decided:
        return "one seed only" if any(v.startswith("one seed") for v in verdicts) else "not measured"
    where = "" if len(decided) == len(verdicts) else " (comparisons with 2+ seeds)"
    if len(set(decided)) == 1:
        return decided[0] + where
    counts = {k: decided.count(k) for k in kinds}
    return "mixed: " + ", ".join(f"{count} {k}" for k, count in counts.items() if count)
