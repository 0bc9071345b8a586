"""The NLI section of docs/results.md: SNLI test accuracy per arm and training-set size, mean ± sd over seeds."""

from __future__ import annotations

import statistics

from stsdemo.evidence_cells import spread_cell

from ..common import mean_sd
from ..schema import nli_runs


def nli_groups(results: dict) -> list[tuple[int, float, str, list[dict]]]:
    """The recorded NLI runs (no quick ones) as ``(training pairs, epochs, arm, runs)``: most pairs first, then
    fewest epochs, then the arms in ``bench.evidence.nli``'s order."""
    from .nli import ARMS

    groups: dict[tuple, list] = {}
    for run in nli_runs(results).values():
        if run["budget_tag"] != "quick":
            groups.setdefault((run["train_pairs"], run["budget"]["epochs"], run["arm"]), []).append(run)
    order = list(ARMS)
    return [
        (pairs, epochs, arm, runs)
        for (pairs, epochs, arm), runs in sorted(
            groups.items(), key=lambda kv: (-kv[0][0], kv[0][1], order.index(kv[0][2]))
        )
    ]


def epochs_text(epochs: float) -> str:
    return f"{epochs:g} epoch{'' if epochs == 1 else 's'}"


def nli_table(results: dict) -> list[str]:
    """SNLI test accuracy and macro-F1 per arm and training-set size, mean ± sd over seeds."""
    from .nli import ARMS

    groups = nli_groups(results)
    if not groups:
        return ["_No NLI runs recorded yet (`python -m bench.evidence.nli --seeds 3 --skip-done`)._\n"]
    lines = [
        "Trained at batch 16 on SNLI dev less 1,000 held-out pairs (or a fixed sample of them) for the epochs "
        "given, checkpoint chosen by held-out accuracy, scored once on SNLI test (9,824 pairs). The class of a "
        "regression is the node nearest its prediction (contradiction 0, neutral 1, entailment 2).\n",
        "| training pairs x epochs | arm | n | accuracy (%) | macro-F1 (%) | held-out accuracy (%) | minutes per run (median) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for pairs, epochs, arm, runs in groups:
        n = len(runs)
        acc, f1, held = (
            mean_sd([r[k] for r in runs]) for k in ("test_accuracy", "test_macro_f1", "held_out_best")
        )
        minutes = (
            statistics.median(r["wall_seconds"] for r in runs) / 60
        )  # a run paused for the test suite is long
        lines.append(
            f"| {pairs:,} x {epochs:g} | {ARMS[arm]['label']} (`{arm}`) | {n} | **{spread_cell(*acc, n)}** | "
            f"{spread_cell(*f1, n)} | {spread_cell(*held, n)} | {minutes:.1f} |"
        )
    return lines + [""]
