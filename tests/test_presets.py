"""The story presets say only what their recorded 20-seed runs show (``python -m bench.presets``, recorded in
docs/results.json): the verdict each sentence names for each reading at the run's end, and every mean ± se it
quotes, are the record's."""

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


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RESULTS.read_text(encoding="utf-8"))["playground"]


@pytest.mark.parametrize("preset", PRESETS, ids=lambda preset: preset.name)
def test_a_presets_sentence_is_what_its_recorded_run_shows(preset, recorded):
    entry = recorded[f"preset/{preset.name}"]
    config = preset.config()
    assert entry["config"] == config.to_dict() and len(entry["seeds"]) == config.seeds
    assert entry["checkpoints"][-1]["step"] == config.steps
    assert entry["engine"] == ENGINE                                     # recorded by the engine the page runs
    metric = READ_BY[config.data]
    last = entry["checkpoints"][-1]
    assert preset.expects and preset.notice
    for reading, verdict in preset.expects.items():                     # under today's rule, from the differences
        found = last[f"{reading}_reading"][metric]
        assert Paired(found["diffs"], found["seeds"], metric).verdict == verdict, (reading, verdict)
    said = {part["text"].split(" (se)")[0] for point in entry["checkpoints"]       # as the record wrote them
            for reading in ("best_reading", "step_reading") for part in point[reading].values()}
    quoted = [number.replace("−", "-") for number in QUOTED.findall(preset.notice)]
    assert quoted and all(number in said for number in quoted), (quoted, sorted(said))
