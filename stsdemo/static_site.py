"""The Playground as a free static site: ``python -m stsdemo site DIR`` writes a self-contained folder that any
file server (or a static Hugging Face Space) serves with no Python behind it.

The folder holds the page (``stsdemo/playground/web/``: ``index.html``, the engine and its Web Worker), the
Playground's data sets in the compact form the Python core reads too (``data/<name>.safetensors``,
:mod:`stsdemo.playground.compact`), and ``site.json``: every setting's declaration, the story presets, the
recorded payoff map with its verdicts, the paired-verdict rule as data, the Loss explorer's knobs, the
start-here steps, and the stories and glossary in English and 简体中文 (:mod:`stsdemo.story`). The app serves the
same page with the same manifest plus its upload and export routes
(:func:`manifest`'s ``app``). ``README.md`` carries a static Space's front matter (``sdk: static``).
"""

from __future__ import annotations

import gzip
import json
import shutil
from dataclasses import asdict, fields
from pathlib import Path

from . import strings
from .lesson import STEPS
from .losses.explorer import SAMPLE, SAMPLE_REACH, SLIDERS, START
from .losses.spec import paper_k_text
from .paired import rule_as_data
from .playground import payoff, pinned
from .playground.config import BUILT_IN_DATA, PlaygroundConfig, declaration, engine_declarations
from .playground.presets import PRESETS
from .story import glossary_data

WEB = Path(__file__).parent / "playground" / "web"
SITE_VERSION = 1
MANIFEST = "site.json"
DECLARED = ("default", "low", "high", "low_open", "integer", "step", "choices", "help", "label", "paper")
PLAYABLE_STEPS = ("loss", "playground")  # the start-here steps the page itself plays; the rest need the app
MAX_RULE_SEEDS = 200
FRONT_MATTER = """---
title: stsdemo Playground
emoji: 📏
colorFrom: indigo
colorTo: green
sdk: static
app_file: index.html
short_description: Watch a buffer-zone loss train, in your browser
tags:
  - sentence-similarity
  - education
---

# stsdemo Playground

The Playground of [stsdemo](https://arxiv.org/abs/2406.05326) (Translated ReLU and Smooth K2 losses) as a static
page: it trains in your browser, in a Web Worker, so a whole class can play at once. Written by
`python -m stsdemo site DIR`; the full app (Score, Fine-tune, Benchmark) runs with `python app.py`.
"""


def page_files() -> list[Path]:
    """The page's own files: its HTML, scripts and styles."""
    return sorted(path for path in WEB.iterdir() if path.suffix in (".html", ".js", ".css"))


def data_entries() -> dict:
    """The built-in data sets as the manifest describes them, the same in the app and on the static site: each
    one's pinned file (:mod:`stsdemo.playground.pinned`), its sha256 (the records made on it name it), its
    sentences' file, its pool and report sizes and the encoder."""
    entries = {}
    for name in BUILT_IN_DATA:
        data, recorded = pinned.load(name), pinned.pinned()["sets"][name]
        entries[name] = {
            "file": f"data/{name}.safetensors",
            "sentences": f"data/{name}.sentences.json",
            "title": data.title or data.name,
            "bytes": recorded["bytes"],
            "sha256": recorded["sha256"],
            "pool": len(data.train),
            "report": len(data.held_out),
            "model": pinned.encoder_name(),
        }
    return entries


def write_data(folder: Path) -> None:
    """Each built-in set's pinned file, byte for byte, and its sentences (from the data folder) under ``data/``."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    for name, entry in data_entries().items():
        (folder / entry["file"]).write_bytes(pinned.file_bytes(name))
        (folder / entry["sentences"]).write_text(
            json.dumps(list(pinned.sentences_of(name)), ensure_ascii=False), encoding="utf-8"
        )


def shown_settings() -> dict[str, dict]:
    """The declaration of each Playground setting that the page shows as a control (a text setting, the encoder,
    is not one)."""
    found = (declaration(item.name) for item in fields(PlaygroundConfig))
    return {meta["name"]: meta for meta in found if not meta["text"]}


def page_strings(declared: dict | None = None) -> dict[str, dict[str, str]]:
    """The page's words by language: strings.json's ``page`` part (or ``declared``'s) and each shown setting's
    title and help as ``setting_<name>`` and ``help_<name>``: the English its declaration's, the Chinese
    ``playground_settings`` and ``playground_help``. ValueError when those do not name exactly the shown settings."""
    declared = declared or strings.declared()
    settings = shown_settings()
    unknown = sorted(
        f"{part}.{name}"
        for part in ("playground_settings", "playground_help")
        for name in set(declared[part]) ^ set(settings)
    )
    if unknown:
        raise ValueError(
            f"strings.json: playground_settings and _help must name exactly the page's settings, not {', '.join(unknown)}"
        )
    entries = dict(declared["page"])
    for name, meta in settings.items():
        entries[f"setting_{name}"] = {"en": meta["title"], "zh": declared["playground_settings"][name]}
        entries[f"help_{name}"] = {"en": meta["help"], "zh": declared["playground_help"][name]}
    return {lang: {key: texts[lang] for key, texts in entries.items()} for lang in strings.LANGUAGES}


def manifest(app: dict | None = None) -> dict:
    """What the page reads at start (``site.json``); ``app``: the app's upload and export routes (None on the
    static site)."""
    datasets = data_entries()
    settings = {
        item.name: {key: declaration(item.name).get(key) for key in DECLARED}
        for item in fields(PlaygroundConfig)
    }
    recorded = payoff.load_map()
    # a cell shows its mark only once fresh seeds confirm it; "marks" keeps each mark's confirmation status
    recorded["verdicts"] = {reading: payoff.shown_marks(recorded, reading) for reading in payoff.READINGS}
    recorded["marks"] = {
        reading: {
            key: {"verdict": verdict, "confirmation": status}
            for key, (verdict, status) in payoff.marks(recorded, reading).items()
            if status
        }
        for reading in payoff.READINGS
    }
    recorded["confirmations"] = {
        reading: payoff.confirmation_counts(recorded, reading) for reading in payoff.READINGS
    }
    recorded["readings"] = list(payoff.READINGS)  # their words are the page's (map_reading_<name>)
    recorded["heads"] = list(payoff.HEADS)
    lesson = [
        {
            "tab": step.tab,
            "title": asdict(step.title),
            "query": step.query,
            "do": asdict(step.do),
            "story": step.story.as_data(),
            "in_page": step.tab in PLAYABLE_STEPS,
        }
        for step in STEPS
    ]
    presets = [
        {
            "name": p.name,
            "title": asdict(p.title),
            "settings": p.settings,
            "do": asdict(p.do),
            "story": p.story.as_data(),
            "hide": list(p.hide),
        }
        for p in PRESETS
    ]
    return {
        "version": SITE_VERSION,
        "settings": settings,
        "engine": engine_declarations(),
        "presets": presets,
        "payoff": recorded,
        "rule": rule_as_data(max_n=MAX_RULE_SEEDS),
        "datasets": datasets,
        "lesson": lesson,
        "glossary": glossary_data(),
        "loss": {
            "start": START,
            "sample": list(SAMPLE),
            "sample_reach": SAMPLE_REACH,
            "hint": paper_k_text(),  # the paper's k per loss, after the page's "Paper:"
            "sliders": {name: dict(zip(("low", "high", "step"), bounds)) for name, bounds in SLIDERS.items()},
        },
        "strings": page_strings(),
        "app": app,
    }


def copy_page(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in page_files():
        shutil.copyfile(path, folder / path.name)


def write_manifest(folder: Path, app: dict | None = None) -> None:
    text = json.dumps(manifest(app), ensure_ascii=False, separators=(",", ":"))
    (folder / MANIFEST).write_text(text, encoding="utf-8")


def write_site(folder: Path) -> dict:
    """Write the static site into ``folder``: the page, the built-in data sets (:func:`write_data`) and the
    manifest. Returns what was written: each file's size, and the total raw and gzip-compressed (what a browser
    transfers from a server that compresses)."""
    folder = Path(folder)
    copy_page(folder)
    write_data(folder)
    write_manifest(folder)
    (folder / "README.md").write_text(FRONT_MATTER, encoding="utf-8")
    return site_size(folder)


def site_size(folder: Path) -> dict:
    """Every file's size under ``folder`` and the totals, raw and gzip-compressed (level 6, as servers use)."""
    files = {
        str(path.relative_to(folder)): path.stat().st_size
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    packed = sum(
        len(gzip.compress(path.read_bytes(), compresslevel=6))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )
    return {"files": files, "bytes": sum(files.values()), "gzip_bytes": packed}
