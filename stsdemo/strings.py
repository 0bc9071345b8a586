"""The words of the app and of the Playground page in English and 简体中文, declared once in ``strings.json``.

Its ``app`` part goes to Gradio (``gr.I18n``, :mod:`stsdemo.app.ui.words`), its ``page`` part to the page (site.json's
``strings``, :mod:`stsdemo.static_site`), its ``errors`` part to :class:`stsdemo.errors.InputError`. Each entry holds
every language of :data:`LANGUAGES`; ``{name}`` marks a value filled in where the text is used. The settings' titles and the Playground's help texts are declared in English
once, with their settings (:mod:`stsdemo.playground.config`, :mod:`stsdemo.config`); ``playground_settings``,
``playground_help``, ``train_settings`` and ``train_help`` (the Fine-tune form's labels and help texts) hold their
Chinese.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

PATH = Path(__file__).with_name("strings.json")
LANGUAGES = ("en", "zh")
PARTS = ("app", "page", "errors")  # the parts whose every entry holds every language


def check(declared: dict) -> None:
    """ValueError naming every entry that lacks a language of :data:`LANGUAGES` (or has an empty text), and a
    ``train_help`` (the Fine-tune form's help texts) that does not name exactly the settings ``train_settings``
    names. (The page's settings are checked where the page's words are made: :mod:`stsdemo.static_site`.)"""
    lacking = [
        f"{part}.{key} ({', '.join(lang for lang in LANGUAGES if not texts.get(lang))})"
        for part in PARTS
        for key, texts in declared[part].items()
        if any(not texts.get(lang) for lang in LANGUAGES)
    ]
    unknown = sorted(set(declared["train_help"]) ^ set(declared["train_settings"]))
    problems = [f"not in every language: {', '.join(lacking)}"] if lacking else []
    if unknown:
        problems.append(f"train_help must name exactly train_settings' settings, not {', '.join(unknown)}")
    if problems:
        raise ValueError("strings.json: " + "; ".join(problems))


@functools.cache
def declared() -> dict:
    """strings.json, checked (:func:`check`)."""
    found = json.loads(PATH.read_text(encoding="utf-8"))
    check(found)
    return found


def table(part: str) -> dict[str, dict[str, str]]:
    """``part``'s texts by language: ``{"en": {key: text}, "zh": {...}}``."""
    return {lang: {key: texts[lang] for key, texts in declared()[part].items()} for lang in LANGUAGES}


def text(part: str, key: str, language: str = "en", **values) -> str:
    """One text in ``language``, its ``{name}`` marks filled from ``values``."""
    return declared()[part][key][language].format(**values)
