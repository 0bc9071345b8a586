"""The start-here path: four steps through the app for someone who has just read the paper, each a link that
opens the state it talks about (``?tab=...``), with what to do there and its story (a question, what to watch,
a reveal and a fold for the curious). The app shows them at
the top of the page (:mod:`stsdemo.app.lesson`), the README lists the same links, and the static site's page
shows the steps it can play. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .playground.presets import BY_NAME
from .story import Question, Story, Words

MEMORISATION = BY_NAME["memorisation"]  # the Playground's step is this story preset, sentence and all


@dataclass(frozen=True)
class Step:
    tab: str  # the tab's key in :mod:`stsdemo.app.links`
    title: Words
    query: str  # the link that opens the step's state (``?tab=...``)
    do: Words  # what to do there
    story: Story  # the question before, what to watch, the reveal after (:mod:`stsdemo.story`)


STEPS = (
    Step(
        "loss",
        Words("See the buffer zone", "看看缓冲区"),
        "?tab=loss&k=2&x0=0.25&d=1&prediction=3.6&label=3",
        Words(
            "Drag **buffer x0** up, past the dashed line at **d/2 = 0.5**.",
            "把 **缓冲区 x0** 向上拖，越过 **d/2 = 0.5** 处的虚线。",
        ),
        Story(
            Question(
                Words(
                    "A prediction sits inside the buffer, close to its label. What pull does training give "
                    "it?",
                    "一个预测落在缓冲区内，离它的标签很近。训练会给它多大的拉力？",
                ),
                (
                    Words("None: it is left alone", "没有：它不受影响"),
                    Words("A stronger pull than MSE", "比 MSE 更强的拉力"),
                    Words("The same pull as MSE", "与 MSE 相同的拉力"),
                ),
                0,
            ),
            Words(
                "Watch the pull (right chart) go flat inside the [[buffer:buffer]], and the red band that opens "
                "past the dashed line.",
                "观察拉力（右图）在[[buffer:缓冲区]]内变平，以及越过虚线后出现的红色区域。",
            ),
            Words(
                "Inside the [[buffer:buffer]] the loss is flat, so the pull is zero: that prediction is left "
                "alone. Past halfway to the next [[node:node]] a prediction already rounds wrong yet gets no "
                "pull, so the buffer stays within half the gap.",
                "在[[buffer:缓冲区]]内损失是平的，拉力为零：离标签这么近的预测不受影响。越过与相邻[[node:节点]]"
                "的中点后，预测已被取整到错误的标签，却仍然得不到拉力，所以缓冲区最多只占间距的一半。",
            ),
            Words(
                "Inside the buffer both losses are flat and the pull (right chart) is zero. Past d/2 a red band "
                "opens: predictions there already round to the wrong label yet get no pull, which is why "
                "training keeps x0 ≤ d/2.",
                "在缓冲区内两种损失都是平的，拉力（右图）为零。越过 d/2 后出现红色区域：那里的预测已被取整到错误的标签，"
                "却得不到拉力，这就是训练要求 x0 ≤ d/2 的原因。",
            ),
        ),
    ),
    Step(
        "playground",
        Words("Watch the buffer act", "看缓冲区起作用"),
        f"?tab=playground&preset={MEMORISATION.name}",
        MEMORISATION.do,
        MEMORISATION.story,
    ),
    Step(
        "score",
        Words("Read a prediction on the label line", "在标签线上读一个预测"),
        "?tab=score&s1=A%20man%20is%20riding%20an%20electric%20bicycle.&s2=A%20man%20is%20riding%20a%20bicycle."
        "&scheme=sts&gold=3.5",
        Words(
            "Look at where the pair lands, then switch the label scheme to **NLI**.",
            "看句对落在哪里，然后把标签方案切换到 **NLI**。",
        ),
        Story(
            Question(
                Words(
                    "How does the app name a prediction's category on the 0–5 line?",
                    "在 0–5 的标签线上，应用如何确定一个预测的类别？",
                ),
                (
                    Words("The nearest node", "最近的节点"),
                    Words("The node just below it", "它下方最近的节点"),
                    Words("A separate classifier decides", "由另一个分类器决定"),
                ),
                0,
            ),
            Words(
                "Watch where the pair lands on the line, and which line the app reads once you switch to NLI.",
                "观察句对落在标签线的哪个位置，以及切换到 NLI 后应用读取的是哪条线。",
            ),
            Words(
                "A prediction is one point on the label line; its category is the nearest [[node:node]]. A number "
                "means something only on the line its model was trained on, so NLI gets its own scorer.",
                "预测是标签线上的一个点；它的类别就是最近的[[node:节点]]。一个数字只有在模型训练时所用的那条线上才有意义，"
                "所以 NLI 使用它自己的打分模型。",
            ),
            Words(
                "The blue band around each node is the buffer where training stops pulling. NLI is another "
                "line, so the app switches to the NLI scorer: a number is read only on the line its model was "
                "trained on.",
                "每个节点周围的蓝色区域就是训练停止施加拉力的缓冲区。NLI 是另一条线，所以应用会切换到 NLI "
                "打分模型：一个数字只在其模型训练所用的线上解读。",
            ),
        ),
    ),
    Step(
        "train",
        Words("Train with and without the buffer", "带与不带缓冲区各训练一次"),
        "?tab=train",
        Words(
            "Press **Compare with and without the buffer**: the same short fine-tune twice, with x0 = 0.25 and "
            "with x0 = 0, one after the other (set **Compare seeds** to 2 or 3 for a paired mean ± se).",
            "按下 **对比有无缓冲区**：同样的短时微调做两次，一次 x0 = 0.25，一次 x0 = 0，先后进行（把 **对比用的种子数** "
            "设为 2 或 3，可得到配对的均值 ± 标准误）。",
        ),
        Story(
            Question(
                Words(
                    "One seed each: the buffered dev curve ends a little higher. What does that show?",
                    "每种各一个种子：带缓冲区的验证曲线最后略高一些。这说明了什么？",
                ),
                (
                    Words("The buffer is better", "缓冲区更好"),
                    Words(
                        "Nothing yet: a gap must beat the seed-to-seed spread",
                        "还说明不了什么：差距必须超过种子之间的波动",
                    ),
                    Words("The buffer is worse", "缓冲区更差"),
                ),
                1,
            ),
            Words(
                "Watch whether the two dev curves part by more than the spread stated beside them.",
                "观察两条验证曲线的差距是否超过旁边标出的波动范围。",
            ),
            Words(
                "One [[seed:seed]] each cannot decide: a gap counts only when it is larger than the "
                "seed-to-seed spread. The Benchmark tab's claims answer it over many runs.",
                "每种只有一个[[seed:种子]]无法下结论：只有差距大于种子之间的波动才算数。基准测试页的各项结论用多次运行"
                "回答了这个问题。",
            ),
            Words(
                "Whether the two dev curves differ by more than the seed-to-seed spread stated beside them: the "
                "question the Benchmark tab's claim C2 answers over many runs, each a paired mean ± se.",
                "两条验证曲线的差异是否超过旁边标出的种子间波动：基准测试页的结论 C2 用多次运行回答了这个问题，"
                "每次都是配对的均值 ± 标准误。",
            ),
        ),
    ),
)
