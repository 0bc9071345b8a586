"""The app's words in English and 简体中文 (the ``app`` part of :mod:`stsdemo.strings`) as Gradio 6 translates them:
one :class:`gr.I18n` handed to ``launch(i18n=...)``, and :func:`say` for a label, info, button or Markdown.

Gradio translates in the browser, by the browser's language (any ``zh-*`` reads ``zh``; other languages English),
the first marker of each label, info, title or value; so a text is one key, its values filled in here in every
language (the filled text is registered under a key of its own). What the server says at run time (a ``gr.Error``'s
message, an update's value) is not translated by Gradio.
"""

from __future__ import annotations

import hashlib
import json

import gradio as gr
from gradio.i18n import I18nData

from ... import strings

I18N = gr.I18n(**strings.table("app"))


def say(key: str, **values) -> I18nData:
    """The text ``key`` in the visitor's language; ``values`` fill its ``{name}`` marks (a value that is itself a
    :func:`say` text, in the same language). KeyError for a key that strings.json does not declare."""
    texts = {lang: table[key] for lang, table in I18N.translations.items()}
    if not values:
        return I18nData(key)
    filled = f"{key}_{hashlib.sha1(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:12]}"
    for lang, text in texts.items():
        I18N.translations[lang][filled] = text.format(**{name: I18N.translations[lang][value.key]
                                                         if isinstance(value, I18nData) else value
                                                         for name, value in values.items()})
    return I18nData(filled)


def setting_label(name: str, english_label: str) -> I18nData:
    """A Fine-tune setting's label: its English as its declaration reads (:func:`.finetune.form.field_spec`), its
    Chinese from strings.json's ``train_settings``."""
    key = f"train_setting_{name}"
    I18N.translations["en"][key] = english_label
    I18N.translations["zh"][key] = strings.declared()["train_settings"][name]
    return I18nData(key)


def english(text) -> str:
    """A text as the server writes it (an error message naming a field): a translated one in English."""
    return I18N.translations["en"][text.key] if isinstance(text, I18nData) else str(text)
