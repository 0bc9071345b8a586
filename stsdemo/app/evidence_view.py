"""What the project measured, as the app shows it: the recorded arms and the verdicts on the paper's claims.

The numbers come from ``evidence.json`` beside this module, which ``python -m bench.report`` writes from the
benchmark runs recorded in ``docs/results.json`` (each run names its machine). The app only reads it: no
recomputation, no network. A missing or unreadable file leaves the app working and says the evidence is
unavailable.

Layout of ``evidence.json`` (``EVIDENCE_VERSION``)::

    {"version": 1, "generated": "...", "source": "docs/results.json",
     "rows":   [EvidenceRow fields ...],                      # one per arm, encoder and task
     "claims": [{"claim": "C2", "text": "...", "verdict": "...", "n": "3",
                 "lines": [ClaimLine fields ...]}, ...]}
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

EVIDENCE_FILE = Path(__file__).with_name("evidence.json")
EVIDENCE_VERSION = 1
STS, NLI = "STS", "NLI"


@dataclass
class EvidenceRow:
    """One recorded arm: mean and sd over its seeds of each figure it has (None where it has none)."""

    arm: str
    label: str
    encoder: str
    task: str                      # "STS" (7-task Avg. of cosine Spearman x100) or "NLI" (SNLI test)
    seeds: list[int]
    avg: float | None = None       # 7-task Avg.
    avg_sd: float | None = None
    node: float | None = None      # STS-B test pairs on their node (%)
    node_sd: float | None = None
    node_n: int | None = None      # seeds with a node accuracy (runs recorded before it existed have none)
    nli: float | None = None       # SNLI test accuracy (%)
    nli_sd: float | None = None
    nli_f1: float | None = None    # SNLI test macro-F1 (%)
    dev: float | None = None       # STS-B dev Spearman of the kept checkpoint (NLI: held-out accuracy)
    dev_sd: float | None = None
    loss: str = ""
    target: str = ""
    setting: str = ""              # the budget in words
    machine: str = ""

    @classmethod
    def from_dict(cls, values: dict) -> "EvidenceRow":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})


@dataclass
class ClaimLine:
    """One comparison behind a claim: the per-seed differences a - b and the verdict the rule gives them."""

    test: str
    a: str
    b: str
    diffs: list[float]
    mean: float | None
    se: float | None
    n: int
    verdict: str
    metric: str


@dataclass
class Claim:
    claim: str
    text: str
    verdict: str
    n: str
    lines: list[ClaimLine] = field(default_factory=list)

    @classmethod
    def from_dict(cls, values: dict) -> "Claim":
        return cls(values["claim"], values["text"], values["verdict"], str(values["n"]),
                   [ClaimLine(**line) for line in values.get("lines", [])])


@dataclass
class Evidence:
    rows: list[EvidenceRow]
    claims: list[Claim]
    generated: str = ""

    def to_dict(self) -> dict:
        return {"version": EVIDENCE_VERSION, "generated": self.generated, "source": "docs/results.json",
                "rows": [asdict(r) for r in self.rows], "claims": [asdict(c) for c in self.claims]}

    def row(self, arm: str, encoder: str = "all-MiniLM-L6-v2", task: str = STS) -> EvidenceRow | None:
        return next((r for r in self.rows if (r.arm, r.encoder, r.task) == (arm, encoder, task)), None)


class EvidenceUnavailable(Exception):
    """The evidence file is missing or unreadable; the message says which."""


def load_evidence(path: Path | None = None) -> Evidence:
    """The recorded evidence; :class:`EvidenceUnavailable` when the file is missing or corrupt."""
    path = path or EVIDENCE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != EVIDENCE_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {EVIDENCE_VERSION}")
        return Evidence([EvidenceRow.from_dict(r) for r in data["rows"]],
                        [Claim.from_dict(c) for c in data["claims"]], data.get("generated", ""))
    except FileNotFoundError:
        raise EvidenceUnavailable(f"no evidence file ({path.name}) ships with this copy") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise EvidenceUnavailable(f"the evidence file {path.name} could not be read ({error})") from None


def spread_cell(mean: float | None, sd: float | None, n: int) -> str:
    """``mean ± sd`` over n seeds, the bare mean for one seed, "–" when nothing was measured."""
    if mean is None or not math.isfinite(mean):
        return "–"
    return f"{mean:.2f} ± {sd:.2f}" if n > 1 and sd is not None else f"{mean:.2f}"


def node_cell(node: float | None, sd: float | None, node_n: int, seeds: int) -> str:
    """The on-node share over the ``node_n`` of an arm's ``seeds`` runs that recorded it, naming that count
    when it is smaller: runs recorded before the node accuracy existed have none."""
    return spread_cell(node, sd, node_n) + (f" (n = {node_n})" if node is not None and node_n < seeds else "")


COLUMNS = ["arm", "encoder", "seeds", "7-task mean ± sd", "STS-B test on node (%)", "SNLI test accuracy (%)",
           "machine"]
# pixels, not shares: on a phone the table scrolls sideways instead of squeezing each cell to a letter a line
COLUMN_WIDTHS = ["400px", "170px", "110px", "130px", "130px", "130px", "140px"]


def evidence_frame(evidence: Evidence | None, own: dict[str, dict] | None = None) -> pd.DataFrame:
    """The table of the Benchmark tab: every recorded arm, then the visitor's own evaluations
    (``{name: 7-task results}``) as rows of one run each."""
    records = []
    for row in (evidence.rows if evidence else []):
        n = len(row.seeds)
        node_n = n if row.node_n is None else row.node_n
        records.append([f"{row.label} ({row.arm})", row.encoder, ", ".join(map(str, row.seeds)) or "–",
                        spread_cell(row.avg, row.avg_sd, n), node_cell(row.node, row.node_sd, node_n, n),
                        spread_cell(row.nli, row.nli_sd, n), row.machine])
    for name, results in (own or {}).items():
        records.append([f"{name} (evaluated here)", name, "–", spread_cell(results.get("Avg."), None, 1), "–",
                        "–", "this app"])
    return pd.DataFrame(records, columns=COLUMNS)


def claims_markdown(evidence: Evidence | None, reason: str = "") -> str:
    """One line per claim: its verdict and the numbers behind it."""
    if evidence is None:
        return f"**The project's recorded evidence is unavailable** ({reason}). Your own evaluations still work."
    lines = [f"Verdicts from paired seeds (recorded {evidence.generated}): a comparison *holds* when the mean of "
             "the per-seed differences is more than 2 standard errors above zero, is *reversed* when more than 2 "
             "below; otherwise there is no measurable difference at that n.", ""]
    for claim in evidence.claims:
        numbers = "; ".join(_line_text(line) for line in claim.lines if line.n)
        lines.append(f"- **{claim.claim}** {claim.text}: **{claim.verdict}**" + (f" — {numbers}" if numbers else ""))
    return "\n".join(lines)


def _line_text(line: ClaimLine) -> str:
    spread = f" ± {line.se:.2f}" if line.n > 1 and line.se is not None else ""
    return f"{line.test} {line.mean:+.2f}{spread} (n = {line.n})"


def buffer_spread(evidence: Evidence | None, loss: str, target: str) -> str:
    """What the recorded runs say about a buffer-vs-none difference for this loss and target: the paired
    comparison of the loss with its no-buffer twin (Smooth K2 / MSE, Translated ReLU / L1), or '' if none."""
    if evidence is None:
        return ""
    twin = {"sk2": "mse", "trelu": "l1"}.get(loss)
    family = "cosine" if target == "cosine" else "2stage"
    for claim in evidence.claims:
        for line in claim.lines:
            if twin and (line.a, line.b) == (f"{loss}-{family}", f"{twin}-{family}") and line.n:
                spread = f", standard error {line.se:.2f}" if line.n > 1 and line.se is not None else ""
                return (f"Recorded at the paper's budget ({line.a} vs {line.b}, 7-task Avg., n = {line.n} "
                        f"seed{'' if line.n == 1 else 's'}): "
                        f"mean difference {line.mean:+.2f}{spread}; verdict: {line.verdict}.")
    return ""


CHARTS = {STS: ("avg", "avg_sd", "STS: 7-task mean (Spearman ×100)"),
          NLI: ("nli", "nli_sd", "NLI: SNLI test accuracy (%)")}


def evidence_figure(evidence: Evidence | None, task: str) -> go.Figure:
    """Bars with error bars (sd over seeds) for one task: the 7-task mean of each STS arm, or the SNLI test
    accuracy of each NLI arm; an empty chart with a note when the evidence is unavailable."""
    value, sd, title = CHARTS[task]
    rows = [r for r in (evidence.rows if evidence else []) if r.task == task and getattr(r, value) is not None]
    rows.sort(key=lambda r: getattr(r, value))
    # a condition's runs (e.g. "· 500 training pairs, 10 epochs") keep the label's suffix
    names = [f"{r.arm}{'' if r.encoder == 'all-MiniLM-L6-v2' else ' · ' + r.encoder}"
             f"{' · ' + r.label.split(' · ', 1)[1] if task == NLI and ' · ' in r.label else ''}" for r in rows]
    figure = go.Figure(go.Bar(
        y=names, x=[getattr(r, value) for r in rows], orientation="h", showlegend=False,
        error_x=dict(type="data", array=[getattr(r, sd) or 0 for r in rows], visible=True, color="#374151"),
        marker_color=["#0072B2" if r.loss in ("sk2", "trelu") else "#9ca3af" for r in rows],
        customdata=[[len(r.seeds), r.machine] for r in rows],
        hovertemplate="%{y}: %{x:.2f} (n = %{customdata[0]}, %{customdata[1]})<extra></extra>"))
    if evidence is None:
        figure.add_annotation(text="evidence unavailable", x=0.5, y=0.5, xref="paper", yref="paper",
                              showarrow=False, font=dict(size=14, color="#6b7280"))
    if rows:
        low = min(getattr(r, value) - (getattr(r, sd) or 0) for r in rows)
        high = max(getattr(r, value) + (getattr(r, sd) or 0) for r in rows)
        figure.update_xaxes(range=[math.floor(low - 1), math.ceil(high + 0.5)])
    # about 20 px a bar keeps every name readable; the top margin keeps the title clear of the modebar
    figure.update_layout(title=dict(text=title, x=0.5, font=dict(size=13)), height=max(300, 114 + 20 * len(rows)),
                         margin=dict(l=10, r=10, t=64, b=30), bargap=0.25, template="plotly_white",
                         font=dict(size=11))
    figure.update_xaxes(tickformat=".0f")
    return figure


def headline(evidence: Evidence | None) -> str:
    """One sentence for the page header: what this project measured of the buffer zone and of regression vs
    classification, from the recorded verdicts."""
    if evidence is None:
        return "The project's measurements are unavailable in this copy."
    verdicts = {claim.claim: claim for claim in evidence.claims}
    parts = []
    for key, question in (("C2", "Does the buffer zone beat the same loss without it?"),
                          ("C1", "Does the regression beat a classifier?")):
        claim = verdicts.get(key)
        if claim is not None:
            seeds = max((line.n for line in claim.lines), default=0)
            parts.append(f"{question} *{_answer(claim.verdict)}* (up to {seeds} paired seed{'' if seeds == 1 else 's'}).")
    return "**Measured here** (all-MiniLM-L6-v2): " + " ".join(parts)


def _answer(verdict: str) -> str:
    """A claim's verdict as the answer to its question."""
    qualifier = " (comparisons with 2+ seeds)"
    where = " in the comparisons run with 2+ seeds" if verdict.endswith(qualifier) else ""
    verdict = verdict.removesuffix(qualifier)
    if verdict.startswith("mixed: "):
        return f"mixed ({verdict.removeprefix('mixed: ')}){where}"
    return {"holds": "yes", "reversed": "no: reversed"}.get(verdict, verdict) + where
