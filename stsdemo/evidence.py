"""The project's recorded evidence as plain data: each arm's figures over its seeds, and the paper's claims with
the paired comparisons behind their verdicts.

``bench`` computes them from the benchmark runs in ``docs/results.json`` (:mod:`bench.evidence.app_evidence`) and writes
them as the app's ``evidence.json``; the app reads that file back and shows it
(:mod:`stsdemo.app.benchmark.evidence_view`). The types live in the core so that both read one definition of the file,
and neither imports the other for it.

Layout of ``evidence.json`` (``EVIDENCE_VERSION``)::

    {"version": 2, "generated": "...", "source": "docs/results.json",
     "rows":   [EvidenceRow fields ...],                      # one per arm, encoder and task
     "claims": [{"claim": "C2", "text": "...", "verdict": "...", "n": "3",
                 "lines": [ClaimLine fields ...]}, ...]}
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .verdict import Combined, Verdict, combine

# bench writes it and the app ships and reads it: package data of stsdemo.app, named here so neither imports the other
EVIDENCE_FILE = Path(__file__).parent / "app" / "evidence.json"
EVIDENCE_VERSION = 2  # 2: every verdict is a stsdemo.verdict.Verdict value, read under the equivalence rule
STS, NLI = "STS", "NLI"


@dataclass
class EvidenceRow:
    """One recorded arm: mean and sd over its seeds of each figure it has (None where it has none)."""

    arm: str
    label: str
    encoder: str
    task: str  # "STS" (7-task Avg. of cosine Spearman x100) or "NLI" (SNLI test)
    seeds: list[int]
    avg: float | None = None  # 7-task Avg.
    avg_sd: float | None = None
    node: float | None = None  # STS-B test pairs on their node (%)
    node_sd: float | None = None
    node_n: int | None = None  # seeds with a node accuracy (runs recorded before it existed have none)
    nli: float | None = None  # SNLI test accuracy (%)
    nli_sd: float | None = None
    nli_f1: float | None = None  # SNLI test macro-F1 (%)
    dev: float | None = None  # STS-B dev Spearman of the kept checkpoint (NLI: held-out accuracy)
    dev_sd: float | None = None
    loss: str = ""
    target: str = ""
    setting: str = ""  # the budget in words
    machine: str = ""

    @classmethod
    def from_dict(cls, values: dict) -> EvidenceRow:
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
    verdict: Verdict  # recorded as its words, read back as the Verdict
    metric: str

    def __post_init__(self):
        self.verdict = Verdict(self.verdict)


@dataclass
class Claim:
    """One claim of the paper, its verdict over its comparisons (``lines``) and their numbers of paired seeds.
    ``verdict`` is the recorded text: ``str(``:attr:`combined```)`` for a claim read from paired comparisons, the
    measurement in words for one measured otherwise (C6, the memory ratio, has no lines)."""

    claim: str
    text: str
    verdict: str
    n: str
    lines: list[ClaimLine] = field(default_factory=list)

    @property
    def combined(self) -> Combined:
        """The verdicts of the claim's comparisons read as one (the type its recorded ``verdict`` was written from)."""
        return combine(line.verdict for line in self.lines)

    @property
    def words(self) -> str:
        """The claim's verdict as shown: its comparisons' combined verdict in words, else the recorded text."""
        return self.combined.words if self.lines else self.verdict

    @classmethod
    def from_dict(cls, values: dict) -> Claim:
        return cls(
            values["claim"],
            values["text"],
            values["verdict"],
            str(values["n"]),
            [ClaimLine(**line) for line in values.get("lines", [])],
        )


@dataclass
class Evidence:
    """Every recorded arm and every claim's verdict, and the day they were computed."""

    rows: list[EvidenceRow]
    claims: list[Claim]
    generated: str = ""

    def to_dict(self) -> dict:
        return {
            "version": EVIDENCE_VERSION,
            "generated": self.generated,
            "source": "docs/results.json",
            "rows": [asdict(r) for r in self.rows],
            "claims": [asdict(c) for c in self.claims],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Evidence:
        """The evidence :meth:`to_dict` wrote; ValueError for another layout version (KeyError, TypeError or
        AttributeError for a file of another shape)."""
        if data.get("version") != EVIDENCE_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {EVIDENCE_VERSION}")
        return cls(
            [EvidenceRow.from_dict(r) for r in data["rows"]],
            [Claim.from_dict(c) for c in data["claims"]],
            data.get("generated", ""),
        )

    def row(self, arm: str, encoder: str = "all-MiniLM-L6-v2", task: str = STS) -> EvidenceRow | None:
        return next((r for r in self.rows if (r.arm, r.encoder, r.task) == (arm, encoder, task)), None)
