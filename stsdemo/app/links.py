"""Links that reopen what a visitor sees (as TensorFlow Playground keeps its state in the URL), plain Python.

A link names its tab and that tab's state, e.g. ``?tab=score&s1=...&s2=...&gold=4``:

* ``tab=loss``: the Loss explorer tab; its ``k``, ``x0``, ``d``, ``prediction`` and ``label`` are read by the page
  in the tab (the Playground page's Loss explorer), as the static site reads them;
* ``tab=score``: the Score tab's ``s1``, ``s2``, ``scheme`` (``own``, ``sts``, ``nli`` or ``custom`` with
  ``categories`` and ``gap``) and ``gold``;
* ``tab=train``: the Fine-tune form: ``model`` (``default`` or ``scorer``), ``data`` (a built-in set),
  every setting of the form under its own name (its values and checks come from the setting's one
  declaration in :mod:`stsdemo.config`, through :mod:`stsdemo.app.finetune.form`) and ``final_eval``;
* ``tab=playground``: the Playground tab; its other parameters (``preset=``, ``hide=``, every setting) are the
  Playground page's own, read by the page itself (``stsdemo/playground/web/``), as the static site reads them;
* ``tab=bench``: the Benchmark tab (no state).

:func:`encode` writes a tab's values (as its components hold them) as a query; :func:`parse` reads one back:
a field the link leaves out takes its default, a bad or out-of-range value (markup, a number too large, NaN,
negative ``k``, ``x0 > d/2``, text too long, an unknown tab, ...) its default *and a notice* saying why; an
unknown key is ignored. A Fine-tune link whose run would be over the server's work budget has the settings that
take it over set to their bounds, with a notice (:func:`stsdemo.serving.budget.clamp`). Nothing here raises on any
input. A link only fills fields: it never starts a run (nor a Playground's play, nor the embedding of its data).

Notices never repeat a link's text beyond a short plain word or number, so a link cannot put markup on the
page through them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode

from .. import value_text
from ..config import check_setting, describe
from ..data import clean_text
from ..errors import InputError, check_range
from ..labels import get_scheme
from ..losses.buffer import check_x0
from ..losses.spec import LOSSES
from ..serving import budget
from . import model_cache
from .finetune import form
from .score import view as score_view

MAX_QUERY = 8_000  # characters of a whole link's query; a longer link restores nothing
MAX_TEXT = 1_000  # characters of one text field (a sentence, the custom categories)
MAX_SAMPLE = 100.0  # |gold| a link may carry (labels live on 0..5, 0..2, ...)

TABS = {
    "score": "Score a pair",
    "playground": "Playground",
    "loss": "Loss explorer",
    "train": "Fine-tune",
    "bench": "Benchmark",
}
TAB_ALIASES = {
    "finetune": "train",
    "fine-tune": "train",
    "benchmark": "bench",
    "explorer": "loss",
    "play": "playground",
}
LINK_MODELS = (
    model_cache.DEFAULT_CHOICE,
    model_cache.SCORER_CHOICE,
)  # start models a link may name (no session runs)
# Markup (a tag, a comment, a script URL) or control characters: no sentence needs them, so a link with them is
# refused rather than passed on to the page.
MARKUP = re.compile(r"<\s*[/!?a-zA-Z]|javascript\s*:|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", re.I)


@dataclass
class Restored:
    """What a link restores: the tab to select (None: leave the page as it is), the values of that tab's
    fields as its components take them (every field of the tab), and the notices to show."""

    tab: str | None = None
    values: dict = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Field:
    """One value a link carries: its key, its default (as the component holds it), how to write it (None:
    leave it out) and how to read it back (raises InputError with a message that repeats no link text)."""

    key: str
    title: str
    default: object
    write: Callable[[object], str | None]
    read: Callable[[str], object]


# ---- reading and writing single values ---------------------------------------------------------------------


def _number_text(value) -> str:
    """The shortest text that reads back as the same number ('3', '0.25', '2e-05')."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def _read_number(text: str, title: str, low=None, high=None, *, low_open=False, integer=False):
    text = text.strip()
    if not value_text.is_number(text):
        raise InputError("link_not_a_number", title=title)
    return check_range(title, float(text), low, high, low_open=low_open, integer=integer)


def _read_text(text: str, title: str) -> str:
    if len(text) > MAX_TEXT:
        raise InputError("link_too_long", title=title, length=f"{len(text):,}", limit=f"{MAX_TEXT:,}")
    if MARKUP.search(text):
        raise InputError("link_markup", title=title)
    clean_text(text, title)  # nothing visible (spaces, zero-width characters): refused here, not at scoring
    return text


def _read_bool(text: str, title: str) -> bool:
    value = value_text.boolean(text)
    if value is None:
        raise InputError("link_not_bool", title=title)
    return value


def _shown(value) -> str:
    """A default as a notice shows it."""
    if value is None or value == "":
        return "empty"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (int, float)):
        return _number_text(value)
    text = str(value)
    return f"“{text[:60]}…”" if len(text) > 60 else f"“{text}”"


def _clean(message: str) -> str:
    """A notice as it goes on the page: no angle brackets (a comparison in words: "must be more than 0"), one
    line, bounded."""
    message = " ".join(str(message).split()).replace("<=", "≤").replace(">=", "≥")
    message = re.sub(r"\s*>\s*", " more than ", re.sub(r"\s*<\s*", " less than ", message))
    return message[:400]


# ---- the Score tab ---------------------------------------------------------------------------------------------


def _read_scheme(text: str) -> str:
    key = text.strip().lower()
    if key not in score_view.SCHEMES:
        raise InputError("link_unknown_scheme", schemes=", ".join(score_view.SCHEMES))
    return score_view.SCHEMES[key]


def _write_scheme(choice) -> str | None:
    return next((key for key, text in score_view.SCHEMES.items() if text == choice), None)


def _write_text(value) -> str | None:
    return None if value in (None, "") else str(value)


def _write_optional_number(value) -> str | None:
    return None if value in (None, "") else _number_text(value)


def _read_categories(text: str) -> str:
    text = _read_text(text, "ordered categories")
    if "," not in text:
        raise InputError("link_few_categories")
    return text


SCORE_FIELDS = (
    Field("s1", "sentence 1", score_view.START[0], _write_text, lambda text: _read_text(text, "sentence 1")),
    Field("s2", "sentence 2", score_view.START[1], _write_text, lambda text: _read_text(text, "sentence 2")),
    Field("scheme", "label scheme", score_view.SCHEMES["own"], _write_scheme, _read_scheme),
    Field("categories", "ordered categories", score_view.CUSTOM_START[0], _write_text, _read_categories),
    Field(
        "gap",
        "gap d",
        score_view.CUSTOM_START[1],
        _number_text,
        lambda text: _read_number(text, "gap d", 0, 100, low_open=True),
    ),
    Field(
        "gold",
        "gold label",
        score_view.START[2],
        _write_optional_number,
        lambda text: _read_number(text, "gold label", -MAX_SAMPLE, MAX_SAMPLE),
    ),
)
SCORE_NAMES = {
    "s1": "s1",
    "s2": "s2",
    "scheme": "scheme",
    "categories": "custom",
    "gap": "gap",
    "gold": "gold",
}


def _score_defaults(given: set, values: dict) -> dict:
    """The example's gold label belongs to the example pair: a link with other sentences and no gold has none."""
    other = (values["s1"], values["s2"]) != (score_view.START[0], score_view.START[1])
    return {"gold": None} if other and "gold" not in given else {}


# ---- the Fine-tune form ------------------------------------------------------------------------------------------


def _setting_field(name: str) -> Field:
    """A setting of the form, read and checked through its one declaration (``config.describe`` and
    ``config.check_setting``) and the form's own field (``form.field_spec``: its minimum, 0 for "empty")."""
    meta, spec = describe(name), form.field_spec(name)
    title, zero_is_empty = meta["title"], form.empty_as_zero(meta)

    def write(value) -> str | None:
        canonical = form.from_form(name, value)
        if canonical is None:
            return ""  # empty: the setting's own default (the paper's k, the whole epochs, ...)
        return _number_text(canonical) if isinstance(canonical, (bool, int, float)) else str(canonical)

    def read(text: str):
        if text.strip() == "":
            if not meta["optional"]:
                raise InputError("must_be_given", title=title)
            return 0 if zero_is_empty else None
        if spec.kind == "checkbox":
            return check_setting(name, _read_bool(text, title))
        if spec.kind == "choice":
            value = text.strip()
            if value not in form.offered_choices(name):
                raise InputError("unknown_choice", title=title, choices=", ".join(form.offered_choices(name)))
            return form.field_text(name, check_setting(name, value))
        number = _read_number(text, title)
        if zero_is_empty and number == 0:
            return 0
        number = check_setting(name, number)  # the declaration's range and whole-number rule
        if spec.minimum is not None and number < spec.minimum:
            raise InputError(
                "link_below_minimum", title=title, low=_number_text(spec.minimum), value=_number_text(number)
            )
        return number

    return Field(name, title, spec.value, write, read)


def _read_model(text: str) -> str:
    value = text.strip()
    if value not in LINK_MODELS or (
        value == model_cache.SCORER_CHOICE and not model_cache.scorer_available()
    ):
        raise InputError("link_models_only", models=" or ".join(LINK_MODELS))
    return value


def _read_data(text: str) -> str:
    keys = {key: label for label, key in form.TRAINING_DATA_CHOICES.items() if key != "upload"}
    value = text.strip()
    if value not in keys:
        raise InputError("link_unknown_data", keys=", ".join(keys))
    return keys[value]


def _write_data(label) -> str | None:
    key = form.TRAINING_DATA_CHOICES.get(label)
    return None if key in (None, "upload") else key


def _train_fields() -> tuple[Field, ...]:
    defaults = form.form_defaults()
    return (
        Field(
            "model", "start model", defaults["model"], lambda v: v if v in LINK_MODELS else None, _read_model
        ),
        Field("data", "training data", defaults["data"], _write_data, _read_data),
        *(_setting_field(name) for name in form.FORM_FIELDS),
        Field(
            "final_eval",
            "final 7-task evaluation",
            defaults["final_eval"],
            _number_text,
            lambda text: _read_bool(text, "final 7-task evaluation"),
        ),
    )


def _check_train(values: dict, notices: list[str], host: budget.Host) -> None:
    """The buffer of a buffer-zone loss on the built-in data's gap (1), by the losses' own rule
    (:func:`stsdemo.losses.buffer.check_x0`): 0 <= x0 <= 1/2."""
    loss_name = form.from_form("loss", values["loss"])
    if loss_name in LOSSES and LOSSES[loss_name].buffer:
        try:
            check_x0(float(values["x0"]), get_scheme("sts").gap)
        except InputError as error:
            default = form.field_spec("x0").value
            notices.append(f"{error} (the built-in data's gap): using the default {_number_text(default)}")
            values["x0"] = default
    _clamp_to_budget(values, notices, host)


def _clamp_to_budget(values: dict, notices: list[str], host: budget.Host) -> None:
    """Each setting that takes the link's run over the server's work budget set to its bound, with a notice
    (:func:`stsdemo.serving.budget.clamp` on ``host``): a link never starts a run, but its form would be refused as it
    stands."""
    model = "" if values["model"] == model_cache.DEFAULT_CHOICE else model_cache.scorer_source()
    try:
        config = form.settings_config(values, model=model, data=form.TRAINING_DATA_CHOICES[values["data"]])
        clamped, changes = budget.clamp(config, final_eval=bool(values.get("final_eval")), host=host)
    except Exception:  # noqa: BLE001 - no estimate (data or model unreadable here): the form checks at the start
        return
    for name, notice in changes:
        if name:
            values[name] = getattr(clamped, name)
        notices.append(notice)


@dataclass(frozen=True)
class TabLink:
    fields: Callable[[], tuple[Field, ...]]
    check: Callable[[dict, list, budget.Host], None] | None = None  # (values, notices, host): mends values
    names: dict | None = None  # link key -> field name where they differ
    defaults: Callable[[set, dict], dict] | None = (
        None  # (keys the link gave, values read) -> changed defaults
    )
    unused: Callable[[Mapping], set] | None = None  # values -> link keys that say nothing there


TAB_LINKS = {
    "loss": TabLink(lambda: ()),  # the page in the tab reads its own parameters
    "score": TabLink(
        lambda: SCORE_FIELDS,
        None,
        SCORE_NAMES,
        _score_defaults,
        lambda values: (
            set() if values.get("scheme") == score_view.SCHEMES["custom"] else {"categories", "gap"}
        ),
    ),
    "train": TabLink(_train_fields, _check_train),
    "playground": TabLink(lambda: ()),  # the page in the tab reads its own parameters
    "bench": TabLink(lambda: ()),
}


def field_names(tab: str) -> tuple[str, ...]:
    """The names of a tab's fields, as :attr:`Restored.values` and :func:`encode` key them."""
    link = TAB_LINKS[tab]
    return tuple((link.names or {}).get(f.key, f.key) for f in link.fields())


def defaults(tab: str) -> dict:
    link = TAB_LINKS[tab]
    return {(link.names or {}).get(f.key, f.key): f.default for f in link.fields()}


def _params(query) -> tuple[dict, int]:
    """The query (a string, with or without '?', or a mapping such as a request's query params) as a dict
    (the last of repeated keys wins) and its length in characters."""
    if query is None:
        return {}, 0
    if isinstance(query, str):
        text = query[1:] if query.startswith("?") else query
        return dict(parse_qsl(text[: MAX_QUERY * 4], keep_blank_values=True)), len(text)
    items = list(query.multi_items()) if hasattr(query, "multi_items") else list(dict(query).items())
    params = {str(key): "" if value is None else str(value) for key, value in items}
    return params, sum(len(k) + len(v) + 2 for k, v in params.items())


def _tab_word(text: str) -> str:
    return text if re.fullmatch(r"[A-Za-z0-9_-]{1,20}", text) else "(not shown)"


def parse(query, host: budget.Host = budget.HOST) -> Restored:
    """What a link restores. Never raises: a bad value takes its default with a notice, an unknown key is
    ignored, a link without ``tab`` restores nothing (an ordinary visit, e.g. ``?__theme=dark``). A Fine-tune
    link's settings are clamped to the work budget on ``host`` (:class:`stsdemo.serving.budget.Host`)."""
    try:
        return _parse(query, host)
    except Exception as error:  # noqa: BLE001 - a link must never break the page
        return Restored(
            "score",
            defaults("score"),
            [_clean(f"This link could not be read ({type(error).__name__}); opened with the defaults.")],
        )


def _parse(query, host: budget.Host) -> Restored:
    params, length = _params(query)
    if "tab" not in params:
        return Restored()
    word = params["tab"].strip().lower()
    tab = TAB_ALIASES.get(word, word)
    if tab not in TAB_LINKS:
        return Restored(
            "score",
            defaults("score"),
            [
                _clean(
                    f"This link names an unknown tab {_tab_word(params['tab'])} (known: {', '.join(TABS)}): opened "
                    "the Score tab with its defaults."
                )
            ],
        )
    link = TAB_LINKS[tab]
    if length > MAX_QUERY:
        return Restored(
            tab,
            defaults(tab),
            [
                _clean(
                    f"This link is too long ({length:,} characters; at most {MAX_QUERY:,}): opened the {TABS[tab]} tab "
                    "with its defaults."
                )
            ],
        )
    names = link.names or {}
    values, notices = {}, []
    given = {f.key for f in link.fields() if f.key in params}
    for item in link.fields():
        name = names.get(item.key, item.key)
        values[name] = item.default
        if item.key not in params:
            continue
        try:
            values[name] = item.read(params[item.key])
        except InputError as error:
            notices.append(f"{error}: using the default {_shown(item.default)}")
        except Exception:  # noqa: BLE001 - any other failure is a bad value too
            notices.append(f"{item.title} could not be read: using the default {_shown(item.default)}")
    if link.defaults:
        values.update(link.defaults(given, values))
    if link.check:
        link.check(values, notices, host)
    return Restored(tab, values, [_clean(n) for n in notices])


def encode(tab: str, values: Mapping) -> tuple[str, list[str]]:
    """The query of a link to ``tab`` with ``values`` (keyed by field name, as the components hold them;
    a missing one is left out and reopens at its default). A value that would not
    read back (e.g. an out-of-range number typed in the form) is left out, with a notice. Returns
    ``("?tab=...&...", notices)``."""
    if tab not in TAB_LINKS:
        raise InputError("unknown_tab", tab=repr(tab), tabs=", ".join(TAB_LINKS))
    link = TAB_LINKS[tab]
    names = link.names or {}
    pairs, notices = [("tab", tab)], []
    unused = link.unused(values) if link.unused else set()
    for item in link.fields():
        name = names.get(item.key, item.key)
        if name not in values or item.key in unused:
            continue
        try:
            text = item.write(values[name])
            if text is None:
                continue
            item.read(text)  # only what a link can restore goes into it
        except Exception as error:  # noqa: BLE001 - reported, the rest of the link still works
            reason = str(error) if isinstance(error, InputError) else "it cannot be written in a link"
            notices.append(_clean(f"{item.title} is not in the link: {reason}"))
            continue
        pairs.append((item.key, text))
    return "?" + urlencode(pairs, quote_via=quote, safe=",:"), notices
