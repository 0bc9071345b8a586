"""The words of the app and the Playground page, declared once in stsdemo/strings.json in English and 简体中文: every
entry in both languages, every key the app or the page uses declared in both, and the app hands Gradio both."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from stsdemo import strings
from stsdemo.paired import MARGINS
from stsdemo.playground import payoff
from stsdemo.selection import METRICS
from stsdemo.static_site import page_strings, shown_settings

WEB = Path(strings.__file__).parent / "playground" / "web"


def test_every_declared_string_is_in_both_languages_and_only_the_english_reads_english():
    for part in ("app", "page"):
        table = strings.table(part)
        assert set(table) == set(strings.LANGUAGES) and set(table["en"]) == set(table["zh"])
        assert all(table[lang][key].strip() for lang in strings.LANGUAGES for key in table["en"])
    # a Chinese text that is the English one again is a text someone forgot to translate (names excepted)
    kept = {key for key, texts in strings.declared()["app"].items() if texts["en"] == texts["zh"]}
    assert kept == {"tab_playground"}


@pytest.mark.parametrize(
    "part, key, lang", [("app", "tab_score", "zh"), ("page", "play", "en"), ("page", "play", "zh")]
)
def test_a_string_in_one_language_only_is_refused(part, key, lang):
    broken = copy.deepcopy(strings.declared())
    del broken[part][key][lang]
    with pytest.raises(ValueError, match=rf"not in every language: {part}\.{key} \({lang}\)"):
        strings.check(broken)
    broken[part][key][lang] = ""
    with pytest.raises(ValueError, match=rf"{part}\.{key}"):
        strings.check(broken)


def test_every_setting_the_page_shows_has_its_title_in_both_languages():
    broken = copy.deepcopy(strings.declared())
    del broken["playground_settings"]["x0"]
    with pytest.raises(ValueError, match="not playground_settings.x0"):
        page_strings(broken)
    broken = copy.deepcopy(strings.declared())
    del broken["playground_help"]["noise"]
    with pytest.raises(ValueError, match="not playground_help.noise"):
        page_strings(broken)
    page = page_strings()
    assert page["en"]["setting_x0"] == "buffer x0" and page["zh"]["setting_x0"] == "缓冲区 x0"
    assert set(page["en"]) == set(strings.table("page")["en"]) | {
        f"{family}_{name}" for name in shown_settings() for family in ("setting", "help")
    }


def test_the_app_hands_gradio_both_languages_of_every_text_it_shows():
    from app_fixtures import small_app_state

    from stsdemo.app.page import build_demo, launch_kwargs
    from stsdemo.app.ui.words import I18N

    demo = build_demo(small_app_state())
    config = json.dumps(demo.get_config_file(), default=str)
    used = set(re.findall(r'translation_metadata\\+", \\+"key\\+": \\+"(\w+)', config))
    translations = launch_kwargs(mcp=False)["i18n"].translations
    assert launch_kwargs(mcp=False)["i18n"] is I18N
    declared = {re.sub(r"_[0-9a-f]{12}$", "", key) for key in used}  # a text with values filled: key_<hash>
    assert {
        "tab_score",
        "tab_train",
        "score_button",
        "train_start",
        "start_here_steps",  # its heading and steps, in each language (app/lesson.py)
        "header",
        "train_upload",
    } <= declared
    missing = sorted(key for key in used for lang in strings.LANGUAGES if not translations[lang].get(key))
    assert not missing
    tabs = [translations["zh"][f"tab_{tab}"] for tab in ("score", "loss", "train", "bench")]
    assert tabs == ["句对打分", "损失函数探索", "微调", "基准测试"]
    # the API's docs name the fields in English, not by Gradio's translation markers
    endpoints = demo.get_api_info()["named_endpoints"]
    assert [item["label"] for item in endpoints["/score"]["parameters"][:2]] == ["Model", "Sentence 1"]
    assert "__i18n__" not in json.dumps(endpoints)


def test_every_setting_of_the_fine_tune_form_has_its_label_in_both_languages():
    from stsdemo.app.finetune import form
    from stsdemo.app.ui.words import I18N, english, setting_label

    assert set(strings.declared()["train_settings"]) == {*form.FORM_FIELDS, "seeds"}  # seeds: the Compare's
    label = setting_label("lr", form.field_spec("lr").label)
    assert english(label) == "Learning rate" and I18N.translations["zh"][label.key] == "学习率"
    # its help text too, with the paper's value and "0 = empty" said in each language
    assert form.field_spec("x0").info == {
        "en": strings.declared()["app"]["train_info_paper"]["en"].format(
            help=form.describe("x0")["help"], paper="0.25"
        ),
        "zh": strings.declared()["train_help"]["x0"] + " · 论文：0.25",
    }
    assert form.field_spec("max_pairs").info["zh"].endswith("（0 = 留空）")
    broken = copy.deepcopy(strings.declared())
    del broken["train_help"]["lr"]
    with pytest.raises(ValueError, match="not lr"):
        strings.check(broken)


def test_a_text_with_values_is_filled_in_each_language_and_an_unknown_key_is_refused():
    from stsdemo.app.ui.words import I18N, english, say

    filled = say("train_upload", cap=say("upload_cap", size="1 MB"))
    assert english(filled) == "Training CSV / TSV (sentence1, sentence2, label). Files up to 1 MB."
    assert (
        I18N.translations["zh"][filled.key]
        == "训练用 CSV / TSV（sentence1、sentence2、label）。文件最大 1 MB。"
    )
    assert "}" not in filled.key  # Gradio's page reads a marker up to its first "}"
    with pytest.raises(KeyError):
        say("no_such_text")


def test_every_key_the_app_names_is_declared_and_every_declared_key_is_named():
    app = Path(strings.__file__).parent / "app"
    named = {
        key
        for path in app.rglob("*.py")
        for key in re.findall(
            r'\b(?:say\(|said\(|strings\.text\("app",)\s*"(\w+)"', path.read_text(encoding="utf-8")
        )
    }
    compare = (app / "finetune" / "compare.py").read_text(encoding="utf-8")
    if 'said(f"compare_metric_{config.select_by}"' in compare:  # the dev metric each select_by names
        named |= {f"compare_metric_{name}" for name in METRICS}
    assert named == set(strings.table("app")["en"])


def test_every_key_the_page_names_is_declared_and_every_declared_key_is_named():
    from stsdemo.playground.config import declaration

    sources = {
        path.name: path.read_text(encoding="utf-8") for path in [*WEB.glob("*.js"), WEB / "index.html"]
    }
    everything = "\n".join(sources.values())
    named = set(re.findall(r'data-text(?:-label|-title)?="(\w+)"', everything))
    for argument in re.findall(r"\btext\(([^,()]*)", everything):  # text("key", ...), text(x ? "a" : "b")
        named |= set(re.findall(r'"(\w+)"', argument))
    declared = set(page_strings()["en"])
    assert named - declared == set()
    # keys a script names through a variable: a list of keys or a word ("yes"), then the families it builds
    named |= declared & set(re.findall(r'"(\w+)"', everything))
    named |= {
        f"{key}_short"
        for key in named
        if f"{key}_short" in declared and "${key}_short" in sources["panels.js"]
    }
    metrics = re.search(r"const DIGITS = \{([^}]*)\}", sources["panels.js"]).group(1)
    named |= {f"metric_{metric}" for metric in re.findall(r"(\w+):", metrics)}
    if (
        "`map_reading_${name}`" in sources["map.js"]
    ):  # the payoff map's readings, named as site.json lists them
        named |= {f"map_reading_{name}" for name in payoff.READINGS}
    if (
        "`rule_unit_${metric}`" in sources["paired.js"]
    ):  # the rule's unit of each metric the rule has a margin for
        named |= {f"rule_unit_{metric}" for metric in MARGINS}
    worded = re.search(r"WORDED = \[([^\]]*)\]", sources["controls.js"]).group(1)
    named |= {
        f"choice_{name}_{choice}"
        for name in re.findall(r'"(\w+)"', worded)
        for choice in declaration(name)["choices"]
    }
    named |= {f"{family}_{name}" for name in shown_settings() for family in ("setting", "help")}
    assert named == declared
