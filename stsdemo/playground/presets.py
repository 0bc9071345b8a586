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

from ..story import Story, Words
from ..verdict import Verdict
from .config import PlaygroundConfig
from .stories import STORIES


@dataclass(frozen=True)
class Preset:
    name: str  # the key in links (``preset=<name>``) and in the records (``preset/<name>``)
    title: Words
    settings: dict
    do: Words  # what to press and what runs
    story: Story  # the question before, what to watch, the reveal after (:mod:`.stories`)
    expects: dict[str, Verdict] = field(default_factory=dict)  # reading -> verdict at the last step (tested)
    hide: tuple[str, ...] = ("lr", "batch_size", "head", "width", "d", "speed", "model")  # a classroom's link

    def config(self) -> PlaygroundConfig:
        return replace(PlaygroundConfig(), **self.settings)


PRESETS = (
    Preset(
        "memorisation",
        Words("The memorisation brake", "记忆化的刹车"),
        dict(noise=0.25, train_pairs=800, seeds=20, steps=3000),
        Words(
            "Press **▶ Play** and let it run all 3,000 steps: 20 seeds of the paper's head learn from 800 STS-B "
            "pairs with noisy labels (σ 0.25), with the buffer (Smooth K2) and without it (k·MSE), side by side. "
            "Each twin of each seed is also stopped at its own best step, chosen on 160 more noisy pairs it never "
            "trained on.",
            "按下 **▶ 运行**，让它跑完全部 3,000 步：论文回归头的 20 个种子从 800 个带噪声标签（σ 0.25）的 STS-B "
            "句对中学习，带缓冲区（Smooth K2）与不带缓冲区（k·MSE）并排进行。每个种子的每个孪生模型还会在它自己的"
            "最佳步停止，最佳步由另外 160 个从未训练过的带噪声句对选出。",
        ),
        STORIES["memorisation"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS},
    ),
    Preset(
        "big-clean",
        Words("Big clean data", "大量干净数据"),
        dict(noise=0.0, train_pairs=0, seeds=20, steps=1000),
        Words(
            "Press **▶ Play**: every training pair the selection set leaves (5,238), with clean labels.",
            "按下 **▶ 运行**：使用选择集之外的全部训练句对（5,238 个），标签干净。",
        ),
        STORIES["big-clean"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.NO_DIFFERENCE},
    ),
    Preset(
        "widest-buffer",
        Words("The widest buffer: x0 = d/2", "最宽的缓冲区：x0 = d/2"),
        dict(x0=0.5, noise=0.0, train_pairs=800, seeds=20, steps=1000),
        Words(
            "Press **▶ Play**: the buffer reaches halfway to the next node, the most the rule x0 ≤ d/2 allows.",
            "按下 **▶ 运行**：缓冲区延伸到与相邻节点的中点，这是规则 x0 ≤ d/2 允许的最大值。",
        ),
        STORIES["widest-buffer"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.HOLDS},
    ),
    Preset(
        "nli-nodes",
        Words("NLI's three nodes", "NLI 的三个节点"),
        dict(data="nli", noise=0.0, train_pairs=0, seeds=20, steps=1000),
        Words(
            "Press **▶ Play**: contradiction 0, neutral 1, entailment 2; the prediction's category is the nearest "
            "node, so the verdict and the map read accuracy.",
            "按下 **▶ 运行**：矛盾 0、中立 1、蕴含 2；预测的类别是最近的节点，所以判定和地图读取的是准确率。",
        ),
        STORIES["nli-nodes"],
        expects={"best": Verdict.NO_DIFFERENCE, "step": Verdict.REVERSED},
    ),
)
BY_NAME = {preset.name: preset for preset in PRESETS}
