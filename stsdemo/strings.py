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
from dataclasses import fields
from pathlib import Path

PATH = Path(__file__).with_name("strings.json")
LANGUAGES = ("en", "zh")


def check(declared: dict) -> None:
    """ValueError naming every entry that lacks a language of :data:`LANGUAGES` (or has an empty text)."""
    lacking = [
        f"{part}.{key} ({', '.join(lang for lang in LANGUAGES if not texts.get(lang))})"
        for part in ("app", "page", "errors")
        for key, texts in declared[part].items()
        if any(not texts.get(lang) for lang in LANGUAGES)
    ]
    unknown = sorted(
        {
            f"{part}.{name}"
            for part in ("playground_settings", "playground_help")
            for name in set(declared[part]) ^ set(setting_titles())
        }
    )
    unknown += sorted(
        f"train_help.{name}" for name in set(declared["train_help"]) ^ set(declared["train_settings"])
    )
    if lacking or unknown:
        raise ValueError(
            "strings.json: "
            + "; ".join(
                ([f"not in every language: {', '.join(lacking)}"] if lacking else [])
                + (
                    [
                        "playground_settings and _help must name exactly the page's settings, and train_help"
                        f" the Fine-tune form's: not {', '.join(unknown)}"
                    ]
                    if unknown
                    else []
                )
            )
        )


@functools.cache
def read() -> dict:
    """strings.json as written (:func:`declared` checks it)."""
    return json.loads(PATH.read_text(encoding="utf-8"))


@functools.cache
def declared() -> dict:
    """strings.json, checked (:func:`check`)."""
    check(read())
    return read()


def table(part: str) -> dict[str, dict[str, str]]:
    """``part``'s texts (``"app"``, ``"page"`` or ``"errors"``) by language: ``{"en": {key: text}, "zh": {...}}``. The page's
    holds each setting's title as ``setting_<name>`` and its help as ``help_<name>``."""
    entries = dict(declared()[part])
    if part == "page":
        for name, meta in setting_declarations().items():
            entries[f"setting_{name}"] = {"en": meta["title"], "zh": declared()["playground_settings"][name]}
            entries[f"help_{name}"] = {"en": meta["help"], "zh": declared()["playground_help"][name]}
    return {lang: {key: texts[lang] for key, texts in entries.items()} for lang in LANGUAGES}


def setting_declarations() -> dict[str, dict]:
    """The declaration of each Playground setting that the page shows as a control (a text setting, the encoder,
    is not one)."""
    from .playground.config import PlaygroundConfig, declaration

    found = (declaration(item.name) for item in fields(PlaygroundConfig))
    return {meta["name"]: meta for meta in found if not meta["text"]}


def setting_titles() -> dict[str, str]:
    """The declared English title of each Playground setting that the page shows as a control."""
    return {name: meta["title"] for name, meta in setting_declarations().items()}


def text(part: str, key: str, language: str = "en", **values) -> str:
    """One text in ``language``, its ``{name}`` marks filled from ``values``. A text declared as such is read
    without the settings' check, so the core's light modules (:mod:`stsdemo.paired`) need not import them."""
    entries = read()[part]
    found = entries[key][language] if key in entries else table(part)[language][key]
    return found.format(**values)
