"""The lesson's story, in English and 简体中文: for each start-here step (:mod:`stsdemo.lesson`) and each story preset
(:mod:`stsdemo.playground.presets`) a question a student answers before playing, what to watch while it plays, a
reveal in plain words after the run, and a fold for the curious with the intervals, seeds and the rule; and the
glossary of the words they use. The Playground page draws them (``web/story.js``) from site.json.

A text marks a glossary word as ``[[key:the words shown]]``; :func:`plain` is the text as read. No torch here.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

LANGUAGES = ("en", "zh")
TERM = re.compile(r"\[\[([a-z-]+):([^\]]+)\]\]")


@dataclass(frozen=True)
class Words:
    """One text in every language the page speaks."""

    en: str
    zh: str

    def __post_init__(self):
        missing = [language for language in LANGUAGES if not getattr(self, language).strip()]
        if missing:
            raise ValueError(f"a lesson text has no {', '.join(missing)}: {self.en or self.zh!r}")


@dataclass(frozen=True)
class Question:
    ask: Words
    choices: tuple[Words, ...]
    answer: int  # the right choice's place in ``choices``, as the records show

    def __post_init__(self):
        if not 0 <= self.answer < len(self.choices) or len(self.choices) < 2:
            raise ValueError(f"question {self.ask.en!r}: answer {self.answer} is not one of its choices")


@dataclass(frozen=True)
class Story:
    question: Question
    watch: Words  # one sentence: what to watch while it plays
    reveal: Words  # after the run: at most 40 words and one number, the fresh seeds' figure
    curious: Words  # the closed fold: intervals, seeds and the rule
    # the confirmation record's reading the reveal's number is (``preset/<name>/confirm``, last checkpoint):
    # (``best`` or ``step``, metric); None for a reveal with no number
    quotes: tuple[str, str] | None = None

    def as_data(self) -> dict:
        return asdict(self)


def plain(text: str) -> str:
    """A text as read: each marked glossary word as its shown words."""
    return TERM.sub(lambda found: found.group(2), text)


GLOSSARY = {
    "spearman": (
        Words("Spearman", "Spearman 相关系数"),
        Words(
            "How well the predicted order of the pairs matches their gold order, ×100: 100 is the same "
            "order, 0 no relation. The STS score the paper reports.",
            "预测的句对排序与标注排序的一致程度，乘以 100：100 表示顺序完全相同，0 表示毫无关系。论文报告的 STS 指标。",
        ),
    ),
    "seed": (
        Words("seed", "种子"),
        Words(
            "The number that fixes a run's random start and batches. Many seeds are many runs: a difference "
            "that holds across them is not luck.",
            "决定一次训练的随机初始化和批次顺序的数字。多个种子就是多次训练：在它们之间都成立的差异才不是运气。",
        ),
    ),
    "twin": (
        Words("twin", "孪生模型"),
        Words(
            "The two heads trained side by side from the same start on the same batches: one with the buffer, "
            "one without it.",
            "从同一起点、用同样批次并排训练的两个回归头：一个带缓冲区，一个不带。",
        ),
    ),
    "buffer": (
        Words("buffer zone", "缓冲区"),
        Words(
            "A band of width x0 around each label: a prediction inside it gets no pull (zero gradient). "
            "Smooth K2 and Translated ReLU have one; their twins do not.",
            "每个标签两侧宽为 x0 的区间：预测落在其中时不受拉力（梯度为零）。Smooth K2 与 Translated ReLU "
            "有缓冲区，它们的孪生损失没有。",
        ),
    ),
    "node": (
        Words("node", "节点"),
        Words(
            "A label value on the 0–5 line (or NLI's 0, 1, 2). A prediction's category is its nearest node; "
            "the gap between two nodes is d.",
            "标签线上的一个取值（STS 为 0–5，NLI 为 0、1、2）。预测的类别就是离它最近的节点；相邻节点的间距为 d。",
        ),
    ),
    "memorisation": (
        Words("memorisation", "记忆化"),
        Words(
            "Fitting the training pairs' own noisy labels instead of what they mean: the fit on "
            "training pairs climbs while the score on unseen pairs falls.",
            "模型去拟合训练句对自带噪声的标签，而不是它们的含义：训练集上的拟合越来越好，未见过的句对上的得分却在下降。",
        ),
    ),
    "best": (
        Words("stopped at its best", "在最佳步停止"),
        Words(
            "Each twin of each seed is kept at the step where it scored best on held-back selection pairs it "
            "never trained on, as early stopping does.",
            "每个种子的每个孪生模型都保留在它于留出的选择集（从未训练过）上得分最高的那一步，即提前停止的做法。",
        ),
    ),
    "fresh": (
        Words("fresh seeds", "新种子"),
        Words(
            "100 more seeds run after the sentences were written, to check that what 20 seeds showed "
            "repeats: the figure a reveal quotes.",
            "写好说明之后另外跑的 100 个种子，用来检验 20 个种子所显示的结果是否会重现：揭晓中引用的数字即来自它们。",
        ),
    ),
    "report": (
        Words("report pairs", "报告集句对"),
        Words(
            "Clean held-out pairs the page scores the twins on; they choose nothing, so they measure "
            "honestly.",
            "用于给孪生模型打分的干净留出句对；它们不参与任何选择，因此测量是公正的。",
        ),
    ),
}


def glossary_data() -> dict:
    """The glossary as site.json carries it: each key's shown name and meaning, per language."""
    return {
        key: {"name": asdict(name), "meaning": asdict(meaning)} for key, (name, meaning) in GLOSSARY.items()
    }
