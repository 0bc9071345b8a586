"""Story presets: named Playground states, each with what to do and one sentence to notice, written from the
recorded 20-seed run of that very state (``python -m bench.presets``; a test checks every sentence's verdicts
against the record). Each preset is a link (:mod:`stsdemo.app.links`), and a teacher's link may hide controls.

The settings are changes to :class:`~stsdemo.playground.config.PlaygroundConfig`'s defaults; ``expects`` names
the verdict each reading gives at the run's last step (``best``: each twin stopped at its best; ``step``: both at
the last step), which is what the sentence says. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .config import PlaygroundConfig


@dataclass(frozen=True)
class Preset:
    name: str                 # the key in links (``preset=<name>``) and in the records (``preset/<name>``)
    title: str
    settings: dict
    do: str
    notice: str
    expects: dict = field(default_factory=dict)     # reading -> verdict at the last step (checked by a test)
    hide: tuple[str, ...] = ("lr", "batch_size", "head", "width", "d", "speed", "model")   # a classroom's link

    def config(self) -> PlaygroundConfig:
        return replace(PlaygroundConfig(), **self.settings).validate()


PRESETS = (
    Preset("memorisation", "The memorisation brake",
           dict(noise=0.25, train_pairs=800, seeds=20, steps=3000),
           "Press **▶ Play** and let it run all 3,000 steps: 20 seeds of the paper's head on 800 noisy STS-B pairs, "
           "with the buffer and without it.",
           "PENDING", expects={"best": "", "step": ""}),
    Preset("big-clean", "Big clean data",
           dict(noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: every training pair the selection set leaves, with clean labels.",
           "PENDING", expects={"best": "", "step": ""}),
    Preset("widest-buffer", "The widest buffer: x0 = d/2",
           dict(x0=0.5, noise=0.0, train_pairs=800, seeds=20, steps=1000),
           "Press **▶ Play**: the buffer reaches halfway to the next node, the most the rule x0 ≤ d/2 allows.",
           "PENDING", expects={"best": "", "step": ""}),
    Preset("nli-nodes", "NLI's three nodes",
           dict(data="nli", noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: contradiction 0, neutral 1, entailment 2; the prediction's category is the nearest "
           "node, so the map and the verdict read accuracy.",
           "PENDING", expects={"best": "", "step": ""}),
)
BY_NAME = {preset.name: preset for preset in PRESETS}
