"""What the project measured, as the app shows it: the recorded arms and the verdicts on the paper's claims.

The numbers come from ``evidence.json`` beside this module, which ``python -m bench.evidence.report`` writes from the
benchmark runs recorded in ``docs/results.json`` (each run names its machine; the file's layout and types:
:mod:`stsdemo.evidence`). The app only reads it: no recomputation, no network. A missing or unreadable file
leaves the app working and says the evidence is unavailable.
"""

from __future__ import annotations

import html
import json
import math
import textwrap
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from ...claims_text import claims_markdown
from ...evidence import EVIDENCE_FILE, NLI, STS, ClaimLine, Evidence, EvidenceRow
from ...evidence_cells import COLUMNS, arm_cell, evidence_rows, spread_cell
from ...losses.spec import LOSSES
from ...verdict import Combined, Verdict
from ..ui.words import said, verdict_words
from .reference import PAPER_ARMS, PAPER_REPORTED


class EvidenceUnavailable(Exception):
    """The evidence file is missing or unreadable; the message says which."""


def load_evidence(path: Path | None = None) -> Evidence:
    """The recorded evidence; :class:`EvidenceUnavailable` when the file is missing or corrupt."""
    path = path or EVIDENCE_FILE
    try:
        return Evidence.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise EvidenceUnavailable(f"no evidence file ({path.name}) ships with this copy") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise EvidenceUnavailable(f"the evidence file {path.name} could not be read ({error})") from None


# pixels, not shares: on a phone the table scrolls sideways instead of squeezing each cell to a letter a line
COLUMN_WIDTHS = ["400px", "170px", "110px", "130px", "130px", "130px", "140px"]


def evidence_frame(
    evidence: Evidence | None, own: dict[str, dict] | None = None, markup: bool = False
) -> pd.DataFrame:
    """The table of the Benchmark tab: every recorded arm (:func:`stsdemo.evidence_cells.evidence_rows`), then
    the visitor's own evaluations (``{name: 7-task results}``) as rows of one run each."""
    own_rows = [
        [
            arm_cell(name, "evaluated here", markup),
            name,
            "–",
            spread_cell(results.get("Avg."), None, 1),
            "–",
            "–",
            "this app",
        ]
        for name, results in (own or {}).items()
    ]
    return pd.DataFrame(evidence_rows(evidence, markup) + own_rows, columns=COLUMNS)


def claims_view(evidence: Evidence | None, reason: str = "") -> str:
    """The verdicts on the paper's claims (:func:`stsdemo.claims_text.claims_markdown`), or why they are missing."""
    if evidence is None:
        return (
            f"**The project's recorded evidence is unavailable** ({reason}). Your own evaluations still work."
        )
    return claims_markdown(evidence)


PAPER_COLUMNS = ["encoder (paper)", "trained on", *PAPER_ARMS, "source"]
PAPER_WIDTHS = ["190px", "150px", *["105px"] * len(PAPER_ARMS), "170px"]


def paper_frame() -> pd.DataFrame:
    """What the paper reported (its 7-task averages), one row per encoder, to set beside this project's rows:
    labelled as the paper's, and not run here."""
    records = [
        [
            encoder,
            data,
            *(f"{scores[arm]:.2f}" if arm in scores else "–" for arm in PAPER_ARMS),
            f"Zhang & Li 2024, {table}",
        ]
        for encoder, data, table, scores in PAPER_REPORTED
    ]
    return pd.DataFrame(records, columns=PAPER_COLUMNS)


def paper_reading() -> str:
    """The paper's buffer-zone comparisons, from its reported averages, to read beside this project's C2."""
    pairs = []
    for encoder, data, _, scores in PAPER_REPORTED:
        for a, b in (("Smooth K2", "MSE"), ("Translated ReLU", "L1")):
            if a in scores and b in scores:
                pairs.append(f"{a} − {b} {scores[a] - scores[b]:+.2f} ({encoder}, {data})")
    return (
        "**What the paper reported** (its own 7-task averages, Spearman ×100; BERT and RoBERTa trained on NLI, "
        "Jina v2 and Nomic tuned on STS-B + SICK-R; **not run here**). Its buffer-zone comparisons: "
        + "; ".join(pairs)
        + ". Set them beside this project's C2 above (all-MiniLM-L6-v2, paired seeds)."
    )


SPREADS = (
    "± in the table: **sd**, the standard deviation of an arm's figure over its seeds. ± in the verdicts: "
    "**se**, the standard error of the mean of the per-seed differences (what the rule reads)."
)


def buffer_line(evidence: Evidence | None, loss: str, target: str) -> tuple[ClaimLine, EvidenceRow] | None:
    """The recorded paired comparison (7-task Avg.) of ``loss`` with its no-buffer twin (the loss's declared
    ``twin``: Smooth K2 / MSE, Translated ReLU / L1) on ``target``, found by what its two rows record, and the
    row of the buffer side; None if none was recorded."""
    twin = LOSSES[loss].twin if loss in LOSSES else None
    if evidence is None or twin is None:
        return None
    for claim in evidence.claims:
        for line in claim.lines:
            with_buffer, without = evidence.row(line.a), evidence.row(line.b)
            if (
                line.n
                and with_buffer
                and without
                and (with_buffer.loss, with_buffer.target, without.loss, without.target)
                == (loss, target, twin, target)
            ):
                return line, with_buffer
    return None


def buffer_spread(evidence: Evidence | None, loss: str, target: str, language: str = "en") -> str:
    """What the recorded runs say about a buffer-vs-none difference for this loss and target
    (:func:`buffer_line`), or '' if nothing, in ``language``."""
    found = buffer_line(evidence, loss, target)
    if found is None:
        return ""
    line, _ = found
    spread = said("compare_se", language, se=f"{line.se:.2f}") if line.n > 1 and line.se is not None else ""
    return said(
        "compare_recorded_spread",
        language,
        a=line.a,
        b=line.b,
        n=line.n,
        plural="" if line.n == 1 else "s",
        mean=f"{line.mean:+.2f}",
        spread=spread,
        verdict=verdict_words(line.verdict, language),
    )


CHARTS = {
    STS: ("avg", "avg_sd", "STS: 7-task mean (Spearman ×100)", "7-task mean"),
    NLI: ("nli", "nli_sd", "NLI: SNLI test accuracy (%)", "SNLI test accuracy"),
}
OURS, OTHERS = "#0072B2", "#9ca3af"  # the buffer-zone losses (Smooth K2, Translated ReLU) | everything else
TICK_WIDTH, TICK_LINES = 46, 2  # an arm's name on the chart's axis: wrapped, at most this many lines


def tick_name(row: EvidenceRow) -> str:
    """An arm's full name as the chart's axis shows it: wrapped onto short lines (an encoder other than the
    default is named), cut with "…" past :data:`TICK_LINES` lines (the hover shows it whole)."""
    name = row.label + ("" if row.encoder == "all-MiniLM-L6-v2" else f" · {row.encoder}")
    lines = textwrap.wrap(name, TICK_WIDTH) or [row.arm]
    if len(lines) > TICK_LINES:
        lines = lines[: TICK_LINES - 1] + [lines[TICK_LINES - 1][: TICK_WIDTH - 1] + "…"]
    return "<br>".join(html.escape(line) for line in lines)


def evidence_figure(evidence: Evidence | None, task: str) -> go.Figure:
    """Dots with whiskers (mean ± sd over seeds) for one task: the 7-task mean of each STS arm, or the SNLI test
    accuracy of each NLI arm, each named in full; a legend tells the buffer-zone losses from the rest, and the
    axis title says where the axis starts (not at 0). An empty chart with a note when the evidence is
    unavailable."""
    value, sd, title, measure = CHARTS[task]
    rows = [
        r for r in (evidence.rows if evidence else []) if r.task == task and getattr(r, value) is not None
    ]
    rows.sort(key=lambda r: getattr(r, value))
    names = [tick_name(r) for r in rows]
    names = [name if names.count(name) == 1 else f"{name} ({r.arm})" for name, r in zip(names, rows)]
    ours = [r.loss in LOSSES and LOSSES[r.loss].buffer for r in rows]
    figure = go.Figure(
        go.Scatter(
            y=names,
            x=[getattr(r, value) for r in rows],
            mode="markers",
            showlegend=False,
            error_x=dict(
                type="data",
                array=[getattr(r, sd) or 0 for r in rows],
                visible=True,
                color="#374151",
                thickness=1.2,
                width=3,
            ),
            marker=dict(
                size=9, color=[OURS if mine else OTHERS for mine in ours], line=dict(width=1, color="#374151")
            ),
            customdata=[[len(r.seeds), r.machine, r.arm, html.escape(r.label)] for r in rows],
            hovertemplate="%{customdata[3]} (%{customdata[2]})<br>%{x:.2f} ± sd, n = %{customdata[0]} seeds, "
            "%{customdata[1]}<extra></extra>",
        )
    )
    for name, color in (
        ("buffer-zone loss (Smooth K2, Translated ReLU)", OURS),
        ("other losses and baselines", OTHERS),
    ):
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=name,
                marker=dict(size=9, color=color, line=dict(width=1, color="#374151")),
            )
        )
    if evidence is None:
        figure.add_annotation(
            text="evidence unavailable",
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            showarrow=False,
            font=dict(size=14, color="#6b7280"),
        )
    # how to read it sits under the title, across the whole figure: the plot beside long names is narrow on a phone
    reading = "dot = mean, whiskers = ± sd over seeds"
    if rows:
        low = min(getattr(r, value) - (getattr(r, sd) or 0) for r in rows)
        high = max(getattr(r, value) + (getattr(r, sd) or 0) for r in rows)
        start = math.floor(low - 1)
        figure.update_xaxes(range=[start, math.ceil(high + 0.5)])
        reading += f"<br>the axis starts at {start}, not 0"
    # names are spaced evenly: the longest (2 lines of 13 px) and 8 px between keep each readable; 200 px hold the
    # title and its two lines, the axis and the legend
    height = max(320, 200 + len(names) * (13 * max([name.count("<br>") + 1 for name in names] or [1]) + 8))
    figure.update_layout(
        title=dict(
            text=title,
            x=0.5,
            font=dict(size=13),
            subtitle=dict(text=reading, font=dict(size=11, color="#4b5563")),
        ),
        height=height,
        margin=dict(l=10, r=10, t=90, b=110),
        template="plotly_white",
        font=dict(size=11),
        legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.01, x=0, font=dict(size=11)),
    )
    figure.update_xaxes(tickformat=".0f", title=dict(text=measure, font=dict(size=11)))
    figure.update_yaxes(automargin=True, tickfont=dict(size=10), categoryorder="array", categoryarray=names)
    return figure


def headline(evidence: Evidence | None) -> str:
    """One sentence for the page header: what this project measured of the buffer zone and of regression vs
    classification, from the recorded verdicts."""
    if evidence is None:
        return "The project's measurements are unavailable in this copy."
    verdicts = {claim.claim: claim for claim in evidence.claims}
    parts = []
    for key, question in (
        ("C2", "Does the buffer zone beat the same loss without it?"),
        ("C1", "Does the regression beat a classifier?"),
    ):
        claim = verdicts.get(key)
        if claim is not None:
            seeds = max((line.n for line in claim.lines), default=0)
            parts.append(
                f"{question} *{_answer(claim.combined)}* (up to {seeds} paired seed{'' if seeds == 1 else 's'})."
            )
    return "**Measured here** (all-MiniLM-L6-v2): " + " ".join(parts)


def _answer(combined: Combined) -> str:
    """A claim's verdict as the answer to its question."""
    if combined.shared is None:
        return combined.words
    where = " in the comparisons run with 2+ seeds" if combined.partial else ""
    answers = {Verdict.HOLDS: "yes", Verdict.REVERSED: "no: reversed"}
    return answers.get(combined.shared, combined.shared.value) + where
