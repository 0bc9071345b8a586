"""The *Score a pair* tab as plain Python: score one pair (and draw it on the label line) or a whole file."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...errors import InputError, Text, check_range, in_language
from ...labels import LabelScheme, get_scheme
from ...scoring import (
    CHUNK_TOKENS,
    PairScore,
    load_pairs_to_score,
    score_pair,
    scored_file_summary,
    scoring_steps,
)
from ...serving import caps, session_files
from .. import model_cache
from ..progress import duration, progress_html, time_left
from ..ui.words import said
from . import figures

MAX_SCORED_ROWS = int(caps.CAPS["score_file_rows"].default)  # rows a visitor may score in one file
# The label schemes the tab offers: short key (links, API, MCP) -> the choice's text in the form.
SCHEMES = {
    "own": "The model's own",
    "sts": "STS 0–5",
    "nli": "NLI (contradiction · neutral · entailment)",
    "custom": "Custom ordered list",
}
SCHEME_CHOICES = tuple(SCHEMES.values())
BUILT_IN = {SCHEMES["sts"]: "sts", SCHEMES["nli"]: "nli"}  # choice text -> scheme name of a built-in scheme

# Real pairs from the STS Benchmark test split (original casing), with their gold score 0..5.
EXAMPLES = [
    ["A woman plays the flute.", "A woman is playing the flute.", 5.0],
    ["A man and a dog on rocks on a beach.", "A man and dog on a rocky seashore.", 4.6],
    ["A man is riding an electric bicycle.", "A man is riding a bicycle.", 3.5],
    ["A monkey is playing drums.", "Someone in a gorilla costume is playing a set of drums.", 2.5],
    ["A man is playing a harp.", "A man is playing a keyboard.", 1.5],
    ["A man is cycling.", "A man is talking.", 0.6],
    ["A woman is spreading mustard on a bread roll.", "A kitten is playing with a woman's finger.", 0.0],
]
START = EXAMPLES[2]  # the pair the tab opens with (sentence 1, sentence 2, gold)
CUSTOM_START = ("unrelated, related, same", 1.0)  # the custom list and its gap d the tab offers
STS_LINE = [
    *get_scheme("sts").categories,
    float(get_scheme("sts").gap),
]  # the line the examples' gold scores are on

# Which shipped model fits a built-in scheme (a dropdown value). A scheme is never read against a model trained
# on another line: the tab switches to the model that fits when it ships, else says why it cannot.
FITTING_MODEL = {"sts": model_cache.DEFAULT_CHOICE, "nli": model_cache.NLI_CHOICE}
FITTING_TEXT = {"sts": Text("fitting_sts"), "nli": Text("fitting_nli")}


def parse_scheme(choice: str, custom: str = "", gap: float = 1.0) -> LabelScheme | None:
    """None = the model's own scheme; else STS, NLI or the user's ``"a, b, c"`` with gap ``d``."""
    if choice in (None, "", SCHEMES["own"]):
        return None
    if choice in BUILT_IN:
        return get_scheme(BUILT_IN[choice])
    if choice == SCHEMES["custom"]:
        text = str(custom or "").strip()
        if "," not in text:
            raise InputError("type_categories")
        gap = check_range("gap d", gap, 0, 100, low_open=True)
        return get_scheme(text, gap)
    raise InputError("unknown_scheme_choice", choice=repr(choice), choices=", ".join(SCHEME_CHOICES))


@dataclass
class ScoreView:
    score: PairScore
    scheme: LabelScheme
    figure: object
    notice: str
    mismatch: str = ""  # why the chosen scheme was not paired with this model ("" when it was)
    model_choice: str = ""  # the model actually used (the one that fits the scheme, when the tab switched)
    gold_dropped: bool = False  # the gold label was given on another line: not drawn (the tab clears its box)

    @property
    def line(self) -> list:
        """The line this result is read on, as the tab remembers it: its categories, then its gap."""
        return line_key(self.scheme)


def line_key(scheme: LabelScheme) -> list:
    """A label line's identity (its categories and gap, as :data:`STS_LINE`), for remembering which line a gold
    label was given on."""
    return [*scheme.categories, float(scheme.gap)]


def line_text(key: list | None) -> str:
    """A line in words: "bad … good on nodes 0 … 2" (node i sits at i·d)."""
    if not key:
        return "another line"
    *names, gap = key
    last = f"{(len(names) - 1) * gap:g}"
    if (names[0], names[-1]) == ("0", last):  # a numeric line (STS): its names are its nodes
        return f"{names[0]} … {last}"
    return f"{names[0]} … {names[-1]} on nodes 0 … {last}"


def _line(scheme: LabelScheme) -> str:
    return line_text(line_key(scheme))


def scheme_mismatch(scheme_choice: str, model_scheme: LabelScheme) -> str:
    """Why a built-in scheme (STS, NLI) does not fit a model trained on another line, and which model fits;
    "" when it fits (or the choice is the model's own or a custom list, which only re-reads the number)."""
    return str(_mismatch(scheme_choice, model_scheme))


def _mismatch(scheme_choice: str, model_scheme: LabelScheme) -> Text | str:
    """:func:`scheme_mismatch` as a declared text, in every language (a refusal's reason)."""
    key = BUILT_IN.get(scheme_choice)
    if key is None:
        return ""
    wanted = get_scheme(key)
    if tuple(wanted.categories) == tuple(model_scheme.categories):
        return ""
    return Text(
        "scheme_mismatch",
        choice=scheme_choice,
        line=_line(model_scheme),
        scheme=key.upper(),
        nodes=_line(wanted),
        fitting=FITTING_TEXT[key],
    )


def score_view(
    state,
    session: str,
    choice: str,
    sentence1: str,
    sentence2: str,
    scheme_choice: str,
    custom: str = "",
    gap: float = 1.0,
    gold: float | None = None,
    gold_line: list | None = None,
    language: str = "en",
) -> ScoreView:
    """Score one pair and draw where its prediction falls on the chosen scheme's line. ``gold_line``: the line
    (:func:`line_key`) the gold label was given on, when known; a gold label from another line is not drawn. The
    title and notes are in ``language`` (the API's stay English)."""
    scheme = parse_scheme(scheme_choice, custom, gap)
    choice, source, model, mismatch, switched = fitting_model_for(
        state, session, choice, scheme_choice, language
    )
    notes = [switched] if switched else []
    scheme = (
        model.scheme if mismatch else (scheme or model.scheme)
    )  # never paired silently: read on its own line
    result = score_pair(model, sentence1, sentence2, scheme)
    gold = None if gold in (None, "") else check_range("gold label", gold)
    drawn, gold_note = gold_on_line(gold, gold_line, scheme, language)
    title = said(
        "score_title",
        language,
        prediction=f"{result.prediction:.3f}",
        category=result.category,
        node=f"{result.node:g}",
    )
    figure = figures.number_line(
        scheme, result.prediction, model_cache.training_x0(source), drawn, title=title
    )
    notes += [said("score_own_line", language, mismatch=in_language(mismatch, language))] if mismatch else []
    if source == "":
        notes.append(said("score_untrained", language))
    if result.notice:
        notes.append(said("score_shortened", language, notice=result.notice))
    if scheme is not model.scheme and scheme.categories != model.scheme.categories:
        notes.append(relabel_note(model.scheme, scheme, language))
    notes += [gold_note] if gold_note else []
    notes += [beyond_note(result.prediction, result.category, scheme, language)]
    return ScoreView(
        result,
        scheme,
        figure,
        "\n\n".join(note for note in notes if note),
        str(mismatch),
        choice,
        gold_dropped=gold is not None and drawn is None and bool(gold_line) and gold_line != line_key(scheme),
    )


def beyond_note(prediction: float, category: str, scheme: LabelScheme, language: str = "en") -> str:
    """What a prediction beyond the drawn line's ends means ('' for one on it): it is drawn at the end, with its
    value, and still read as the nearest node (training clamps such a prediction to the outer node too)."""
    low, high = figures.line_ends(scheme)
    if low <= prediction <= high:
        return ""
    end = 0 if prediction < low else -1
    values = dict(
        prediction=f"{prediction:.2f}",
        node=f"{scheme.nodes[end]:g}",
        end=scheme.categories[end],
        category=category,
    )
    return (
        said("score_beyond_first", language, **values)
        if end == 0
        else said("score_beyond_last", language, **values)
    )


def gold_on_line(
    gold: float | None, gold_line: list | None, scheme: LabelScheme, language: str = "en"
) -> tuple[float | None, str]:
    """``(gold to draw or None, notice)``: a gold label given on another line (an STS example's score read on
    the NLI line) or lying off this line's nodes is not drawn, and the notice says why."""
    if gold is None:
        return None, ""
    if gold_line and gold_line != line_key(scheme):
        return None, said(
            "score_gold_other_line",
            language,
            gold=f"{gold:g}",
            given=line_text(gold_line),
            line=_line(scheme),
        )
    low, high = scheme.nodes[0] - scheme.gap / 2, scheme.nodes[-1] + scheme.gap / 2
    if not low <= gold <= high:
        return None, said(
            "score_gold_off_line",
            language,
            gold=f"{gold:g}",
            low=f"{scheme.nodes[0]:g}",
            first=scheme.categories[0],
            high=f"{scheme.nodes[-1]:g}",
            last=scheme.categories[-1],
        )
    return gold, ""


def relabel_note(model_scheme: LabelScheme, scheme: LabelScheme, language: str = "en") -> str:
    """Why a list the model was not trained on only relabels its number, with the list's cut-offs."""
    cuts = ", ".join(
        said("score_cut", language, name=name, value=f"{node - scheme.gap / 2:g}")
        for name, node in zip(scheme.categories[1:], scheme.nodes[1:])
    )
    return said(
        "score_relabel",
        language,
        line=_line(model_scheme),
        nodes=", ".join(f"{n}={v:g}" for n, v in zip(scheme.categories, scheme.nodes)),
        first=scheme.categories[0],
        cut=f"{scheme.nodes[0] + scheme.gap / 2:g}",
        cuts=cuts,
    )


def fitting_model_for(state, session: str, choice: str, scheme_choice: str, language: str = "en"):
    """``(choice, source, model, mismatch, note)``: the chosen model, or the shipped model that predicts on a
    built-in scheme's line when the chosen one does not (``note`` says so); ``mismatch`` says why the scheme
    does not fit when no shipped model does."""
    source = model_cache.resolve_choice(session, choice)
    model = state.models.get(source)
    mismatch = _mismatch(scheme_choice, model.scheme)
    fitting = fitting_model(scheme_choice)
    if not mismatch or fitting is None:
        return choice, source, model, mismatch, ""
    source = model_cache.resolve_choice(session, fitting)
    return (
        fitting,
        source,
        state.models.get(source),
        "",
        said(
            "score_switched",
            language,
            model=model_cache.display_name(session, fitting),
            mismatch=in_language(mismatch, language),
        ),
    )


def fitting_model(scheme_choice: str) -> str | None:
    """The shipped model (a dropdown value) that predicts on a built-in scheme's line, if it ships."""
    fitting = FITTING_MODEL.get(BUILT_IN.get(scheme_choice))
    available = {
        model_cache.DEFAULT_CHOICE: model_cache.scorer_available(),
        model_cache.NLI_CHOICE: model_cache.nli_scorer_available(),
    }
    return fitting if fitting is not None and available.get(fitting) else None


def pair_result(
    state,
    session: str,
    sentence1: str,
    sentence2: str,
    scheme: str = "own",
    model: str = model_cache.DEFAULT_CHOICE,
) -> dict:
    """One pair scored, as plain data (for the API and MCP): ``scheme`` is ``own``, ``sts``, ``nli`` (or their
    choice texts) or an ordered list ``"bad, fair, good"`` on nodes 0, 1, 2, ..."""
    text = str(scheme if scheme is not None else "").strip()
    key = text.lower() or "own"
    if key in SCHEMES and key != "custom":
        choice = SCHEMES[key]
    elif text in SCHEME_CHOICES:
        choice = text
    else:
        choice = SCHEMES["custom"]
    if choice == SCHEMES["custom"] and "," not in text:
        raise InputError("unknown_scheme_text", text=repr(text[:40]))
    view = score_view(state, session, model, sentence1, sentence2, choice, text, 1.0)
    s = view.score
    return {
        "prediction": round(float(s.prediction), 4),
        "category": s.category,
        "node": float(s.node),
        "cosine": round(float(s.cosine), 4),
        "scheme": list(view.scheme.categories),
        "notice": _plain(view.notice),
    }


@dataclass
class FileScoring:
    """One update of a file being scored: its progress bar (HTML, with the time left) and, at the end, the scored
    file, its first rows and its note."""

    progress: str
    path: Path | None = None
    rows: pd.DataFrame | None = None
    summary: str = ""


def score_file_steps(
    state,
    session: str,
    choice: str,
    path: str | None,
    scheme_choice: str,
    custom: str = "",
    gap: float = 1.0,
    clock: Callable[[], float] = time.perf_counter,
    chunk_tokens: int = CHUNK_TOKENS,
) -> Iterator[FileScoring]:
    """Score an uploaded CSV/TSV, yielding its progress after each chunk of about ``chunk_tokens`` tokens embedded
    (the share of its tokens, the time left at the pace so far by ``clock``); the last update carries the scored CSV (staged for this session),
    its first rows and a note: the model used when it is not the chosen one (the one that fits the scheme) and,
    when the file has a label column, the Spearman and the share on the label's node
    (:func:`stsdemo.scoring.label_summary`). InputError before anything is embedded for a bad file, or one over
    the caps on a scoring file's size, rows and tokens (:mod:`stsdemo.serving.caps`)."""
    if not path:
        raise InputError("upload_scoring_file")
    scheme = parse_scheme(scheme_choice, custom, gap)
    _, _, model, mismatch, switched = fitting_model_for(state, session, choice, scheme_choice)
    if mismatch:
        raise InputError("scheme_mismatch_or_own", mismatch=mismatch, own=SCHEMES["own"])
    folder = session_files.downloads_dir(session)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(path).stem)[:60] or "pairs"
    out = folder / f"{stem}-scored-{time.strftime('%H%M%S')}.csv"
    pairs = load_pairs_to_score(
        model,
        path,
        scheme or model.scheme,
        max_rows=MAX_SCORED_ROWS,
        max_bytes=int(caps.value("score_file_bytes")),
        max_tokens=int(caps.value("score_file_tokens")),
    )
    started, what = clock(), f"Scoring {len(pairs):,} pairs"
    yield FileScoring(progress_html(0, f"{what}: {time_left(0, 0)}"))
    for fraction in scoring_steps(model, pairs, out, scheme or model.scheme, chunk_tokens):
        yield FileScoring(
            progress_html(
                fraction, f"{what}: {fraction:.0%} embedded, {time_left(clock() - started, fraction)}"
            )
        )
    summary = scored_file_summary(out, scheme or model.scheme)
    done = progress_html(1, f"Scored {len(pairs):,} pairs in {duration(clock() - started)}.", "done")
    yield FileScoring(
        done, out, pd.read_csv(out, nrows=20), " ".join(n for n in (_plain(switched), summary) if n)
    )


def score_file_view(
    state, session: str, choice: str, path: str | None, scheme_choice: str, custom: str = "", gap: float = 1.0
) -> tuple[Path, pd.DataFrame, str]:
    """:func:`score_file_steps` to its end: the scored CSV, its first rows and its note."""
    *_, last = score_file_steps(state, session, choice, path, scheme_choice, custom, gap)
    return last.path, last.rows, last.summary


def _plain(markdown: str) -> str:
    """A notice as one plain line (no emphasis marks, no line breaks), for answers that are not rendered."""
    return " ".join(markdown.replace("*", "").split())
