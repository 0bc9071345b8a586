"""The story presets say only what their recorded 20-seed runs show (``python -m bench.evidence.presets``, recorded in
docs/results.json): the verdict each story names for each reading at the run's end, and every mean ± se its fold for
the curious quotes (in English and in Chinese), are the record's; and a holds or reversed it quotes repeats on 100
fresh seeds (``--confirm``). The reveals' one number each is checked in test_story.py."""

import json
import re
from pathlib import Path

import pytest

from stsdemo.paired import Paired
from stsdemo.playground.metrics import READ_BY
from stsdemo.playground.presets import PRESETS
from stsdemo.playground.run import ENGINE

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results.json"
QUOTED = re.compile(r"[+−-]\d+\.\d+ ± \d+\.\d+")
INTERVAL = re.compile(r"(?:interval|置信区间) ([+−-]\d+\.\d+) (?:to|到) ([+−-]\d+\.\d+)")


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RESULTS.read_text(encoding="utf-8"))["playground"]


@pytest.mark.parametrize("preset", PRESETS, ids=lambda preset: preset.name)
def test_a_presets_sentence_is_what_its_recorded_run_shows(preset, recorded):
    entry = recorded[f"preset/{preset.name}"]
    config = preset.config()
    assert entry["config"] == config.to_dict() and len(entry["seeds"]) == config.seeds
    assert entry["checkpoints"][-1]["step"] == config.steps
    assert entry["engine"] == ENGINE  # recorded by the engine the page runs
    metric = READ_BY[config.data]
    last = entry["checkpoints"][-1]
    assert preset.expects
    for reading, verdict in preset.expects.items():  # under today's rule, from the differences
        found = last[f"{reading}_reading"][metric]
        assert Paired(found["diffs"], found["seeds"], metric).verdict == verdict, (reading, verdict)
    said = {
        figure(part)
        for point in entry["checkpoints"]  # as the record wrote them
        for reading in ("best_reading", "step_reading")
        for part in point[reading].values()
    }
    said |= confirmed_figures(recorded.get(f"preset/{preset.name}/confirm"), entry)
    for text in curious_texts(preset):
        quoted = quoted_figures(text)
        assert quoted and all(number in said for number in quoted), (quoted, sorted(said))
        intervals = [f"{low} to {high}" for low, high in INTERVAL.findall(text)]
        assert all(interval.replace("−", "-") in said for interval in intervals), (intervals, sorted(said))
    english, chinese = (
        (sorted(quoted_figures(text)), INTERVAL.findall(text)) for text in curious_texts(preset)
    )
    assert english == chinese  # the translation quotes the same figures and intervals


@pytest.mark.parametrize("preset", PRESETS, ids=lambda preset: preset.name)
def test_a_mark_a_preset_quotes_repeats_on_fresh_seeds(preset, recorded):
    """Each figure a sentence quotes from the 20 seeds whose verdict is a mark (holds or reversed) has the same
    verdict on the preset's 100 fresh seeds, at the same step and reading: a mark that does not repeat is not stated
    as a finding."""
    entry, confirm = recorded[f"preset/{preset.name}"], recorded.get(f"preset/{preset.name}/confirm")
    quoted = {number for text in curious_texts(preset) for number in quoted_figures(text)}
    for place, point in enumerate(entry["checkpoints"]):
        for reading in ("best_reading", "step_reading"):
            for metric, found in point[reading].items():
                verdict = Paired(found["diffs"], found["seeds"], metric).verdict
                if not (verdict.marked and figure(found) in quoted):
                    continue
                assert confirm is not None, (
                    f"{preset.name} quotes a mark ({found['text']}) never run on fresh seeds"
                )
                assert confirm["checkpoints"][place]["step"] == point["step"]
                again = confirm["checkpoints"][place][reading][metric]
                assert Paired(again["diffs"], again["seeds"], metric).verdict == verdict, (
                    reading,
                    metric,
                    again,
                )


def curious_texts(preset) -> tuple[str, str]:
    """A preset's fold for the curious, in English and in Chinese."""
    return preset.story.curious.en, preset.story.curious.zh


def quoted_figures(text: str) -> list[str]:
    """Every mean ± se a text quotes, with the minus sign the records write."""
    return [number.replace("−", "-") for number in QUOTED.findall(text)]


def figure(reading: dict) -> str:
    """A recorded reading's mean ± se as a sentence quotes it: "+4.44 ± 0.20" of "+4.44 ± 0.20 (se), n = 100"."""
    return reading["text"].split(" (se)")[0]


def confirmed_figures(confirm: dict | None, entry: dict) -> set[str]:
    """What a preset's run on fresh seeds lets its sentence quote: that run's own figures, and at each checkpoint
    the pooled reading over every seed (mean ± se, and its 95 % interval as "low to high"), of every metric."""
    if confirm is None:
        return set()
    assert confirm["engine"] == ENGINE and not set(confirm["seeds"]) & set(entry["seeds"])  # fresh seeds
    found = set()
    for point, again in zip(entry["checkpoints"], confirm["checkpoints"], strict=True):
        for reading in ("best_reading", "step_reading"):
            for metric, first in point[reading].items():
                second = again[reading][metric]
                pooled = Paired(first["diffs"] + second["diffs"], first["seeds"] + second["seeds"], metric)
                low, high = pooled.interval
                found |= {
                    figure(second),
                    f"{pooled.mean:+.2f} ± {pooled.se:.2f}",
                    f"{low:+.2f} to {high:+.2f}",
                }
    return {text.replace("+-", "-") for text in found}
