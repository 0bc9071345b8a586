"""The verdicts on the paper's claims in words, as the Benchmark tab and docs/evidence.md show them: one line per
claim with the numbers behind it, and a plain reading a student can follow. Read from the recorded evidence
(:mod:`stsdemo.evidence`), so the tab (:mod:`stsdemo.app.benchmark.evidence_view`) and the page bench writes
(:mod:`bench.evidence.app_evidence`) say the same, in the same words."""

from __future__ import annotations

import re

from .evidence import Claim, ClaimLine, Evidence
from .paired import RULE_IN_WORDS
from .verdict import Verdict

# Each claim of the paper as the question a reader asks; the verdicts answer it (``plain_reading``).
QUESTIONS = {
    "C1": "Does regression on the label line beat a classifier?",
    "C2": "Does the buffer zone beat the same loss without it?",
    "C3": "Does Smooth K2 beat Translated ReLU?",
    "C4": "Does the recipe improve a contrastive encoder, beyond the untrained one and beyond +Contrast?",
    "C5": "Does the head on [u, v, |u-v|] beat [u, v] and [|u-v|]?",
    "C6": "Does the fine-tune need about half the memory of contrastive training?",
}


def claims_markdown(evidence: Evidence) -> str:
    """One line per claim: its verdict and the numbers behind it (mean difference ± se), then a plain reading."""
    lines = [
        f"Verdicts from paired seeds (recorded {evidence.generated}): {RULE_IN_WORDS}. Each difference reads "
        "mean ± se (standard error), n = paired seeds.",
        "",
    ]
    for claim in evidence.claims:
        memory = memory_reading(claim) if not claim.lines else None
        head = f"{memory[0]}: **{memory[1]}**" if memory else f"{claim.text}: **{claim.words}**"
        reading = plain_reading(claim)
        lines.append(f"- **{claim.claim}** {head}" + (f". *In plain words:* {reading}" if reading else ""))
        numbers = "; ".join(_line_text(line) for line in claim.lines if line.n)
        lines += [f"  - mean ± se: {numbers}"] if numbers else []
    return "\n".join(lines)


# how a plain reading counts the comparisons of each verdict
COUNTED = {
    Verdict.HOLDS: "yes in {}",
    Verdict.REVERSED: "the opposite in {}",
    Verdict.NEGLIGIBLE: "a difference too small to matter in {} (its 95 % interval lies inside the smallest "
    "effect of interest)",
    Verdict.NO_DIFFERENCE: "no measurable difference in {} (the seed-to-seed noise could hide one)",
}


def plain_reading(claim: Claim) -> str:
    """One sentence a student can read: the claim's question and how many comparisons answered yes, the
    opposite, too small to matter, or nothing measurable, with the largest of the differences the rule marked
    (holds or reversed; of all read ones when none is marked), named with its verdict ("" when none was read)."""
    if not claim.lines:
        memory = memory_reading(claim)
        return memory[2] if memory else ""
    measured = [line for line in claim.lines if line.verdict.decided and line.mean is not None]
    if not measured:
        return ""
    counts = [(text, sum(line.verdict == kind for line in measured)) for kind, text in COUNTED.items()]
    marked = [line for line in measured if line.verdict.marked]
    largest = max(marked or measured, key=lambda line: abs(line.mean))
    count = f"{len(measured)} comparison{'' if len(measured) == 1 else 's'}"
    return (
        f"{QUESTIONS.get(claim.claim, claim.text)} Of {count}: "
        f"{', '.join(text.format(found) for text, found in counts if found)}. "
        f"Largest {'marked ' if marked else ''}difference: {largest.test}, {largest.mean:+.2f} points "
        f"({largest.metric}; {largest.verdict})."
    )


MEMORY = re.compile(
    r"\((?P<kind>[^:]+): ours \(batch (?P<ours>\d+)\) / InfoNCE \(batch (?P<theirs>\d+)\) = "
    r"(?P<ratio>[\d.]+)x at max length (?P<length>\d+), (?P<device>.+)\)$"
)


def memory_reading(claim: Claim) -> tuple[str, str, str] | None:
    """C6 worded as what it measured: ``(what was measured, the figure, a plain reading)``, read from the claim's
    text as ``bench.evidence.claims.memory_verdict`` writes it; None when the text has another form (it is then shown
    as written)."""
    found = MEMORY.search(claim.text)
    if claim.claim != "C6" or not found:
        return None
    ours, theirs, ratio = int(found["ours"]), int(found["theirs"]), float(found["ratio"])
    what = (
        f"memory: {found['kind']} of our fine-tune at batch {ours} over InfoNCE contrastive training at batch "
        f"{theirs} (max length {found['length']}, {found['device']})"
    )
    figure = f"{ratio:.2f}×, {'less' if ratio < 1 else 'more'} memory than contrastive training"
    reading = (
        f"{QUESTIONS['C6']} Ours used {ratio:.2f}× the memory of InfoNCE, each run at its usual batch size "
        f"({ours} and {theirs}); the paper reports about half. So {'less' if ratio < 1 else 'more'}"
        f"{', as claimed' if ratio < 1 else ''}: the ratio compares the two recipes as run, not the memory "
        "one pair needs."
    )
    return what, figure, reading


def _line_text(line: ClaimLine) -> str:
    spread = f" ± {line.se:.2f}" if line.n > 1 and line.se is not None else ""
    return f"{line.test} {line.mean:+.2f}{spread} (n = {line.n})"
