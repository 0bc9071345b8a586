"""*Compare with and without the buffer*: one click, two runs that differ only in ``x0``.

The first run takes the form as it is; the second is the same run with ``x0 = 0`` (the same loss without its
zero-gradient zone): same start, seed and data order (the seed fixes both the head's initialisation and the
order of the batches), same steps. Both go through the training line as **one** job of the session. At the
end the two dev curves sit side by side on the usual charts, their last dev error histograms are overlaid,
and the final dev difference is stated beside what the project's recorded seeds say of that difference.
"""

from __future__ import annotations

import math
from typing import Iterator

import plotly.graph_objects as go

from ..errors import InputError
from ..losses.spec import LOSSES, PAPER_X0
from . import finetune_view, form, plots, senteval_view, store
from .evidence_view import buffer_line, buffer_spread
from .finetune_view import TrainView


def check_comparable(config) -> None:
    """A comparison needs a buffer to switch off: a buffer-zone loss with ``x0 > 0``."""
    if not LOSSES[config.loss].buffer:
        raise InputError(f"loss {config.loss!r} has no buffer zone to compare; pick Smooth K2 or Translated ReLU")
    if config.x0 == 0:
        raise InputError(f"x0 is already 0, so there is no buffer to compare with; set x0 above 0 (the paper: "
                         f"{PAPER_X0:g})")


def final_dev(info: store.RunInfo, select_by: str) -> float | None:
    """The dev Spearman (the metric that selects checkpoints) at a run's last evaluation."""
    evals = finetune_view.evaluations(info)
    if not evals:
        return None
    return float(evals[-1].dev_head if select_by == "head" else evals[-1].dev_cosine)


def overlaid_histograms(first: store.RunInfo, second: store.RunInfo) -> go.Figure:
    """The last dev error histogram of each run as an outline on one axis, x0 and d/2 marked."""
    return plots.overlaid_histograms([(info.label, finetune_view.evaluations(info)) for info in (first, second)],
                                     "Dev errors: with vs without the buffer")


def verdict_text(first: store.RunInfo, second: store.RunInfo, config) -> str:
    """The final dev difference of the pair beside the recorded seed-to-seed evidence for the setting."""
    with_buffer, without = final_dev(first, config.select_by), final_dev(second, config.select_by)
    if with_buffer is None or without is None or not (math.isfinite(with_buffer) and math.isfinite(without)):
        return "The comparison has no dev evaluation on both sides."
    found, _ = senteval_view.recorded_evidence()
    recorded = recorded_spread(found, config)
    return (f"**With vs without the buffer** (STS-B dev Spearman of the {config.select_by}, last evaluation): "
            f"x0 = {config.x0:g}: **{with_buffer:.2f}**; x0 = 0: **{without:.2f}**; difference "
            f"**{with_buffer - without:+.2f}**. One pair of runs is one seed: {recorded}")


def recorded_spread(found, config) -> str:
    """What the project's recorded seeds say of this setting: the dev spread of its arm, and the paired
    buffer-vs-none comparison."""
    line = buffer_line(found, config.loss, config.target)
    row = line[1] if line else None
    parts = []
    if row is not None and row.dev_sd is not None and len(row.seeds) > 1:
        parts.append(f"the recorded STS-B dev of {row.arm} varies by sd {row.dev_sd:.2f} across {len(row.seeds)} "
                     "seeds at the paper's budget, so a smaller difference here says little.")
    spread = buffer_spread(found, config.loss, config.target)
    if spread:
        parts.append(spread)
    return " ".join(parts) or "no recorded seeds of this setting to compare with (see the Benchmark tab)."


def stream_comparison(state, session: str, values: dict) -> Iterator[TrainView]:
    """Queue the pair as one job and stream both runs; the last view overlays them. InputError before
    anything starts for a loss without a buffer, x0 already 0, or a job of this session already going."""
    store.prune_sessions(set(state.active_runs()))
    values = {**values, "final_eval": False}  # the pair stays a few minutes on a CPU
    first = form.build_config(session, store.new_run_id(), values)
    check_comparable(first)
    second = form.build_config(session, store.new_run_id(), {**values, "x0": 0})
    earlier = store.list_runs(session)

    def both(signal) -> Iterator[TrainView]:
        with_buffer = finetune_view.start_run(session, first, False, values, earlier)
        yield from finetune_view.run_admitted(state, with_buffer, signal)
        if signal.is_set() or with_buffer.info.status != "finished":
            return
        state.switch_run(session, second.run_name)
        without = finetune_view.start_run(session, second, False, values, [*earlier, with_buffer.info])
        view = None
        for view in finetune_view.run_admitted(state, without, signal):
            if not view.finished:
                yield view
        status = (verdict_text(with_buffer.info, without.info, first) if without.info.status == "finished"
                  else f"The run without the buffer {without.info.status}; no comparison.")
        if view is not None:
            yield TrainView(view.progress, status, view.curves, None, True, second.run_name,
                            overlaid_histograms(with_buffer.info, without.info))

    yield from finetune_view.stream_job(state, session, first, earlier, both)
