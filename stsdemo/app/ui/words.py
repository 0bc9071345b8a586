"""The app's words in English and 简体中文 (the ``app`` part of :mod:`stsdemo.strings`) as Gradio 6 translates them:
one :class:`gr.I18n` handed to ``launch(i18n=...)``, and :func:`say` for a label, info, button or Markdown.

Gradio translates in the browser, by the browser's language (any ``zh-*`` reads ``zh``; other languages English),
the first marker of each label, info, title or value; so a text is one key, its values filled in here in every
language (the filled text is registered under a key of its own). What the server says at run time (a ``gr.Error``'s
message, an update's value) is not translated by Gradio.
"""

from __future__ import annotations

import functools
import hashlib
import json

import gradio as gr

from ... import strings
from ...verdict import Verdict

I18N = gr.I18n(**strings.table("app"))
MARKER = "__i18n__"  # how Gradio writes a translated text into a config: the marker, then its JSON


def say(key: str, **values):
    """The text ``key`` in the visitor's language; ``values`` fill its ``{name}`` marks (a value that is itself a
    :func:`say` text, in the same language): what ``gr.I18n`` gives for a key. KeyError for a key that strings.json
    does not declare."""
    texts = {
        lang: table[key] for lang, table in I18N.translations.items()
    }  # KeyError here, not in the browser
    if not values:
        return I18N(key)
    filled = (
        f"{key}_{hashlib.sha1(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:12]}"
    )
    for lang, text in texts.items():
        I18N.translations[lang][filled] = text.format(
            **{name: in_language(value, lang) for name, value in values.items()}
        )
    return I18N(filled)


def say_each(key: str, texts: dict[str, str]):
    """A text the app writes in each language itself (``texts``: language -> text, e.g. the start-here steps from
    the lesson's own words), registered under ``key`` as Gradio translates it."""
    for language in strings.LANGUAGES:
        I18N.translations[language][key] = texts[language]
    return I18N(key)


def setting_label(name: str, english_label: str):
    """A Fine-tune setting's label: its English as its declaration reads (:func:`.finetune.form.field_spec`), its
    Chinese from strings.json's ``train_settings``."""
    return say_each(
        f"train_setting_{name}", {"en": english_label, "zh": strings.declared()["train_settings"][name]}
    )


def said(key: str, language: str, **values) -> str:
    """A text the server writes at run time (a note, a progress line), in ``language`` (:func:`request_language`
    of the visitor; "en" for the API): strings.json's ``app`` ``key``, its marks filled from ``values``."""
    return strings.text("app", key, language, **values)


VERDICT_WORDS = {  # a verdict as the page says it (strings.json's page part)
    Verdict.HOLDS: "verdict_holds",
    Verdict.REVERSED: "verdict_reversed",
    Verdict.NEGLIGIBLE: "verdict_negligible",
    Verdict.NO_DIFFERENCE: "verdict_none",
    Verdict.ONE_SEED: "verdict_one_seed",
    Verdict.NOT_MEASURED: "verdict_not_measured",
}


def verdict_words(verdict, language: str) -> str:
    """A verdict (:class:`stsdemo.verdict.Verdict` or its words) in ``language``."""
    return strings.text("page", VERDICT_WORDS[Verdict(verdict)], language)


def in_language(text, language: str) -> str:
    """A text in ``language``: a translated one (or its marker, as Gradio writes it into a config) from the table,
    any other as it is."""
    text = str(text)  # a translated text reads as its marker
    if not text.startswith(MARKER):
        return text
    return I18N.translations[language][json.loads(text.removeprefix(MARKER))["key"]]


def request_language(request) -> str:
    """The language to answer ``request`` in: "zh" when the first language of its Accept-Language header (the
    one of highest q) is ``zh`` or ``zh-*``, as Gradio's I18n picks Chinese for such a browser; else "en" (API
    clients, MCP and curl send none)."""
    header = (getattr(request, "headers", None) or {}).get("accept-language", "")
    ranked = []
    for place, item in enumerate(header.split(",")):
        tag, _, quality = item.strip().partition(";q=")
        try:
            ranked.append((-float(quality or 1), place, tag.strip().lower()))
        except ValueError:
            continue
    first = min(ranked, default=(0, 0, ""))[2]
    return "zh" if first == "zh" or first.startswith("zh-") else "en"


def english(text) -> str:
    """A text as the server writes it (an error message naming a field, the API's docs): in English."""
    return in_language(text, "en")


def english_api_info(demo: gr.Blocks) -> None:
    """The API's docs (``/gradio_api/info``, gradio_client's ``view_api``, the MCP server's schema) name each field by
    its English label: Gradio 6.31 copies a translated label's marker (``__i18n__{...}``) into them as it is."""
    info_of = demo.get_api_info

    @functools.wraps(info_of)
    def in_english(*args, **kwargs):
        info = info_of(*args, **kwargs)
        for endpoint in [*info["named_endpoints"].values(), *info["unnamed_endpoints"].values()]:
            for item in [*endpoint.get("parameters", []), *endpoint.get("returns", [])]:
                if "label" in item:
                    item["label"] = english(item["label"])
        return info

    demo.get_api_info = in_english
