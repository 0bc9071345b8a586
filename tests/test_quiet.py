"""Quiet, exact output: the normal paths print their result and nothing else (no library warnings)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stsdemo import environment, library_warnings

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    not any(environment.default_scorer_dir().glob("*.safetensors")), reason="no scorer shipped"
)
def test_scoring_a_pair_on_the_command_line_prints_its_result_and_nothing_on_stderr():
    """``stsdemo score`` with the default model (named as empty): one JSON line with the prediction, its category
    and node, the cosine and the notice; no warning on stderr."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    # -W default: show every warning once, including those Python hides by default (DeprecationWarning)
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "default",
            "-m",
            "stsdemo",
            "score",
            "a man is playing a guitar.",
            "a person plays the guitar.",
            "--model",
            "",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "", done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert set(result) == {"prediction", "category", "node", "cosine", "notice"}
    assert 0.6 < result["cosine"] <= 1


def test_library_filters_are_exact():
    """Each filter names its category, the module that raises it and its message (nothing broader)."""
    for category, module, message, why in library_warnings.FILTERS:
        assert issubclass(category, Warning) and module and message and why
        assert not message.startswith(".*") and "." in module
    from _pytest.config import parse_warning_filter

    # pytest reads each line back as the same (action, message, category, module) as the runtime filter
    parsed = [parse_warning_filter(line, escape=False)[:4] for line in library_warnings.pytest_filters()]
    assert parsed == [
        ("ignore", message, category, module) for category, module, message, _ in library_warnings.FILTERS
    ]
