"""What each training loss is, declared once and without torch: its names, what it can train, and the
paper's settings for it.

Zhang & Li (2024), arXiv 2406.05326, Table 2: the buffer-zone losses take one buffer half-width ``x0`` and a
slope ``k`` per loss and encoder family. Everything that shows or checks these (the settings' help and checks in
:mod:`stsdemo.config`, the presets, the app's hints and charts) reads them from here; each loss's module
(one per file in this package) carries its declaration as ``spec``, and :mod:`.registry` builds the modules.
This file imports nothing heavy, so the command line's ``--help`` starts at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

PAPER_X0 = 0.25  # buffer half-width of both buffer-zone losses on a node gap of 1 (Table 2)
MAX_K = 1000.0  # the hard bound on a loss's slope: beyond it k only rescales the learning rate into overflow
MAX_GAP = 1000.0  # the hard bound on a node gap d (labels on 0, d, 2d, ...)
FAMILIES = {"bert": "BERT", "roberta": "RoBERTa"}  # the encoder families the paper gives k for
# The family whose k is read where no encoder is named: BERT's, the row every encoder that is not RoBERTa-style
# takes (stsdemo.config.encoder_family), the embedded all-MiniLM-L6-v2 and all-mpnet-base-v2 among them. Declared
# once, here; a caller that knows its encoder names the family (training reads it off the loaded encoder).
DEFAULT_FAMILY = "bert"


@dataclass(frozen=True)
class LossSpec:
    """One trainable loss: its names, what it needs and trains, and the paper's k for it."""

    name: str  # the canonical name (config, command line, run folders)
    label: str  # how choices and help texts show it
    short: str  # its name on charts and in legends
    aliases: tuple[str, ...]  # other names it is found by
    paper_k: dict[str, float] | None = None  # the paper's k per encoder family (Table 2); None: no k
    buffer: bool = False  # has the zero-gradient zone x < x0 (uses k and x0)
    only_target: str | None = None  # the one prediction target it can train; None: any
    regression: bool = True  # trains the prediction on the label line (two-stage, calibration)
    trains_prediction: bool = True  # trains a prediction (head or a*cos + b); False: the head is unused
    twin: str | None = None  # a buffer-zone loss's baseline without the buffer (the claims' pair)
    power: int | None = None  # a buffer loss is k·(x - x0)^power past x0: the page's gradient rule


SMOOTH_K2 = LossSpec(
    "sk2",
    "Smooth K2 (ours)",
    "Smooth K2",
    ("smooth-k2", "smoothk2", "smooth_k2"),
    paper_k={"bert": 2.0, "roberta": 3.0},
    buffer=True,
    twin="mse",
    power=2,
)
TRANSLATED_RELU = LossSpec(
    "trelu",
    "Translated ReLU (ours)",
    "Translated ReLU",
    ("translated-relu", "translatedrelu", "translated_relu"),
    paper_k={"bert": 2.5, "roberta": 1.0},
    buffer=True,
    twin="l1",
    power=1,
)
MSE = LossSpec("mse", "MSE", "MSE x²", ("mean-squared-error", "l2"))
L1 = LossSpec("l1", "L1", "L1 |x|", ("mae", "absolute"))
CROSS_ENTROPY = LossSpec(
    "ce",
    "cross-entropy over K classes (Sentence-BERT)",
    "cross-entropy",
    ("cross-entropy", "softmax", "sbert"),
    only_target="head",
    regression=False,
)
INFONCE = LossSpec(
    "infonce",
    "InfoNCE, in-batch negatives (+Contrast)",
    "InfoNCE",
    ("contrast", "info-nce"),
    only_target="head",
    regression=False,
    trains_prediction=False,
)
PCC = LossSpec(
    "pcc",
    "Pcc-tuning: 1 - Pearson(cosine, label) over the batch",
    "Pcc-tuning",
    ("pearson", "pcc-tuning"),
    only_target="head",
    regression=False,
    trains_prediction=False,
)

LOSSES = {spec.name: spec for spec in (SMOOTH_K2, TRANSLATED_RELU, MSE, L1, CROSS_ENTROPY, INFONCE, PCC)}


def loss_spec(name: str) -> LossSpec:
    """The loss called ``name`` or one of its aliases (case and ``_``/``-`` do not matter)."""
    key = str(name).strip().lower().replace("_", "-")
    for spec in LOSSES.values():
        if key == spec.name or key in spec.aliases:
            return spec
    names = ", ".join(f"{s.name} ({'/'.join(s.aliases[:2])})" for s in LOSSES.values())
    raise InputError("unknown_loss", name=repr(name), names=names)


def paper_k(loss: str, family: str = DEFAULT_FAMILY) -> float | None:
    """The paper's k for a buffer-zone loss and an encoder family ('bert' or 'roberta'; :data:`DEFAULT_FAMILY`
    where none is named), None for losses without k: Table 2 as declared. What a run trains with is
    :func:`run_k`'s answer."""
    table = loss_spec(loss).paper_k
    return None if table is None else table[family]


def run_k(loss: str, k: float | None, family: str) -> float | None:
    """The k a run of ``loss`` trains with: its own ``k`` when set, else the paper's for the encoder ``family``
    ('bert' or 'roberta'); None for a loss without k. Training, the preflight check, the app's run labels and
    the model card all ask this one function."""
    if loss_spec(loss).paper_k is None:
        return None
    return float(k) if k is not None else paper_k(loss, family)


def paper_k_text() -> str:
    """The paper's k of every loss that has one, as help texts show it: 'sk2: 2 (BERT) / 3 (RoBERTa); ...'."""

    def per_family(table: dict[str, float]) -> str:
        return " / ".join(f"{k:g} ({FAMILIES[family]})" for family, k in table.items())

    return "; ".join(f"{spec.name}: {per_family(spec.paper_k)}" for spec in LOSSES.values() if spec.paper_k)
