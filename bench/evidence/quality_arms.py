"""What ``bench.evidence.quality`` compares: the arms (their kind, group, label and settings), the seeds, the encoders
and the budget every arm of one table gets. The table is declared once, apart from the code that runs the arms
(:mod:`bench.evidence.quality`), so that the reports (:mod:`bench.evidence.quality_tables`, the plots, the app's
evidence) read the arms without loading any training code.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

SEEDS = (42, 43, 44)
STEPS_PER_EPOCH = 380  # 6,080 filtered pairs / batch 16
EVAL_EVERY = 95  # a quarter epoch: dev at steps 95, 190, 285 and 380 (and step 0)
STAGE1_MAX_STEPS = 190  # stage 1 of the two-stage recipe: 190 steps x 16 = 3,040 SNLI pairs, head only
MODELS = {"minilm": "all-MiniLM-L6-v2", "mpnet": "all-mpnet-base-v2"}

# sentence-transformers' trainer at two settings: "matched" = our loop's budget and optimiser settings
# (lr 2e-5, warm-up 20 %, weight decay 0.01, the table's epochs and batch size); "doc" = what the library's
# documentation recommends for STS fine-tuning of a trained sentence-transformers model (its example
# training_stsbenchmark_continue_training.py, written for all-mpnet-base-v2: 4 epochs, batch 16, warm-up
# ratio 0.1, and TrainingArguments' defaults lr 5e-5, weight decay 0, linear schedule; the losses at their
# default scale, 20 for CoSENT and AnglE).
ST_SETTINGS = {
    "matched": dict(lr=2e-5, warmup=0.2, weight_decay=0.01, epochs=None, batch_size=None),
    "doc": dict(lr=5e-5, warmup=0.1, weight_decay=0.0, epochs=4.0, batch_size=16),
}
ST_DOC_NOTE = (
    "sentence-transformers' documented STS recipe (examples/.../sts/training_stsbenchmark_continue_"
    "training.py + TrainingArguments defaults): 4 epochs, batch 16, lr 5e-5, warm-up ratio 0.1, weight "
    "decay 0, linear schedule, loss at its default scale (20 for CoSENT/AnglE)"
)

# ---- the arms ---------------------------------------------------------------------------------------
# kind: base (no training), ours (stsdemo.train), st (sentence-transformers' own SentenceTransformerTrainer).
# Order matters: a plan runs the main arms in this order, the four-epoch recipes (official, st-*-doc) last.
# family: "head" = the paper's head [u, v, |u-v|], "cosine" = the prediction a*cos(u, v) + b (a, b learned).

ARMS: dict[str, dict] = {
    "base": dict(kind="base", group="main", label="{encoder} (no training)"),
    # the paper's head, two-stage (the paper's recipe for contrastive encoders)
    "sk2-2stage": dict(
        kind="ours",
        group="main",
        family="head",
        label="ours: Smooth K2, paper head, two-stage (paper recipe)",
        config=dict(loss="sk2", two_stage=True),
    ),
    "trelu-2stage": dict(
        kind="ours",
        group="main",
        family="head",
        label="ours: Translated ReLU, paper head, two-stage",
        config=dict(loss="trelu", two_stage=True),
    ),
    "mse-2stage": dict(
        kind="ours",
        group="main",
        family="head",
        label="MSE, paper head, two-stage",
        config=dict(loss="mse", two_stage=True),
    ),
    "l1-2stage": dict(
        kind="ours",
        group="main",
        family="head",
        label="L1, paper head, two-stage",
        config=dict(loss="l1", two_stage=True),
    ),
    # the cosine target: a*cos(u, v) + b, one stage (no head to fit first)
    "sk2-cosine": dict(
        kind="ours",
        group="main",
        family="cosine",
        label="ours: Smooth K2, cosine target",
        config=dict(loss="sk2", target="cosine"),
    ),
    "trelu-cosine": dict(
        kind="ours",
        group="main",
        family="cosine",
        label="ours: Translated ReLU, cosine target",
        config=dict(loss="trelu", target="cosine"),
    ),
    "mse-cosine": dict(
        kind="ours",
        group="main",
        family="cosine",
        label="MSE, cosine target",
        config=dict(loss="mse", target="cosine"),
    ),
    "l1-cosine": dict(
        kind="ours",
        group="main",
        family="cosine",
        label="L1, cosine target",
        config=dict(loss="l1", target="cosine"),
    ),
    "ce": dict(
        kind="ours",
        group="main",
        family="head",
        label="cross-entropy head (Sentence-BERT classification)",
        config=dict(loss="ce"),
    ),
    "infonce": dict(
        kind="ours",
        group="main",
        label="+Contrast: InfoNCE on pairs >= 4.0",
        config=dict(loss="infonce", threshold=4.0),
    ),
    "pcc": dict(
        kind="ours",
        group="main",
        label="Pcc-tuning: 1 - Pearson(cos, label) per batch",
        config=dict(loss="pcc"),
    ),
    "st-cossim": dict(
        kind="st",
        group="main",
        loss="CosineSimilarityLoss",
        settings="matched",
        label="sentence-transformers CosineSimilarityLoss (our settings)",
    ),
    "st-cosent": dict(
        kind="st",
        group="main",
        loss="CoSENTLoss",
        settings="matched",
        label="sentence-transformers CoSENTLoss (our settings)",
    ),
    "st-angle": dict(
        kind="st",
        group="main",
        loss="AnglELoss",
        settings="matched",
        label="sentence-transformers AnglELoss (our settings)",
    ),
    "official": dict(
        kind="ours",
        group="main",
        family="head",
        preset="tune-official",
        label="official Jina/Nomic tune script's settings (SK2 k 3.5, x0 0.2, lr 5e-5, 4 epochs, batch 8, "
        "two-stage)",
        notes="preset tune-official (ZBWpro/STS-Regression code/tune-jina-nomic.py, Jina's settings; not "
        "the BERT/RoBERTa tune, code/tune.py); its own epochs, batch size and lr; dev every 1,520 "
        "pairs like the others",
    ),
    "st-cossim-doc": dict(
        kind="st",
        group="main",
        loss="CosineSimilarityLoss",
        settings="doc",
        label="sentence-transformers CosineSimilarityLoss (documented recipe)",
        notes=ST_DOC_NOTE,
    ),
    "st-cosent-doc": dict(
        kind="st",
        group="main",
        loss="CoSENTLoss",
        settings="doc",
        label="sentence-transformers CoSENTLoss (documented recipe, scale 20)",
        notes=ST_DOC_NOTE,
    ),
    "st-angle-doc": dict(
        kind="st",
        group="main",
        loss="AnglELoss",
        settings="doc",
        label="sentence-transformers AnglELoss (documented recipe, scale 20)",
        notes=ST_DOC_NOTE,
    ),
    # one-stage versions of the paper-head losses
    "sk2-1stage": dict(
        kind="ours",
        group="stages",
        family="head",
        label="ours: Smooth K2, paper head, one stage",
        config=dict(loss="sk2"),
    ),
    "trelu-1stage": dict(
        kind="ours",
        group="stages",
        family="head",
        label="ours: Translated ReLU, paper head, one stage",
        config=dict(loss="trelu"),
    ),
    "mse-1stage": dict(
        kind="ours",
        group="stages",
        family="head",
        label="MSE, paper head, one stage",
        config=dict(loss="mse"),
    ),
    "l1-1stage": dict(
        kind="ours", group="stages", family="head", label="L1, paper head, one stage", config=dict(loss="l1")
    ),
    # the cosine target without rounding the training labels to the nodes 0..5 (the paper rounds its tune data)
    "sk2-cosine-raw": dict(
        kind="ours",
        group="variant",
        family="cosine",
        label="ours: Smooth K2, cosine target, unrounded labels",
        config=dict(loss="sk2", target="cosine", snap_labels=False),
    ),
    # head ablation (paper Table 6); [u,v,|u-v|] is sk2-2stage
    "head-uv": dict(
        kind="ours",
        group="head",
        family="head",
        label="head [u,v] (Smooth K2, two-stage)",
        config=dict(loss="sk2", two_stage=True, features="u,v"),
    ),
    "head-absdiff": dict(
        kind="ours",
        group="head",
        family="head",
        label="head [|u-v|] (Smooth K2, two-stage)",
        config=dict(loss="sk2", two_stage=True, features="|u-v|"),
    ),
    # paper Table 1's question on NLI data (SNLI dev+test): regression vs classification, buffer vs none
    "nli-sk2": dict(
        kind="ours",
        group="nli",
        label="NLI: regression, Smooth K2 (buffer)",
        config=dict(loss="sk2", data="nli"),
    ),
    "nli-trelu": dict(
        kind="ours",
        group="nli",
        label="NLI: regression, Translated ReLU (buffer)",
        config=dict(loss="trelu", data="nli"),
    ),
    "nli-mse": dict(
        kind="ours",
        group="nli",
        label="NLI: regression, MSE (no buffer)",
        config=dict(loss="mse", data="nli"),
    ),
    "nli-l1": dict(
        kind="ours", group="nli", label="NLI: regression, L1 (no buffer)", config=dict(loss="l1", data="nli")
    ),
    "nli-ce": dict(
        kind="ours",
        group="nli",
        label="NLI: classification, cross-entropy",
        config=dict(loss="ce", data="nli"),
    ),
}
# k / x0 sweep like the paper's Table 5 (Smooth K2, two-stage), dev-selected: one knob at a time around
# k = 2, x0 = 0.25 (that point is sk2-2stage); x0 = 0 is the same loss without a buffer zone.
SWEEP = [(2.0, 0.0), (2.0, 0.1), (2.0, 0.5), (1.0, 0.25), (3.0, 0.25)]
for _k, _x0 in SWEEP:
    ARMS[f"sweep-k{_k:g}-x{_x0:g}"] = dict(
        kind="ours",
        group="sweep",
        family="head",
        label=f"Smooth K2 k={_k:g} x0={_x0:g}, two-stage",
        config=dict(loss="sk2", two_stage=True, k=_k, x0=_x0),
    )
GROUPS = sorted({spec["group"] for spec in ARMS.values()})
MAIN = [name for name, spec in ARMS.items() if spec["group"] == "main"]


@dataclass
class QualityBudget:
    """What every arm gets; the same for all of them in one table (arms with their own recipe, such as
    ``official`` and the ``st-*-doc`` arms, override epochs, batch size and lr, and say so)."""

    epochs: float = 1.0
    max_steps: int | None = None  # None = the full epoch(s)
    batch_size: int = 16
    max_length: int = 256
    eval_every: int = EVAL_EVERY
    stage1_max_steps: int | None = STAGE1_MAX_STEPS
    max_pairs: int | None = None  # quick mode only
    dev_pairs: int | None = None  # quick mode only (None = all 1,500 STS-B dev pairs)
    test_pairs: int | None = None  # quick mode only (None = every test pair)

    def key(self) -> str:
        return ",".join(f"{k}={v}" for k, v in asdict(self).items())

    def tag(self) -> str:
        """A short name for result keys: ``paper`` (the default), ``quick``, or a hash of the settings."""
        if self == QualityBudget():
            return "paper"
        if self == quick_budget():
            return "quick"
        return "b" + hashlib.sha1(self.key().encode()).hexdigest()[:8]

    def eval_every_for(self, batch_size: int) -> int:
        """Dev cadence for an arm with its own batch size: every as many pairs as the table's cadence."""
        return max(1, round(self.eval_every * self.batch_size / batch_size))


def quick_budget() -> QualityBudget:
    return QualityBudget(
        max_steps=2,
        batch_size=8,
        max_length=32,
        eval_every=2,
        stage1_max_steps=1,
        max_pairs=32,
        dev_pairs=24,
        test_pairs=12,
    )


def arm_label(name: str, model: str) -> str:
    return ARMS[name]["label"].format(encoder=MODELS.get(model, model))
