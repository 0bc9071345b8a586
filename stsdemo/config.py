"""The one declaration of every training setting, and the table of losses.

Each ``TrainConfig`` field carries its default, its limits, a one-line help text and, where the paper gives
one, the paper's value. ``validate()``, the command line's options and their ``--help`` lines, and the app's
Fine-tune form are all derived from these declarations, so a new setting is written once, here.

This module imports no torch or transformers, so ``python -m stsdemo --help`` starts at once.
"""

from __future__ import annotations

import os
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from .errors import InputError, check_range

TARGETS = ("head", "cosine")
HEAD_FEATURES = ("u,v,|u-v|", "u,v", "|u-v|")  # paper Table 6; the first is the paper's choice
SELECT_BY = ("cosine", "head")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
ROBERTA_TYPES = ("roberta", "xlm-roberta", "camembert")


# ---- losses -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LossSpec:
    """One trainable loss: its names, what it needs, and where its class lives (imported only when built)."""

    name: str
    label: str
    aliases: tuple[str, ...]
    cls: str                                    # class name in stsdemo.losses
    paper_k: dict | None = None                 # the paper's k per encoder family (Table 2); None: no k
    targets: tuple[str, ...] = TARGETS          # prediction targets it can train
    buffer: bool = False                        # has the zero-gradient zone x < x0 (uses k and x0)
    regression: bool = True                     # trains the prediction on the label line
    two_stage: bool = True                      # fits the recipe's stage 1 (a head on NLI)


LOSS_TABLE = (
    LossSpec("sk2", "Smooth K2 (ours)", ("smooth-k2", "smoothk2", "smooth_k2"), "SmoothK2Loss",
             paper_k={"bert": 2.0, "roberta": 3.0}, buffer=True),
    LossSpec("trelu", "Translated ReLU (ours)", ("translated-relu", "translatedrelu", "translated_relu"),
             "TranslatedReLULoss", paper_k={"bert": 2.5, "roberta": 1.0}, buffer=True),
    LossSpec("mse", "MSE", ("mean-squared-error", "l2"), "MSELoss"),
    LossSpec("l1", "L1", ("mae", "absolute"), "L1Loss"),
    LossSpec("ce", "cross-entropy over K classes (Sentence-BERT)", ("cross-entropy", "softmax", "sbert"),
             "ClassificationLoss", targets=("head",), regression=False, two_stage=False),
    LossSpec("infonce", "InfoNCE, in-batch negatives (+Contrast)", ("contrast", "info-nce"), "InfoNCELoss",
             targets=("head",), regression=False, two_stage=False),
    LossSpec("pcc", "Pcc-tuning: 1 - Pearson(cosine, label) over the batch", ("pearson", "pcc-tuning"),
             "PccLoss", targets=("head",), regression=False, two_stage=False),
)
LOSSES = {spec.name: spec for spec in LOSS_TABLE}


def loss_spec(name: str) -> LossSpec:
    """The loss called ``name`` or one of its aliases (case and ``_``/``-`` do not matter)."""
    key = str(name).strip().lower().replace("_", "-")
    for spec in LOSS_TABLE:
        if key == spec.name or key in spec.aliases:
            return spec
    names = ", ".join(f"{s.name} ({'/'.join(s.aliases[:2])})" for s in LOSS_TABLE)
    raise InputError(f"unknown loss {name!r}; choose one of: {names}")


def encoder_family(model_type: str | None) -> str:
    """'roberta' for RoBERTa-style encoders, else 'bert': the paper gives k for these two families."""
    return "roberta" if (model_type or "") in ROBERTA_TYPES else "bert"


def paper_k(loss: str, family: str = "bert") -> float | None:
    """The paper's k for a buffer-zone loss and an encoder family (None for losses without k)."""
    table = loss_spec(loss).paper_k
    return None if table is None else table[family]


# ---- settings -----------------------------------------------------------------------------------------


def setting(default: Any, help: str, *, low=None, high=None, low_open=False, integer=False, choices=None,
            paper=None, optional=False, label=None, text=False):
    """A dataclass field with the metadata every front end derives its checks, help and form from.

    ``low``/``high`` bound a number (``low_open``: strictly above ``low``); ``optional`` lets it be None;
    ``choices`` lists the allowed words; ``paper`` is the paper's value, shown in help texts.
    """
    meta = dict(help=help, low=low, high=high, low_open=low_open, integer=integer, choices=choices, paper=paper,
                optional=optional, label=label, text=text)
    return field(default=default, metadata=meta)


@dataclass
class TrainConfig:
    """Everything a run needs; defaults are the paper's where it gives one (see each field's help)."""

    model: str = setting("", "encoder to start from: hub id, local folder or saved scorer (warm start); "
                             "empty = the embedded all-MiniLM-L6-v2", text=True)
    data: str = setting("stsb+sick", "training data: stsb, sick, stsb+sick (leakage-filtered, Appendix A), nli, "
                                     "or a CSV/TSV path", paper="stsb+sick", text=True)
    scheme: str = setting("sts", "label scheme of a CSV: sts, nli or an ordered list 'a, b, c'", text=True)
    target: str = setting("head", "what predicts the float: head = Linear on [u, v, |u-v|] (the paper's); "
                                  "cosine = a*cos(u, v) + b with a, b learned", choices=TARGETS, paper="head")
    loss: str = setting("sk2", "training loss: " + ", ".join(f"{s.name} = {s.label}" for s in LOSS_TABLE),
                        choices=tuple(LOSSES), paper="sk2 or trelu")
    k: float | None = setting(None, "slope k of the buffer-zone loss; empty = the paper's value for the loss and "
                                    "encoder family", low=0, high=1000, low_open=True, optional=True,
                              paper="sk2: 2 (BERT) / 3 (RoBERTa); trelu: 2.5 / 1", label="slope k")
    x0: float = setting(0.25, "buffer-zone half-width: no gradient while |prediction - label| < x0 "
                              "(0 <= x0 <= d/2, checked against the scheme's gap)", paper=0.25, label="buffer x0")
    clamp: bool = setting(True, "clamp predictions to the outermost nodes before the loss", paper=True)
    snap_labels: bool = setting(True, "round training labels to the nearest node, as the paper's tune data was",
                                paper=True)
    features: str = setting(HEAD_FEATURES[0], "head input (target head)", choices=HEAD_FEATURES,
                            paper=HEAD_FEATURES[0])
    lr: float = setting(2e-5, "encoder learning rate (top layer; lower layers decay by layer_decay)",
                        low=0, high=1.0, low_open=True, paper="2e-5", label="learning rate")
    head_lr: float = setting(1e-3, "learning rate of the head or the cosine's a, b (they start fresh)",
                             low=0, high=1.0, low_open=True, label="head learning rate")
    batch_size: int = setting(16, "pairs per optimiser step", low=1, high=4096, integer=True, paper=16)
    epochs: float = setting(1.0, "passes over the training data", low=0, high=100, low_open=True, paper=1)
    max_steps: int | None = setting(None, "stop after this many steps per stage; empty = run the epochs",
                                    low=1, high=10_000_000, integer=True, optional=True)
    max_length: int = setting(256, "tokens per sentence; longer ones are truncated", low=8, high=8192,
                              integer=True, paper=256)
    warmup: float = setting(0.2, "share of the steps with a linear lr warm-up", low=0, high=1, paper=0.2)
    weight_decay: float = setting(0.01, "AdamW weight decay (not on biases and norms)", low=0, high=1, paper=0.01)
    layer_decay: float = setting(0.95, "layer-wise lr decay: layer i of L learns at lr * decay^(L+1-i)",
                                 low=0, high=1, low_open=True, paper=0.95)
    max_grad_norm: float = setting(1.0, "clip the gradient norm to this; 0 = no clipping", low=0, high=1e6)
    eval_every: int = setting(100, "score STS-B dev every this many steps (and at the end of each stage)",
                              low=1, high=10_000_000, integer=True)
    log_every: int = setting(10, "report the loss every this many steps", low=1, high=10_000_000, integer=True)
    select_by: str = setting("cosine", "dev metric that picks the best checkpoint: cosine Spearman (what the "
                                       "7-task benchmark scores) or head Spearman (the prediction); ties go to "
                                       "the better node accuracy",
                             choices=SELECT_BY, paper="cosine")
    seed: int = setting(42, "random seed (data order, head initialisation)", low=0, high=2**32 - 1, integer=True)
    two_stage: bool = setting(False, "the paper's recipe for contrastive encoders: fit the head on NLI with the "
                                     "encoder frozen, then train everything")
    head_only: bool = setting(False, "freeze the encoder; train and save only the head or the cosine's a, b")
    lora_rank: int = setting(0, "train the encoder through a LoRA adapter of this rank (peft); 0 = every weight",
                             low=0, high=512, integer=True, label="LoRA rank")
    precision: str = setting("auto", "arithmetic: auto = bf16 on GPUs that have it natively, fp16 with a "
                                     "gradient scaler on older GPUs, fp32 on CPU", choices=PRECISIONS)
    stage1_data: str = setting("nli", "stage-1 data of the two-stage recipe", paper="nli", text=True)
    stage1_lr: float = setting(1e-3, "stage-1 learning rate (only the head learns)", low=0, high=1.0,
                               low_open=True, label="stage-1 learning rate")
    stage1_epochs: float = setting(1.0, "stage-1 passes over its data", low=0, high=100, low_open=True,
                                   label="stage-1 epochs")
    stage1_max_steps: int | None = setting(None, "cap on stage-1 steps; empty = run its epochs", low=1,
                                           high=10_000_000, integer=True, optional=True)
    calibrate_data: str = setting("", "last stage: from the best checkpoint, refit only the head or a, b (encoder "
                                      "frozen) on this data with the stage-1 lr and length, so predictions fit its "
                                      "label spread; empty = none", text=True, label="calibration data")
    calibrate_loss: str = setting("", "loss of the calibration stage (with its paper k); empty = the run's loss. "
                                      "trelu fits a, b to the median, which puts more pairs on their node",
                                  text=True, label="calibration loss")
    threshold: float = setting(4.0, "InfoNCE positives: pairs labelled at least this", low=-1e6, high=1e6,
                               label="InfoNCE threshold")
    max_pairs: int | None = setting(None, "use only the first N training pairs (quick demos)", low=1,
                                    high=10_000_000, integer=True, optional=True)
    max_dev_pairs: int | None = setting(None, "score N evenly spread STS-B dev pairs (quick demos); empty = all "
                                              "1,500", low=1, high=10_000_000, integer=True, optional=True,
                                        label="dev pairs")
    output_dir: str | None = setting(None, "where the best checkpoint goes; empty = <STSDEMO_OUTPUT_DIR>/<run name>",
                                     optional=True, text=True)
    run_name: str | None = setting(None, "name of the run folder; empty = a time stamp and the loss",
                                   optional=True, text=True)

    @classmethod
    def from_preset(cls, preset: str, **overrides) -> "TrainConfig":
        if preset not in PRESETS:
            raise InputError(f"unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
        return cls(**{**PAPER_DEFAULTS, **PRESETS[preset], **overrides})

    @classmethod
    def from_dict(cls, values: dict) -> "TrainConfig":
        """A config from a saved ``run.json``'s ``config`` (unknown keys from other versions are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in known})

    def to_dict(self) -> dict:
        return asdict(self)

    def validate(self) -> None:
        """Raise InputError for any setting outside its declared range, before any work starts.

        Checks each field against its declaration, then the rules that tie fields together. Model files
        are not read here; :func:`stsdemo.train.train` checks the model before its first step.
        """
        self.loss = loss_spec(self.loss).name  # readable aliases become the canonical name
        for item in fields(self):
            check_setting(item.name, getattr(self, item.name))
        spec = LOSSES[self.loss]
        if self.target not in spec.targets:
            raise InputError(f"loss {self.loss!r} cannot train the {self.target!r} target (it does not use the "
                             f"prediction on the label line); use target {' or '.join(spec.targets)}")
        if self.head_only and not spec.regression and self.loss != "ce":
            raise InputError(f"head-only training needs a loss on the prediction, not {self.loss!r}")
        if self.two_stage and not spec.two_stage:
            raise InputError("two-stage training needs a regression loss (sk2, trelu, mse or l1)")
        if self.head_only and (self.two_stage or self.lora_rank or self.calibrate_data):
            raise InputError("head-only training is one stage with the encoder frozen: no two-stage, no LoRA, no "
                             "calibration stage")
        if self.calibrate_data and not spec.two_stage:
            raise InputError("a calibration stage needs a regression loss (sk2, trelu, mse or l1)")
        if self.calibrate_loss:
            self.calibrate_loss = loss_spec(self.calibrate_loss).name
            if not self.calibrate_data:
                raise InputError("a calibration loss needs calibration data (the stage it trains)")
            if not LOSSES[self.calibrate_loss].two_stage:
                raise InputError("the calibration loss must be a regression loss (sk2, trelu, mse or l1)")
        from .labels import NLI, get_scheme  # numpy only
        from .losses.buffer import check_buffer
        from .model import check_start

        scheme = get_scheme(self.scheme)
        if spec.buffer:
            check_buffer(self.k if self.k is not None else 1.0, self.x0, scheme.gap)
        check_start(self.model, target=self.target, classification=self.loss == "ce",
                    scheme=NLI if self.data == "nli" else scheme, max_length=self.max_length)


def describe(name: str) -> dict:
    """A field's declaration: ``name, default, help, low, high, choices, paper, optional, label, ...``."""
    item = next((f for f in fields(TrainConfig) if f.name == name), None)
    if item is None:
        raise KeyError(name)
    default = item.default if item.default is not MISSING else None
    return dict(name=name, default=default, **item.metadata,
                title=item.metadata.get("label") or name.replace("_", " "))


def check_setting(name: str, value):
    """Check one setting against its declaration; returns the value (a whole number as int)."""
    spec = describe(name)
    title = spec["title"]
    if value is None:
        if spec["optional"]:
            return None
        raise InputError(f"{title} must be given")
    if isinstance(spec["default"], bool):
        if not isinstance(value, bool):
            raise InputError(f"{title} must be true or false, got {value!r}")
        return value
    if spec["choices"] is not None:
        if value not in spec["choices"]:
            raise InputError(f"unknown {title} {value!r}; choose one of: {', '.join(spec['choices'])}")
        return value
    if spec["text"]:
        if not isinstance(value, (str, os.PathLike)):
            raise InputError(f"{name} must be text (a name or a path), got {type(value).__name__}")
        return value
    return check_range(title, value, spec["low"], spec["high"], low_open=spec["low_open"], integer=spec["integer"])


def help_line(name: str) -> str:
    """The one-line ``--help`` text of a setting: what it does, the paper's value, the default."""
    spec = describe(name)
    text = spec["help"]
    if spec["paper"] is not None:
        text += f" [paper: {spec['paper']}]"
    if spec["default"] not in (None, ""):
        text += f" (default: {spec['default']})"
    return text.replace("%", "%%")


# ---- presets ------------------------------------------------------------------------------------------

# Settings of the paper (§4 and Table 2): batch 16, one epoch, warmup 0.2, AdamW with weight decay 0.01,
# layer-wise lr decay 0.95, max length 256; k per loss and encoder family, x0 = 0.25.
PAPER_DEFAULTS = dict(batch_size=16, epochs=1.0, warmup=0.2, weight_decay=0.01, layer_decay=0.95, max_length=256)
PRESETS = {
    "paper-bert-trelu": dict(loss="trelu", k=2.5, x0=0.25, data="nli"),
    "paper-bert-sk2": dict(loss="sk2", k=2.0, x0=0.25, data="nli"),
    "paper-roberta-trelu": dict(loss="trelu", k=1.0, x0=0.25, data="nli"),
    "paper-roberta-sk2": dict(loss="sk2", k=3.0, x0=0.25, data="nli"),
    # The paper's recipe for contrastive encoders such as all-MiniLM-L6-v2: frozen encoder on NLI, then
    # everything on STS-B + SICK-R train with test pairs removed.
    "tune-sk2": dict(loss="sk2", k=2.0, x0=0.25, data="stsb+sick", two_stage=True),
    "tune-trelu": dict(loss="trelu", k=2.5, x0=0.25, data="stsb+sick", two_stage=True),
    # The official repository's tune settings for contrastive encoders (ZBWpro/STS-Regression,
    # tune-jina-nomic.py; Nomic there uses k = 3, x0 = 0.25).
    "tune-official": dict(loss="sk2", k=3.5, x0=0.2, lr=5e-5, epochs=4.0, batch_size=8, data="stsb+sick",
                          two_stage=True),
    # Beyond the paper: the buffer-zone loss on the cosine target (prediction a*cos + b), one stage.
    "tune-cosine-sk2": dict(loss="sk2", k=2.0, x0=0.25, data="stsb+sick", target="cosine"),
    # Two numbers only: a*cos + b fitted on STS-B + SICK-R with the encoder frozen (the calibrated cosine).
    "calibrate": dict(loss="sk2", k=2.0, x0=0.25, data="stsb+sick", target="cosine", head_only=True),
    # The recipe of the shipped default scorer (stsdemo/default_scorer/README.md): calibrate a, b, then a
    # rank-16 LoRA adapter on the cosine target (within 0.1 dev point of full tuning), then a, b refit on
    # STS-B train (SICK-R's label spread, two thirds of the tune data, puts STS-B pairs on wrong nodes)
    # with Translated ReLU (53.1 % of STS-B dev pairs on their node after this stage; 52.1 % with Smooth K2).
    "scorer": dict(loss="sk2", k=2.0, x0=0.25, data="stsb+sick", target="cosine", two_stage=True,
                   stage1_data="stsb+sick", stage1_lr=0.05, stage1_max_steps=190, lora_rank=16, lr=5e-4,
                   eval_every=95, select_by="head", calibrate_data="stsb", calibrate_loss="trelu"),
}
PRESET_LABELS = {
    "paper-bert-sk2": "Paper · BERT · Smooth K2 (k=2, x0=0.25, NLI)",
    "paper-bert-trelu": "Paper · BERT · Translated ReLU (k=2.5, x0=0.25, NLI)",
    "paper-roberta-sk2": "Paper · RoBERTa · Smooth K2 (k=3, x0=0.25, NLI)",
    "paper-roberta-trelu": "Paper · RoBERTa · Translated ReLU (k=1, x0=0.25, NLI)",
    "tune-sk2": "Paper · tune a contrastive encoder · Smooth K2 (two-stage, STS-B+SICK-R)",
    "tune-trelu": "Paper · tune a contrastive encoder · Translated ReLU (two-stage, STS-B+SICK-R)",
    "tune-official": "Official code · contrastive encoder · Smooth K2 k=3.5, x0=0.2, lr 5e-5, 4 epochs, batch 8",
    "tune-cosine-sk2": "Beyond the paper · Smooth K2 on a·cos(u,v)+b (one stage, STS-B+SICK-R)",
    "calibrate": "Calibrate only · a·cos(u,v)+b on a frozen encoder (two numbers)",
    "scorer": "The shipped scorer's recipe · LoRA r16 on a·cos(u,v)+b, Smooth K2 (STS-B+SICK-R; a, b refit on STS-B)",
}
