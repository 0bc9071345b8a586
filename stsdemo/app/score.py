"""The *Score a pair* tab as plain Python: score one pair (and draw it on the label line) or a whole file."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError, check_range
from ..labels import LabelScheme, get_scheme
from ..scoring import PairScore, score_csv, score_pair
from . import models, plots, store

MAX_SCORED_ROWS = 5_000           # rows a visitor may score in one uploaded file
SCHEME_CHOICES = ("The model's own", "STS 0–5", "NLI (contradiction · neutral · entailment)", "Custom ordered list")

# Which number is which (shown under the results).
NUMBERS_NOTE = (
    "**Prediction**: the model's float on the label line: from its head on $[u, v, |u-v|]$, or for a "
    "calibrated scorer $a\\cdot\\cos(u, v) + b$ with learned $a, b$. **Category** and **Node**: the nearest "
    "label node to the prediction (what the buffer-zone losses train towards). **Cosine**: the raw cosine "
    "similarity of the two sentence embeddings, before any head — what the 7-task benchmark scores."
)


def parse_scheme(choice: str, custom: str = "", gap: float = 1.0) -> LabelScheme | None:
    """None = the model's own scheme; else STS, NLI or the user's ``"a, b, c"`` with gap ``d``."""
    if choice in (None, "", SCHEME_CHOICES[0]):
        return None
    if choice == SCHEME_CHOICES[1]:
        return get_scheme("sts")
    if choice == SCHEME_CHOICES[2]:
        return get_scheme("nli")
    if choice == SCHEME_CHOICES[3]:
        text = str(custom or "").strip()
        if "," not in text:
            raise InputError("type at least two ordered categories separated by commas, e.g. 'bad, fair, good'")
        gap = check_range("gap d", gap, 0, 100, low_open=True)
        return get_scheme(text, gap)
    raise InputError(f"unknown label scheme choice {choice!r}; choose one of: {', '.join(SCHEME_CHOICES)}")


@dataclass
class ScoreView:
    score: PairScore
    scheme: LabelScheme
    figure: object
    notice: str


def score_view(state, session: str, choice: str, sentence1: str, sentence2: str, scheme_choice: str,
               custom: str = "", gap: float = 1.0, gold: float | None = None) -> ScoreView:
    """Score one pair and draw where its prediction falls on the chosen scheme's line."""
    scheme = parse_scheme(scheme_choice, custom, gap)
    source = models.resolve_choice(session, choice)
    model = state.models.get(source)
    scheme = scheme or model.scheme
    result = score_pair(model, sentence1, sentence2, scheme)
    gold = None if gold in (None, "") else check_range("gold label", gold)
    title = f"Prediction {result.prediction:.3f} → “{result.category}” (node {result.node:g})"
    figure = plots.number_line(scheme, result.prediction, models.training_x0(source), gold, title=title)
    notes = []
    if source == "":
        notes.append("⚠ No trained scorer is shipped yet: this head is **untrained** (random), so its prediction "
                     "is meaningless — the cosine similarity is still the encoder's. Fine-tune a run in the "
                     "*Fine-tune* tab and pick it above.")
    if result.notice:
        notes.append(f"✂ Input shortened: {result.notice}.")
    if scheme is not model.scheme and scheme.categories != model.scheme.categories:
        notes.append(f"Note: the model predicts on the line it was trained on ({', '.join(model.scheme.categories)}); "
                     "the chosen scheme only reads that number against other nodes.")
    return ScoreView(result, scheme, figure, "\n\n".join(notes))


def score_file_view(state, session: str, choice: str, path: str | None, scheme_choice: str, custom: str = "",
                    gap: float = 1.0) -> tuple[Path, pd.DataFrame]:
    """Score an uploaded CSV/TSV; returns the scored CSV (staged for this session) and its first rows."""
    if not path:
        raise InputError("upload a CSV or TSV file with two sentence columns (e.g. sentence1, sentence2)")
    scheme = parse_scheme(scheme_choice, custom, gap)
    model = state.models.get(models.resolve_choice(session, choice))
    folder = store.downloads_dir(session)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(path).stem)[:60] or "pairs"
    out = folder / f"{stem}-scored-{time.strftime('%H%M%S')}.csv"
    score_csv(model, path, out, scheme or model.scheme, max_rows=MAX_SCORED_ROWS)
    return out, pd.read_csv(out, nrows=20)
