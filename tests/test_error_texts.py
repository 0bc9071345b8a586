"""The messages of bad input in English and 简体中文: every InputError names a text declared in strings.json's
``errors``, its English is the message the site always wrote, and the app answers a visitor in their browser's
language (Accept-Language), an API client in English."""

from __future__ import annotations

import ast
import copy
import json
import re
import string
from pathlib import Path

import gradio as gr
import pytest

from stsdemo import strings
from stsdemo.errors import InputError, Joined, Text, check_range, texts

PACKAGE = Path(strings.__file__).parent
ZH = {"accept-language": "zh-CN,zh;q=0.9"}


def _calls(name: str):
    """``(file:line, first argument)`` of every call of ``name`` under stsdemo/ (but errors.py's own passing on of
    a key it was given: ``InputError(key, ...)`` building its Text)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
                first = (node.args or [None])[0]
                if path.name == "errors.py" and isinstance(first, ast.Name) and first.id == "key":
                    continue
                yield f"{path.relative_to(PACKAGE)}:{node.lineno}", first


def _literals(node) -> list[str]:
    """The key a first argument names: a string literal (or, for a Text, either literal of a conditional)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def test_every_raise_site_names_a_declared_text_and_every_declared_text_is_named():
    declared, named, refused = set(texts()), set(), []
    raised = list(_calls("InputError"))
    assert len(raised) > 100  # the scan sees the package's raise sites
    for site, argument in raised:
        keys = _literals(argument) if isinstance(argument, ast.Constant) else []
        if not keys or not set(keys) <= declared:
            refused.append(site)
        named |= set(keys)
    for site, argument in _calls("Text"):
        keys = _literals(argument)
        if not keys or not set(keys) <= declared:
            refused.append(site)
        named |= set(keys)
    assert not refused, f"an InputError or Text whose first argument is not a declared key: {refused}"
    assert declared - named == set(), "declared error texts nothing raises"


def test_every_text_fills_in_each_language_with_the_values_its_english_names():
    for key, entry in texts().items():
        names = {field for _, field, _, _ in string.Formatter().parse(entry["en"]) if field}
        values = {name: f"<{name}>" for name in names}
        for language in strings.LANGUAGES:
            entry[language].format(**values)  # KeyError: a mark of the Chinese that the English does not fill
        assert entry["zh"] != entry["en"] or key == "run_refused", key  # a text someone forgot to translate


def _raised(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_a_keyed_error_says_in_english_what_its_site_always_wrote_and_differs_in_chinese():
    from stsdemo.config import PRESETS, TrainConfig
    from stsdemo.losses.buffer import check_x0

    cases = {
        _raised(check_range, "lr", -1, 0, 1): "lr must be >= 0 and <= 1, got -1",
        _raised(check_range, "steps", 1.5, integer=True): "steps must be a whole number, got 1.5",
        _raised(check_range, "k", 0, 0, low_open=True): "k must be > 0, got 0",
        _raised(check_x0, -0.25, 1.0): (
            "buffer x0 must satisfy 0 <= x0 <= d/2 = 0.5, got -0.25: x0 is the half-width of the zero-gradient "
            "zone around each label, so it cannot be negative"
        ),
        _raised(TrainConfig.from_preset, "nope"): (
            f"unknown preset 'nope'; choose one of: {', '.join(PRESETS)}"
        ),
    }
    for error, english in cases.items():
        assert str(error) == english == error.in_language("en")
        chinese = error.in_language("zh")
        assert chinese != english and any("\u4e00" <= char <= "\u9fff" for char in chinese)
    # names, values and choices stay as they are in the Chinese
    assert "'nope'" in _raised(TrainConfig.from_preset, "nope").in_language("zh")
    assert "-0.25" in _raised(check_x0, -0.25, 1.0).in_language("zh")


def test_a_message_that_wraps_another_says_both_in_one_language():
    inner = _raised(check_range, "seed", "x")
    outer = InputError("compare_seeds", seeds=3, first=0, last=2, error=inner)
    assert str(outer).endswith(f": {inner}")
    assert outer.in_language("zh").endswith(inner.in_language("zh"))
    reasons = Joined([Text("warm_target", saved="'head'", target="'cosine'"), Text("a_classifier")])
    assert str(reasons).count("; ") == 1 and "；" in Text(
        "cannot_warm_start", name="'x'", problems=reasons
    ).in_language("zh")
    # a worker's error pickled and read back keeps its key, so its Chinese too
    import pickle

    again = pickle.loads(pickle.dumps(outer))
    assert again.key == outer.key and again.in_language("zh") == outer.in_language("zh")


def test_an_undeclared_key_with_values_fails_where_it_is_written_and_a_plain_message_stays_as_written():
    with pytest.raises(KeyError):
        InputError("no_such_error", value=1)
    plain = InputError("no Ray cluster answers at 127.0.0.1:1")  # bench/'s operator tools write English
    assert str(plain) == plain.in_language("zh") == "no Ray cluster answers at 127.0.0.1:1"


def test_an_error_text_without_its_chinese_is_refused():
    broken = copy.deepcopy(strings.declared())
    del broken["errors"]["bad_session_id"]["zh"]
    with pytest.raises(ValueError, match=r"not in every language: errors\.bad_session_id \(zh\)"):
        strings.check(broken)


@pytest.mark.parametrize(
    "header, language",
    [
        ("zh-CN,zh;q=0.9", "zh"),
        ("zh", "zh"),
        ("zh-TW", "zh"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("en;q=0.5,zh-CN", "zh"),  # the highest q, not the first written
        ("", "en"),
        (None, "en"),
    ],
)
def test_the_language_of_a_request_is_its_highest_accept_language(header, language):
    import gradio as gr

    from stsdemo.app.ui.words import request_language

    headers = {} if header is None else {"accept-language": header}
    assert request_language(gr.Request(headers=headers)) == language
    assert request_language(None) == "en"


# ---- the app itself, in process: an event as Gradio's queue runs it, with and without a Chinese browser ----------


@pytest.fixture(scope="module")
def demo():
    from app_fixtures import small_app_state

    from stsdemo.app.page import build_demo

    return build_demo(small_app_state())


def _event(demo, api_name: str):
    return next(fn for fn in demo.fns.values() if fn.api_name == api_name)


async def _refusal(demo, api_name: str, inputs: list, headers: dict) -> str:
    import gradio as gr
    from gradio.state_holder import SessionState

    with pytest.raises(gr.Error) as caught:
        await demo.process_api(
            _event(demo, api_name), inputs, state=SessionState(demo), request=gr.Request(headers=headers)
        )
    return caught.value.message


def test_a_field_the_app_refuses_is_named_in_the_visitors_language(demo):
    """A bad number for the Score tab's gap: refused by the field's own check (before the handler runs), named
    by the field's label, in Chinese to a Chinese browser and in English to any other caller."""
    import asyncio

    from stsdemo.app.ui.words import I18N

    inputs = ["default", "A man plays.", "A man plays a guitar.", "STS 0–5", "", "wide", None]
    english = asyncio.run(_refusal(demo, "score", inputs, {}))
    chinese = asyncio.run(_refusal(demo, "score", inputs, ZH))
    assert english == 'Gap d: must be a number, got "wide"'
    zh_label = I18N.translations["zh"]["score_gap"]
    assert chinese.startswith(f"{zh_label}:") and "必须是数字" in chinese and '"wide"' in chinese


def test_a_handler_refusal_reaches_the_visitor_in_their_language(demo):
    """The Fine-tune tab's Prepare zip with no run chosen: the handler's InputError, as user_errors turns it into a
    toast for the request being served."""
    import asyncio

    english = asyncio.run(_refusal(demo, "zip_run", [None], {}))
    chinese = asyncio.run(_refusal(demo, "zip_run", [None], ZH))
    assert english == str(InputError("pick_run_first"))
    assert chinese == InputError("pick_run_first").in_language("zh") != english


def test_the_score_tabs_notes_reach_a_chinese_browser_in_chinese(demo):
    """Scoring a pair on the NLI line: the Score tab's title and notes (the start-here step's "switch the label
    scheme to NLI") in Chinese to a Chinese browser, in English to any other caller."""
    import asyncio

    from gradio.state_holder import SessionState

    nli = "NLI (contradiction · neutral · entailment)"
    inputs = ["default", "A man plays.", "A man plays a guitar.", nli, "", 1.0, None]

    def notice(headers):
        found = asyncio.run(
            demo.process_api(
                _event(demo, "score"), inputs, state=SessionState(demo), request=gr.Request(headers=headers)
            )
        )
        return found["data"][5]

    english, chinese = notice({}), notice(ZH)
    assert english and chinese and english != chinese
    assert not re.search(r"[\u4e00-\u9fff]", english) and re.search(r"[\u4e00-\u9fff]", chinese)


def test_the_app_declares_its_unexpected_error_in_both_languages():
    entry = texts()["unexpected"]
    assert (
        entry["en"].startswith("Something went wrong")
        and json.dumps(entry, ensure_ascii=False).count("{type}") == 2
    )
