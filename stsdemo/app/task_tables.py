"""The 7-task score tables the Fine-tune and Benchmark tabs show: one row per model, the seven tasks and Avg.
(Spearman x100, two decimals), and a fine-tuned model's change against its base."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..evaluate import TABLE_NAMES, TASKS, row_average


def task_names(tasks: Sequence[str] = TASKS) -> list[str]:
    """The tasks as the paper's table titles them."""
    return [TABLE_NAMES.get(t, t) for t in tasks]


def results_frame(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per model, the seven tasks and Avg. (Spearman x100, two decimals; missing = NaN)."""
    records = []
    for model, scores in rows.items():
        record = {"model": model}
        for task, name in zip(TASKS, task_names()):
            value = scores.get(task)
            record[name] = None if value is None else round(float(value), 2)
        average = row_average(scores)
        record["Avg."] = None if average is None else round(average, 2)
        records.append(record)
    return pd.DataFrame(records, columns=["model", *task_names(), "Avg."])


def delta_frame(
    trained: dict[str, float],
    base: dict[str, float] | None,
    trained_name: str = "fine-tuned",
    base_name: str = "base model",
) -> pd.DataFrame:
    """The fine-tuned model's 7-task scores, the base model's, and the change (fine-tuned − base)."""
    rows = {trained_name: trained}
    if base:
        rows[base_name] = base
        shared = [t for t in [*TASKS, "Avg."] if t in trained and t in base]
        rows["Δ (fine-tuned − base)"] = {t: trained[t] - base[t] for t in shared}
    frame = results_frame(rows)
    if base:
        numeric = frame.columns[1:]
        frame.loc[frame.index[-1], numeric] = [
            None if pd.isna(v) else float(f"{v:+.2f}") for v in frame.loc[frame.index[-1], numeric]
        ]
    return frame
