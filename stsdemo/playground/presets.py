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
        return replace(PlaygroundConfig(), **self.settings)


PRESETS = (
    Preset("memorisation", "The memorisation brake",
           dict(noise=0.25, train_pairs=800, seeds=20, steps=3000),
           "Press **▶ Play** and let it run all 3,000 steps: 20 seeds of the paper's head learn from 800 STS-B pairs "
           "with noisy labels (σ 0.25), with the buffer (Smooth K2) and without it (k·MSE), side by side. Each twin "
           "of each seed is also stopped at its own best step, chosen on 160 more noisy pairs it never trained on.",
           "Both twins do best early (median best step 105 with the buffer, 145 without) and then memorise their "
           "800 pairs: the memorisation curve climbs and the report set's Spearman falls, faster without the "
           "buffer. So the gap at this step keeps opening (+1.64 ± 0.24 at step 1,000, +4.62 ± 0.36 at step 3,000: "
           "holds), while stopped at its best the buffer makes no measurable difference (+0.53 ± 0.40, n = 20). "
           "The buffer slows the memorisation of a small training set; once each twin is stopped at its best, "
           "neither is better. Click a dot to read its pair.",
           expects={"best": "no measurable difference", "step": "holds"}),
    Preset("big-clean", "Big clean data",
           dict(noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: every training pair the selection set leaves (5,238), with clean labels.",
           "The twins stay level: stopped at its best −0.22 ± 0.14 (no measurable difference), at step 1,000 "
           "−0.09 ± 0.06 (negligible). With this much data both are still improving near the end (median best "
           "steps 890 and 925), so there is little to memorise and nothing for the buffer to slow.",
           expects={"best": "no measurable difference", "step": "negligible"}),
    Preset("widest-buffer", "The widest buffer: x0 = d/2",
           dict(x0=0.5, noise=0.0, train_pairs=800, seeds=20, steps=1000),
           "Press **▶ Play**: the buffer reaches halfway to the next node, the most the rule x0 ≤ d/2 allows.",
           "Stopped at its best, Spearman shows no measurable difference (+0.28 ± 0.50), but the buffered twin puts "
           "fewer report pairs on their gold node (−0.88 ± 0.33 points: reversed): a prediction left alone just "
           "inside x0 = d/2 sits at the rounding edge, so some round to the neighbouring node, the Loss explorer's "
           "lesson in training. At step 1,000 the buffer is ahead (+3.23 ± 0.36) only because it memorises more "
           "slowly.",
           expects={"best": "no measurable difference", "step": "holds"}),
    Preset("nli-nodes", "NLI's three nodes",
           dict(data="nli", noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: contradiction 0, neutral 1, entailment 2; the prediction's category is the nearest "
           "node, so the verdict and the map read accuracy.",
           "At step 1,000 the buffer costs accuracy (−0.96 ± 0.20 points: reversed), as the recorded encoder "
           "fine-tunes on SNLI found; stopped at its best the difference is −0.80 ± 0.39, no measurable difference "
           "at n = 20.",
           expects={"best": "no measurable difference", "step": "reversed"}),
)
BY_NAME = {preset.name: preset for preset in PRESETS}
