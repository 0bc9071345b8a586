"""The losses against hand-computed values and autograd gradients."""

from types import SimpleNamespace

import pytest
import torch

from stsdemo.errors import InputError
from stsdemo.labels import NLI, STS
from stsdemo.losses.baselines import L1Loss, MSELoss
from stsdemo.losses.buffer import check_buffer
from stsdemo.losses.cross_entropy import ClassificationLoss
from stsdemo.losses.infonce import InfoNCELoss
from stsdemo.losses.registry import build_loss
from stsdemo.losses.smooth_k2 import SmoothK2Loss, smooth_k2
from stsdemo.losses.translated_relu import TranslatedReLULoss, translated_relu


def output(prediction, u=None, v=None):
    return SimpleNamespace(prediction=prediction, u=u, v=v)


@pytest.mark.parametrize(
    "x, expected", [(0.0, 0.0), (0.2, 0.0), (0.25, 0.0), (0.5, 0.625), (1.25, 2.5), (3.0, 6.875)]
)
def test_translated_relu_hand_values(x, expected):
    assert translated_relu(torch.tensor(x), 2.5, 0.25).item() == pytest.approx(expected)


@pytest.mark.parametrize("x, expected", [(0.0, 0.0), (0.25, 0.0), (0.75, 0.5), (1.25, 2.0), (2.25, 8.0)])
def test_smooth_k2_hand_values(x, expected):
    assert smooth_k2(torch.tensor(x), 2.0, 0.25).item() == pytest.approx(expected)


@pytest.mark.parametrize(
    "loss, slope",
    [
        (TranslatedReLULoss(k=2.5, x0=0.25), lambda x: 2.5 * torch.sign(x)),
        (SmoothK2Loss(k=2.0, x0=0.25), None),
    ],
)
def test_gradient_is_zero_inside_buffer_and_analytic_outside(loss, slope):
    label = torch.tensor([2.0, 2.0, 2.0, 2.0, 2.0, 2.0])
    prediction = torch.tensor([2.0, 2.1, 1.8, 2.6, 0.5, 3.9], requires_grad=True)
    loss(output(prediction), label).backward()
    grad = prediction.grad * len(label)  # undo the batch mean
    inside = (prediction - label).abs() < 0.25
    assert torch.all(grad[inside] == 0)
    diff = (prediction - label).detach()
    if slope is not None:
        expected = slope(diff)
    else:
        expected = 2 * 2.0 * (diff.abs() - 0.25) * torch.sign(diff)
    assert torch.allclose(grad[~inside], expected[~inside], atol=1e-6)


def test_batch_mean_matches_hand_value():
    prediction, label = torch.tensor([1.0, 3.0, 2.2]), torch.tensor([0.0, 3.0, 3.0])
    # x = 1, 0, 0.8 -> SK2 with k=2, x0=0.25: 2*0.75^2, 0, 2*0.55^2
    expected = (2 * 0.75**2 + 0 + 2 * 0.55**2) / 3
    assert SmoothK2Loss(2.0, 0.25)(output(prediction), label).item() == pytest.approx(expected)


def test_clamp_removes_loss_beyond_the_end_nodes_but_still_corrects_wrong_side():
    loss = SmoothK2Loss(2.0, 0.25, scheme=STS)
    prediction = torch.tensor([5.8, -1.0], requires_grad=True)
    value = loss(output(prediction), torch.tensor([5.0, 1.0]))
    value.backward()
    assert value.item() == pytest.approx(2 * 0.75**2 / 2)  # 5.8 -> 5: no loss; -1 -> 0: x = 1
    assert prediction.grad[0] == 0 and prediction.grad[1] < 0  # pushed up, towards its label
    unclamped = SmoothK2Loss(2.0, 0.25, scheme=STS, clamp=False)(
        output(torch.tensor([5.8])), torch.tensor([5.0])
    )
    assert unclamped.item() == pytest.approx(2 * 0.55**2)


def test_l1_and_mse_baselines():
    prediction, label = torch.tensor([1.0, 4.5]), torch.tensor([0.0, 3.0])
    assert L1Loss()(output(prediction), label).item() == pytest.approx(1.25)
    assert MSELoss()(output(prediction), label).item() == pytest.approx((1 + 2.25) / 2)


def test_inside_buffer_share():
    loss = TranslatedReLULoss(2.5, 0.25)
    mask = loss.inside_buffer(output(torch.tensor([1.1, 1.3, 0.0])), torch.tensor([1.0, 1.0, 1.0]))
    assert mask.tolist() == [True, False, False]


@pytest.mark.parametrize(
    "k, x0, gap, bound",
    [
        (0, 0.25, 1, "slope k must be > 0"),
        (-1, 0.25, 1, "slope k"),
        (2, -0.1, 1, "0 <= x0 <= d/2"),
        (2, 0.6, 1, "0 <= x0 <= d/2 = 0.5"),
        (2, 0.25, 0, "gap d must be > 0"),
    ],
)
def test_bounds_are_checked_with_a_message_naming_them(k, x0, gap, bound):
    with pytest.raises(ValueError, match=bound.replace("(", r"\(")):
        check_buffer(k, x0, gap)


def test_x0_equal_to_half_gap_is_allowed():
    check_buffer(1.0, 0.5, 1.0)
    check_buffer(1.0, 1.0, 2.0)


def test_cross_entropy_over_nodes():
    loss = ClassificationLoss(NLI)
    logits = torch.tensor([[0.0, 0.0, 10.0], [10.0, 0.0, 0.0]])
    assert loss(output(logits), torch.tensor([2.0, 0.0])).item() < 1e-3
    assert loss(output(logits), torch.tensor([0.0, 2.0])).item() > 9


def test_infonce_uses_in_batch_negatives_and_threshold():
    torch.manual_seed(0)
    u = torch.randn(4, 8)
    loss = InfoNCELoss(threshold=4.0, temperature=0.05)
    aligned = loss(output(None, u, u.clone()), torch.tensor([5.0, 4.0, 4.5, 5.0]))
    shuffled = loss(output(None, u, u[[1, 2, 3, 0]]), torch.tensor([5.0, 4.0, 4.5, 5.0]))
    assert aligned.item() < 0.1 < shuffled.item()
    v = torch.randn(4, 8, requires_grad=True)
    none_positive = loss(output(None, u, v), torch.tensor([1.0, 2.0, 3.9, 0.0]))
    none_positive.backward()
    assert none_positive.item() == 0 and torch.all(v.grad == 0)


def test_every_declared_loss_has_one_module_that_carries_its_declaration():
    from stsdemo.losses.registry import LOSS_CLASSES
    from stsdemo.losses.spec import LOSSES

    assert list(LOSS_CLASSES) == list(LOSSES)
    assert all(cls.spec is LOSSES[name] for name, cls in LOSS_CLASSES.items())
    for name, spec in LOSSES.items():
        loss = build_loss(name, scheme=NLI)
        assert type(loss) is LOSS_CLASSES[name] and loss.regression == spec.regression
        if spec.buffer:
            assert loss.k == spec.paper_k["bert"]


def test_build_loss_defaults_and_errors():
    assert build_loss("sk2").k == 2.0 and build_loss("trelu").k == 2.5
    assert build_loss("trelu", k=1.0, x0=0.1).x0 == 0.1
    with pytest.raises(InputError, match="unknown loss"):
        build_loss("hinge")


def test_each_buffer_losss_declared_twin_is_the_baseline_with_its_distance():
    """LossSpec.twin (the claims' pair, Compare's and the Playground's x0 = 0 twin) names the baseline that measures
    |prediction - label| the same way: Smooth K2 -> MSE, Translated ReLU -> L1."""
    from stsdemo.losses.baselines import BaselineLoss
    from stsdemo.losses.registry import LOSS_CLASSES
    from stsdemo.losses.spec import LOSSES

    buffered = [spec for spec in LOSSES.values() if spec.buffer]
    assert {spec.name: spec.twin for spec in buffered} == {"sk2": "mse", "trelu": "l1"}
    for spec in buffered:
        twin = LOSS_CLASSES[spec.twin]
        assert issubclass(twin, BaselineLoss) and twin.distance_loss is LOSS_CLASSES[spec.name].distance_loss
