"""The paper's claims as checks on the recorded numbers: each claim names the rows that are its evidence,
and its verdict is computed from them (never written by hand); a missing row gives "not measured".

Used by ``bench.report`` for the verdict table of docs/results.md.

A comparison of two arms holds when the first one's 7-task Avg. (mean over its seeds) is higher. Where
either arm has several seeds, the difference is also set against its standard error
``sqrt(sd_a^2 / n_a + sd_b^2 / n_b)``: a difference within two standard errors is "inconclusive". With one
seed on both sides there is no spread to compare with, and the verdict says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# (claim id, what the paper says, [(arm a, arm b, what the pair tests)], how the verdict combines the pairs)
CLAIMS = [
    ("C1", "regression beats classification",
     [("sk2-2stage", "ce", "STS tune data: Smooth K2 regression (paper recipe) vs cross-entropy classification"),
      ("nli-sk2", "nli-ce", "NLI data (Table 1's setting): Smooth K2 regression vs cross-entropy")]),
    ("C2", "the buffer zone helps",
     [("trelu-2stage", "l1-2stage", "paper head: Translated ReLU vs L1"),
      ("sk2-2stage", "mse-2stage", "paper head: Smooth K2 vs MSE"),
      ("trelu-cosine", "l1-cosine", "cosine target: Translated ReLU vs L1"),
      ("sk2-cosine", "mse-cosine", "cosine target: Smooth K2 vs MSE")]),
    ("C3", "Smooth K2 beats Translated ReLU on clean data",
     [("sk2-2stage", "trelu-2stage", "paper head"),
      ("sk2-cosine", "trelu-cosine", "cosine target")]),
    ("C4", "the recipe improves a contrastive encoder beyond the base and beyond +Contrast",
     [("sk2-2stage", "base", "paper recipe vs the untrained encoder"),
      ("sk2-2stage", "infonce", "paper recipe vs +Contrast (InfoNCE on pairs >= 4.0)")]),
    ("C5", "[u, v, |u-v|] beats [u, v] and [|u-v|]",
     [("sk2-2stage", "head-uv", "[u, v, |u-v|] vs [u, v]"),
      ("sk2-2stage", "head-absdiff", "[u, v, |u-v|] vs [|u-v|]")]),
]
HALF_LOW, HALF_HIGH = 0.35, 0.65   # "about half": a ratio in this band


@dataclass
class Verdict:
    claim: str
    text: str
    test: str          # what this line compares
    evidence: str      # the rows and their numbers
    verdict: str


def arm_cell(summary: dict, arm: str) -> str:
    row = summary[arm]
    n = len(row["seeds"])
    spread = f" ± {row['Avg. sd']:.2f}" if n > 1 else ""
    return f"`{arm}` {row['Avg.']:.2f}{spread} (n={n})"


def compare(summary: dict, a: str, b: str) -> tuple[str, str]:
    """(evidence, verdict) for "a beats b" on the 7-task Avg."""
    missing = [arm for arm in (a, b) if arm not in summary]
    if missing:
        return ("row " + " and ".join(f"`{m}`" for m in missing) + " missing",
                "not measured (`python -m bench.quality --arms " + ",".join(missing) + "`)")
    ra, rb = summary[a], summary[b]
    diff = ra["Avg."] - rb["Avg."]
    na, nb = len(ra["seeds"]), len(rb["seeds"])
    se = math.sqrt((ra["Avg. sd"] ** 2 / na if na > 1 else 0.0) + (rb["Avg. sd"] ** 2 / nb if nb > 1 else 0.0))
    evidence = f"{arm_cell(summary, a)} vs {arm_cell(summary, b)}: {diff:+.2f}"
    if se > 0 and abs(diff) < 2 * se:
        return evidence, f"inconclusive ({diff:+.2f} is within 2 standard errors, {2 * se:.2f})"
    word = "holds" if diff > 0 else "does not hold"
    if se == 0:
        word += " (one seed each: no spread to compare with)"
    return evidence, word


def combine(verdicts: list[str]) -> str:
    """One word for a claim from its lines: holds only if every measured line holds."""
    measured = [v for v in verdicts if not v.startswith("not measured")]
    if not measured:
        return "not measured"
    if all(v.startswith("holds") for v in measured):
        return "holds" + ("" if len(measured) == len(verdicts) else " where measured")
    if all(v.startswith("does not hold") for v in measured):
        return "does not hold"
    return "mixed"


def quality_verdicts(summary: dict) -> list[Verdict]:
    """C1-C5 from one (encoder, budget) summary (``bench.quality.summarize``)."""
    lines = []
    for claim, text, pairs in CLAIMS:
        found = []
        for a, b, test in pairs:
            evidence, verdict = compare(summary, a, b)
            found.append(verdict)
            lines.append(Verdict(claim, text, test, evidence, verdict))
        lines.append(Verdict(claim, text, "overall", "", combine(found)))
    return lines


def memory_verdict(memory: dict | None) -> Verdict:
    """C6: peak memory of our fine-tune about half that of contrastive training (the paper's Table 4)."""
    text = "memory about half of contrastive training"
    peak = (memory or {}).get("peak")
    if not peak:
        return Verdict("C6", text, "peak memory", "row missing", "not measured (`python -m bench.memory`)")
    ratio, kind = (peak["ratio_cuda"], "CUDA max_memory_allocated") if "ratio_cuda" in peak else \
        (peak["ratio_rss"], "peak RSS")
    evidence = (f"{kind}: ours (batch {peak['batches']['ours']}) / InfoNCE (batch {peak['batches']['infonce']}) = "
                f"{ratio:.2f}x at max length {peak['max_length']}, {peak['device']}")
    if HALF_LOW <= ratio <= HALF_HIGH:
        verdict = f"holds ({ratio:.2f}x, about half)"
    elif ratio < HALF_LOW:
        verdict = f"holds in direction, not in size: {ratio:.2f}x, far below half"
    else:
        verdict = f"does not hold ({ratio:.2f}x)"
    return Verdict("C6", text, "ours vs InfoNCE", evidence, verdict)


def ours_candidates(summary: dict) -> list[str]:
    """The arms that are "ours" in the main table: our buffer-zone losses (Smooth K2, Translated ReLU) on
    either target, the official preset included."""
    from .quality import ARMS

    ours = []
    for arm in summary:
        spec = ARMS.get(arm)
        if not spec or spec["kind"] != "ours" or spec["group"] != "main":
            continue
        loss = spec.get("config", {}).get("loss") or ("sk2" if spec.get("preset") else None)
        if loss in ("sk2", "trelu"):
            ours.append(arm)
    return ours


def target_verdict(summary: dict) -> Verdict:
    """The issue's target: ours (the arm dev picks among ours) ahead of every other main arm on the 7-task Avg."""
    from .quality import ARMS

    text = "ours ahead of every other arm (dev-selected, means over seeds)"
    ours = [a for a in ours_candidates(summary) if "dev" in summary[a]]
    others = [a for a in summary if a not in ours_candidates(summary) and a != "base"
              and ARMS.get(a, {}).get("group") == "main"]
    if not ours or not others:
        return Verdict("T", text, "best of ours vs best other", "rows missing", "not measured")
    pick = max(ours, key=lambda a: summary[a]["dev"])
    rival = max(others, key=lambda a: summary[a]["Avg."])
    evidence, verdict = compare(summary, pick, rival)
    evidence = f"ours by dev: {evidence}; best other arm by test Avg.: `{rival}`"
    return Verdict("T", text, f"`{pick}` (highest STS-B dev of ours) vs the best other arm", evidence, verdict)
