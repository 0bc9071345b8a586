"""The Loss explorer is the page's (web/loss.js), in the static site and in the app's tab alike: its curves, pulls
and one-sample rows must be the project's own losses (:mod:`stsdemo.losses.sample`, torch autograd on each loss's
own function), and it must call a setting invalid exactly where the losses' rule (``check_x0``) refuses it. Run in
V8 through mini-racer, the engine the Playground's Python side embeds."""

import functools
import json

import pytest
import torch
from py_mini_racer import MiniRacer

from stsdemo.errors import InputError
from stsdemo.losses.buffer import check_x0
from stsdemo.losses.sample import DISTANCE_LOSSES, loss_curve, sample_losses
from stsdemo.playground.engine import WEB
from stsdemo.static_site import page_strings

SETTINGS = [(2.0, 0.25), (2.5, 0.0), (0.7, 0.4)]  # (k, x0)
DISTANCES = [0.0, 0.1, 0.25, 0.2500001, 0.4, 0.6, 1.0, 2.4]  # inside, at and past the buffers


@functools.cache
def page() -> MiniRacer:
    context = MiniRacer()
    for script in ("text.js", "charts.js", "paired.js", "loss.js"):
        context.eval((WEB / script).read_text())
    context.eval(f"PlaygroundText.use({json.dumps(page_strings())}, 'en')")
    return context


def curves(name: str, xs: list[float], k: float, x0: float) -> tuple[list[float], list[float]]:
    found = json.loads(
        page().eval(f"""(() => {{ const curve = PlaygroundLoss.CURVES[{json.dumps(name)}];
        const xs = {json.dumps(xs)};
        return JSON.stringify([xs.map((x) => curve.f(x, {k}, {x0})), xs.map((x) => curve.df(x, {k}, {x0}))]); }})()""")
    )
    return found[0], found[1]


def test_the_page_draws_every_distance_loss_the_project_has():
    assert set(json.loads(page().eval("JSON.stringify(Object.keys(PlaygroundLoss.CURVES))"))) == set(
        DISTANCE_LOSSES
    )


@pytest.mark.parametrize("name", sorted(DISTANCE_LOSSES))
@pytest.mark.parametrize("k, x0", SETTINGS)
def test_the_pages_curves_and_pulls_are_the_losses_own(name, k, x0):
    drawn, pulls = curves(name, DISTANCES, k, x0)
    values, gradients = loss_curve(name, torch.tensor(DISTANCES, dtype=torch.float64), k, x0)
    assert drawn == pytest.approx(values.tolist(), abs=1e-12)
    # at x = x0 autograd takes one side of the kink; the page's pull is 0 there (the buffer's closed end)
    kinks = {i for i, x in enumerate(DISTANCES) if x == x0 or x == 0.0}
    for i, (pull, gradient) in enumerate(zip(pulls, gradients.tolist())):
        if i not in kinks:
            assert pull == pytest.approx(gradient, abs=1e-12), (name, DISTANCES[i])


@pytest.mark.parametrize("prediction, label", [(3.6, 3.0), (2.9, 3.0), (0.2, 1.7), (5.0, 5.0)])
def test_the_one_sample_rows_are_the_api_rows(prediction, label):
    k, x0 = 2.0, 0.25
    rows = json.loads(
        page().eval(
            f"JSON.stringify(PlaygroundLoss.sampleRows({json.dumps(dict(k=k, x0=x0, prediction=prediction, label=label))}))"
        )
    )
    expected = sample_losses(prediction, label, k, x0)
    rows = {row["loss"]: row for row in rows}
    assert set(rows) == {want["loss"] for want in expected}  # the same losses, named alike
    for want in expected:
        row = rows[want["loss"]]
        assert float(row["f"]) == pytest.approx(want["value"], abs=1e-4)
        assert float(row["pull"]) == pytest.approx(want["gradient"], abs=1e-4)
        assert (row["inside"] == "yes") == want["in_buffer"]


@pytest.mark.parametrize(
    "x0, d",
    [(0.0, 1.0), (0.25, 1.0), (0.5, 1.0), (0.51, 1.0), (0.3, 0.5), (0.2, 0.4), (0.21, 0.4), (0.1, 0.2)],
)
def test_the_page_calls_a_setting_invalid_where_the_losses_rule_refuses_it(x0, d):
    try:
        check_x0(x0, d)
        refused = False
    except InputError:
        refused = True
    assert bool(page().eval(f"PlaygroundLoss.problem(2, {x0}, {d})")) == refused
