"""The page's engine (stsdemo/playground/web/engine.js, run by Node) and the Python core (stsdemo.playground.run)
train the same numbers: every reading of every seed and twin, at this step and stopped at its best, the best steps
and the curves' points agree within 1e-6 for 3,000 steps, for each head, each loss, STS and NLI, label noise,
rounding, 1 and 20 seeds. Both read one compact data file (synthetic sentence vectors whose cosine follows the
label, so training has something to learn) and draw from the one shared generator."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from stsdemo.labels import NLI, STS
from stsdemo.playground.compact import quantize, read_compact, write_compact
from stsdemo.playground.config import PlaygroundConfig
from stsdemo.playground.datasets import PairIndex, PlaygroundData
from stsdemo.playground.draws import Stream, uniforms
from stsdemo.playground.run import Playground, prepare_features

RUNNER = Path(__file__).parent / "js" / "run_engine.js"
TOLERANCE = 1e-6
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")


def synthetic(name: str, pool: int = 600, held: int = 200, dim: int = 384) -> tuple[PlaygroundData, np.ndarray]:
    """``pool + held`` pairs of unit vectors whose cosine grows with the pair's label (plus noise)."""
    scheme = STS if name == "sts" else NLI
    pairs = pool + held
    labels = np.floor(uniforms(7, "pairs", 0, pairs) * len(scheme.categories) * 5) / 5
    labels = np.minimum(labels, scheme.high) if name == "sts" else np.floor(labels)
    base = Stream(7, "init").normal(pairs * dim).reshape(pairs, dim)
    other = Stream(7, "noise").normal(pairs * dim).reshape(pairs, dim)
    closeness = (labels / scheme.high)[:, None]
    vectors = np.concatenate([base, base * (0.2 + closeness) + other * (1.2 - closeness)])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    u, v = np.arange(pairs), np.arange(pairs, 2 * pairs)
    data = PlaygroundData(name, [f"sentence {i}" for i in range(2 * pairs)],
                          PairIndex(u[:pool], v[:pool], labels[:pool]), PairIndex(u[pool:], v[pool:], labels[pool:]),
                          scheme, f"synthetic {name}")
    return data, vectors


@pytest.fixture(scope="module")
def data_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compact")
    paths = {}
    for name in ("sts", "nli"):
        data, vectors = synthetic(name)
        paths[name] = folder / f"{name}.safetensors"
        write_compact(paths[name], data, *quantize(vectors), model="synthetic")
    return paths


def python_run(path: Path, config: PlaygroundConfig, checkpoints: list[int], shown: int = 0) -> dict:
    data, vectors = read_compact(path)
    playground = Playground(config, data, prepare_features(data, vectors, config.head), shown=shown)
    measurements, best_shown = [], []
    for checkpoint in checkpoints:
        playground.step(checkpoint - playground.steps_done)
        measurements.append(playground.measure())
        best_shown.append(playground.best_predictions[0][:, playground.shown])
    return {"measurements": measurements, "history": playground.history, "best_shown": best_shown}


def node_run(path: Path, config: PlaygroundConfig, checkpoints: list[int], shown: int = 0) -> subprocess.Popen:
    """The page's engine on the same run, started in its own process (it trains while the core does)."""
    argument = json.dumps({"config": config.to_dict(), "checkpoints": checkpoints, "shown": shown})
    return subprocess.Popen(["node", str(RUNNER), str(path), argument], stdout=subprocess.PIPE, text=True)


def assert_agree(path: Path, config: PlaygroundConfig, checkpoints: list[int], shown: int = 0) -> None:
    """Every reading agrees; with ``shown`` drawn report pairs, so do the first seed's drawn predictions (now
    and at the best step), and the page's glance at them equals its measurement's."""
    running, threads = node_run(path, config, checkpoints, shown), torch.get_num_threads()
    torch.set_num_threads(1)            # the heads are small: one thread each for the core and Node
    try:
        ours = python_run(path, config, checkpoints, shown)
    finally:
        torch.set_num_threads(threads)
    output, _ = running.communicate(timeout=600)
    assert running.returncode == 0
    page = json.loads(output)
    for measured, best_shown, shown in zip(ours["measurements"], ours["best_shown"], page["measurements"]):
        assert shown["step"] == measured.step
        if shown.get("glance"):
            assert shown["glance"] == {"shown": shown["shown"], "best": shown["bestShown"]}
            np.testing.assert_allclose(np.array(shown["shown"]), measured.shown, rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(np.array(shown["bestShown"]), best_shown, rtol=0, atol=TOLERANCE)
        assert shown["bestSteps"] == measured.best_steps.tolist(), f"best steps differ at step {measured.step}"
        for part, found in (("values", measured.values), ("best", measured.best)):
            for metric, table in found.items():
                np.testing.assert_allclose(np.array(shown[part][metric], dtype=float), table, rtol=0,
                                           atol=TOLERANCE, err_msg=f"{part} {metric} at step {measured.step}")
    for point, shown in zip(ours["history"], page["history"], strict=True):
        assert point.keys() == shown.keys()
        for name in point:
            np.testing.assert_allclose(np.array(shown[name], dtype=float), point[name], rtol=0, atol=TOLERANCE)


SHORT = PlaygroundConfig(seeds=1, steps=200, batch_size=16)
CASES = {   # together: each head, each loss, STS and NLI, noise, rounding, 1 and 20 seeds
    "paper-sk2-sts-noise-20seeds": dict(data="sts", head="paper", loss="sk2", noise=0.25, seeds=20, batch_size=8),
    "paper-trelu-nli-rounded-1seed": dict(data="nli", head="paper", loss="trelu", k=2.5, noise=0.5,
                                          round_labels=True, seeds=1),
    "cosine-sk2-nli-20seeds": dict(data="nli", head="cosine", loss="sk2", seeds=20, lr=0.03),
    "cosine-trelu-sts-rounded-1seed": dict(data="sts", head="cosine", loss="trelu", k=2.5, noise=0.5,
                                           round_labels=True, seeds=1),
    "mlp-sk2-sts-noise-1seed": dict(data="sts", head="mlp", width=4, loss="sk2", noise=0.5, seeds=1, batch_size=16),
    "mlp-trelu-nli-20seeds": dict(data="nli", head="mlp", width=2, loss="trelu", k=2.5, x0=0.5, seeds=20,
                                  batch_size=4),
}


def test_a_short_run_agrees(data_files):
    assert_agree(data_files["sts"], SHORT, [0, 10, 200], shown=50)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_every_reading_agrees_for_3000_steps(data_files, case):
    config = replace(PlaygroundConfig(steps=3000), **CASES[case])
    assert_agree(data_files[config.data], config, [10, 1000, 3000])
