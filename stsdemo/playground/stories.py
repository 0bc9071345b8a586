"""The story presets' lessons (:class:`stsdemo.story.Story`), in English and 简体中文, written from the records
(``preset/<name>``: the page's own 20 seeds; ``preset/<name>/confirm``: 100 fresh seeds): the question's right
choice is what the fresh seeds show, the reveal's one number is theirs, and the fold for the curious quotes the
records' figures (tests/test_presets.py and tests/test_story.py check them). No torch here.
"""

from __future__ import annotations

from ..story import Question, Story, Words

RULE = Words(
    "The rule: a difference buffer − none is marked (holds or reversed) when its 95 % interval over the seeds "
    "lies off zero, negligible when it lies inside ± 0.1 points, else no measurable difference.",
    "判定规则：缓冲区 − 无缓冲区 的差值在种子间的 95 % 置信区间不含零时记为成立或相反，落在 ± 0.1 "
    "分以内记为可忽略，否则为无可测差异。",
)
TWINS = (
    Words("The twin with the buffer (Smooth K2)", "带缓冲区的孪生模型（Smooth K2）"),
    Words("The twin without it (k·MSE)", "不带缓冲区的孪生模型（k·MSE）"),
    Words("Neither: they end level", "都不是：两者持平"),
)
EFFECTS = (
    Words("It helps clearly", "明显有帮助"),
    Words("It costs a little", "略有损失"),
    Words("Nothing at all", "毫无影响"),
)


def with_rule(curious: Words) -> Words:
    return Words(f"{curious.en} {RULE.en}", f"{curious.zh}{RULE.zh}")


STORIES = {
    "memorisation": Story(
        Question(
            Words(
                "After 3,000 steps on 800 noisy pairs, which twin scores higher on the report pairs?",
                "在 800 个带噪声的句对上训练 3,000 步之后，哪个孪生模型在报告集句对上得分更高？",
            ),
            TWINS,
            0,
        ),
        Words(
            "Watch the [[memorisation:memorisation]] curve climb and the [[report:report]] curves fall, the "
            "[[twin:twin]] without the [[buffer:buffer]] first.",
            "观察[[memorisation:记忆化]]曲线上升、[[report:报告集]]曲线下降，不带[[buffer:缓冲区]]的"
            "[[twin:孪生模型]]先出现这种变化。",
        ),
        Words(
            "The [[buffer:buffer]] slows [[memorisation:memorisation]]: at the last step it is about 4.5 "
            "[[spearman:Spearman]] points ahead on [[fresh:fresh seeds]]. Yet [[best:stopped at its best]], the "
            "[[twin:twins]]' Spearman cannot be told apart: a brake, not a better model.",
            "[[buffer:缓冲区]]减缓了[[memorisation:记忆化]]：在最后一步，它在[[fresh:新种子]]上领先约 4.5 个 "
            "[[spearman:Spearman]] 点。但[[best:在最佳步停止]]时，两个[[twin:孪生模型]]的 Spearman "
            "分不出高下：它是刹车，而不是更好的模型。",
        ),
        with_rule(
            Words(
                "Both twins do best early, then memorise their 800 noisy pairs, faster without the buffer. So the gap at "
                "the step keeps opening: +1.76 ± 0.21 at step 1,000 and +5.23 ± 0.47 at step 3,000 on the page's 20 "
                "seeds, +4.52 ± 0.23 on 100 fresh seeds. Stopped at its best, Spearman shows no measurable difference "
                "(+0.27 ± 0.44 on the 20 seeds; over all 120 seeds −0.24 ± 0.22, 95 % interval −0.67 to +0.20), while "
                "the fresh seeds put a few fewer report pairs on their gold node with the buffer (−0.49 ± 0.14).",
                "两个孪生模型都在早期达到最佳，随后开始记忆它们的 800 个带噪声句对，不带缓冲区的更快。因此当前步的差距不断拉大："
                "页面自己的 20 个种子在第 1,000 步为 +1.76 ± 0.21，第 3,000 步为 +5.23 ± 0.47，100 个新种子上为 "
                "+4.52 ± 0.23。在最佳步停止时，Spearman 相关系数无可测差异（20 个种子为 +0.27 ± 0.44；全部 120 个种子为 "
                "−0.24 ± 0.22，95 % 置信区间 −0.67 到 +0.20），而新种子上带缓冲区的模型落在标注节点上的报告集句对略少"
                "（−0.49 ± 0.14）。",
            )
        ),
        quotes=("step", "spearman"),
    ),
    "big-clean": Story(
        Question(
            Words(
                "With all 5,238 clean training pairs, what does the buffer do to Spearman at step 1,000?",
                "使用全部 5,238 个干净的训练句对时，缓冲区在第 1,000 步对 Spearman 相关系数有什么影响？",
            ),
            EFFECTS,
            1,
        ),
        Words(
            "Watch the two [[report:report]] curves: with clean labels they rise together and stay close.",
            "观察两条[[report:报告集]]曲线：标签干净时，它们一同上升并保持接近。",
        ),
        Words(
            "With clean labels there is little to [[memorisation:memorise]], so little to brake. On "
            "[[fresh:fresh seeds]] the [[buffer:buffer]] costs a little: about 0.13 [[spearman:Spearman]] points "
            "at the last step, too little for the page's own run to show.",
            "标签干净时几乎没有可[[memorisation:记忆]]的内容，也就没有什么可刹住的。在[[fresh:新种子]]上，"
            "[[buffer:缓冲区]]在最后一步略有损失：约 0.13 个 [[spearman:Spearman]] 点，小到页面自己的这次运行看不出来。",
        ),
        with_rule(
            Words(
                "On the page's 20 seeds the twins look level (stopped at its best −0.03 ± 0.16, at step 1,000 "
                "−0.09 ± 0.06). 100 fresh seeds see further: at step 1,000 the buffer costs a little Spearman "
                "(−0.13 ± 0.03; over all 120 seeds −0.12 ± 0.02, 95 % interval −0.17 to −0.07), and stopped at its best "
                "it puts fewer report pairs on their gold node (−0.38 ± 0.09): only the pull it leaves out.",
                "在页面自己的 20 个种子上，两个孪生模型看起来持平（在最佳步停止为 −0.03 ± 0.16，第 1,000 步为 "
                "−0.09 ± 0.06）。100 个新种子看得更清楚：第 1,000 步时缓冲区让 Spearman 相关系数略有损失（−0.13 ± 0.03；"
                "全部 120 个种子为 −0.12 ± 0.02，95 % 置信区间 −0.17 到 −0.07），在最佳步停止时落在标注节点上的报告集句对"
                "也更少（−0.38 ± 0.09）：这只是它省去的那部分拉力。",
            )
        ),
        quotes=("step", "spearman"),
    ),
    "widest-buffer": Story(
        Question(
            Words(
                "With the widest buffer (x0 = d/2), stopped at its best, which twin puts more report pairs "
                "on their gold node?",
                "使用最宽的缓冲区（x0 = d/2）并在最佳步停止时，哪个孪生模型让更多报告集句对落在标注节点上？",
            ),
            TWINS,
            1,
        ),
        Words(
            "Watch the hollow dots, the predictions inside the [[buffer:buffer]]: some sit at the very edge "
            "where they round to the next [[node:node]].",
            "观察空心点，即落在[[buffer:缓冲区]]内的预测：其中一些恰好位于会被取整到相邻[[node:节点]]的边缘。",
        ),
        Words(
            "With the [[buffer:buffer]] reaching halfway to the next [[node:node]], predictions left alone sit on "
            "the rounding edge. [[best:Stopped at its best]], the buffered twin puts about 0.7 points fewer "
            "[[report:report pairs]] on their gold node on [[fresh:fresh seeds]].",
            "[[buffer:缓冲区]]延伸到与相邻[[node:节点]]的中点时，不受拉力的预测停在取整的边缘。"
            "[[best:在最佳步停止]]时，在[[fresh:新种子]]上带缓冲区的模型落在标注节点上的[[report:报告集句对]]"
            "约少 0.7 个百分点。",
        ),
        with_rule(
            Words(
                "Stopped at its best, Spearman shows no measurable difference (−0.22 ± 0.53 on the page's 20 seeds; "
                "+0.04 ± 0.20 over all 120 seeds), but the buffered twin puts fewer report pairs on their gold node "
                "(−1.10 ± 0.47 points on the 20 seeds, −0.70 ± 0.15 on 100 fresh seeds): the Loss explorer's lesson in "
                "training. At step 1,000 the buffer is ahead (+3.84 ± 0.28; +3.76 ± 0.17 on fresh seeds) because it "
                "memorises more slowly.",
                "在最佳步停止时，Spearman 相关系数无可测差异（页面的 20 个种子为 −0.22 ± 0.53；全部 120 个种子为 "
                "+0.04 ± 0.20），但带缓冲区的孪生模型落在标注节点上的报告集句对更少（20 个种子为 −1.10 ± 0.47 个百分点，"
                "100 个新种子为 −0.70 ± 0.15）：这正是损失探索器的道理在训练中的体现。第 1,000 步时缓冲区领先"
                "（+3.84 ± 0.28；新种子上 +3.76 ± 0.17），因为它记忆得更慢。",
            )
        ),
        quotes=("best", "accuracy"),
    ),
    "nli-nodes": Story(
        Question(
            Words(
                "On SNLI's three nodes, what does the buffer do to accuracy?",
                "在 SNLI 的三个节点上，缓冲区对准确率有什么影响？",
            ),
            EFFECTS,
            1,
        ),
        Words(
            "Watch the dots gather on the three [[node:nodes]], and the accuracy in the readings.",
            "观察点聚集到三个[[node:节点]]上，以及读数中的准确率。",
        ),
        Words(
            "On NLI the [[buffer:buffer]] costs accuracy: [[best:stopped at its best]], about 1.0 point fewer "
            "pairs land on their gold [[node:node]] on [[fresh:fresh seeds]], as the recorded encoder fine-tunes "
            "on SNLI found.",
            "在 NLI 上[[buffer:缓冲区]]会损失准确率：[[best:在最佳步停止]]时，在[[fresh:新种子]]上落在标注"
            "[[node:节点]]上的句对约少 1.0 个百分点，与已记录的 SNLI 编码器微调结果一致。",
        ),
        with_rule(
            Words(
                "At step 1,000 the buffer costs accuracy (−0.78 ± 0.20 points on the page's 20 seeds, −1.08 ± 0.11 on "
                "100 fresh seeds). Stopped at its best the 20 seeds show no measurable difference (−0.66 ± 0.49), but "
                "100 fresh seeds do (−1.00 ± 0.18; over all 120 seeds −0.94 ± 0.17, 95 % interval −1.28 to −0.61): a "
                "cost too small for 20 seeds to show.",
                "第 1,000 步时缓冲区损失准确率（页面的 20 个种子为 −0.78 ± 0.20 个百分点，100 个新种子为 −1.08 ± 0.11）。"
                "在最佳步停止时，20 个种子无可测差异（−0.66 ± 0.49），但 100 个新种子显示了差异（−1.00 ± 0.18；全部 "
                "120 个种子为 −0.94 ± 0.17，95 % 置信区间 −1.28 到 −0.61）：这一损失小到 20 个种子显示不出来。",
            )
        ),
        quotes=("best", "accuracy"),
    ),
}
