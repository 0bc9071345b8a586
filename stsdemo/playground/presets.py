"""Story presets: named Playground states, each with what to do and one sentence to notice, written from the
recorded 20-seed run of that very state (what the page shows, by the same engine on the same pinned data) and its
run on 100 fresh seeds (``python -m bench.evidence.presets [--confirm]``; a
test checks every sentence's figures and verdicts against the records, and that each mark it quotes from the 20 seeds
repeats on the fresh ones). Each preset is a link (:mod:`stsdemo.app.links`), and a teacher's link may hide
controls.

The settings are changes to :class:`~stsdemo.playground.config.PlaygroundConfig`'s defaults; ``expects`` names
the verdict each reading gives at the run's last step (``best``: each twin stopped at its best; ``step``: both at
the last step), which is what the sentence says. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..verdict import Verdict
from .config import PlaygroundConfig


@dataclass(frozen=True)
class Preset:
    name: str                 # the key in links (``preset=<name>``) and in the records (``preset/<name>``)
    title: str
    settings: dict
    do: str
    notice: str
    expects: dict[str, Verdict] = field(default_factory=dict)   # reading -> verdict at the last step (tested)
    hide: tuple[str, ...] = ("lr", "batch_size", "head", "width", "d", "speed", "model")   # a classroom's link

    def config(self) -> PlaygroundConfig:
        return replace(PlaygroundConfig(), **self.settings)


PRESETS = (
    Preset("memorisation", "The memorisation brake",
           dict(noise=0.25, train_pairs=800, seeds=20, steps=3000),
           "Press **▶ Play** and let it run all 3,000 steps: 20 seeds of the paper's head learn from 800 STS-B pairs "
           "with noisy labels (σ 0.25), with the buffer (Smooth K2) and without it (k·MSE), side by side. Each twin "
           "of each seed is also stopped at its own best step, chosen on 160 more noisy pairs it never trained on.",
           "Both twins do best early, then memorise their 800 noisy pairs: the memorisation curve climbs and the "
           "report set's Spearman falls, faster without the buffer. So the gap at this step keeps opening: "
           "+1.76 ± 0.21 at step 1,000 and +5.23 ± 0.47 at step 3,000 on these 20 seeds, +4.52 ± 0.23 on 100 fresh "
           "seeds. Stopped at its best, you cannot tell the twins apart (+0.27 ± 0.44 here; over all 120 seeds "
           "−0.24 ± 0.22, 95 % interval −0.67 to +0.20). The buffer is a brake on memorisation, not a better "
           "model. Click a dot to read its pair.",
           expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS}),
    Preset("big-clean", "Big clean data",
           dict(noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: every training pair the selection set leaves (5,238), with clean labels.",
           "With every pair and clean labels there is little to memorise, so little for the buffer to slow. On "
           "these 20 seeds the twins look level (stopped at its best −0.03 ± 0.16, at step 1,000 −0.09 ± 0.06). "
           "100 fresh seeds see further: at step 1,000 the buffer costs a little Spearman (−0.13 ± 0.03; over all "
           "120 seeds −0.12 ± 0.02, 95 % interval −0.17 to −0.07), and stopped at its best it puts fewer report "
           "pairs on their gold node (−0.38 ± 0.09): only the pull it leaves out.",
           expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.NO_DIFFERENCE}),
    Preset("widest-buffer", "The widest buffer: x0 = d/2",
           dict(x0=0.5, noise=0.0, train_pairs=800, seeds=20, steps=1000),
           "Press **▶ Play**: the buffer reaches halfway to the next node, the most the rule x0 ≤ d/2 allows.",
           "Stopped at its best, Spearman shows no measurable difference (−0.22 ± 0.53 here; +0.04 ± 0.20 over "
           "all 120 seeds), but the buffered twin puts fewer report pairs on their gold node (−1.10 ± 0.47 points "
           "here, −0.70 ± 0.15 on 100 fresh seeds): a prediction left alone just inside x0 = d/2 sits at the "
           "rounding edge, so some round to the neighbouring node, the Loss explorer's lesson in training. At step "
           "1,000 the buffer is ahead (+3.84 ± 0.28; +3.76 ± 0.17 on fresh seeds) because it memorises more "
           "slowly.",
           expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS}),
    Preset("nli-nodes", "NLI's three nodes",
           dict(data="nli", noise=0.0, train_pairs=0, seeds=20, steps=1000),
           "Press **▶ Play**: contradiction 0, neutral 1, entailment 2; the prediction's category is the nearest "
           "node, so the verdict and the map read accuracy.",
           "At step 1,000 the buffer costs accuracy (−0.78 ± 0.20 points here, −1.08 ± 0.11 on 100 fresh seeds), "
           "as the recorded encoder fine-tunes on SNLI found. Stopped at its best these 20 seeds show no measurable "
           "difference (−0.66 ± 0.49), but 100 fresh seeds do (−1.00 ± 0.18; over all 120 seeds −0.94 ± 0.17, "
           "95 % interval −1.28 to −0.61): stopped at its best the buffer costs accuracy too, a cost too small for "
           "20 seeds to show.",
           expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.REVERSED}),
)
BY_NAME = {preset.name: preset for preset in PRESETS}
