"""The paper's claims as checks on the recorded runs, decided by paired seeds.

Each claim names the comparisons that are its evidence; a comparison pairs the runs of two arms that share a
seed (the same seed means the same data order and the same initialisation) and looks at the differences
``a - b``, one per seed; the rule that turns them into a verdict (a paired t-test: the mean against its standard
error times the t-quantile of its n) lives in :mod:`stsdemo.paired`, which the app's views use too. The untrained encoder (``base``) is the same for every
seed, so its one score pairs with each seed of the other arm. STS comparisons read the 7-task average
(Spearman x100 of cosine) at the paper's budget; NLI comparisons read SNLI test accuracy (%). A claim with
several comparisons holds where all measured ones hold; nothing here is written by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stsdemo.paired import ACCURACY, SPEARMAN, Paired, paired
from stsdemo.verdict import Combined, Verdict, combine

from ..schema import nli_runs, quality_runs, record_model

# where a comparison reads its numbers: (section of docs/results.json, budget tag, the metric in words)
SOURCES = {
    "sts": ("quality", "paper", "7-task Avg."),
    "nli": ("nli", "epoch", "SNLI test accuracy"),
    "nli-500": ("nli", "10epochs-500pairs", "SNLI test accuracy, 500 training pairs x 10 epochs"),
    "sts-tuned": ("quality", "tuned", "7-task Avg., each arm at its tuned point"),
}


def source_metric(source: str) -> str:
    """The metric a comparison source reads, as :mod:`stsdemo.paired` declares its margin: NLI sources read
    accuracy points, STS sources Spearman points."""
    return ACCURACY if SOURCES[source][0] == "nli" else SPEARMAN


@dataclass(frozen=True)
class Comparison:
    test: str  # what the pair tests, in words
    source: str  # a key of SOURCES
    a: str  # the arm the claim expects higher
    b: str


CLAIMS = [
    (
        "C1",
        "regression beats classification",
        [
            Comparison(
                "STS, paper head: Smooth K2 (paper recipe) vs cross-entropy", "sts", "sk2-2stage", "ce"
            ),
            Comparison("NLI: Smooth K2 regression vs cross-entropy", "nli", "nli-sk2", "nli-ce"),
            Comparison("NLI: Translated ReLU regression vs cross-entropy", "nli", "nli-trelu", "nli-ce"),
        ],
    ),
    (
        "C2",
        "the buffer zone helps",
        [
            Comparison("STS, cosine target: Smooth K2 vs MSE", "sts", "sk2-cosine", "mse-cosine"),
            Comparison("STS, cosine target: Translated ReLU vs L1", "sts", "trelu-cosine", "l1-cosine"),
            Comparison("STS, paper head: Smooth K2 vs MSE", "sts", "sk2-2stage", "mse-2stage"),
            Comparison("STS, paper head: Translated ReLU vs L1", "sts", "trelu-2stage", "l1-2stage"),
            Comparison("NLI: Smooth K2 vs MSE", "nli", "nli-sk2", "nli-mse"),
            Comparison("NLI: Translated ReLU vs L1", "nli", "nli-trelu", "nli-l1"),
            Comparison(
                "NLI, 500 training pairs x 10 epochs: Smooth K2 vs MSE", "nli-500", "nli-sk2", "nli-mse"
            ),
            Comparison(
                "NLI, 500 training pairs x 10 epochs: Translated ReLU vs L1", "nli-500", "nli-trelu", "nli-l1"
            ),
        ],
    ),
    (
        "C3",
        "Smooth K2 beats Translated ReLU",
        [
            Comparison("STS, paper head", "sts", "sk2-2stage", "trelu-2stage"),
            Comparison("STS, cosine target", "sts", "sk2-cosine", "trelu-cosine"),
            Comparison("NLI", "nli", "nli-sk2", "nli-trelu"),
        ],
    ),
    (
        "C4",
        "the recipe improves a contrastive encoder beyond the base and beyond +Contrast",
        [
            Comparison("paper recipe vs the untrained encoder", "sts", "sk2-2stage", "base"),
            Comparison("paper recipe vs +Contrast (InfoNCE on pairs >= 4.0)", "sts", "sk2-2stage", "infonce"),
        ],
    ),
    (
        "C5",
        "[u, v, |u-v|] beats [u, v] and [|u-v|]",
        [
            Comparison("[u, v, |u-v|] vs [u, v]", "sts", "sk2-2stage", "head-uv"),
            Comparison("[u, v, |u-v|] vs [|u-v|]", "sts", "sk2-2stage", "head-absdiff"),
        ],
    ),
]
# The claims re-read on the tuned arms (bench.evidence.tuning: every arm at the grid point it chose on STS-B dev). Only
# the cosine-target arms were tuned, so C2 and C3 keep their cosine-target comparisons; "best arm" asks whether
# sentence-transformers' CosineSimilarityLoss, the best fixed-setting arm, stays ahead once every arm is tuned.
TUNED_CLAIMS = [
    (
        "C2",
        "the buffer zone helps",
        [
            Comparison(
                "STS, cosine target, tuned: Smooth K2 vs MSE", "sts-tuned", "sk2-cosine", "mse-cosine"
            ),
            Comparison(
                "STS, cosine target, tuned: Translated ReLU vs L1", "sts-tuned", "trelu-cosine", "l1-cosine"
            ),
        ],
    ),
    (
        "C3",
        "Smooth K2 beats Translated ReLU",
        [
            Comparison(
                "STS, cosine target, tuned: Smooth K2 vs Translated ReLU",
                "sts-tuned",
                "sk2-cosine",
                "trelu-cosine",
            )
        ],
    ),
    (
        "best",
        "CosineSimilarityLoss is the best arm",
        [
            Comparison(f"STS, tuned: CosineSimilarityLoss vs {other}", "sts-tuned", "st-cossim", arm)
            for arm, other in (
                ("sk2-cosine", "Smooth K2"),
                ("mse-cosine", "MSE"),
                ("trelu-cosine", "Translated ReLU"),
                ("l1-cosine", "L1"),
                ("pcc", "Pcc-tuning"),
                ("st-cosent", "CoSENT"),
                ("st-angle", "AnglE"),
            )
        ],
    ),
]
HALF_LOW, HALF_HIGH = 0.35, 0.65  # C6, "about half": a ratio in this band


def arm_values(results: dict, source: str, arm: str, model: str = "minilm") -> dict:
    """``{seed: metric}`` of ``arm``'s recorded runs for a comparison source (``{None: value}`` for base)."""
    section, tag, _ = SOURCES[source]
    values = {}
    runs = quality_runs(results) if section == "quality" else nli_runs(results)
    for run in runs.values():
        if run.get("arm") != arm or record_model(run) != model:
            continue
        if run.get("budget_tag") != tag:
            continue  # another budget (a quick smoke run, the 150-step runs, the 500-pair condition)
        if arm == "base" and section == "quality":
            values[None] = run["test"]["Avg."]
        else:
            values[run["seed"]] = run["test"]["Avg."] if section == "quality" else run["test_accuracy"]
    return values


@dataclass
class Line:
    claim: str
    text: str
    comparison: Comparison
    result: Paired

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict


@dataclass
class ClaimVerdict:
    claim: str
    text: str
    lines: list[Line] = field(default_factory=list)

    @property
    def verdict(self) -> Combined:
        return combine(line.verdict for line in self.lines)

    @property
    def n(self) -> str:
        counts = sorted({line.result.n for line in self.lines if line.result.n})
        return "/".join(map(str, counts)) or "0"


def claim_verdicts(results: dict, model: str = "minilm", claims=None) -> list[ClaimVerdict]:
    """``claims`` (default C1-C5 at the fixed settings; ``TUNED_CLAIMS`` on the tuned arms) from the recorded
    runs of ``model``, paired by seed. With ``TUNED_CLAIMS`` a comparison whose arms ``model`` never ran is left
    out (all-mpnet-base-v2 ran three of the eight tuned arms), and so is a claim left with none."""
    verdicts = []
    for claim, text, comparisons in CLAIMS if claims is None else claims:
        found = ClaimVerdict(claim, text)
        for comparison in comparisons:
            a = arm_values(results, comparison.source, comparison.a, model)
            b = arm_values(results, comparison.source, comparison.b, model)
            if claims is not None and not (a and b):
                continue
            found.lines.append(Line(claim, text, comparison, paired(a, b, source_metric(comparison.source))))
        if found.lines or claims is None:
            verdicts.append(found)
    return verdicts


def memory_verdict(memory: dict | None) -> tuple[str, str]:
    """C6, peak memory of our fine-tune about half that of contrastive training (the paper's Table 4):
    ``(evidence, verdict)``."""
    peak = (memory or {}).get("peak")
    if not peak:
        return "row missing", "not measured (`python -m bench.perf.memory`)"
    ratio, kind = (
        (peak["ratio_cuda"], "CUDA max_memory_allocated")
        if "ratio_cuda" in peak
        else (peak["ratio_rss"], "peak RSS")
    )
    evidence = (
        f"{kind}: ours (batch {peak['batches']['ours']}) / InfoNCE (batch {peak['batches']['infonce']}) = "
        f"{ratio:.2f}x at max length {peak['max_length']}, {peak['device']}"
    )
    if HALF_LOW <= ratio <= HALF_HIGH:
        return evidence, f"holds ({ratio:.2f}x, about half)"
    if ratio < HALF_LOW:
        return evidence, f"holds in direction, not in size ({ratio:.2f}x, far below half)"
    return evidence, f"does not hold ({ratio:.2f}x)"
