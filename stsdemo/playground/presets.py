"""Story presets: named Playground states, each with what to do and its story (:mod:`.stories`: a question before
the run, what to watch, a reveal after it and a fold for the curious), written from the recorded 20-seed run of that
very state (what the page shows, by the same engine on the same pinned data) and its run on 100 fresh seeds
(``python -m bench.evidence.presets [--confirm]``; tests check every figure and verdict the stories quote against the
records, and that each mark quoted from the 20 seeds repeats on the fresh ones). Each preset is a link
(:mod:`stsdemo.app.links`), and a teacher's link may hide controls.

The settings are changes to :class:`~stsdemo.playground.config.PlaygroundConfig`'s defaults; ``expects`` names
the verdict each reading gives at the run's last step (``best``: each twin stopped at its best; ``step``: both at
the last step), which is what the story says. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..story import Story
from ..verdict import Verdict
from .config import PlaygroundConfig
from .stories import STORIES


@dataclass(frozen=True)
class Preset:
    name: str  # the key in links (``preset=<name>``) and in the records (``preset/<name>``)
    title: str
    settings: dict
    do: str
    story: Story  # the question before, what to watch, the reveal after (:mod:`.stories`)
    expects: dict[str, Verdict] = field(default_factory=dict)  # reading -> verdict at the last step (tested)
    hide: tuple[str, ...] = ("lr", "batch_size", "head", "width", "d", "speed", "model")  # a classroom's link

    def config(self) -> PlaygroundConfig:
        return replace(PlaygroundConfig(), **self.settings)


PRESETS = (
    Preset(
        "memorisation",
        "The memorisation brake",
        dict(noise=0.25, train_pairs=800, seeds=20, steps=3000),
        "Press **▶ Play** and let it run all 3,000 steps: 20 seeds of the paper's head learn from 800 STS-B pairs "
        "with noisy labels (σ 0.25), with the buffer (Smooth K2) and without it (k·MSE), side by side. Each twin "
        "of each seed is also stopped at its own best step, chosen on 160 more noisy pairs it never trained on.",
        STORIES["memorisation"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS},
    ),
    Preset(
        "big-clean",
        "Big clean data",
        dict(noise=0.0, train_pairs=0, seeds=20, steps=1000),
        "Press **▶ Play**: every training pair the selection set leaves (5,238), with clean labels.",
        STORIES["big-clean"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.NO_DIFFERENCE},
    ),
    Preset(
        "widest-buffer",
        "The widest buffer: x0 = d/2",
        dict(x0=0.5, noise=0.0, train_pairs=800, seeds=20, steps=1000),
        "Press **▶ Play**: the buffer reaches halfway to the next node, the most the rule x0 ≤ d/2 allows.",
        STORIES["widest-buffer"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS},
    ),
    Preset(
        "nli-nodes",
        "NLI's three nodes",
        dict(data="nli", noise=0.0, train_pairs=0, seeds=20, steps=1000),
        "Press **▶ Play**: contradiction 0, neutral 1, entailment 2; the prediction's category is the nearest "
        "node, so the verdict and the map read accuracy.",
        STORIES["nli-nodes"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.REVERSED},
    ),
)
BY_NAME = {preset.name: preset for preset in PRESETS}
