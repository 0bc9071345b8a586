"""What a run reports, as typed events: :func:`stsdemo.train.train` yields them, the CLI prints them as JSON
lines, the app folds them into its views and keeps them in ``history.json``.

``event.to_dict()`` is the JSON form (``{"event": kind, **fields}``); :meth:`Event.from_dict` reads it back,
so a renamed field fails where the event is built, not where a front end reads a string key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import ClassVar, NamedTuple


class StageStep(NamedTuple):
    """Where in a run a checkpoint was taken: ``(stage, step)``; step 0 of stage 1 is the starting model.

    JSON holds it as ``[stage, step]``; it reads as ``"stage:step"``."""

    stage: int
    step: int

    def __str__(self) -> str:
        return f"{self.stage}:{self.step}"

    @classmethod
    def parse(cls, value) -> StageStep:
        """A ``[stage, step]`` pair, or the ``"stage:step"`` text that older ``history.json`` files hold."""
        stage, step = value.split(":") if isinstance(value, str) else value
        return cls(int(stage), int(step))


@dataclass
class Event:
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict:
        return {"event": self.kind, **asdict(self)}

    @staticmethod
    def from_dict(data: dict) -> Event:
        """The event a ``to_dict()`` dict describes (keys of other versions are ignored)."""
        kind = data.get("event")
        if kind not in EVENT_TYPES:
            raise ValueError(f"unknown event {kind!r}")
        cls = EVENT_TYPES[kind]
        if cls is DoneEvent and "outcome" not in data:
            data = {**data, **DoneEvent.outcome_of(data.get("stopped"), data.get("reason", ""))}
        values = {item.name: data[item.name] for item in fields(cls) if item.name in data}
        if "best_step" in values:
            values["best_step"] = StageStep.parse(values["best_step"])
        return cls(**values)


@dataclass
class StartEvent(Event):
    kind = "start"
    stage: int
    stage_name: str
    train_pairs: int
    total_steps: int
    device: str
    processes: int
    output_dir: str
    config: dict = field(default_factory=dict)


@dataclass
class StepEvent(Event):
    kind = "step"
    stage: int
    step: int
    total_steps: int
    loss: float
    lr: float
    buffer_share: float | None  # share of this window's pairs inside the zero-gradient zone
    pairs_per_s: float
    elapsed: float


@dataclass
class EvalEvent(Event):
    kind = "eval"
    stage: int
    step: int
    total_steps: int
    dev_cosine: float
    dev_head: float
    dev_accuracy: float  # % of dev pairs in their gold category (the node nearest the prediction)
    best: float
    best_step: StageStep  # of the best checkpoint so far
    is_best: bool
    elapsed: float
    error_hist: dict = field(default_factory=dict)  # |prediction - label| on dev: {"width", "counts"}
    x0: float = 0.0  # the buffer zone of this stage's loss (0 for losses without one)
    gap: float = 1.0  # the gap d between nodes


class Outcome(StrEnum):
    """How a run ended; a ``str``, so it prints and is recorded (``run.json``, ``history.json``) as its word, and a
    recorded word is read back as the Outcome (:class:`DoneEvent`). Readers ask ``outcome is Outcome.FINISHED``,
    never the word (tests/test_typed_values.py checks it)."""

    FINISHED = "finished"  # every step ran
    STOPPED = "stopped"  # asked to stop
    FAILED = "failed"  # it ended on its own (out of memory, ...)


@dataclass
class DoneEvent(Event):
    """How a run ended: its :class:`Outcome`; ``message`` says why in words ("" when it finished)."""

    kind = "done"
    outcome: Outcome
    message: str
    best: float
    best_step: StageStep
    checkpoint: str
    steps: int
    pairs_per_s: float
    elapsed: float

    def __post_init__(self):
        self.outcome = Outcome(self.outcome)

    @staticmethod
    def outcome_of(stopped, reason: str) -> dict:
        """``outcome`` and ``message`` of a ``history.json`` written before outcomes (``stopped``, ``reason``)."""
        if not stopped:
            return {"outcome": Outcome.FINISHED, "message": ""}
        if reason == Outcome.STOPPED:
            return {"outcome": Outcome.STOPPED, "message": ""}
        return {"outcome": Outcome.FAILED, "message": reason}


@dataclass
class FinalEvalEvent(Event):
    """Progress of the 7-task evaluation after training: model ``index`` of ``count`` (``what``: "fine-tuned"
    or "base") is ``fraction`` encoded; its scores come with the last one: ``results`` (cosine Spearman x100
    per task and Avg.) and, where scored, ``prediction`` (the prediction's Spearman) and ``node_accuracy`` (% of
    pairs on the gold label's node), per task and Avg.; ``node_from``: which prediction that reads."""

    kind = "final_eval"
    what: str
    index: int
    count: int
    fraction: float
    results: dict | None = None
    prediction: dict | None = None
    node_accuracy: dict | None = None
    node_from: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (StartEvent, StepEvent, EvalEvent, DoneEvent, FinalEvalEvent)
}
