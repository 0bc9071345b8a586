"""Published reference scores shown beside the app's own benchmark results.

Only numbers that could be checked against a public source are listed; nothing here is estimated.

* all-MiniLM-L6-v2 on the public MTEB leaderboard (Spearman of cosine similarity x100; SICK-R is not
  among the figures given). :func:`stsdemo.evaluate.evaluate_senteval` on the same model reproduces all
  six to two decimals (checked when this file was written), so the row doubles as a sanity check.
* The paper's Table 1 and Table 3 rows (BERT/RoBERTa with Translated ReLU / Smooth K2 on NLI; Jina v2 /
  Nomic v1 tuned on STS-B + SICK-R) are published as images in the paper and its repository
  (github.com/ZBWpro/STS-Regression), and no text copy of the exact per-task numbers was found, so they
  are left out rather than retyped from memory.
"""

from __future__ import annotations

PUBLISHED_SCORES: dict[str, dict[str, float]] = {
    "all-MiniLM-L6-v2 (MTEB leaderboard)": {
        "STS12": 72.37,
        "STS13": 80.60,
        "STS14": 75.59,
        "STS15": 85.39,
        "STS16": 78.99,
        "STSBenchmark": 82.03,
    },
}

REFERENCE_NOTE = (
    "Hatched bars: all-MiniLM-L6-v2's public MTEB figures (no SICK-R figure given); this app's own evaluation "
    "of the embedded all-MiniLM-L6-v2 reproduces all six. The paper's Table 1 / Table 3 rows are not included: "
    "they are published as images and no exact text copy could be checked (see github.com/ZBWpro/STS-Regression)."
)
