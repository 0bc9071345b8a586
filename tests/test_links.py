"""Links that reopen a state (stsdemo.app.links): the round trip for each tab, and every bad value falling back
to its default with a notice, never an exception."""

import math

import pytest

from stsdemo.app import links
from stsdemo.app.finetune import form
from stsdemo.app.score import view as score_view


def test_a_loss_link_opens_the_tab_and_leaves_its_numbers_to_the_page():
    """The Loss explorer tab is the page's explorer, which reads (and checks) the link's numbers itself
    (tests/test_site_browser.py)."""
    restored = links.parse("?tab=loss&k=3&x0=0.1&d=1&prediction=3.6&label=3")
    assert restored.tab == "loss" and restored.values == {} and restored.notices == []
    assert links.encode("loss", {}) == ("?tab=loss", [])


def test_score_link_round_trip_with_text_and_a_custom_scheme():
    values = {
        "s1": 'A man & a dog: 50% "happy"?',
        "s2": "Ein Mann – café, naïve.",
        "scheme": score_view.SCHEMES["custom"],
        "custom": "bad, fair, good",
        "gap": 0.5,
        "gold": 1.5,
    }
    query, notices = links.encode("score", values)
    assert notices == [] and query.startswith("?tab=score&s1=")
    restored = links.parse(query)
    assert restored.tab == "score" and restored.values == values and restored.notices == []
    # a built-in scheme's link leaves out the custom list
    query, _ = links.encode("score", dict(values, scheme=score_view.SCHEMES["sts"]))
    assert "scheme=sts" in query and "categories" not in query and "gap" not in query
    # each built-in scheme by its short name
    for key, choice in score_view.SCHEMES.items():
        assert links.parse(f"?tab=score&scheme={key}").values["scheme"] == choice
    # other sentences without a gold label: none (the example's gold belongs to the example pair)
    assert links.parse("?tab=score&s1=Hello&s2=World").values["gold"] is None
    assert links.parse("?tab=score").values == links.defaults("score")


def test_train_link_round_trip_covers_every_form_setting():
    values = form.form_defaults()
    values.update(
        loss=form.field_text("loss", "trelu"),
        target=form.field_text("target", "head"),
        k=2.5,
        x0=0.2,
        lr=3e-5,
        batch_size=8,
        max_steps=120,
        eval_every=40,
        two_stage=True,
        seed=7,
        select_by=form.field_text("select_by", "head"),
        head_only=False,
        data="SICK-R train",
        final_eval=True,
    )
    fields = {name: values[name] for name in links.field_names("train")}
    query, notices = links.encode("train", fields)
    assert notices == []
    for name in form.FORM_FIELDS:  # every declared setting of the form travels
        assert f"&{name}=" in query
    assert "loss=trelu" in query and "data=sick" in query and "lr=3e-05" in query
    restored = links.parse(query)
    assert restored.tab == "train" and restored.notices == [] and restored.values == fields
    # empty optional settings: k empty (the paper's), max_steps 0 (= empty in the form)
    restored = links.parse("?tab=train&k=&max_steps=")
    assert restored.values["k"] is None and restored.values["max_steps"] == 0 and restored.notices == []


def test_x0_beyond_half_the_gap_falls_back():
    restored = links.parse("?tab=train&loss=sk2&x0=0.9")
    assert restored.values["x0"] == form.field_spec("x0").value and "d/2" in restored.notices[0]


@pytest.mark.parametrize(
    "query",
    [
        "?tab=score&s1=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "?tab=score&s1=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
        "?tab=score&s2=javascript:alert(1)",
        "?tab=score&s1=" + "a" * 2_000,
        "?tab=score&s1=%00",
        "?tab=score&s1=%20%20",
        "?tab=score&s1=%E2%80%8B%E2%80%8D",  # zero-width characters only: nothing visible to score
        "?tab=score&scheme=%3Cb%3E",
        "?tab=score&categories=one-only&scheme=custom",
        "?tab=score&gap=-1",
    ],
)
def test_bad_score_values_fall_back_with_a_notice_that_repeats_no_markup(query):
    restored = links.parse(query)
    assert restored.tab == "score" and len(restored.notices) == 1
    assert not any(mark in restored.notices[0] for mark in ("<", "script", "onerror", "javascript", "alert"))
    changed = {name for name, value in restored.values.items() if value != links.defaults("score")[name]}
    assert changed <= {"scheme"}  # only a valid scheme may be kept beside the bad value


@pytest.mark.parametrize(
    "query, field",
    [
        ("?tab=train&lr=-1", "lr"),
        ("?tab=train&batch_size=2.5", "batch_size"),
        ("?tab=train&loss=evil", "loss"),
        ("?tab=train&epochs=0", "epochs"),
        ("?tab=train&seed=-3", "seed"),
        ("?tab=train&two_stage=maybe", "two_stage"),
        ("?tab=train&model=run:abc", "model"),
        ("?tab=train&model=someone/remote-code", "model"),
        ("?tab=train&data=upload", "data"),
        ("?tab=train&data=/etc/passwd", "data"),
        ("?tab=train&max_steps=1e12", "max_steps"),
        ("?tab=train&k=0.001", "k"),
        ("?tab=train&max_length=nan", "max_length"),
        ("?tab=train&select_by=accuracy", "select_by"),  # declared, but not a choice the form offers
    ],
)
def test_bad_train_values_fall_back_to_their_default(query, field):
    restored = links.parse(query)
    assert restored.tab == "train" and len(restored.notices) == 1, restored.notices
    assert restored.values[field] == links.defaults("train")[field]


def test_unknown_keys_are_ignored_and_a_link_without_tab_restores_nothing():
    restored = links.parse("?tab=score&gold=3&__theme=dark&foo=bar&k=3")
    assert restored.values["gold"] == 3.0 and restored.notices == []
    assert (
        links.parse("?__theme=dark").tab is None
        and links.parse("").tab is None
        and links.parse(None).tab is None
    )
    assert links.parse("?gold=3").values == {}


@pytest.mark.parametrize("query", ["?tab=evil", "?tab=%3Cscript%3E", "?tab=" + "x" * 300])
def test_unknown_tab_opens_the_score_tab_with_a_notice(query):
    restored = links.parse(query)
    assert restored.tab == "score" and restored.values == links.defaults("score")
    assert (
        len(restored.notices) == 1 and "unknown tab" in restored.notices[0] and "<" not in restored.notices[0]
    )


def test_ten_kilobytes_of_text_give_the_defaults_and_a_notice():
    restored = links.parse("?tab=score&gold=3&junk=" + "x" * 10_240)
    assert restored.values == links.defaults("score") and "too long" in restored.notices[0]
    restored = links.parse("?tab=score&s1=" + "word " * 2_048)
    assert restored.values == links.defaults("score") and "too long" in restored.notices[0]


def test_parse_takes_a_mapping_and_never_raises():
    assert links.parse({"tab": "score", "gold": "4"}).values["gold"] == 4.0
    for weird in (
        {"tab": None},
        {"tab": "score", "gold": None},
        "?tab=score&gold",
        "%%%",
        "?tab=score&gold=%ZZ",
        12,
    ):
        restored = links.parse(weird)
        assert isinstance(restored, links.Restored)


def test_encode_leaves_out_a_value_that_would_not_read_back():
    values = {
        "s1": "a",
        "s2": "b",
        "scheme": score_view.SCHEMES["custom"],
        "custom": "bad, good",
        "gap": -1.0,
        "gold": math.nan,
    }
    query, notices = links.encode("score", values)
    assert "gap=" not in query and "gold=" not in query and "categories=bad" in query
    assert len(notices) == 2
    with pytest.raises(links.InputError, match="unknown tab 'nowhere'"):
        links.encode("nowhere", {})


def test_a_playground_link_opens_the_tab_and_leaves_its_parameters_to_the_page():
    restored = links.parse("?tab=playground&preset=memorisation&hide=lr,batch_size&noise=0.5")
    assert restored.tab == "playground" and restored.values == {} and restored.notices == []


@pytest.mark.parametrize("text", ["true", " FALSE ", "1", "yes", "on", "0", "off", ""])
def test_a_link_and_a_raw_api_call_read_the_same_boolean_text_alike(text):
    """One rule for true/false: a word a link's ``final_eval`` takes, a REST argument takes as the same value,
    and a word one refuses (with a notice, falling back to the default) the other refuses too."""
    from stsdemo.errors import InputError
    from stsdemo.serving import rest

    restored = links.parse("?tab=train&final_eval=" + text.replace(" ", "+"))
    try:
        api_value = rest.read_bool("final_eval", text)
    except InputError:
        api_value = None
    if api_value is None:
        assert restored.notices and restored.values["final_eval"] == links.defaults("train")["final_eval"]
    else:
        assert not restored.notices and restored.values["final_eval"] is api_value
