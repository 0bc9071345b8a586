"""Every Playground setting, declared once: its default, limits, help text and how its control moves.

The page's controls (their ranges, through the site's manifest, :mod:`stsdemo.static_site`), its links, the
``playground`` API endpoint and MCP tool, the benchmarks and the checks below all read these declarations: the
same :func:`stsdemo.config.setting` metadata the training settings use, plus how far a slider moves at a time
(``step``).

One check on the way in: a :class:`PlaygroundConfig` checks itself when it is made (every value against its
declaration, and ``x0 <= d/2``), raising :class:`~stsdemo.errors.InputError` (the API, the command line), so no
unchecked config exists and nothing downstream checks again. The page reads a link the same way in JavaScript,
every bad value at its default with a notice. No torch here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from ..config import as_written, check_setting, describe, setting
from ..errors import InputError
from ..losses.buffer import check_buffer
from ..losses.spec import LOSSES, PAPER_X0, paper_k, paper_k_text
from ..serving import caps

BUILT_IN_DATA = ("sts", "nli")  # stsdemo.playground.datasets loads them
UPLOADED = "upload"  # the visitor's own pairs (stsdemo.playground.uploaded) ...
MAX_UPLOAD_PAIRS = 5000  # ... at most this many: 10,000 sentences embed in under 30 s on 2 cores
DATASETS = (*BUILT_IN_DATA, UPLOADED)
HEADS = ("paper", "cosine", "mlp")
BUFFER_LOSSES = tuple(name for name, spec in LOSSES.items() if spec.buffer)  # the losses that have a twin
FEATURES = 3 * 384  # [u, v, |u-v|] of the embedded encoder: the unit of the work budget below
MAX_WORK = caps.value(
    "playground_work"
)  # multiply-adds one API or MCP run may cost (the page's: the browser's)
SELECTION_SHARE = 0.2  # a run's selection set holds this share of its training pairs ...
SELECTION_MIN = 50  # ... never fewer (a best step chosen on a handful of pairs is noise) ...
SELECTION_MAX = 500  # ... and never more: measured every 10 steps, its features are kept per seed
SELECT_EVERY = 10  # steps between two measurements on the selection set (each a candidate best step)
TRAIN_SAMPLE = 500  # training pairs per seed whose fit and share inside the buffer are measured
MAX_HISTORY = 400  # curve points kept; beyond it every other older point is dropped
ADAM = {
    "beta1": 0.9,
    "beta2": 0.999,
    "eps": 1e-8,
}  # torch.optim.Adam's defaults, which the engine's Adam repeats


def knob(default, help: str, *, step=None, **declaration):
    """A :func:`stsdemo.config.setting` plus ``step``, how far its slider moves at a time."""
    declared = setting(default, help, **declaration)
    return field(default=default, metadata={**declared.metadata, "step": step})


@dataclass(frozen=True)
class PlaygroundConfig:
    """One Playground run: data, head, loss, the conditions a teacher sets, the optimiser and the seeds."""

    data: str = setting(
        "sts",
        "pairs: sts = STS-B (train: the pool of training and selection pairs; dev: the report "
        "set; labels 0..5), nli = SNLI dev (8,842 pairs in the pool, 1,000 held out as the "
        "report set; contradiction 0, neutral 1, entailment 2), upload = your own CSV of "
        f"labelled pairs (up to {MAX_UPLOAD_PAIRS:,}; a fifth held out as the report set)",
        choices=DATASETS,
    )
    model: str = setting(
        "", "encoder whose frozen embeddings the heads read; empty = the embedded all-MiniLM-L6-v2", text=True
    )
    head: str = setting(
        "paper",
        "paper = Linear on [u, v, |u-v|] (the paper's head); cosine = a·cos(u, v) + b "
        "(the calibrated cosine: two numbers); mlp = one hidden layer of ReLU units on "
        "[u, v, |u-v|]",
        choices=HEADS,
    )
    width: int = knob(
        32, "hidden units of the mlp head", low=1, high=64, integer=True, step=1, label="hidden width"
    )
    loss: str = setting(
        "sk2",
        "the loss with a buffer; its twin is the same loss with x0 = 0 (Smooth K2: k·MSE, "
        "Translated ReLU: k·L1)",
        choices=BUFFER_LOSSES,
        paper="sk2 or trelu",
    )
    # k's range is a teaching slider's, well inside the losses' hard bound MAX_K: past 10 a head's Adam steps only
    # grow, the paper's k are 1 to 3.5
    k: float = knob(
        paper_k("sk2"),
        "slope k of the loss; the twin has the same k",
        low=0,
        high=10,
        low_open=True,
        paper=paper_k_text,
        step=0.05,
        label="slope k",
    )
    x0: float = knob(
        PAPER_X0,
        "buffer half-width: a training pair with |prediction - label| < x0 gets no gradient (0 <= x0 <= d/2)",
        low=0,
        high=1,
        paper=PAPER_X0,
        step=0.01,
        label="buffer x0",
    )
    d: float = knob(
        1.0,
        "gap between neighbouring nodes: the labels sit on 0, d, 2d, ...",
        low=0.2,
        high=2,
        step=0.05,
        label="node gap d",
    )
    noise: float = knob(
        0.0,
        "label noise: a Gaussian of this sigma added to each training label (on the label "
        "line, then clipped to its ends)",
        low=0,
        high=2,
        step=0.05,
        label="label noise σ",
    )
    train_pairs: int = knob(
        0,
        "training pairs drawn for each seed (0, or more than the pool holds: all that the "
        f"selection set leaves); a selection set of {SELECTION_SHARE:.0%} as many (at least "
        f"{SELECTION_MIN}), with the same noise and rounding, is drawn beside them to pick each "
        "run's best step",
        low=0,
        high=10_000,
        integer=True,
        step=10,
        label="training pairs",
    )
    round_labels: bool = setting(
        False,
        "round the training labels to the nearest node (after the noise)",
        label="round training labels to nodes",
    )
    lr: float = knob(
        0.01, "Adam learning rate of every head", low=0, high=1, low_open=True, label="learning rate"
    )
    batch_size: int = knob(
        32, "training pairs per step and seed", low=1, high=256, integer=True, step=1, label="batch size"
    )
    steps: int = knob(
        1000,
        "training steps of a run (Play stops there; the API trains this many)",
        low=50,
        high=5000,
        integer=True,
        step=50,
    )
    # 20 by default: 10 seeds flipped verdicts that 20 do not, and the default run at 20 seeds takes 1.74 s on 2
    # CPU cores (1.29 s at 10; docs/results.json, playground.default_seeds)
    seeds: int = knob(
        20,
        "seeds trained side by side; each has its own start, training pairs, noise and batch "
        "order, which its two twins share",
        low=1,
        high=20,
        integer=True,
        step=1,
    )
    speed: int = knob(
        10,
        "training steps per screen update while playing",
        low=1,
        high=100,
        integer=True,
        step=1,
        label="steps per update",
    )

    def __post_init__(self):
        """The one check: InputError for a value outside its declaration or ``x0 > d/2``; each whole number is
        kept as int."""
        for item in fields(self):
            object.__setattr__(
                self, item.name, check_setting(item.name, getattr(self, item.name), PlaygroundConfig)
            )
        check_buffer(self.k, self.x0, self.d)

    def to_dict(self) -> dict:
        return asdict(self)

    def work(self, steps: int | None = None) -> float:
        """Multiply-adds of training ``steps`` steps (default: the whole run), roughly: forward and backward (3
        passes) of both twins of every seed on every pair of every step. What :data:`MAX_WORK` bounds."""
        per_pair = {"paper": FEATURES, "cosine": 2, "mlp": FEATURES * self.width}[self.head]
        return 3.0 * 2 * self.seeds * (self.steps if steps is None else steps) * self.batch_size * per_pair

    def check_budget(self) -> None:
        """InputError when a one-shot run (the API) would cost more than :data:`MAX_WORK`."""
        if self.work() > MAX_WORK:
            raise InputError("playground_too_large", work=f"{self.work():.2g}", max_work=f"{MAX_WORK:.2g}")


def engine_declarations() -> dict:
    """Every constant and rule the page's engine and player read (``site.json``'s ``engine``; the Python side's
    engines get the same, :mod:`.engine`): none is declared again in JavaScript."""
    from ..losses.spec import loss_spec
    from .metrics import READ_BY

    return {
        "selection": {"share": SELECTION_SHARE, "min": SELECTION_MIN, "max": SELECTION_MAX},
        "select_every": SELECT_EVERY,
        "train_sample": TRAIN_SAMPLE,
        "max_history": MAX_HISTORY,
        "adam": ADAM,
        "read_by": READ_BY,
        "losses": {
            name: {
                "short": LOSSES[name].short,
                "twin": loss_spec(LOSSES[name].twin).label,
                "paper_k": paper_k(name),
                "power": LOSSES[name].power,
            }
            for name in BUFFER_LOSSES
        },
    }


def declaration(name: str) -> dict:
    """A setting's declaration (:func:`stsdemo.config.describe`), its slider ``step`` included."""
    return describe(name, PlaygroundConfig)


def argument_line(name: str) -> str:
    """A setting as an API's docstring lists it: ``name: help (range or choices; default)``."""
    meta = declaration(name)
    if meta["choices"]:
        allowed = "one of " + ", ".join(meta["choices"])
    elif isinstance(meta["default"], bool):
        allowed = "true or false"
    else:
        low = f"> {as_written(meta['low'])}" if meta["low_open"] else f">= {as_written(meta['low'])}"
        allowed = f"{'a whole number ' if meta['integer'] else ''}{low} and <= {as_written(meta['high'])}"
    default = (
        str(meta["default"]).lower() if isinstance(meta["default"], bool) else as_written(meta["default"])
    )
    return f"{name}: {meta['help'][0].upper()}{meta['help'][1:]} ({allowed}; default {default})."
