"""The evidence the app ships (``stsdemo/app/evidence.json``) and its block in docs/evidence.md, computed from
docs/results.json: every arm at the paper's budget with its seeds, and the claims' verdicts with the numbers
behind them. The page's block is drawn by the core functions the Benchmark tab draws its own with
(:mod:`stsdemo.evidence_cells`, :mod:`stsdemo.claims_text`), so the page and the tab agree."""

from __future__ import annotations

from pathlib import Path

from stsdemo.claims_text import claims_markdown
from stsdemo.evidence import NLI, STS, Claim, ClaimLine, Evidence, EvidenceRow
from stsdemo.evidence_cells import COLUMNS, evidence_rows

from ..common import mean_sd
from ..schema import fusion_entries, section
from .nli_tables import epochs_text, nli_groups
from .quality_arms import ARMS, MODELS
from .quality_tables import budget_short, headline_sections, section_summary


def machine_text(run: dict, results: dict) -> str:
    """The machine a run names (older records: the results file's machine)."""
    if run.get("machine"):
        return run["machine"]
    machine = section(results, "machine")
    return machine.get("gpu") or f"CPU ({machine.get('cpus', '?')} cores)"


def evidence(results: dict):
    """The app's evidence (:class:`stsdemo.evidence.Evidence`): every arm at the paper's budget with its seeds, and
    the claims' verdicts with the numbers behind them, all from ``results``."""
    import time

    from .claims import SOURCES, claim_verdicts, memory_verdict
    from .nli import ARMS as NLI_ARMS

    rows = []
    for model, (key, budget, runs) in headline_sections(results).items():
        for arm, row in section_summary(runs, model, key).items():
            if arm in ARMS and ARMS[arm]["group"] not in ("main", "head"):  # the head group holds C5's arms
                continue
            same = [
                r for r in runs.values() if r["arm"] == arm and (arm == "base" or r.get("budget_key") == key)
            ]
            config = ARMS.get(arm, {}).get("config", {})
            rows.append(
                EvidenceRow(
                    arm,
                    row["label"],
                    MODELS.get(model, model),
                    STS,
                    row["seeds"],
                    row["Avg."],
                    row["Avg. sd"],
                    row.get("node"),
                    row.get("node sd"),
                    row.get("node n"),
                    dev=row.get("dev"),
                    dev_sd=row.get("dev sd"),
                    loss=config.get("loss", ""),
                    target=row.get("family") or "",
                    setting=budget_short(budget),
                    machine=machine_text(same[-1], results),
                )
            )
        for entry in fusion_entries(results).values():  # one merged model each, so no sd and no node figure
            if entry["model"] == model and entry["budget_key"] == key:
                rows.append(
                    EvidenceRow(
                        f"{entry['arm']}+{entry['kind']}",
                        entry["label"],
                        MODELS.get(model, model),
                        STS,
                        sorted(entry["seeds"]),
                        entry["test"]["Avg."],
                        dev=entry["dev"],
                        target=ARMS.get(entry["arm"], {}).get("family", ""),
                        setting=budget_short(budget),
                        machine=machine_text(entry, results),
                    )
                )
    for pairs, epochs, arm, runs in nli_groups(results):
        (acc, acc_sd), (f1, _), (held, held_sd) = (
            mean_sd([r[k] for r in runs]) for k in ("test_accuracy", "test_macro_f1", "held_out_best")
        )
        small = f" · {pairs:,} training pairs, {epochs_text(epochs)}" if pairs < 5000 else ""
        rows.append(
            EvidenceRow(
                arm,
                NLI_ARMS[arm]["label"] + small,
                "all-MiniLM-L6-v2",
                NLI,
                sorted(r["seed"] for r in runs),
                nli=acc,
                nli_sd=acc_sd,
                nli_f1=f1,
                dev=held,
                dev_sd=held_sd,
                loss=runs[0]["loss"],
                target="head",
                setting=f"{epochs_text(epochs)}, batch 16, {pairs:,} SNLI pairs",
                machine=machine_text(runs[-1], results),
            )
        )
    claims = []
    for found in claim_verdicts(results):
        lines = [
            ClaimLine(
                line.comparison.test,
                line.comparison.a,
                line.comparison.b,
                line.result.diffs,
                line.result.mean if line.result.n else None,
                line.result.se if line.result.n > 1 else None,
                line.result.n,
                line.verdict,
                SOURCES[line.comparison.source][2],
            )
            for line in found.lines
        ]
        claims.append(Claim(found.claim, found.text, str(found.verdict), found.n, lines))
    memory, verdict = memory_verdict(section(results, "memory"))
    claims.append(Claim("C6", f"memory about half of contrastive training ({memory})", verdict, "1"))
    return Evidence(rows, claims, time.strftime("%Y-%m-%d"))


def write_evidence(found, path: Path | None = None, tuning: dict | None = None) -> Path:
    """Write ``found`` (:func:`evidence`) as the app's ``evidence.json`` (default: the one that ships with it),
    with ``tuning`` (:func:`bench.evidence.tuning_evidence.evidence_block`) as its ``tuning`` block."""
    from stsdemo.atomic import write_json_atomic
    from stsdemo.evidence import EVIDENCE_FILE

    path = path or EVIDENCE_FILE
    write_json_atomic(path, {**found.to_dict(), **({"tuning": tuning} if tuning else {})})
    return path


def evidence_page_block(found) -> str:
    """The evidence block of docs/evidence.md: the table and the verdict lines the app's Benchmark tab shows, drawn by the
    same functions from the same :func:`evidence` (``found``)."""
    rows = [
        COLUMNS,
        ["---"] * len(COLUMNS),
        *[[cell.replace("|", "\\|") for cell in record] for record in evidence_rows(found)],
    ]
    table = "\n".join("| " + " | ".join(row) + " |" for row in rows)
    return f"{table}\n\n{claims_markdown(found)}\n"
