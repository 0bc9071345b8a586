"""One engine, the same bits everywhere: the page's engine (web/*.js) run in two independent JavaScript engines that
pip installs, V8 (mini-racer) and QuickJS, on the shipped pinned data, must give identical readings (``==``, no
tolerance): each head, each loss, STS and NLI, label noise and rounding, 2 seeds to 3,000 steps (the paper head:
250 steps took 8 of 69 numbers apart by a bit before, and 3,000 steps 69 of 407) and 20 seeds on a shorter run. QuickJS is about 24x slower than V8, so the long cases use small batches.

The engine's hand-written gradients are checked against torch autograd of the project's own losses
(:func:`stsdemo.losses.registry.build_loss`) at points inside, at and outside the buffer and past the clamp; and the
generator's own ln and cos (the engine calls neither Math.log nor Math.cos) against numpy's.
"""

import functools
import json
from dataclasses import asdict, replace

import numpy as np
import pytest
import torch

from stsdemo.labels import LabelScheme
from stsdemo.losses.registry import build_loss
from stsdemo.playground.config import BUFFER_LOSSES, PlaygroundConfig
from stsdemo.playground.engine import Engine
from stsdemo.playground.run import pinned_source

LONG = dict(seeds=2, steps=3000, batch_size=4, train_pairs=200)
CASES = {  # name: (settings, the steps at which every reading is compared)
    "paper sts sk2 noise": (dict(LONG, noise=0.25), (250, 3000)),
    "paper nli trelu noise rounded": (
        dict(LONG, data="nli", loss="trelu", k=2.5, noise=0.5, round_labels=True, steps=1000),
        (1000,),
    ),
    "cosine sts trelu": (dict(LONG, head="cosine", loss="trelu", k=2.5, noise=1.0), (3000,)),
    "mlp sts sk2 rounded": (
        dict(seeds=2, steps=100, batch_size=4, train_pairs=200, head="mlp", width=2, round_labels=True),
        (100,),
    ),
    "mlp nli trelu noise": (
        dict(
            seeds=2,
            steps=100,
            batch_size=4,
            train_pairs=200,
            head="mlp",
            width=2,
            data="nli",
            loss="trelu",
            k=2.5,
            noise=0.25,
        ),
        (100,),
    ),
    "paper sts sk2 20 seeds": (
        dict(seeds=20, steps=50, noise=0.25, round_labels=True, train_pairs=800),
        (50,),
    ),
}


@functools.cache
def engine_of(kind: str) -> Engine:
    """One engine of each kind for the module: handing the data to QuickJS over takes about 2 s."""
    return Engine(kind)


def readings(kind: str, settings: dict, at: tuple[int, ...]) -> list:
    """Every measurement (and both twins' best heads) of a run at the steps ``at``, as the engine answers them."""
    config = replace(PlaygroundConfig(), **settings)
    source = pinned_source(config.data)
    engine = engine_of(kind)
    engine.add_data(source.checksum, source.payload)
    run = engine.start(source.checksum, asdict(config), list(range(config.seeds)))
    found, done = [], 0
    for step in at:
        done = run.advance(step - done)
        found.append(engine.call("measure", run.id))
    found += [engine.call("bestHead", run.id, twin) for twin in (0, 1)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_v8_and_quickjs_give_identical_readings(case):
    settings, at = CASES[case]
    in_v8, in_quickjs = readings("v8", settings, at), readings("quickjs", settings, at)
    assert in_v8 == in_quickjs  # the JSON text: every float64 written in its shortest exact form
    last = json.loads(in_v8[len(at) - 1])
    assert last["step"] == at[-1] and len(last["values"]["spearman"]) == settings["seeds"]
    assert all(np.isfinite(row).all() for row in last["best"]["spearman"])


def engine_pulls(loss, k, x0, predictions, labels, nodes, d):
    found = engine_of("v8").call("pulls", loss, k, x0, json.dumps(predictions), json.dumps(labels), nodes, d)
    return np.array(json.loads(found))


@pytest.mark.parametrize("loss", BUFFER_LOSSES)
def test_each_playground_loss_has_the_page_gradient_torch_autograd_gives(loss):
    """Inside the buffer (0), at its edge, outside it on both sides, and past the clamp (the straight-through
    clamp: the pull of the clamped value, passed through)."""
    k, x0, d, nodes = 2.0, 0.25, 0.5, 6  # labels on 0, 0.5, ..., 2.5
    labels = [1.0, 1.0, 1.0, 1.0, 1.0, 2.5, 0.0, 2.5, 0.0, 2.0, 0.5, 1.5]
    predictions = [1.1, 1.25, 1.6, 0.3, 1.3, 3.4, -0.8, 2.0, 0.4, 3.0, -1.0, 1.5]
    scheme = LabelScheme("line", tuple(str(i) for i in range(nodes)), d)
    p = torch.tensor(predictions, dtype=torch.float64, requires_grad=True)
    build_loss(loss, k, x0, scheme).elementwise(p, torch.tensor(labels, dtype=torch.float64)).sum().backward()
    page = engine_pulls(loss, k, x0, predictions, labels, nodes, d)
    np.testing.assert_allclose(page, p.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert page[0] == 0 and page[1] == 0 and page[-1] == 0  # inside, at the edge, on the label: no pull
    assert page[5] == 0 and page[6] == 0  # past the clamp, on the end label
    assert (page[[2, 4, 8]] > 0).all() and page[3] < 0 and page[7] < 0
    assert page[9] > 0 and page[10] < 0  # past the clamp, pulled back through it


def test_a_loss_without_a_page_gradient_is_refused():
    with pytest.raises(Exception, match="no gradient for the loss mse"):
        engine_pulls("mse", 2.0, 0.25, [1.0], [0.0], 6, 1.0)


def test_the_generators_ln_and_cos_are_within_a_few_units_in_the_last_place():
    engine = engine_of("v8")
    y = np.linspace(2.0**-53, 1.0, 2001)
    t = np.linspace(0, 1, 2001, endpoint=False)
    ln = json.loads(engine._context.eval(f"JSON.stringify({json.dumps(y.tolist())}.map(PlaygroundDraws.ln))"))
    cos = json.loads(
        engine._context.eval(f"JSON.stringify({json.dumps(t.tolist())}.map(PlaygroundDraws.cos2pi))")
    )
    np.testing.assert_allclose(ln, np.log(y), rtol=4e-16, atol=0)
    np.testing.assert_allclose(cos, np.cos(2 * np.pi * t), rtol=0, atol=2e-15)
