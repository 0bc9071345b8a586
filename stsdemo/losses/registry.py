"""The loss modules by name: each module class joined to its declaration, and ``build_loss``.

A new loss is a file in this package with its math, its module class (a :class:`.base.Loss` with ``spec``
and ``build``) and its declaration in :mod:`.spec`; it joins here by being listed in :data:`LOSS_CLASSES`.
"""

from __future__ import annotations

from ..labels import STS, LabelScheme
from .base import Loss, LossSettings
from .baselines import L1Loss, MSELoss
from .cross_entropy import ClassificationLoss
from .infonce import InfoNCELoss
from .pcc import PccLoss
from .smooth_k2 import SmoothK2Loss
from .spec import DEFAULT_FAMILY, PAPER_X0, loss_spec, run_k
from .translated_relu import TranslatedReLULoss

LOSS_CLASSES: dict[str, type[Loss]] = {
    cls.spec.name: cls
    for cls in (SmoothK2Loss, TranslatedReLULoss, MSELoss, L1Loss, ClassificationLoss, InfoNCELoss, PccLoss)
}


def build_loss(
    name: str,
    k: float | None = None,
    x0: float = PAPER_X0,
    scheme: LabelScheme = STS,
    clamp: bool = True,
    threshold: float = 4.0,
    family: str = DEFAULT_FAMILY,
) -> Loss:
    """A loss module by name or alias (see :data:`stsdemo.losses.spec.LOSSES`); ``k`` as
    :func:`~stsdemo.losses.spec.run_k` resolves it for the encoder ``family`` ('bert' or 'roberta'; the family
    matters only where ``k`` is None, and :data:`~stsdemo.losses.spec.DEFAULT_FAMILY` is the one not named)."""
    spec = loss_spec(name)
    k = run_k(spec.name, k, family)
    return LOSS_CLASSES[spec.name].build(LossSettings(k, x0, scheme, clamp, threshold))
