"""The prose of docs/evidence.md ("What these say") with every verdict word and paired figure filled in from the
records by the rule (:mod:`stsdemo.paired`), so the page's sentences cannot contradict its verdict block or the
app's Benchmark tab: ``python -m bench.evidence.report`` writes it between the :data:`BEGIN` and :data:`END` markers.

A sentence names a comparison by a field of :data:`PROSE` (a key of :data:`REFS`: a fixed-setting claim's line
of :func:`bench.evidence.claims.claim_verdicts`, or a tuned one of :func:`bench.evidence.tuning_evidence.claims` on
MiniLM) and it reads ``-0.07 ± 0.01 (se, n = 3, lower on every seed): *reversed*``; a claim by its name (``{C1}``) reads
its combined verdict. The rest of each sentence states what the records show without a verdict of its own.
"""

from __future__ import annotations

import re

from stsdemo.verdict import Verdict

BEGIN, END = "<!-- BEGIN PROSE (python -m bench.evidence.report) -->", "<!-- END PROSE -->"
TUNED = "tuned"  # REFS' claim prefix for a line of the tuned claims (all-MiniLM-L6-v2)
REFS = {
    "sts_sk2_mse": ("C2", "STS, cosine target: Smooth K2 vs MSE"),
    "sts_trelu_l1": ("C2", "STS, cosine target: Translated ReLU vs L1"),
    "head_sk2_mse": ("C2", "STS, paper head: Smooth K2 vs MSE"),
    "head_trelu_l1": ("C2", "STS, paper head: Translated ReLU vs L1"),
    "nli_sk2_mse": ("C2", "NLI: Smooth K2 vs MSE"),
    "nli_trelu_l1": ("C2", "NLI: Translated ReLU vs L1"),
    "small_sk2_mse": ("C2", "NLI, 500 training pairs x 10 epochs: Smooth K2 vs MSE"),
    "small_trelu_l1": ("C2", "NLI, 500 training pairs x 10 epochs: Translated ReLU vs L1"),
    "recipe_ce": ("C1", "STS, paper head: Smooth K2 (paper recipe) vs cross-entropy"),
    "nli_sk2_ce": ("C1", "NLI: Smooth K2 regression vs cross-entropy"),
    "nli_trelu_ce": ("C1", "NLI: Translated ReLU regression vs cross-entropy"),
    "recipe_base": ("C4", "paper recipe vs the untrained encoder"),
    "head_uv": ("C5", "[u, v, |u-v|] vs [u, v]"),
    "head_absdiff": ("C5", "[u, v, |u-v|] vs [|u-v|]"),
    "tuned_sk2_mse": (f"{TUNED} C2", "STS, cosine target, tuned: Smooth K2 vs MSE"),
    "tuned_trelu_l1": (f"{TUNED} C2", "STS, cosine target, tuned: Translated ReLU vs L1"),
    "tuned_sk2_trelu": (f"{TUNED} C3", "STS, cosine target, tuned: Smooth K2 vs Translated ReLU"),
}
PROSE = """**What these say.** The buffer zone (C2) holds in {c2_held} of the {c2_total} comparisons at the fixed \
settings, and in {tuned_held} of the {tuned_total} on the tuned arms.
- On STS at the paper's budget, with the cosine target, Smooth K2 − MSE is {sts_sk2_mse}, by far less than a user \
would notice; Translated ReLU − L1 is {sts_trelu_l1}.
- With every arm tuned on one learning-rate grid (lr 5e-5 at the paper's x0 and k for both buffer losses; seeds \
42-44 on one H100 with bf16 autocast), Smooth K2 − MSE is {tuned_sk2_mse}, Translated ReLU − L1 is \
{tuned_trelu_l1}, and Smooth K2 − Translated ReLU (C3) is {tuned_sk2_trelu}.
- On the paper head the differences come from which runs moved the encoder at all, not from the buffer. Smooth K2 \
− MSE is {head_sk2_mse} and Translated ReLU − L1 is {head_trelu_l1}.
  - On seeds 43 and 44 most two-stage runs never beat their stage-1 checkpoint on STS-B dev, so they kept the \
untrained encoder.
  - Every run that did move it (5 of 12) scored 1.3 to 2.1 points below the untrained encoder.
  - The paper's recipe against the untrained encoder is {recipe_base} (C4: {C4}).
- The head ablation (C5: [u, v] and [|u-v|] against the paper's [u, v, |u-v|]) reads {head_uv} and {head_absdiff}, \
for the same reason. Five of its six runs never beat their stage-1 checkpoint on dev and kept the untrained encoder \
(78.87); the sixth moved it slightly (78.84). So at this budget the head's features decide only whether the encoder \
moves, and the 7-task mean does not read them.
- The official Jina/Nomic tune script's settings on the same head (k 3.5, x0 0.2, lr 5e-5, 4 epochs at batch 8; \
one seed, four times the passes) scored 81.42. So the head can train this encoder the right way, given that budget.
- On STS-B test, the cosine-target arms put 40 to 44 % of pairs on their node. The buffer does not raise that \
figure: Smooth K2 41.29 ± 0.40 against MSE 41.48 ± 0.45.
- On NLI, where the framing is native, the buffer's differences point down: Smooth K2 − MSE is {nli_sk2_mse} and \
Translated ReLU − L1 is {nli_trelu_l1} (points of SNLI test accuracy).
- The condition chosen to favour it (500 NLI training pairs for 10 epochs, where a regulariser should pay off): \
Smooth K2 − MSE {small_sk2_mse} and Translated ReLU − L1 {small_trelu_l1}.
- The Sentence-BERT classifier is ahead of every regression on SNLI test accuracy: Smooth K2 − cross-entropy \
{nli_sk2_ce}, Translated ReLU − cross-entropy {nli_trelu_ce}. On STS, the paper's recipe against the \
cross-entropy head is {recipe_ce}, so C1 reads *{C1}* overall.
- At the paper's one-epoch budget the best STS arm is still sentence-transformers' CosineSimilarityLoss \
(81.09 ± 0.12).
- Fusion with the untrained encoder (best arm by STS-B dev, CosineSimilarityLoss): linear fusion chose alpha 1, no \
fusion. Delta-guided fusion of its 3 seeds scored 81.22, 0.14 above their mean (one merged model).
- On all-mpnet-base-v2 (one seed per arm) the paper's recipe does move the encoder the right way: 81.27 against \
80.53 untrained (+0.74; dev 89.42, kept at step `2:380`). This is a single seed with no verdict, and it is unlike \
MiniLM at the same budget. On the cosine target, Smooth K2 scores 82.94 (+2.41) and MSE 82.98 (+2.45): the buffer \
is 0.04 lower, on one seed, with the same best STS-B dev (89.90) and 0.29 points more pairs on their node (46.05 % \
against 45.76 %). The gap is within MiniLM's seed-to-seed spread on the same arms (sd 0.10), so this is no verdict \
either. As on MiniLM, sentence-transformers' CosineSimilarityLoss scores highest: 83.30 (+2.77, dev 90.08, 46.12 % \
on node).
"""


def comparison_text(mean: float, se: float | None, n: int, diffs: list[float], verdict: str) -> str:
    """A comparison as the prose reads it: ``-0.07 ± 0.01 (se, n = 3, lower on every seed): *reversed*``."""
    shown = [round(d, 2) for d in diffs]  # a seed reads as higher or lower as the page rounds it
    same = (
        ", higher on every seed"
        if all(d > 0 for d in shown)
        else ", lower on every seed"
        if all(d < 0 for d in shown)
        else ""
    )
    spread = f" ± {se:.2f} (se, n = {n}{same})" if se is not None else f" (n = {n})"
    return f"{mean:+.2f}{spread}: *{verdict}*"


# what the test reads back from the page: a comparison's figure and the verdict beside it
FIGURE = re.compile(
    r"(?P<mean>[+-]\d+\.\d\d) ± (?P<se>\d+\.\d\d) \(se, n = (?P<n>\d+)[^)]*\): \*(?P<verdict>[^*]+)\*"
)


def lines_by_ref(results: dict) -> dict[str, dict]:
    """Every comparison :data:`REFS` names, as ``{mean, se, n, diffs, verdict}``, recomputed from ``results``."""
    from .claims import claim_verdicts
    from .tuning_evidence import claims as tuned_claims

    found = {}
    for claim in claim_verdicts(results):
        for line in claim.lines:
            found[(claim.claim, line.comparison.test)] = dict(
                mean=line.result.mean,
                se=line.result.se if line.result.n > 1 else None,
                n=line.result.n,
                diffs=line.result.diffs,
                verdict=line.verdict,
            )
    for claim in tuned_claims(results):
        if claim["encoder"] == "all-MiniLM-L6-v2":
            for line in claim["lines"]:
                found[(f"{TUNED} {claim['claim']}", line["test"])] = {
                    k: line[k] for k in ("mean", "se", "n", "diffs", "verdict")
                }
    return {ref: found[key] for ref, key in REFS.items() if key in found}


def prose(results: dict) -> str:
    """The page's prose with its verdicts and paired figures filled in from ``results``."""
    from .claims import claim_verdicts

    lines = lines_by_ref(results)
    missing = sorted(set(REFS) - set(lines))
    if missing:
        raise KeyError(f"the records hold no comparison for {', '.join(missing)}")
    texts = {
        ref: comparison_text(**line) if line["n"] else f"*{line['verdict']}*" for ref, line in lines.items()
    }
    verdicts = {claim.claim: claim.verdict.words for claim in claim_verdicts(results)}
    c2 = [line for claim in claim_verdicts(results) if claim.claim == "C2" for line in claim.lines]
    tuned = [line for ref, line in lines.items() if REFS[ref][0] == f"{TUNED} C2"]
    return PROSE.format(
        **texts,
        **verdicts,
        c2_held=sum(line.verdict == Verdict.HOLDS for line in c2),
        c2_total=len(c2),
        tuned_held=sum(line["verdict"] == Verdict.HOLDS for line in tuned),
        tuned_total=len(tuned),
    )
