"""The paired-seed rule: one verdict for "is arm A better than arm B", used by the claims, the Benchmark tab,
the Playground, its payoff map and Compare alike.

Runs of two arms that share a seed share their data order and initialisation, so their difference ``a - b``
is one measurement of the arms' difference. With ``n`` differences, their mean ``m``, standard error
``se = sd / sqrt(n)`` and ``t*`` the two-sided 95 % quantile of Student's t with ``n - 1`` degrees of freedom
(4.30 at n = 3, 2.09 at n = 20), the 95 % interval of the mean difference is ``m ± t* se``. It reads:

* **negligible** when the whole interval lies inside ``± margin``, the smallest effect of interest declared once
  per metric in :data:`MARGINS` (0.1 points of Spearman x100 or of accuracy %): the data show the difference is
  too small to matter, which is an equivalence test (two one-sided tests at 2.5 %), not a small mean. A mean of
  +0.05 with an interval of ± 2 is *not* negligible: it is no measurable difference;
* **holds** when the interval lies above zero (a two-sided paired t-test at the 5 % level), **reversed** when
  below;
* **no measurable difference** otherwise.

Equivalence is read first: a real but tiny difference (an interval above zero and inside the margin) is no reason
to pick one recipe over the other. A fixed 2 se would mark about 18 % of null comparisons at n = 3 and 6 % at
n = 20; the t-quantile marks 5 % at every n. One seed gives no spread, so no verdict; neither do differences that
are all equal (a spread under :data:`RESOLUTION`, e.g. two differences of rounded scores that happen to agree at
n = 2): a spread of zero from a few seeds is not a measured spread, so the interval is unknown and the reading is
no measurable difference (at any n: equal differences of trained runs are a coincidence of rounding). Means
and spreads are summed exactly (:func:`math.fsum`), so no verdict depends on the order of the seeds. A family of
comparisons read together (the payoff map's cells) is corrected for multiplicity by :func:`benjamini_hochberg`.
The rule as plain data, for a copy in another language: :func:`rule_as_data`; its words are strings.json's. No torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import strings
from .verdict import Verdict

LEVEL = 0.05  # the two-sided test's level; also the false discovery rate of benjamini_hochberg
SPEARMAN, ACCURACY = "spearman", "accuracy"
# points: differences whose sd is under this are equal (float rounding of the scores they come from is ~1e-13)
RESOLUTION = 1e-9


@dataclass(frozen=True)
class Margin:
    """The smallest effect of interest of one metric: a difference whose interval lies inside ``± points`` is
    negligible. ``unit`` names the points (strings.json's ``rule_unit_<metric>``, :meth:`unit_in` another
    language), ``meaning`` says what that many points is."""

    metric: str
    points: float
    meaning: str

    def unit_in(self, language: str) -> str:
        return strings.text("page", f"rule_unit_{self.metric}", language)

    @property
    def unit(self) -> str:
        return self.unit_in("en")


MARGINS = {
    SPEARMAN: Margin(
        SPEARMAN,
        0.1,
        "a tenth of a point of rank correlation, well under the seed-to-seed spread of one run",
    ),
    ACCURACY: Margin(
        ACCURACY,
        0.1,
        "one pair in 1,000: on the Playground's 1,000 SNLI report pairs, 0.1 points is one pair",
    ),
}


def t_quantile(n: int) -> float:
    """The two-sided 95 % quantile of Student's t for ``n`` paired differences (``n - 1`` degrees of freedom)."""
    from scipy.stats import t  # here: importing this module should not pay for scipy

    return float(t.ppf(1 - LEVEL / 2, n - 1))


def _margins_in_words() -> str:
    return "; ".join(f"{margin.points:g} {margin.unit}: {margin.meaning}" for margin in MARGINS.values())


RULE_IN_WORDS = (
    "a comparison *holds* (is *reversed*) when the 95 % interval of the mean of its per-seed "
    "differences, mean ± t* standard errors, lies above (below) zero, t* the two-sided 95 % quantile "
    "of Student's t with n − 1 degrees of freedom (4.30 at n = 3, 2.09 at n = 20: a paired t-test at "
    "the 5 % level); it is *negligible* when that interval lies inside ± the smallest effect of "
    f"interest ({_margins_in_words()}); otherwise there is *no measurable difference*"
)


def rule_text(n: int, metric: str = SPEARMAN, language: str = "en") -> str:
    """The verdict rule at ``n`` paired seeds on ``metric``, in words (strings.json's ``rule_text``, which the
    page fills the same way), for every place that shows a verdict."""
    if n < 2:
        return strings.text("page", "rule_one_seed", language)
    margin = MARGINS[metric]
    return strings.text(
        "page",
        "rule_text",
        language,
        quantile=f"{t_quantile(n):.2f}",
        df=n - 1,
        plural="" if n == 2 else "s",
        margin=f"{margin.points:g}",
        unit=margin.unit_in(language),
    )


def rule_as_data(max_n: int = 200) -> dict:
    """The rule as JSON-able data, for a copy of it in another language (the Playground's JavaScript):
    ``{"level", "resolution", "margins": {metric: {"points", "unit", "meaning"}}, "t_quantiles": {"2": t*, ..., str(max_n): t*},
    "verdicts": [...], "in_words"}``. ``t_quantiles[str(n)]`` is :func:`t_quantile` ``(n)``; the copy reads a
    comparison of ``n`` differences as :meth:`Paired.verdict` does (an sd at or under ``resolution``: no measurable
    difference)."""
    return {
        "level": LEVEL,
        "resolution": RESOLUTION,
        "margins": {
            metric: {"points": m.points, "unit": m.unit, "meaning": m.meaning}
            for metric, m in MARGINS.items()
        },
        "t_quantiles": {str(n): t_quantile(n) for n in range(2, max_n + 1)},
        "verdicts": [verdict.value for verdict in Verdict],
        "in_words": RULE_IN_WORDS,
    }


@dataclass
class Paired:
    """The paired differences of one comparison on ``metric`` (a key of :data:`MARGINS`) and their verdict."""

    diffs: list[float]
    seeds: list
    metric: str = SPEARMAN

    @property
    def n(self) -> int:
        return len(self.diffs)

    @property
    def mean(self) -> float:
        return math.fsum(self.diffs) / self.n if self.diffs else math.nan

    @property
    def sd(self) -> float:
        if self.n < 2:
            return math.nan
        mean = self.mean
        return math.sqrt(math.fsum((d - mean) ** 2 for d in self.diffs) / (self.n - 1))

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def spread_measured(self) -> bool:
        """Two seeds or more whose differences are not all equal: only then is there an interval."""
        return self.n > 1 and self.sd > RESOLUTION

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % t-interval of the mean difference (NaNs without a measured spread)."""
        if not self.spread_measured:
            return math.nan, math.nan
        half = t_quantile(self.n) * self.se
        return self.mean - half, self.mean + half

    @property
    def p_value(self) -> float:
        """The two-sided p-value of the paired t-test of ``mean = 0`` (NaN without a measured spread)."""
        if not self.spread_measured:
            return math.nan
        from scipy.stats import t

        return float(2 * t.sf(abs(self.mean / self.se), self.n - 1))

    @property
    def equivalent(self) -> bool:
        """Whether the interval lies inside ± the metric's margin (the difference is too small to matter)."""
        low, high = self.interval
        margin = MARGINS[self.metric].points
        return self.spread_measured and -margin < low and high < margin

    @property
    def verdict(self) -> Verdict:
        """The verdict of this comparison tested alone (:func:`rule_text`)."""
        return self.verdict_given(self.spread_measured and self.p_value < LEVEL)

    def verdict_given(self, significant: bool) -> Verdict:
        """The verdict when a test (alone, or corrected over a family) found the difference ``significant``."""
        if self.n == 0:
            return Verdict.NOT_MEASURED
        if self.n == 1:
            return Verdict.ONE_SEED
        if self.equivalent:
            return Verdict.NEGLIGIBLE
        if significant and self.spread_measured:
            return Verdict.HOLDS if self.mean > 0 else Verdict.REVERSED
        return Verdict.NO_DIFFERENCE

    def numbers(self, digits: int = 2) -> str:
        """``+0.12 ± 0.05 (se), n = 3``: the mean and its standard error, as the verdict reads them."""
        if self.n == 0:
            return ""
        spread = f" ± {self.se:.{digits}f} (se)" if self.n > 1 else ""
        return f"{self.mean:+.{digits}f}{spread}, n = {self.n}"

    def interval_text(self, digits: int = 2) -> str:
        """``95 % interval −0.31 to +1.37`` ("" without a measured spread)."""
        if not self.spread_measured:
            return ""
        low, high = self.interval
        return f"95 % interval {low:+.{digits}f} to {high:+.{digits}f}"


def paired(a: dict, b: dict, metric: str = SPEARMAN) -> Paired:
    """Differences ``a[seed] - b[seed]`` over the seeds both have, on ``metric`` (a key of :data:`MARGINS`); a
    single-valued ``b`` of a deterministic arm (the untrained encoder, stored as ``{None: value}``) pairs with
    every seed of ``a``."""
    if metric not in MARGINS:
        raise ValueError(f"no margin for metric {metric!r}; metrics: {', '.join(MARGINS)}")
    if set(b) == {None}:
        b = {seed: b[None] for seed in a}
    seeds = sorted(set(a) & set(b))
    return Paired([a[s] - b[s] for s in seeds], seeds, metric)


def benjamini_hochberg(p_values: list[float], rate: float = LEVEL) -> list[bool]:
    """Which of a family of tests are discoveries under the Benjamini-Hochberg procedure at false discovery rate
    ``rate``: the ``k`` smallest p-values, ``k`` the largest rank with ``p_(k) <= k rate / m``. A NaN p-value (one
    seed, or no spread) is never a discovery but counts in ``m``. If no test has a real effect, the chance of any
    discovery is at most ``rate``; of the discoveries made, at most a share ``rate`` is expected to be false."""
    order = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    cut = max((rank for rank, (p, _) in enumerate(order, 1) if p <= rank * rate / len(p_values)), default=0)
    found = [False] * len(p_values)
    for _, index in order[:cut]:
        found[index] = True
    return found
