"""The lesson's stories and glossary (:mod:`stsdemo.story`): every reveal is short and plain (at most 40 words, at
most one number, the same in English and Chinese), and its number is the figure its preset's run on 100 fresh seeds
recorded; each question's right choice is what those seeds show; every text has both languages; every word a text
marks is in the glossary; the over-claims the stories once made are gone. The page's side is in
test_site_browser.py."""

import json
import re
from pathlib import Path

import pytest
from test_presets import RESULTS

from stsdemo.lesson import STEPS
from stsdemo.paired import Paired
from stsdemo.playground.presets import PRESETS
from stsdemo.playground.stories import EFFECTS, TWINS
from stsdemo.story import GLOSSARY, TERM, Question, Story, Words, plain
from stsdemo.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"(?<![\w.])[+−-]?\d+(?:[.,]\d+)*")
HAN = re.compile(r"[\u4e00-\u9fff]")
MOST_WORDS, MOST_HAN = 40, 100  # a Chinese reveal of 40 English words runs to about 70-90 characters
STORIES = {
    **{f"step {step.tab}": step.story for step in STEPS},
    **{preset.name: preset.story for preset in PRESETS},
}
# the choices' order: the buffer ahead (or helping), behind (costing), level
CHOICE_FOR = {Verdict.HOLDS: 0, Verdict.REVERSED: 1, Verdict.NO_DIFFERENCE: 2}


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RESULTS.read_text(encoding="utf-8"))["playground"]


def texts(story: Story) -> list[Words]:
    question = story.question
    return [question.ask, *question.choices, story.watch, story.reveal, story.curious]


def numbers(text: str) -> list[str]:
    return NUMBER.findall(plain(text))


def confirmed(recorded: dict, name: str, quotes: tuple[str, str]) -> Paired:
    """The reading a reveal quotes: its preset's run on fresh seeds, at the last step."""
    reading, metric = quotes
    found = recorded[f"preset/{name}/confirm"]["checkpoints"][-1][f"{reading}_reading"][metric]
    return Paired(found["diffs"], found["seeds"], metric)


@pytest.mark.parametrize("name", STORIES)
def test_a_reveal_is_short_with_one_number_at_most_the_same_in_both_languages(name):
    reveal = STORIES[name].reveal
    assert len(plain(reveal.en).split()) <= MOST_WORDS, reveal.en
    assert len(HAN.findall(plain(reveal.zh))) <= MOST_HAN, reveal.zh
    assert len(numbers(reveal.en)) <= 1 and numbers(reveal.en) == numbers(reveal.zh), (reveal.en, reveal.zh)
    assert (STORIES[name].quotes is None) == (numbers(reveal.en) == []), (
        name
    )  # a number says which record it is


@pytest.mark.parametrize("preset", PRESETS, ids=lambda preset: preset.name)
def test_a_presets_reveal_quotes_its_fresh_seeds_figure_and_its_question_their_verdict(preset, recorded):
    story = preset.story
    paired = confirmed(recorded, preset.name, story.quotes)
    (quoted,) = numbers(story.reveal.en)
    decimals = len(quoted.split(".")[1]) if "." in quoted else 0
    value = float(quoted.replace("−", "-"))
    expected = paired.mean if quoted[0] in "+−-" else abs(paired.mean)  # "costs 0.13" of -0.13
    assert value == round(expected, decimals), (quoted, paired.mean)
    assert paired.verdict.marked  # a reveal's one number is a finding, not noise
    assert story.question.choices in (TWINS, EFFECTS)
    assert story.question.answer == CHOICE_FOR[paired.verdict], (preset.name, paired.verdict)


@pytest.mark.parametrize("name", STORIES)
def test_every_text_of_a_story_has_english_and_chinese(name):
    for words in texts(STORIES[name]):
        assert words.en.strip() and not HAN.search(words.en), words.en
        assert HAN.search(words.zh), words.zh


def test_every_glossary_entry_has_english_and_chinese():
    for key, (term, meaning) in GLOSSARY.items():
        for words in (term, meaning):
            assert words.en.strip() and not HAN.search(words.en), key
            assert HAN.search(words.zh), key


@pytest.mark.parametrize("missing", ["en", "zh"])
def test_a_text_in_one_language_only_is_refused(missing):
    given = {"en": "the buffer", "zh": "缓冲区", missing: " "}
    with pytest.raises(ValueError, match=f"no {missing}"):
        Words(**given)


def test_a_question_whose_answer_is_not_a_choice_is_refused():
    choices = (Words("yes", "是"), Words("no", "否"))
    with pytest.raises(ValueError, match="not one of its choices"):
        Question(Words("Which?", "哪个？"), choices, 2)


@pytest.mark.parametrize("name", STORIES)
def test_every_marked_word_is_in_the_glossary_and_both_languages_mark_the_same(name):
    for words in texts(STORIES[name]):
        english, chinese = ([key for key, _ in TERM.findall(text)] for text in (words.en, words.zh))
        assert set(english) <= set(GLOSSARY), english
        assert sorted(set(english)) == sorted(set(chinese)), (words.en, words.zh)
        assert "[[" not in plain(words.en) + plain(words.zh)  # no markup left unread
    assert any(TERM.search(words.en) for words in texts(STORIES[name]))


def test_the_over_claims_are_gone():
    """The twins' median best step (155 / 175 on 20 seeds, 130 / 125 on fresh ones) orders them neither way, and
    the memorisation preset's stopped-at-its-best reading leans no way."""
    said = [text for story in STORIES.values() for words in texts(story) for text in (words.en, words.zh)]
    said += [
        text for item in (*PRESETS, *STEPS) for text in (item.do.en, item.do.zh, item.title.en, item.title.zh)
    ]
    files = [
        ROOT / "README.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("stsdemo/**/*.py"),
        *ROOT.glob("stsdemo/**/*.js"),
    ]
    said += [path.read_text(encoding="utf-8") for path in files]
    assert not any("if anything against" in text for text in said)
    assert not any(re.search(r"best step\D{0,40}1[57]5\b", text) for text in said[: -len(files)])
